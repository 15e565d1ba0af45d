#!/usr/bin/env bash
# Pictures of `worldcup serve` for the README, in headless Chromium: a phone (390×844 CSS
# pixels, at twice the density) following the scorer link, and a TV (1920×1080, ?tv).
# usage: docs/serve-screenshots.sh [WORLDCUP_BINARY] [OUTPUT_FOLDER]   (defaults: the debug build, docs)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="${1:-$root/.build/debug/worldcup}"
output="${2:-$root/docs}"
work="$(mktemp -d)"
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$output"

run() { "$binary" "$@" --db "$work/store.sqlite" --seed "$root/seed.json" >/dev/null; }

# Some history, as after an evening of scoring.
run win Brazil --count 5; run win Germany --count 7; run win Netherlands --count 5
run win Argentina --count 6; run win Colombia --count 4; run win Costa Rica --count 3
run win Algeria --count 2; run win Belgium --count 4; run win France --count 3

HOME="$work" XDG_DATA_HOME="$work/data" "$binary" serve --db "$work/store.sqlite" --seed "$root/seed.json" \
    --listen 127.0.0.1:0 >"$work/serve.out" 2>&1 &
server=$!
for _ in $(seq 300); do grep -q '^Scorers: ' "$work/serve.out" && break; sleep 0.1; done
viewers="$(sed -n 's/^Viewers: //p' "$work/serve.out")"
scorers="$(sed -n 's/^Scorers: //p' "$work/serve.out")"
[ -n "$viewers" ] && [ -n "$scorers" ] || { cat "$work/serve.out" >&2; exit 1; }

shoot() {
    # --timeout, not --virtual-time-budget: the page's event stream never lets virtual time run out.
    timeout 120 chromium --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --hide-scrollbars \
        --user-data-dir="$work/profile-$1" --window-size="$2" --force-device-scale-factor="$3" \
        --timeout=4000 --screenshot="$output/$1.png" "$4" >"$work/$1.log" 2>&1 \
        || { cat "$work/$1.log" >&2; exit 1; }
}
shoot serve-phone 390,844 2 "$scorers"
shoot serve-tv 1920,1080 1 "${viewers}?tv"
echo "Wrote $output/serve-phone.png serve-tv.png"
