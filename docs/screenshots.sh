#!/usr/bin/env bash
# Text screenshots of the scoreboard in a real terminal (tmux, 80×24), for the README.
# usage: docs/screenshots.sh [WORLDCUP_BINARY] [OUTPUT_FOLDER]   (defaults: the debug build, docs/screenshots)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="${1:-$root/.build/debug/worldcup}"
output="${2:-$root/docs/screenshots}"
work="$(mktemp -d)"
socket="worldcup-screenshots-$$"
cleanup() {
    tmux -L "$socket" kill-server 2>/dev/null || true
    # Each scoreboard saves its cache into the folder as it ends: let them end (5 s at most),
    # or removing the folder races with their writes and fails.
    for _ in $(seq 50); do pgrep -f "$work/store.sqlite" >/dev/null || break; sleep 0.1; done
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$output"

run() { "$binary" "$@" --db "$work/store.sqlite" --seed "$root/seed.json" >/dev/null; }
keys() { tmux -L "$socket" send-keys -t shot "$@"; sleep 0.4; }
shoot() { tmux -L "$socket" capture-pane -p -t shot | sed -e 's/[[:space:]]*$//' > "$output/$1.txt"; }

# Some history, as after an evening of scoring.
run win Brazil --count 5; run win Germany --count 7; run win Netherlands --count 5
run win Argentina --count 6; run win Colombia --count 4; run win Costa Rica --count 3
run win Algeria --count 2; run win Belgium --count 4; run win France --count 3

tmux -L "$socket" -f /dev/null new-session -d -s shot -x 80 -y 24 \
    "env LANG=C.UTF-8 TERM=screen-256color XDG_CACHE_HOME='$work/cache' '$binary' --db '$work/store.sqlite' --seed '$root/seed.json'"
sleep 1
shoot list
keys / a n
shoot search
keys Enter "'" e
keys "?"
shoot help
# Esc alone, as a person presses it: Esc with the next key in one write is an Alt chord.
keys Escape
keys S +
keys -l Wenderland
keys Tab
keys -l "North, C"
shoot dialog
keys Escape
# A win from another terminal: Italy joins the Netherlands in a shared 2nd, ▲3 for 10 s.
run win Italy --count 5
sleep 0.5
shoot movement
# The filter: \ and text narrows the list as it is typed.
keys -l '\ger'
shoot filter
keys Escape
# Screen-reader mode: the selected row marked >, another terminal's win said on the status line.
tmux -L "$socket" new-session -d -s reader -x 80 -y 24 \
    "env LANG=C.UTF-8 TERM=screen-256color XDG_CACHE_HOME='$work/cache' '$binary' --db '$work/store.sqlite' --seed '$root/seed.json' --screen-reader"
sleep 1
tmux -L "$socket" send-keys -t reader Down Down
sleep 0.4
run win Ghana
sleep 0.6
tmux -L "$socket" capture-pane -p -t reader | sed -e 's/[[:space:]]*$//' > "$output/screen-reader.txt"
echo "Wrote $output/list.txt search.txt help.txt dialog.txt movement.txt filter.txt screen-reader.txt"
