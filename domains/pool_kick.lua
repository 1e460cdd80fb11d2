-- Pool kick shot: the black ball blocks the straight line from the cue ball to
-- the red, so the cue ball must come off a cushion first, then hit the red, which must drop into a
-- pocket. The order is the goal itself, a tp.sequence (docs/lua-api.md "Conditions over time"):
--   1. the cue ball touches a cushion, 2. then (at a later step) the red, 3. then the red is in a
-- pocket. A direct hit that happens to pocket the red, or a red that reaches a pocket off a rim
-- before the cue ball ever touched a cushion, does not count (no geometry encodes the order).
-- The valid condition says the rest: tp.never(the cue ball touches the black) prunes a shot the
-- step it happens, and a red that moves before the cue ball has touched a cushion (a direct hit)
-- is a dead end.
--
-- The stroke is aimed by the kick's geometry: for every pocket and every rail, the ghost-ball
-- point G behind the red (for that pocket's mouth) and the point B on the rail (the line of the
-- ball's centre, R off the cushion face) from which a rebound that keeps the tangential speed and
-- `rebound` of the normal one reaches G. Candidates whose three legs (cue -> B, B -> G,
-- red -> mouth) are clear of the black, whose B is on a cushion (not in a pocket's gap) and whose
-- cut at the red is at most 60 degrees are sampled by weight, then the stroke within a disc of
-- tan(`spread`) times its length around the aim (its direction within `spread` degrees, its
-- strength within as many per cent times 1.75).
--
-- Parameters (all optional):
--   layout   "name:x,y;..." as pool's (balls: cue, red, black; the others are off the table)
--   rebound  the cushion's ratio of normal speeds used by the aim (default 0.8, its restitution)
--   spread   degrees: the half width of the sampled stroke direction around each aim (default 1.0)
--   order    "sequence" (default): the goal and valid above. "none": what a script without conditions
--            over time can say, goal = the red in a pocket, valid without tp.never and tp.ever (for
--            measurements: the cost of the temporal conditions, docs/domains.md). "watch": as "none",
--            plus the kick's sequence in the valid condition as an observer that refuses nothing
--            (tp.any { s, tp.negate(s) }): the plan's "temporal" member then says whether the
--            pocketing shot it found was a kick
local tp = require "tp"
local T = require "pool_table"  -- domains/lib/pool_table.lua: the table, its pockets and the rack
local S = require "pool_shots"  -- domains/lib/pool_shots.lua: rails, rebound points, the stroke

local R = T.R

local layout = tp.param("layout", "")
local rebound = tp.param("rebound", 0.8, { min = 0.1, max = 1.0 })
local spread = tp.param("spread", 1.0, { min = 0.0, max = 45.0 })
local order = tp.param("order", "sequence", { choices = { "sequence", "none", "watch" } })

local bodies, rack = S.table3("cue:-0.7,0.05;black:-0.1,0.02;red:0.55,0.0", layout)
local BALLS, by_name = rack.balls, rack.by_name
if by_name.red.off or by_name.black.off then error("--set layout: the kick needs the red and the black on the table", 0) end
local C, RED, BLACK = by_name.cue.pos, by_name.red.pos, by_name.black.pos
local function clear(a, b) return S.seg_dist(BLACK, a, b) >= 2 * R + 0.005 end

-- every pocket and rail: the ghost-ball point G behind the red for the pocket's mouth, the rebound
-- point B from which the cue ball reaches G
local candidates = {}
for _, p in ipairs(T.POCKETS) do
  local mouth = S.mouth_of(p)
  local G = S.ghost(RED, mouth)
  for _, rail in ipairs(S.RAILS) do
    local B = S.rebound_point(rail, C, G, rebound)
    if B and clear(C, B) and clear(B, G) and clear(RED, mouth) then
      local cut = S.cut_angle(B, G, mouth)
      if cut <= math.rad(60) then
        local len = S.dist(C, B) + S.dist(B, G) + S.dist(RED, mouth)
        -- a rebound loses speed: the stroke gives the red enough for its own way
        local v = math.min(4.0, math.max(1.5, 1.0 + 0.9 * len))
        candidates[#candidates + 1] = { ang = math.atan(B[2] - C[2], B[1] - C[1]), v = v,
                                        weight = math.cos(cut) ^ 2 / len }
      end
    end
  end
end
if #candidates == 0 then
  error("pool_kick: no kick shot (off one cushion, clear of the black, cut <= 60 degrees) reaches a pocket from this layout", 0)
end

local in_pocket = {}
for _, p in ipairs(T.POCKETS) do in_pocket[#in_pocket + 1] = T.pocketed("red", p) end
local cue_cushion = tp.touching { body = "cue", others = T.CUSHIONS }
local red_pocketed = tp.any(in_pocket)
local names = {}
for _, b in ipairs(BALLS) do names[#names + 1] = b.name end

-- the goal: the order of the kick, step after step
local kick = tp.sequence {
  cue_cushion,                                   -- 1. the cue ball off a cushion
  tp.touching { body = "cue", other = "red" },   -- 2. then onto the red
  red_pocketed,                                  -- 3. then the red down
}
local goal, valid = S.orders(order, {
  shot = kick,
  plain = red_pocketed,
  bad = {
    tp.moved { body = "black", tolerance = 0.001 },            -- the black moved (by the red)
    tp.settled { bodies = names, speed = 0.02 },                -- a shot that ended without the goal
    tp.inside { body = "cue", max = { math.huge, math.huge, -0.01 } },   -- no scratch
    -- the red came to rest on the cloth
    tp.all { tp.moved { body = "red" }, tp.slower { body = "red", speed = 0.02 }, tp.negate(red_pocketed) },
  },
  -- a direct hit: the red moved before the cue ball had come off a cushion
  ordered_bad = { tp.all { tp.moved { body = "red" }, tp.negate(tp.ever(cue_cushion)) } },
  plain_bad = { tp.touching { body = "cue", other = "black" } },   -- at this step only: no memory
  ordered_valid = { tp.never(tp.touching { body = "cue", other = "black" }) },   -- the blocker never touched
})

return S.domain {
  name = "pool_kick",
  fallback = "rest", -- an animation shot: an approximate plan ends at rest and landed (docs/lua-api.md#fallbacks)
  description = "kick shot: the cue ball off one cushion, then the red into a pocket, the black never touched (a tp.sequence goal)",
  bodies = bodies,
  tactics = { tp.tactic { name = "cue_ball", body = "cue", skills = { S.stroke(candidates, spread) } } },
  goal = goal,
  valid = valid,
}
