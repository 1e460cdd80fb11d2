-- Shared helpers for the test domains (loaded with require "common").
local tp = require "tp"
local M = {}

function M.ground(material)
  return tp.plane { name = "ground", normal = {0, 0, 1}, offset = 0, material = material }
end

return M
