-- Requires a sibling module with a syntax error on its line 2 (bad_module_lib.lua).
local tp = require "tp"
local lib = require "bad_module_lib"
return lib
