#!/usr/bin/env bash
# Pictures (PNG) of the scoreboard in a real xterm under Xvfb, for the README: a search and the
# help box, on a dark and on a light background.
# usage: docs/pictures.sh [WORLDCUP_BINARY] [OUTPUT_FOLDER]   (defaults: the debug build, docs/screenshots)
# Needs Xvfb, xterm, ImageMagick and the DejaVu Sans Mono font (`make deps` installs them).
#
# The scoreboard runs straight in xterm (in a pseudo-terminal of util-linux's `script`), so it
# asks xterm itself for the background colour; keys reach it through a FIFO whose bytes are
# merged with xterm's own input (its answers).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="${1:-$root/.build/debug/worldcup}"
output="${2:-$root/docs/screenshots}"
for tool in Xvfb xterm import compare script; do
    command -v "$tool" >/dev/null || { echo "pictures.sh: $tool is missing; run make deps" >&2; exit 1; }
done
work="$(mktemp -d)"
pids=()
cleanup() {
    # What runs in each xterm (its process group: script, the scoreboard hangs up with it),
    # then the xterms and Xvfb, the last started first.
    for group in "$work"/*.group; do [ -s "$group" ] && kill -- "-$(cat "$group")" 2>/dev/null || true; done
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$output"

# A display of its own: Xvfb picks a free number and writes it once it is ready.
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$work/display" >"$work/xvfb.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
[ -s "$work/display" ] || { echo "pictures.sh: Xvfb did not start: $(cat "$work/xvfb.log")" >&2; exit 1; }
export DISPLAY=":$(head -1 "$work/display")"

run() { "$binary" "$@" --db "$work/store.sqlite" --seed "$root/seed.json" >/dev/null; }
# Some history, as after an evening of scoring.
run win Brazil --count 5; run win Germany --count 7; run win Netherlands --count 5
run win Argentina --count 6; run win Colombia --count 4; run win Costa Rica --count 3
run win Algeria --count 2; run win Belgium --count 4; run win France --count 3

# The window as a picture, in few colours (text needs no more), small.
grab() { import -window "$1" -colors 24 +dither -strip "png8:$2"; }

# Whether two pictures are the same, pixel for pixel.
same() { compare -metric AE "$1" "$2" null: >/dev/null 2>&1; }

# Waits until the window differs from the picture `$2` and then stops changing (the program
# drew and xterm showed it); at most 15 s.
settle() {
    local window=$1 before=$2 previous="$work/previous.png" now="$work/now.png"
    cp "$before" "$previous"
    for _ in $(seq 75); do
        sleep 0.2
        grab "$window" "$now"
        if ! same "$now" "$before" && same "$now" "$previous"; then return 0; fi
        cp "$now" "$previous"
    done
    echo "pictures.sh: the window did not settle" >&2
    exit 1
}

# shoot THEME BACKGROUND FOREGROUND: the search and the help pictures on that background.
shoot() {
    local theme=$1 keys="$work/$1.keys" blank="$work/$1-blank.png"
    mkfifo "$keys"
    cat >"$work/$theme.sh" <<EOF
#!/bin/sh
echo "\$WINDOWID" > '$work/$theme.window'
echo "\$\$" > '$work/$theme.group'
stty raw -echo
{ cat '$keys' & cat; } | script -qfec "stty rows 24 cols 80; exec env LANG=C.UTF-8 TERM=xterm-256color \
XDG_CACHE_HOME='$work/cache' '$binary' --db '$work/store.sqlite' --seed '$root/seed.json'" /dev/null
EOF
    chmod +x "$work/$theme.sh"
    xterm -tn xterm-256color -bg "$2" -fg "$3" -fa "DejaVu Sans Mono" -fs 10 -geometry 80x24+0+0 \
        -e "$work/$theme.sh" 2>"$work/$theme-xterm.log" &
    pids+=($!)
    exec 4>"$keys"  # kept open: the program's input does not end between keys
    for _ in $(seq 100); do [ -s "$work/$theme.window" ] && break; sleep 0.1; done
    local window
    window="$(cat "$work/$theme.window")"
    # The empty window, before the program draws.
    convert -size 8x8 "xc:$2" "$blank"
    settle "$window" "$blank"
    grab "$window" "$work/list.png"
    printf '/an' >&4
    settle "$window" "$work/list.png"
    grab "$window" "$output/search-$theme.png"
    printf "\\r'e?" >&4
    settle "$window" "$output/search-$theme.png"
    grab "$window" "$output/help-$theme.png"
    printf 'xq' >&4
    exec 4>&-
}

shoot dark "#101010" "#e0e0e0"
shoot light "#ffffff" "#000000"
echo "Wrote $output/search-dark.png help-dark.png search-light.png help-light.png"
