-- A script with a syntax error on line 5.
local tp = require "tp"

return tp.domain {
  name = "broken" name2 = 1,
}
