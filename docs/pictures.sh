#!/usr/bin/env bash
# Pictures (PNG) of the scoreboard in a real xterm under Xvfb, for the README and for the tests
# that measure them: each state on a dark and on a light background, at 80×24 and at 250×60
# (a TV). The states, in order, each a picture STATE-THEME.png (80×24) and STATE-THEME-wide.png:
#   list            the standings as they start, the bar on the first team
#   search          "/an" typed: the bar on the first match, every match marked
#   flash           Enter, k: the marks kept, the bar on a team without a match; three teams
#                   win in another process and are highlighted (one of them marked)
#   flash-match     n: the bar on the next match, which is highlighted too
#   flash-selected  Esc: the marks gone, the bar on a highlighted team
#   help            ? over the list
#   dialog          the Add Team dialog, filled in
# usage: docs/pictures.sh [WORLDCUP_BINARY] [OUTPUT_FOLDER]   (defaults: the debug build, docs/screenshots)
# Needs Xvfb, xterm, ImageMagick and the DejaVu Sans Mono font (`make deps` installs them).
#
# The scoreboard runs straight in xterm (in a pseudo-terminal of util-linux's `script`), so it
# asks xterm itself for the background colour; keys reach it through a FIFO whose bytes are
# merged with xterm's own input (its answers). Others' changes stay highlighted for the whole
# run (WORLDCUP_HIGHLIGHT_SECONDS), so no picture depends on how fast it was taken. NO_COLOR,
# which a test runner may export, is not passed on: the pictures show the colours.
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

# A display of its own, room for a 250×60 window: Xvfb picks a free number and writes it once
# it is ready.
Xvfb -displayfd 3 -screen 0 2100x1100x24 -nolisten tcp 3>"$work/display" >"$work/xvfb.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
[ -s "$work/display" ] || { echo "pictures.sh: Xvfb did not start: $(cat "$work/xvfb.log")" >&2; exit 1; }
export DISPLAY=":$(head -1 "$work/display")"

# The window as a picture, in few colours (text needs no more), small.
grab() { import -window "$1" -colors 32 +dither -strip "png8:$2"; }

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

# shoot THEME BACKGROUND FOREGROUND COLUMNS ROWS SUFFIX: every state on that background, at
# that size, each on a store of its own with the same history.
shoot() {
    local theme=$1 columns=$4 rows=$5 suffix=$6
    local name="$theme$suffix" keys="$work/$1$6.keys" blank="$work/$1$6-blank.png" store="$work/$1$6.sqlite"
    run() { "$binary" "$@" --db "$store" --seed "$root/seed.json" >/dev/null; }
    # Some history, as after an evening of scoring.
    run win Brazil --count 5; run win Germany --count 7; run win Netherlands --count 5
    run win Argentina --count 6; run win Colombia --count 4; run win Costa Rica --count 3
    run win Algeria --count 2; run win Belgium --count 4; run win France --count 3
    mkfifo "$keys"
    cat >"$work/$name.sh" <<EOF
#!/bin/sh
echo "\$WINDOWID" > '$work/$name.window'
echo "\$\$" > '$work/$name.group'
stty raw -echo
{ cat '$keys' & cat; } | script -qfec "stty rows $rows cols $columns; exec env -u NO_COLOR -u COLORFGBG LANG=C.UTF-8 TERM=xterm-256color \
WORLDCUP_HIGHLIGHT_SECONDS=3600 XDG_CACHE_HOME='$work/cache' '$binary' --db '$store' --seed '$root/seed.json'" /dev/null
EOF
    chmod +x "$work/$name.sh"
    xterm -tn xterm-256color -bg "$2" -fg "$3" -fa "DejaVu Sans Mono" -fs 10 -geometry "${columns}x${rows}+0+0" \
        -e "$work/$name.sh" 2>"$work/$name-xterm.log" &
    pids+=($!)
    exec 4>"$keys"  # kept open: the program's input does not end between keys
    for _ in $(seq 100); do [ -s "$work/$name.window" ] && break; sleep 0.1; done
    local window
    window="$(cat "$work/$name.window")"
    # The empty window, before the program draws.
    convert -size 8x8 "xc:$2" "$blank"
    settle "$window" "$blank"
    local last="$output/list-$name.png"
    grab "$window" "$last"
    # step STATE: after keys or changes, the picture of the state they lead to.
    step() {
        settle "$window" "$last"
        grab "$window" "$output/$1-$name.png"
        last="$output/$1-$name.png"
    }
    printf '/an' >&4
    step search
    printf '\rk' >&4
    settle "$window" "$last"
    grab "$window" "$work/moved.png"
    last="$work/moved.png"
    run win Ghana; run win Japan; run win Germany
    step flash
    printf 'n' >&4
    step flash-match
    printf '\033' >&4
    step flash-selected
    printf '?' >&4
    step help
    printf 'x' >&4
    settle "$window" "$last"
    grab "$window" "$work/closed.png"
    last="$work/closed.png"
    printf 'S+Wenderland\tNorth, C' >&4
    step dialog
    # Esc closes the dialog, q quits: the window closes before the next one opens over it.
    printf '\033' >&4
    settle "$window" "$last"
    printf 'q' >&4
    exec 4>&-
    local xterm=${pids[${#pids[@]} - 1]}
    for _ in $(seq 100); do kill -0 "$xterm" 2>/dev/null || break; sleep 0.1; done
}

shoot dark "#101010" "#e0e0e0" 80 24 ""
shoot light "#ffffff" "#000000" 80 24 ""
shoot dark "#101010" "#e0e0e0" 250 60 "-wide"
shoot light "#ffffff" "#000000" 250 60 "-wide"
echo "Wrote $output: list search flash flash-match flash-selected help dialog, each -dark -light -dark-wide -light-wide"
