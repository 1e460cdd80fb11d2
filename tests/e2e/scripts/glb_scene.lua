-- The mesh tests' scene domain (tests/e2e/mesh.sh, mesh_blender.sh): the bodies of a glTF file
-- (--set file=..., default scene.glb beside this script) on a floor, a robot that waits, three
-- materials the files name; prints the node names for the tests to compare.
local tp = require "tp"
local bodies, names = tp.scene(tp.param("file", "scene.glb"))
print("NAMES=" .. table.concat(names, ","))
table.insert(bodies, 1, tp.plane { name = "floor" })
table.insert(bodies, tp.box { name = "robot", class = "active", size = {0.1, 0.1, 0.1}, mass = 1, pos = {-1, -1, 0.05} })
return tp.domain {
  name = "scene",
  materials = { tp.material { name = "default" }, tp.material { name = "wood", friction = 0.6 },
                tp.material { name = "dice", friction = 0.4, restitution = 0.1 } },
  bodies = bodies,
  tactics = { tp.tactic { name = "t", body = "robot", skills = { tp.skill.wait { name = "w", duration = 0.5 } } } },
  goal = function(s) return s.t > 2 end,
}

