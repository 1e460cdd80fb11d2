-- Ablation of minigolf (`tplan bench`): the same course, bodies, goal, constraints and
-- sampling space as domains/minigolf.lua, but the golfer's tactic is replaced by the built-in
-- `random` skill alone: a random force toward the sample y (BK-RRT) or in a random direction
-- (BK-BGT), held for a random time. That is a standard kinodynamic RRT with random controls,
-- so comparing it with minigolf shows how much the tactic reduces the search.
--
--   --set hold_max=S          longest time one random force is held (default 0.5 s)
--   --set distance=euclidean  BK-RRT distance: "min_time" (minigolf's) or "euclidean" (allows
--                             the nearest-neighbour index: the many-node NN measurement)
local tp = require "tp"

local HOLD_MAX = tp.param("hold_max", 0.5, { min = 1 / 60, max = 60 })
local DISTANCE = tp.param("distance", "min_time")

-- minigolf.lua ends in `return tp.domain { ... }`. While it loads, tp.domain hands back its
-- table unbuilt, so this variant reuses minigolf's definition without copying it.
local build = tp.domain
tp.domain = function(def) return def end
local ok, def = pcall(require, "minigolf")
tp.domain = build
if not ok then error(def, 0) end

def.name = "minigolf_random"
def.description = "ablation: minigolf with random forces instead of its tactic (standard kinodynamic RRT)"
def.tactics = {
  tp.tactic {
    name = "random", body = "robot",
    skills = { tp.skill.random { name = "push", body = "robot", duration = tp.uniform(1 / 60, HOLD_MAX) } },
    -- one skill: every decision point draws a fresh force and duration
  },
}
def.sampling.distance = DISTANCE

return tp.domain(def)
