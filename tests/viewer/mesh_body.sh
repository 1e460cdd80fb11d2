#!/usr/bin/env bash
# A mesh body is drawn as its own triangles, not as its bounding box (the viewer once drew every
# mesh body as a box about its origin: a bucket looked like a crate). A static wedge, the right
# triangle (0,0), (1,0), (0,1) m in plan view, 0.3 m tall and red, rendered straight from above
# centred on (0.5, 0.5): a point inside the triangle (0.2, 0.2) shows red, its mirror image
# outside the triangle but inside the box (0.8, 0.8) shows the green floor. The image's scale is
# not assumed: both probes are the same pixel offset from the image centre (0.3 m at up to
# 160 px/m; any scale between ~60 and 300 px/m keeps both inside the 1 m box).
# Usage (under xvfb.sh): mesh_body.sh TPLAN WORKDIR
set -u
tplan=$1 work=$2/mesh_body
rm -rf "$work" && mkdir -p "$work"
cd "$work" || exit 1
cat > wedge.obj <<'OBJ'
v 0 0 0
v 1 0 0
v 0 1 0
v 0 0 0.3
v 1 0 0.3
v 0 1 0.3
f 1 3 2
f 4 5 6
f 1 2 5
f 1 5 4
f 2 3 6
f 2 6 5
f 3 1 4
f 3 4 6
OBJ
cat > wedge.lua <<'LUA'
local tp = require "tp"
return tp.domain {
  name = "wedge",
  bodies = {
    tp.plane { name = "floor", color = {0.2, 0.6, 0.2, 1} },
    tp.box { name = "robot", class = "active", size = {0.2, 0.2, 0.2}, mass = 1, pos = {-1, -1, 0.1} },
    tp.mesh { name = "wedge", class = "static", file = "wedge.obj", pos = {0, 0, 0}, color = {0.9, 0.1, 0.1, 1} },
  },
  tactics = { tp.tactic { name = "t", body = "robot", skills = { tp.skill.wait { name = "w", duration = 0.5 } } } },
  goal = function(s) return s.t > 0.2 end,
}
LUA
"$tplan" plan wedge.lua -q -o p.json || { echo "FAIL: plan"; exit 1; }
"$tplan" render p.json --out fr --frames 0 --size 400x400 --no-trails --camera 0,-89.9,3,0.5,0.5,0 >render.txt 2>&1 ||
  { cat render.txt; echo "FAIL: render"; exit 1; }
python3 - fr/frame_000000.png <<'PY'
import sys, zlib, struct
def read_png(path):  # 8-bit RGB(A), non-interlaced: what tplan render writes
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, rows, prev = zlib.decompress(idat), [], bytearray(w * bpp)
    stride = w * bpp
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line); prev = line
    return w, h, bpp, rows
w, h, bpp, rows = read_png(sys.argv[1])
px = lambda x, y: tuple(rows[y][x * bpp:x * bpp + 3])
red = lambda p: p[0] > p[1] + 20 and p[0] > p[2] + 20
inside, outside = px(w // 2 - 48, h // 2 + 48), px(w // 2 + 48, h // 2 - 48)
ok = red(inside) and not red(outside)
print("inside the wedge", inside, "| inside its box only", outside, "->", "ok" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
