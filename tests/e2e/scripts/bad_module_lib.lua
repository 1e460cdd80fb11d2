-- A module with a syntax error on line 2 (required by bad_module.lua).
local M = = {}
return M
