-- tp.nav fixture: grids from tables and bodies, plans, follower (asserts fail the load).
local tp = require "tp"
local wall = tp.box { name = "wall", class = "static", size = {0.2, 3, 0.5}, pos = {2, 1.5, 0.25} }
local g = tp.nav.grid { origin = {0, 0}, cell = 0.1, size = {40, 40}, band = {0.02, 0.5}, radius = 0.2,
                        shapes = { wall, { kind = "disc", center = {3, 3}, radius = 0.3, z = {0, 1} } } }
assert(g:cell(2, 1) == "obstacle")
assert(g:cell(2.25, 1) == "grown")
assert(g:cell(0.5, 0.5) == "free")
assert(g:cell(-1, 0) == "outside")
local p = assert(g:plan({0.55, 0.55}, {3.55, 0.55}, { algo = "dijkstra", smooth = false }))
local q = assert(g:plan({0.55, 0.55}, {3.55, 0.55}, { algo = "astar", smooth = true }))
assert(math.abs(p.cost - q.cost) < 1e-9 and q.length <= p.length + 1e-9 and #q.points < #p.points)
assert(p.points[1][1] == 0.55 and p.points[1][2] == 0.55)
-- empty grid cost from cell (0,0) to (10,5) is 12 with diagonal 1.4
local e = tp.nav.grid { cell = 1, size = {20, 20} }
assert(math.abs(e:plan({0.5, 0.5}, {10.5, 5.5}).cost - 12.0) < 1e-12)
-- a full wall: no path
assert(e:add { kind = "box", center = {7.5, 10}, half = {0.5, 10} } == 20)
local none, why = e:plan({0.5, 0.5}, {10.5, 5.5})
assert(none == nil and why == "no path")
assert(not e:line_of_sight({0.5, 0.5}, {10.5, 5.5}))
assert(e:info().size[1] == 20 and e:info().cell == 1)
-- the follower from rest: v after one step is V/6
local f = tp.nav.follower({{0, 0}, {5, 0}}, { speed = 1.2 })
local a, done = f:step { x = 0, y = 0, theta = 0 }
assert(math.abs(a.v - 0.2) < 1e-12 and not done)
-- harmonic field and a two-pedestrian crowd in a corridor
local corr = tp.nav.grid { cell = 0.25, size = {41, 9},
                           shapes = { { kind = "box", center = {5.125, 0.125}, half = {5.125, 0.125} },
                                      { kind = "box", center = {5.125, 2.125}, half = {5.125, 0.125} } } }
local east = tp.nav.field(corr, { {10.1, 0.6}, {10.1, 0.9}, {10.1, 1.1}, {10.1, 1.4}, {10.1, 1.6} })
local sweeps, residual = east:stats()
assert(sweeps > 0 and residual <= 1e-9)
local dx, dy = east:descent(2.0, 1.125)
assert(dx > 0.99 and math.abs(dy) < 1e-9)
assert(east:closeness(0, 0) == 0 and east:closeness(40, 4) == 1)
local crowd = tp.nav.crowd(corr)
assert(crowd:add { pos = {0.6, 1.125}, goals = { east }, behaviour = "harmonic", step = 0.1 } == 1)
crowd:add { pos = {3.0, 0.8}, goals = { east }, eps = 1, v = {0, 1} }
for t = 1, 200 do crowd:step(t) end
assert(crowd:count() == 2 and crowd:ped(1).goal == 2 and crowd:ped(2).goal == 2)
-- vehicle: the automatic move tree and a drive around a 90 degree corner
local tree = tp.nav.move_tree()
local clips, skids = tree:clips(), 0
for _, c in ipairs(clips) do if c.skid then skids = skids + 1 end end
assert(#clips > 40 and skids >= 4)
-- (4 clips: with the to-go field blocking the walls, 3 clips without traffic brake to Stop in the
-- corner facing the outer wall, and a stopped car has no turning clips; see docs/navigation.md)
local run = tp.nav.drive(tree, { walls = { {-5, -6, 66, -6}, {66, -6, 66, 100}, {-5, 6, 54, 6}, {54, 6, 54, 100}, {-5, -6, -5, 6} },
                                 goal = {60, 120}, finish = {54, 50, 66, 50} }, { depth = 4 })
assert(run.finished and not run.crashed and run.clips > 5)
local closed = tp.nav.drive(tree, { walls = { {-5, -6, 66, -6}, {66, -6, 66, 100}, {-5, 6, 54, 6}, {54, 6, 54, 100}, {-5, -6, -5, 6} },
                                    goal = {60, 120}, finish = {54, 50, 66, 50} }, { depth = 6, closed_cell = 1.0 })
assert(closed.finished and not closed.crashed)
-- space-time navigation (Lopez 2011): an elevator learnt from observed poses only, then ridden
local function lift_top(t)
  local u = (t + 2) % 8
  if u < 2 then return 0, 0 elseif u < 4 then return u - 2, 1 elseif u < 6 then return 2, 0 end
  return 2 - (u - 6), -1
end
local function lift_scene(t)
  local top, vz = lift_top(t)
  return { { center = {2, 0, -0.5}, half = {2, 2, 0.5} },
           { center = {4.6, 0, top - 0.05}, half = {0.5, 0.5, 0.05}, vel = {0, 0, vz} },
           { center = {6.6, 0, 1}, half = {1.4, 2, 1} } }
end
local sp = tp.nav.space(3, { jump = false })
sp:update(0, lift_scene(0))
assert(sp:route(1, 3) == nil)
local agent = sp:agent { surface = 1, at = {-1.5, 0}, goal_surface = 3, goal = {1, 0.5} }
local st
for k = 1, 1200 do
  local t = k * 0.05
  sp:update(t, lift_scene(t))
  st = agent:step(t)
  if st.mode == "done" then break end
end
assert(st.mode == "done" and st.surface == 3 and st.transfers == 2, st.mode)
local e = assert(sp:edge(1, 2))
assert(e.periodic and not e.stable and math.abs(e.mean_valid + e.mean_invalid - 8) < 0.15 and e.kind == "step")
local route, cost = sp:route(1, 3)
assert(#route == 3 and route[2] == 2 and cost > 15)
assert(sp:stats().updates > 300 and sp:stats().plans >= 3)
return tp.domain {
  name = "navfixture",
  bodies = {
    tp.plane { name = "ground" }, wall,
    tp.cylinder { name = "robot", class = "active", radius = 0.15, length = 0.4, mass = 2, pos = {0.5, 0.5, 0.2},
                  max_force = 40, planar = true },
  },
  tactics = { tp.tactic { name = "t", body = "robot", start = "go",
    skills = { tp.skill.nav_to { name = "go", point = tp.uniform({0.3, 0.3}, {3.7, 2.7}), nav_cell = 0.05 } },
    transitions = { go = { go = 1 } } } },
  goal = tp.within { body = "robot", center = {3.5, 0.5}, radius = 0.3 },
}
