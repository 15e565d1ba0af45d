#!/usr/bin/env bash
# Pictures of `worldcup serve`, in headless Chromium driven through chromedriver (curl speaks its
# WebDriver API): each state of the page on a phone (390×844 CSS pixels at twice the density,
# following the scorer link) and on a TV (1920×1080, ?tv), light and dark:
#   phone-{light,dark}          the standings, ready to tap
#   phone-tapped-{light,dark}   a tap low on the page: the row marked, Undo in the bottom bar
#   phone-away-{light,dark}     the server stopped: what the page says meanwhile
#   tv-{light,dark}, tv-away-{light,dark}
# usage: docs/serve-screenshots.sh [WORLDCUP_BINARY] [OUTPUT_FOLDER]   (defaults: the debug build, docs/serve)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="${1:-$root/.build/debug/worldcup}"
output="${2:-$root/docs/serve}"
work="$(mktemp -d)"
server=""
driver=""
wd=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null
    if [ -n "$driver" ]; then
        curl -s -m 5 "$wd/shutdown" >/dev/null 2>&1 || true
        sleep 0.2
        kill "$driver" 2>/dev/null || true
    fi
    wait 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
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

# chromedriver on a free port (a few tries: another program may take the one picked).
for _ in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 40000))
    chromedriver --port="$port" >"$work/chromedriver.log" 2>&1 &
    driver=$!
    wd="http://127.0.0.1:$port"
    for _ in $(seq 100); do curl -s -m 2 "$wd/status" 2>/dev/null | grep -q '"ready":true' && break 2; sleep 0.1; done
    kill "$driver" 2>/dev/null || true
    driver=""
done
[ -n "$driver" ] || { echo "chromedriver did not start (make deps installs it)" >&2; cat "$work/chromedriver.log" >&2; exit 1; }

# call METHOD PATH [JSON]: a WebDriver command; its answer, or the script stops.
call() {
    local answer
    answer="$(curl -sS -m 120 -X "$1" "$wd$2" -H 'Content-Type: application/json' ${3:+-d "$3"})"
    if printf '%s' "$answer" | grep -q '"error":'; then
        echo "WebDriver $1 $2: ${answer:0:400}" >&2
        exit 1
    fi
    printf '%s' "$answer"
}

# session WIDTH HEIGHT SCALE NAME: a browser whose page is WIDTH×HEIGHT CSS pixels (set by the
# page's own metrics: headless windows are never narrower than 500 pixels); its session path.
session() {
    local args="\"--headless=new\",\"--no-sandbox\",\"--disable-gpu\",\"--disable-dev-shm-usage\",\"--no-first-run\""
    args+=",\"--hide-scrollbars\",\"--user-data-dir=$work/profile-$4\",\"--window-size=$(($1 < 500 ? 500 : $1)),$2\""
    local id
    id="$(call POST /session "{\"capabilities\":{\"alwaysMatch\":{\"browserName\":\"chrome\",
        \"goog:chromeOptions\":{\"binary\":\"/usr/bin/chromium\",\"args\":[$args]}}}}" |
        sed -n 's/.*"sessionId":"\([^"]*\)".*/\1/p')"
    [ -n "$id" ] || { echo "no browser session" >&2; exit 1; }
    call POST "/session/$id/goog/cdp/execute" "{\"cmd\":\"Emulation.setDeviceMetricsOverride\",
        \"params\":{\"width\":$1,\"height\":$2,\"deviceScaleFactor\":$3,\"mobile\":$([ "$1" -lt 600 ] && echo true || echo false)}}" \
        | grep -q . && echo "/session/$id"
}

# js SESSION SCRIPT: runs SCRIPT (no double quotes or backslashes in it) in the page.
js() { call POST "$1/execute/sync" "{\"script\":\"$2\",\"args\":[]}"; }

# until SESSION CONDITION: waits (up to 30 s) for CONDITION (a JavaScript expression) to hold.
until_true() {
    for _ in $(seq 300); do js "$1" "return !!($2);" | grep -q '"value":true' && return 0; sleep 0.1; done
    echo "gave up waiting for: $2" >&2
    exit 1
}

theme() {
    call POST "$1/goog/cdp/execute" "{\"cmd\":\"Emulation.setEmulatedMedia\",
        \"params\":{\"features\":[{\"name\":\"prefers-color-scheme\",\"value\":\"$2\"}]}}" >/dev/null
}

# shoot SESSION NAME: NAME-light.png and NAME-dark.png of the page as it is.
shoot() {
    for scheme in light dark; do
        theme "$1" "$scheme"
        sleep 0.3
        call GET "$1/screenshot" | sed -n 's/.*"value":"\([^"]*\)".*/\1/p' | sed 's#\\/#/#g' | base64 -d \
            >"$output/$2-$scheme.png"
    done
    theme "$1" light
}

ready='window.worldcup && window.worldcup.ready'
tv="$(session 1920 1080 1 tv)"
phone="$(session 390 844 2 phone)"

call POST "$tv/url" "{\"url\":\"${viewers}?tv\"}" >/dev/null
until_true "$tv" "$ready"
call POST "$phone/url" "{\"url\":\"$scorers\"}" >/dev/null
until_true "$phone" "$ready && document.body.classList.contains('scoring')"
sleep 0.5
shoot "$tv" tv
shoot "$phone" phone

# A tap on Chile, low on the page: its row marked, Undo at the bottom, the TV's row flashing.
js "$phone" "const row = Array.from(document.querySelectorAll('li.team')).find((li) => li.querySelector('.name').textContent === 'Chile'); row.scrollIntoView({ block: 'center' }); row.click(); return true;" >/dev/null
until_true "$phone" "!document.getElementById('undo').hidden"
sleep 1.5
shoot "$phone" phone-tapped

# The server goes away.
kill "$server"
wait "$server" 2>/dev/null || true
server=""
until_true "$phone" "document.body.classList.contains('away')"
until_true "$tv" "document.body.classList.contains('away')"
shoot "$phone" phone-away
shoot "$tv" tv-away

for session in "$tv" "$phone"; do call DELETE "$session" >/dev/null; done
echo "Wrote $output: phone, phone-tapped, phone-away, tv, tv-away, each -light.png and -dark.png"
