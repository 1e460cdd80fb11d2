-- walls.lua: static boxes given by their bounds, shared by the shipped domains (maze.lua,
-- navigation.lua, pool.lua). `local walls = require "walls"` (domains/lib/walls.lua).
--
--   walls.slab(name, x0, x1, y0, y1, z0, z1, material, color)  a static box filling the bounds (m)
--   walls.maker { height, material, color }                    -> wall(name, x0, y0, x1, y1): a slab
--                                                                 from the floor (z = 0) to height
--   walls.room(wall, w, h, t)                                  the four outer walls (thickness t)
--                                                                 around [0, w] x [0, h]: wall_south,
--                                                                 wall_north, wall_west, wall_east
local tp = require "tp"

local walls = {}

function walls.slab(name, x0, x1, y0, y1, z0, z1, material, color)
  return tp.box { name = name, class = "static", size = { x1 - x0, y1 - y0, z1 - z0 },
                  pos = { (x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2 }, material = material, color = color }
end

function walls.maker(opts)
  local height, material, color = opts.height, opts.material, opts.color
  return function(name, x0, y0, x1, y1)
    return walls.slab(name, x0, x1, y0, y1, 0, height, material, color)
  end
end

function walls.room(wall, w, h, t)
  return {
    wall("wall_south", 0, -t, w, 0), wall("wall_north", 0, h, w, h + t),
    wall("wall_west", -t, -t, 0, h + t), wall("wall_east", w, -t, w + t, h + t),
  }
end

return walls
