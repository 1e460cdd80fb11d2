-- A dynamic Π row, a custom skill, Lua goal/quality/solution functions (test fixture).
local tp = require "tp"
local rows = 0
return tp.domain {
  name = "dyn", dt = 1/60,
  bodies = {
    tp.plane { name = "ground" },
    tp.box { name = "robot", class = "active", size = {0.2, 0.2, 0.1}, mass = 2, pos = {0, 0, 0.05}, max_force = 50 },
  },
  tactics = {
    tp.tactic { name = "t", body = "robot", start = "pause",
      skills = {
        tp.skill.wait { name = "pause", duration = 0.05 },
        tp.skill.custom { name = "shove", run = function(ctx)
            if ctx.fresh then ctx.v[1] = 0 end
            ctx.v[1] = ctx.v[1] + 1
            ctx:force("robot", 40, 0, 0)
            return ctx.v[1] < 10
          end },
      },
      transitions = {
        pause = function(s)
          rows = rows + 1
          assert(s.t >= 0 and s:speed("robot") >= 0)
          return { shove = 1 }
        end,
        shove = { pause = 1 },
      },
    },
  },
  goal = tp.all {
    function(s) local x = s:pos("robot"); return rows > 0 and x > 0.02 end,
    tp.moved { body = "robot", tolerance = 0.01 },
  },
  quality = function(s) return -(s:pos("robot")) end,
  solution_metric = function(path)
    local fx = path.actions[path.n]:force("robot")
    assert(type(fx) == "number")
    return path.n - 1
  end,
  planner = { max_iters = 2000 },
}
