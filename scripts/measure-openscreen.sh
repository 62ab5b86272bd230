#!/usr/bin/env bash
# Our mirroring against Open Screen's standalone receiver and sender (the
# peers we did not write; ../shared/peers.md says how to build them outside
# this repository, with the one-line "decoded frame video|audio" log in
# cast/standalone_receiver/sdl_player_base.cc that this script counts).
#
#   scripts/measure-openscreen.sh OPENSCREEN_BUILD_DIR [SECONDS]   (default 10)
#
# 1. For each codec we offer (h264, av1, vp9, vp8): `cast screen
#    --test-pattern` at 1280x720, 30 fps, to cast_receiver; what it chose,
#    what we sent, and what it decoded.
# 2. CPU (user + system) per second of the same 20 s 720p30 clip with a tone,
#    ours (`cast screen --video Y4M --audio WAV`) against Open Screen's
#    `cast_sender` (which also demuxes and decodes its WebM), VP8 and VP9, one
#    after the other on an otherwise idle machine, and the ratio.
#
# Everything runs on 127.0.0.1 (the receiver listens on TLS 8010, media on UDP 2344).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/measure-openscreen.sh OPENSCREEN_BUILD_DIR [SECONDS]}
seconds=${2:-10}
receiver=$build/cast_receiver sender=$build/cast_sender
[ -x "$receiver" ] && [ -x "$sender" ] || { echo "measure-openscreen: no cast_receiver/cast_sender in $build" >&2; exit 1; }
swift build -c release --product cast >/dev/null 2>&1
cast=$(swift build -c release --show-bin-path 2>/dev/null)/cast
work=$(mktemp -d)
trap 'kill -KILL $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"
"$receiver" -g >/dev/null 2>&1
key=$work/generated_root_cast_receiver.key cert=$work/generated_root_cast_receiver.crt

# Runs "$@" against a fresh receiver whose log is $work/$name.log; the receiver
# may hang on SIGINT after a session (seen 2 in 17 runs), so it is killed after 5 s.
with_receiver() {
    local name=$1; shift
    SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy "$receiver" -x -p "$key" -d "$cert" lo >"$work/$name.log" 2>&1 &
    local pid=$!
    for _ in $(seq 50); do ss -ltn | grep -q ':8010 ' && break; sleep 0.2; done
    "$@" || true
    kill -INT "$pid" 2>/dev/null || true
    for _ in 1 2 3 4 5; do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
decoded() { grep -c "decoded frame $2" "$work/$1.log" || true; }

echo "| --codecs | chosen | sent / acked | video decoded | audio decoded |"
echo "|---|---|---|---|---|"
for codecs in h264 av1 vp9 vp8 h264,vp9 av1,h264; do
    name=pattern-${codecs/,/-}
    with_receiver "$name" sh -c "'$cast' screen --test-pattern --seconds $seconds --width 1280 --height 720 \
        --fps 30 --codecs $codecs --device 127.0.0.1:8010 --trust-anchor '$cert' --json \
        >'$work/$name.json' 2>'$work/$name.err'"
    chosen=$(sed -n 's/^streaming .* fps (\([^)]*\)).*/\1/p' "$work/$name.err" | head -1)
    counts=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['videoFramesSent'], '/', j['videoFramesAcknowledged'])" "$work/$name.json" 2>/dev/null || echo "-")
    echo "| $codecs | ${chosen:--} | $counts | $(decoded "$name" video) | $(decoded "$name" audio) |"
done

ffmpeg -v error -f lavfi -i testsrc2=size=1280x720:rate=30 -f lavfi -i sine=frequency=440:sample_rate=48000 -t 20 \
    -c:v libvpx -b:v 4M -c:a libopus -y clip.webm
ffmpeg -v error -i clip.webm -map 0:v -pix_fmt yuv420p -y clip.y4m
ffmpeg -v error -i clip.webm -map 0:a -c:a pcm_s16le -ar 48000 -y clip.wav
cpu() { awk '{ printf "%.2f", ($1 + $2) / 20 }' "$work/$1.time"; }
echo
echo "| codec | ours CPU-s/s | Open Screen's CPU-s/s | ratio | decoded (ours / theirs) |"
echo "|---|---|---|---|---|"
for codec in vp8 vp9 av1; do
    with_receiver "ours-$codec" /usr/bin/time -f "%U %S" -o "$work/ours-$codec.time" "$cast" screen \
        --video clip.y4m --audio clip.wav --codecs "$codec" --bitrate 5000 --device 127.0.0.1:8010 \
        --trust-anchor "$cert" --seconds 20 >/dev/null 2>&1
    with_receiver "theirs-$codec" /usr/bin/time -f "%U %S" -o "$work/theirs-$codec.time" "$sender" -n \
        -m 5000000 -c "$codec" -d "$cert" 127.0.0.1:8010 clip.webm >/dev/null 2>&1
    ours=$(cpu "ours-$codec") theirs=$(cpu "theirs-$codec")
    ratio=$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", a / b }')
    echo "| $codec | $ours | $theirs | $ratio | $(decoded "ours-$codec" video) / $(decoded "theirs-$codec" video) |"
done
