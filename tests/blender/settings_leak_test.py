# The add-on never writes its panel settings (the service token, URL, tplan path, working folder)
# into an exported scene: installed from its zip and enabled as a user does,
# the settings set to marker strings, then every export a user or the add-on makes is searched
# byte for byte for the markers: Plan's own scene.glb (_export_glb), File > Export as .glb, as
# .gltf with embedded buffers and as .gltf + .bin, and the service job's script built from
# Plan's scene.glb. The objects' own properties (tplan_class, mass) must still be there (a scrub
# that dropped every extra would pass the leak check and break tp.scene).
#   blender -b --factory-startup --python-exit-code 1 --python settings_leak_test.py -- ZIP WORKDIR
import json
import os
import sys

import bpy

args = sys.argv[sys.argv.index("--") + 1:]
zip_path, work = os.path.abspath(args[0]), os.path.abspath(args[1])
os.makedirs(work, exist_ok=True)
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
bpy.ops.preferences.addon_enable(module="tplan_blender")
import tplan_blender  # noqa: E402
from tplan_blender import core  # noqa: E402

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


bpy.ops.mesh.primitive_cube_add(size=0.1, location=(0, 0, 0.5))
cube = bpy.context.object
cube.name = "Crate"
bpy.ops.tplan.mark(cls="passive", mass=0.1, material="wood")
t = bpy.context.scene.tplan
SECRETS = {"token": "s3cret-TOKEN-42", "url": "http://127.0.0.1:9/leak-url", "tplan_path": "/opt/leak-tplan-path",
           "work_dir": "/tmp/leak-work-folder"}
t.goal, t.backend = "REST", "SERVICE"
for k, v in SECRETS.items():
    setattr(t, k, v)
if bpy.context.scene.get("tplan") is None:
    fail("the settings are not scene custom properties any more: this test no longer tests the leak")

outputs = []
glb = os.path.join(work, "scene.glb")
tplan_blender._export_glb(bpy.context, glb, [cube])
outputs.append(glb)
have = bpy.ops.export_scene.gltf.get_rna_type().properties.keys()
for fmt, name in (("GLB", "user.glb"), ("GLTF_EMBEDDED", "user_embedded.gltf"), ("GLTF_SEPARATE", "user_sep.gltf")):
    path = os.path.join(work, name)
    opts = {"filepath": path, "export_format": fmt, "export_extras": True, "use_selection": False}
    bpy.ops.export_scene.gltf(**{k: v for k, v in opts.items() if k in have})
    outputs.append(path)
    if fmt == "GLTF_SEPARATE":
        outputs += [os.path.join(work, f) for f in os.listdir(work) if f.endswith(".bin")]

# the job the service would get: the script with Plan's scene.glb inside it
s = tplan_blender.build_settings(bpy.context)
with open(glb, "rb") as f:
    s["scene_data"] = f.read()
script = os.path.join(work, "job.lua")
with open(script, "w") as f:
    f.write(core.domain_script(s))
outputs.append(script)

for path in outputs:
    if not os.path.exists(path):
        fail("%s was not written" % os.path.basename(path))
        continue
    data = open(path, "rb").read()
    for k, v in SECRETS.items():
        if v.encode() in data:
            fail("%s holds the %s setting (%r)" % (os.path.basename(path), k, v))
    if path.endswith((".glb", ".gltf")):
        js = json.loads(data[20:20 + int.from_bytes(data[12:16], "little")] if data[:4] == b"glTF" else data)
        ex = [n.get("extras", {}) for n in js.get("nodes", []) if n.get("name") == "Crate"]
        if not ex or ex[0].get("tplan_class") != "passive" or abs(ex[0].get("mass", 0) - 0.1) > 1e-6:
            fail("%s: the object's own extras are gone (node Crate: %s)" % (os.path.basename(path), ex))

# the scrubber itself, on a document as Blender 3.4 writes it
doc = {"scenes": [{"name": "Scene", "extras": {"tplan": {"token": "x"}, "other": 1}}],
       "nodes": [{"name": "A", "extras": {"tplan_class": "static"}}]}
if core.strip_settings(doc) != 1 or doc["scenes"][0]["extras"] != {"other": 1} or \
        doc["nodes"][0]["extras"] != {"tplan_class": "static"}:
    fail("core.strip_settings: %s" % doc)

print("blender_settings_leak: %d exports searched for %d settings: %s" % (
    len(outputs), len(SECRETS), "ok" if not failures else "FAILED"))
sys.exit(1 if failures else 0)
