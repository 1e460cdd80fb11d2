#!/usr/bin/env bash
# tplan render --video: the MP4 that ffmpeg encodes has the frame count and size of the PNG frames,
# and that count covers the motion exactly (ceil(duration x fps): the video is as long as the plan; at
# 60 fps, the plan's 1/60 s steps, as many frames as steps, not one more), per ffprobe (H.264,
# yuv420p), also for an odd size (padded to even by one pixel); a link at the video's name replaced,
# not written through; a video or a plan named like a frame of --out refused. Run under xvfb.sh.
# Exits 77 (skipped) when ffmpeg or ffprobe is not installed (.ci/install-deps installs ffmpeg).
# Usage: video.sh TPLAN WORKDIR
set -u
tplan=$1 work=$2/video
if ! command -v ffmpeg > /dev/null || ! command -v ffprobe > /dev/null; then
  echo "ffmpeg/ffprobe not installed: skipped"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
fail=0
"$tplan" plan pool --seed 1 -q -o "$work/pool.json" || { echo "FAIL: plan"; exit 1; }
for size in 320x240 161x121; do
  w=${size%x*} h=${size#*x}
  "$tplan" render "$work/pool.json" --out "$work/f$size" --size "$size" --fps 60 --video "$work/$size.mp4" \
    < /dev/null > "$work/$size.txt"
  rc=$?
  frames=$(ls "$work/f$size" | grep -c '^frame_[0-9]*\.png$')
  # exactly as many frames as the motion lasts: ceil(steps x dt x fps), not one more
  motion=$(python3 -c "import json,math,sys; p=json.load(open(sys.argv[1])); print(max(1, math.ceil(p['steps']*p['dt']*60 - 1e-9)))" "$work/pool.json")
  got=$(ffprobe -v error -count_frames -select_streams v:0 \
    -show_entries stream=codec_name,pix_fmt,width,height,nb_read_frames -of csv=p=0 "$work/$size.mp4")
  want="h264,$(((w + 1) / 2 * 2)),$(((h + 1) / 2 * 2)),yuv420p,$frames"
  echo "$size: render exit $rc, $frames PNG frames, $motion frames of motion; ffprobe: $got (expected $want)"
  if [ $rc -ne 0 ] || [ "$frames" -lt 2 ] || [ "$frames" != "$motion" ] || [ "$got" != "$want" ]; then
    echo "FAIL: $size"
    fail=$((fail + 1))
  fi
done
# the video replaces a symbolic link at its name, never the file the link points to (ffmpeg wrote
# through it), and no output of render may be one of its frames (repro render_video_follows_symlink)
echo victim > "$work/victim.txt"
ln -sfn victim.txt "$work/link.mp4"
"$tplan" render "$work/pool.json" --out "$work/fl" --size 64x48 --fps 5 --video "$work/link.mp4" -q < /dev/null
rc=$?
got=$(ffprobe -v error -select_streams v:0 -show_entries stream=codec_name -of csv=p=0 "$work/link.mp4")
if [ $rc -ne 0 ] || [ "$(cat "$work/victim.txt")" != victim ] || [ -L "$work/link.mp4" ] || [ "$got" != h264 ] ||
  ls -A "$work" | grep -q '\.tmp-'; then
  echo "FAIL: --video through a link: exit $rc, victim.txt '$(head -c 20 "$work/victim.txt")', link.mp4 $got"
  fail=$((fail + 1))
fi
err=$("$tplan" render "$work/pool.json" --out "$work/fv" --size 64x48 --fps 5 --video "$work/fv/frame_000001.png" \
  -q 2>&1 < /dev/null)
rc=$?
if [ $rc -ne 2 ] || ! grep -q 'is where a frame is written' <<< "$err" || [ -e "$work/fv/frame_000001.png" ]; then
  echo "FAIL: --video named like a frame: exit $rc: $err"
  fail=$((fail + 1))
fi
mkdir -p "$work/fp" && cp "$work/pool.json" "$work/fp/frame_000000.png"
err=$("$tplan" render "$work/fp/frame_000000.png" --out "$work/fp" --frames 0 --size 64x48 -q 2>&1 < /dev/null)
rc=$?
if [ $rc -ne 2 ] || ! grep -q 'the plan file .* is where a frame is written' <<< "$err" ||
  ! cmp -s "$work/pool.json" "$work/fp/frame_000000.png"; then
  echo "FAIL: a plan named like a frame of --out: exit $rc: $err"
  fail=$((fail + 1))
fi
echo "video: $fail failure(s)"
[ $fail -eq 0 ]
