# The add-on installs from its zip the way a user installs it (Edit > Preferences > Add-ons >
# Install...) and enables: its operators and settings exist afterwards.
#   blender -b --factory-startup --python-exit-code 1 --python install_test.py -- ZIP
import sys

import bpy

zip_path = sys.argv[sys.argv.index("--") + 1]
bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
bpy.ops.preferences.addon_enable(module="tplan_blender")
ok = hasattr(bpy.types.Scene, "tplan") and hasattr(bpy.ops.tplan, "plan") and hasattr(bpy.ops.tplan, "apply")
ok = ok and "tplan_blender" in bpy.context.preferences.addons
print("blender_addon: installed from %s and enabled: %s" % (zip_path.rsplit("/", 1)[-1], "ok" if ok else "FAILED"))
sys.exit(0 if ok else 1)
