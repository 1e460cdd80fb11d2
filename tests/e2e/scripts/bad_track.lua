local tp = require "tp"
local x = tp.nav.track("no_such") -- line 2: tp.nav.track raises (no tracks/no_such.json here)
return x
