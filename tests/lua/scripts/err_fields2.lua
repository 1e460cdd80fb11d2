-- two unknown fields on line 3: the alphabetically first is reported, whatever the hash order
local tp = require "tp"
return tp.box { name = "x", zz = 1, size = {1, 1, 1}, mass = 1, aa = 2 }
