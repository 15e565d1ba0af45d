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
# and, each group in a scoreboard of its own on a store with the same history:
#   filter          "\an" typed: only the names containing it, the title "N of M teams"
#   movement        Esc, then from other processes Italy's five wins (▲3 to a shared 2nd),
#                   the Netherlands corrected to 3 wins (▼2) and Andorra added (NEW)
#   screen-reader   with --screen-reader, j j: the cursor and > on Ghana's row; Ghana wins in
#                   another process and the status line says so
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

# A change from another process, to the store of the scoreboard running.
run() { "$binary" "$@" --db "$store" --seed "$root/seed.json" >/dev/null; }

# start SESSION [OPTION...]: a store of its own with the evening's history, and the scoreboard
# on it (with those options) in an xterm of shoot's size and colours, drawn; keys written to
# descriptor 4 reach it. Sets window, store, and last: the picture the next step differs from.
start() {
    local session=$1
    shift
    local keys="$work/$session.keys" blank="$work/$session-blank.png"
    store="$work/$session.sqlite"
    # Some history, as after an evening of scoring.
    run win Brazil --count 5; run win Germany --count 7; run win Netherlands --count 5
    run win Argentina --count 6; run win Colombia --count 4; run win Costa Rica --count 3
    run win Algeria --count 2; run win Belgium --count 4; run win France --count 3
    mkfifo "$keys"
    cat >"$work/$session.sh" <<EOF
#!/bin/sh
echo "\$WINDOWID" > '$work/$session.window'
echo "\$\$" > '$work/$session.group'
stty raw -echo
{ cat '$keys' & cat; } | script -qfec "stty rows $rows cols $columns; exec env -u NO_COLOR -u COLORFGBG LANG=C.UTF-8 TERM=xterm-256color \
WORLDCUP_HIGHLIGHT_SECONDS=3600 XDG_CACHE_HOME='$work/cache' '$binary' --db '$store' --seed '$root/seed.json' $*" /dev/null
EOF
    chmod +x "$work/$session.sh"
    # In screen-reader mode the cursor is the point: drawn filled, as in a window that has the
    # focus (without a window manager none has; xterm would draw a hollow box).
    local look=()
    [[ " $* " == *" --screen-reader "* ]] && look=(-xrm "XTerm*alwaysHighlight: true")
    xterm -tn xterm-256color -bg "$background" -fg "$foreground" -fa "DejaVu Sans Mono" -fs 10 "${look[@]}" \
        -geometry "${columns}x${rows}+0+0" -e "$work/$session.sh" 2>"$work/$session-xterm.log" &
    pids+=($!)
    exec 4>"$keys"  # kept open: the program's input does not end between keys
    for _ in $(seq 100); do [ -s "$work/$session.window" ] && break; sleep 0.1; done
    window="$(cat "$work/$session.window")"
    # The empty window, before the program draws.
    convert -size 8x8 "xc:$background" "$blank"
    settle "$window" "$blank"
    last="$work/$session-drawn.png"
    grab "$window" "$last"
}

# step STATE [FOLDER]: after keys or changes, the picture of the state they lead to, in the
# output folder as STATE-THEME.png, or in FOLDER (a state on the way, not shown).
step() {
    settle "$window" "$last"
    last="${2:-$output}/$1-$name.png"
    grab "$window" "$last"
}

# quit: q (after the last step settled), and the window closes before the next one opens over
# it.
quit() {
    printf 'q' >&4
    exec 4>&-
    local xterm=${pids[${#pids[@]} - 1]}
    for _ in $(seq 100); do kill -0 "$xterm" 2>/dev/null || break; sleep 0.1; done
}

# shoot THEME BACKGROUND FOREGROUND COLUMNS ROWS SUFFIX: every state on that background, at
# that size.
shoot() {
    local theme=$1 background=$2 foreground=$3 columns=$4 rows=$5 suffix=$6
    local name="$theme$suffix" window store last
    start "$name"
    cp "$last" "$output/list-$name.png"
    printf '/an' >&4
    step search
    printf '\rk' >&4
    step moved "$work"
    run win Ghana; run win Japan; run win Germany
    step flash
    printf 'n' >&4
    step flash-match
    printf '\033' >&4
    step flash-selected
    printf '?' >&4
    step help
    printf 'x' >&4
    step closed "$work"
    printf 'S+Wenderland\tNorth, C' >&4
    step dialog
    # Esc closes the dialog.
    printf '\033' >&4
    step cancelled "$work"
    quit

    # The filter, and then marks of movement: each change waited for, the last one shown
    # long before the first one's mark (10 s) is gone.
    start "$name-moves"
    printf '\\an' >&4
    step filter
    printf '\033' >&4
    step unfiltered "$work"
    run win Italy --count 5
    step italy "$work"
    run set-wins Netherlands 3
    step netherlands "$work"
    run add --name Andorra --zone Europe
    step movement
    quit

    # Screen-reader mode: j j selects Ghana; then another process's win.
    start "$name-reader" --screen-reader
    printf 'jj' >&4
    step ghana "$work"
    run win Ghana
    step screen-reader
    quit
}

shoot dark "#101010" "#e0e0e0" 80 24 ""
shoot light "#ffffff" "#000000" 80 24 ""
shoot dark "#101010" "#e0e0e0" 250 60 "-wide"
shoot light "#ffffff" "#000000" 250 60 "-wide"
echo "Wrote $output: list search flash flash-match flash-selected help dialog filter movement screen-reader," \
    "each -dark -light -dark-wide -light-wide"
