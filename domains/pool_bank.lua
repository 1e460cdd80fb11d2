-- Pool bank shot: the cue ball sends the red off one cushion into a pocket. The
-- goal is the bank's order, one tp.sequence per pocket (docs/lua-api.md "Conditions over time"):
--   1. the cue ball touches the red, 2. then the red touches a cushion that is none of the
--   pocket's own sides (the jaws of a corner pocket, the rail of a middle one), 3. then the red is
--   in that pocket.
-- So a red that drops straight in, or one that rattles off the pocket's jaw on the way in (a
-- rim-in, which goals without memory had to accept as a bank), does not count.
--
-- The stroke is aimed by the bank's geometry: for every pocket and every rail that is none of its
-- sides, the point B on the rail (the line of the ball's centre) from which the red's rebound
-- (tangential speed kept, `rebound` of the normal one) reaches the pocket's mouth, and the
-- ghost-ball point that sends the red to B; candidates whose B is on a cushion and whose cut is at
-- most 60 degrees are sampled by weight cos^2(cut) / length, then the force within a disc of
-- tan(`spread`) of its length (domains/lib/pool_shots.lua, shared with pool_kick.lua).
--
-- Parameters (all optional):
--   layout   "name:x,y;..." as pool's (balls: cue, red; the others are off the table)
--   rebound  the cushion's ratio of normal speeds used by the aim (default 0.8, its restitution)
--   spread   degrees: the half width of the sampled stroke direction around each aim (default 1.0)
--   order    "sequence" (default): the goal above. "none": what a script without conditions over time
--            can say, goal = the red in a pocket. "watch": as "none", with the banks' sequences in
--            the valid condition as observers that refuse nothing, so that the plan's "temporal"
--            member says whether the shot found was a bank (docs/domains.md#pool-bank-shot)
local tp = require "tp"
local T = require "pool_table"  -- domains/lib/pool_table.lua: the table, its pockets and the rack
local S = require "pool_shots"  -- domains/lib/pool_shots.lua: rails, rebound points, the stroke

local layout = tp.param("layout", "")
local rebound = tp.param("rebound", 0.8, { min = 0.1, max = 1.0 })
local spread = tp.param("spread", 1.0, { min = 0.0, max = 45.0 })
local order = tp.param("order", "sequence", { choices = { "sequence", "none", "watch" } })

local bodies, rack = S.table3("cue:-0.6,-0.3;red:0.3,-0.1", layout)
local BALLS, by_name = rack.balls, rack.by_name
if by_name.red.off then error("--set layout: the bank needs the red on the table", 0) end
local C, RED = by_name.cue.pos, by_name.red.pos

local candidates, banks = {}, {}
for _, p in ipairs(T.POCKETS) do
  local mouth = S.mouth_of(p)
  local cushions = {}
  for _, rail in ipairs(S.RAILS) do
    if not S.rail_of_pocket(rail, p) then
      for _, c in ipairs(rail.cushions) do cushions[#cushions + 1] = c end
      local B = S.rebound_point(rail, RED, mouth, rebound)
      local G = B and S.ghost(RED, B)
      local cut = G and S.cut_angle(C, G, B)
      if cut and cut <= math.rad(60) then
        local len = S.dist(C, G) + S.dist(RED, B) + S.dist(B, mouth)
        -- the red leaves at about cos(cut) of the cue ball's speed and loses some at the cushion
        local v = math.min(4.5, math.max(1.5, (1.0 + 0.9 * len) / math.cos(cut)))
        candidates[#candidates + 1] = { ang = math.atan(G[2] - C[2], G[1] - C[1]), v = v,
                                        weight = math.cos(cut) ^ 2 / len }
      end
    end
  end
  -- the bank into p: onto the red, the red off a cushion none of p's sides, the red down in p
  banks[#banks + 1] = tp.sequence {
    tp.touching { body = "cue", other = "red" },
    tp.touching { body = "red", others = cushions },
    T.pocketed("red", p),
  }
end
if #candidates == 0 then
  error("pool_bank: no bank shot (off one cushion, cut <= 60 degrees) reaches a pocket from this layout", 0)
end

local in_pocket = {}
for _, p in ipairs(T.POCKETS) do in_pocket[#in_pocket + 1] = T.pocketed("red", p) end
local red_pocketed = tp.any(in_pocket)
local names = {}
for _, b in ipairs(BALLS) do names[#names + 1] = b.name end
local bank = tp.any(banks)
local goal, valid = S.orders(order, {
  shot = bank,
  plain = red_pocketed,
  bad = {
    tp.settled { bodies = names, speed = 0.02 },                          -- a shot that ended without the goal
    tp.inside { body = "cue", max = { math.huge, math.huge, -0.01 } },   -- no scratch
    tp.all { tp.moved { body = "red" }, tp.slower { body = "red", speed = 0.02 }, tp.negate(red_pocketed) },
    tp.all { tp.moved { body = "cue" }, tp.slower { body = "cue", speed = 0.02 },
             tp.negate(tp.moved { body = "red" }) },                       -- missed it
  },
  ordered_bad = { tp.all { red_pocketed, tp.negate(bank) } },              -- in, but no bank: dead
})

return S.domain {
  name = "pool_bank",
  fallback = "rest", -- an animation shot: an approximate plan ends at rest and landed (docs/lua-api.md#fallbacks)
  description = "bank shot: the red off one cushion (not the pocket's jaws) into a pocket (a tp.sequence goal per pocket)",
  bodies = bodies,
  tactics = { tp.tactic { name = "cue_ball", body = "cue", skills = { S.stroke(candidates, spread) } } },
  goal = goal,
  valid = valid,
}
