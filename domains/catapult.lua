-- Seesaw catapult: a plank hinged on a fulcrum (tp.joint, a hinge with a stop) carries
-- a ball on its low end; a heavy ball on a shelf above the high end is driven off the shelf's edge,
-- lands on the plank and throws the ball into a bucket.
--
--   fulcrum  static box at x = 0, top z = 0.3; the plank (1.6 m) turns on it about y within +-0.35 rad
--   ball     0.05 m, 0.1 kg, on the plank's left end, against a lip glued there (a fixed joint)
--   shelf    static box x in [0.85, 2.2], top z = 1.2; the weight (active sphere 0.1 m, 3 kg, planar
--            force <= 30 N) starts on it and drive_to sends it toward a sampled point, off the edge
--   bucket   static walls 0.3 m high around x in [BX - 0.25, BX + 0.25], y in [-0.25, 0.25]
--   goal     the ball at rest (slower than 0.2 m/s) inside the bucket
--   valid    the ball stays in the corridor between the plank and the bucket (|y| <= 0.4 m)
local tp = require "tp"
local BX = tp.param("bucket_x", 2.8, { min = 2.5, max = 8 }) -- m: the bucket's centre
local wall = function(name, x, y, sx, sy)
  return tp.box { name = name, class = "static", size = { sx, sy, 0.3 }, pos = { x, y, 0.15 }, color = { 0.5, 0.35, 0.2, 1 } }
end
return tp.domain {
  name = "catapult",
  fallback = "rest", -- an animation shot: an approximate plan ends at rest and landed (docs/lua-api.md#fallbacks)
  description = "drop a weight on a seesaw to throw a ball into a bucket",
  dt = 1 / 60, substeps = 4,
  materials = { tp.material { name = "wood", friction = 0.6, restitution = 0.1 } },
  bodies = {
    tp.plane { name = "ground" },
    tp.box { name = "fulcrum", class = "static", size = { 0.1, 0.3, 0.3 }, pos = { 0, 0, 0.15 } },
    tp.box { name = "plank", class = "passive", size = { 1.6, 0.3, 0.04 }, mass = 1, pos = { 0, 0, 0.32 },
             color = { 0.8, 0.6, 0.3, 1 } },
    -- a lip glued to the plank's left end (a fixed joint) keeps the ball from rolling off
    tp.box { name = "lip", class = "passive", size = { 0.02, 0.3, 0.08 }, mass = 0.1, pos = { -0.79, 0, 0.38 },
             color = { 0.8, 0.6, 0.3, 1 } },
    tp.sphere { name = "ball", class = "passive", radius = 0.05, mass = 0.1, pos = { -0.725, 0, 0.39 },
                color = { 0.9, 0.2, 0.2, 1 } },
    tp.box { name = "shelf", class = "static", size = { 1.35, 0.6, 1.2 }, pos = { 1.525, 0, 0.6 } },
    tp.sphere { name = "weight", class = "active", radius = 0.1, mass = 3, pos = { 1.8, 0, 1.3 }, max_force = 30,
                planar = true, color = { 0.3, 0.3, 0.3, 1 } },
    wall("bucket_w", BX - 0.275, 0, 0.05, 0.6), wall("bucket_e", BX + 0.275, 0, 0.05, 0.6),
    wall("bucket_s", BX, -0.275, 0.5, 0.05), wall("bucket_n", BX, 0.275, 0.5, 0.05),
  },
  joints = {
    tp.joint { name = "pivot", kind = "hinge", bodies = { "plank", "fulcrum" }, anchor = { 0, 0, 0.32 },
               axis = { 0, 1, 0 }, limit = { -0.35, 0.35 } },
    tp.joint { name = "glue", kind = "fixed", bodies = { "lip", "plank" } },
  },
  tactics = {
    tp.tactic { name = "drop", body = "weight",
      skills = { tp.skill.drive_to { name = "go", point = tp.uniform({ 0.2, -0.05 }, { 1.2, 0.05 }) } } },
  },
  sampling = { tp.uniform({ 0.2, -0.05 }, { 1.2, 0.05 }), body = "weight" },
  goal = tp.all {
    tp.inside { body = "ball", min = { BX - 0.25, -0.25, 0 }, max = { BX + 0.25, 0.25, 0.3 } },
    tp.slower { body = "ball", speed = 0.2 }, -- landed, not falling through
  },
  -- a ball thrown or rolled off elsewhere can never reach the bucket: such states are cut, so the
  -- tree grows from the states before the drop instead
  valid = tp.inside { body = "ball", min = { -1.5, -0.4, 0 }, max = { 3.2, 0.4, 4 } },
  planner = { max_iters = 10000 },
}
