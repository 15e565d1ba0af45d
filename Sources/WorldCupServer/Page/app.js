'use strict';
// The standings page: keeps the rows the server rendered live from /events, touching only the
// rows each change set names, and lets a scorer's phone add wins.
(() => {
    const main = document.getElementById('standings');
    const summary = document.getElementById('summary');
    const lastChange = document.getElementById('last-change');
    const status = document.getElementById('status');
    const scoring = document.getElementById('scoring');
    const scoringNote = document.getElementById('scoring-note');
    const undoButton = document.getElementById('undo');
    const more = document.getElementById('more');
    const announcement = document.getElementById('announcement');
    const skipToUndo = document.getElementById('skip-to-scoring');
    const tv = document.body.classList.contains('tv');
    const step = 300;
    let windowRows = step;

    // What tests and benchmarks read: each change set's version, the ids it touched and when
    // the page had applied it to the DOM (epoch milliseconds).
    const report = { applied: [], appliedCount: 0, version: 0, snapshots: 0, taps: [] };
    report.ready = false;
    report.readyAt = 0;
    window.worldcup = report;
    const now = () => performance.timeOrigin + performance.now();

    // The standings: [{name, count, rows: [{id, name, wins}]}]; null until the first snapshot.
    let model = null;
    let loading = null;
    const rowNodes = new Map();
    const sectionNodes = new Map();
    const ownChanges = new Map();
    // How teams just moved, by id: {mark: '▲2', spoken: 'up 2 places', until}, shown beside
    // their ranks for 10 s, as the terminal does.
    const movements = new Map();
    const markMilliseconds = 10000;
    const mostMarkedRows = 256;

    const visible = (text) => String(text).replace(/[\u0000-\u001f\u007f-\u009f]/g, '\ufffd');
    const teams = (count) => (count === 1 ? '1 team' : `${count} teams`);
    const wins = (count) => (count === 1 ? '1 win' : `${count} wins`);
    const setText = (node, text) => { if (node.textContent !== text) node.textContent = text; };
    const setStatus = (text) => setText(status, text);
    // The server's templates of a zone and of a row: the script's are the same markup.
    const sectionTemplate = document.getElementById('section-template').content.firstElementChild;
    const rowTemplate = document.getElementById('row-template').content.firstElementChild;

    // The rows the server rendered, until the first snapshot arrives.
    for (const li of main.querySelectorAll('li.team')) rowNodes.set(Number(li.dataset.id), li);
    for (const section of main.querySelectorAll('section.zone')) {
        sectionNodes.set(section.querySelector('.zone-name').textContent, section);
    }

    // A row as the server renders it: a copy of its template (Page/row.html, in the page with
    // its slots empty), whose parts are filled by class name here and in showMarks.
    function makeRow(row) {
        const li = document.importNode(rowTemplate, true);
        li.dataset.id = String(row.id);
        fillRow(li, row);
        if (scorer.enabled) makeTappable(li);
        if (scorer.last && scorer.last.id === row.id) li.classList.add('last-win');
        return li;
    }

    // For a scorer, a row is a button that adds a win, named for what it does: its parts go
    // inside the button, which the keyboard reaches and Enter or Space presses.
    function makeTappable(li) {
        if (li.querySelector('button.tap')) return;
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'tap';
        button.append(...li.childNodes);
        li.append(button);
        nameButton(li);
    }

    function nameButton(li) {
        const button = li.querySelector('button.tap');
        if (!button) return;
        const name = li.querySelector('.name').textContent;
        const label = `Add a win to ${name}, ${wins(Number(li.querySelector('.wins').textContent))}`;
        if (button.getAttribute('aria-label') !== label) button.setAttribute('aria-label', label);
    }

    // A row's name and wins, each changed only if it differs, and a scorer's button named for
    // them.
    function fillRow(li, row) {
        setText(li.querySelector('.name'), visible(row.name));
        setText(li.querySelector('.wins'), String(row.wins));
        nameButton(li);
    }

    // A zone as the server renders it (Page/section.html), without its rows; render fills in
    // its name and count.
    const makeSection = () => document.importNode(sectionTemplate, true);

    // A sports table's rank: one more than the rows with more wins. `rows` are in order of
    // wins, most first, so a binary search finds it (a zone may hold a million teams, most of
    // them tied on 0 wins).
    function rankOf(rows, wins) {
        let low = 0;
        let high = rows.length;
        while (low < high) {
            const middle = (low + high) >> 1;
            if (rows[middle].wins > wins) low = middle + 1;
            else high = middle;
        }
        return low + 1;
    }

    // A mark's text, and its words for a screen reader when it has text.
    function setMark(node, text, label) {
        setText(node, text);
        if (text && node.getAttribute('aria-label') !== label) {
            node.setAttribute('role', 'img');
            node.setAttribute('aria-label', label);
        } else if (!text && node.hasAttribute('role')) {
            node.removeAttribute('role');
            node.removeAttribute('aria-label');
        }
    }

    function showMarks(li, rank, movement) {
        setText(li.querySelector('.rank'), String(rank));
        setMark(li.querySelector('.lead'), rank === 1 ? '★' : '', 'leader');
        setMark(li.querySelector('.move'), movement ? movement.mark : '', movement ? movement.spoken : '');
    }

    function movement(oldRank, newRank) {
        if (oldRank === newRank) return null;
        const places = Math.abs(oldRank - newRank);
        const words = `${places} place${places === 1 ? '' : 's'}`;
        return newRank < oldRank
            ? { mark: `▲${places}`, spoken: `up ${words}` }
            : { mark: `▼${places}`, spoken: `down ${words}` };
    }

    // Others' changes said to a screen reader (a polite live region): one sentence per change
    // set, as the terminal says them, at most one every two seconds; the ones that come sooner
    // are counted into the next.
    const announcePause = 2000;
    let lastAnnounced = 0;
    let waitingAnnouncement = null;
    function announce(row, before, changes) {
        if (!row) return;
        const section = model[row.to[0]];
        const team = section.rows[row.to[1]];
        const rank = rankOf(section.rows, team.wins);
        const old = before.get(row.id);
        const place = `${ordinal(rank)} in ${visible(section.name)}`;
        let sentence = `${visible(team.name)} ${wins(team.wins)}, ${place}`;
        if (!old) {
            sentence = `${visible(team.name)} new, ${wins(team.wins)}, ${place}`;
        } else if (old.wins !== team.wins) {
            const delta = team.wins - old.wins;
            const moved = old.zone === section.name ? movement(old.rank, rank) : null;
            sentence = `${visible(team.name)} ${delta > 0 ? '+' : ''}${delta} to ${wins(team.wins)}, `
                + (moved ? `${moved.spoken} to ${place}` : `still ${place}`);
        }
        const count = (waitingAnnouncement ? waitingAnnouncement.count : 0) + changes;
        waitingAnnouncement = { sentence, count };
        const wait = lastAnnounced + announcePause - Date.now();
        if (wait <= 0) sayAnnouncement();
        else if (count === changes) setTimeout(sayAnnouncement, wait);
    }

    function sayAnnouncement() {
        if (!waitingAnnouncement) return;
        const { sentence, count } = waitingAnnouncement;
        waitingAnnouncement = null;
        lastAnnounced = Date.now();
        const more = count - 1;
        setText(announcement, more > 0 ? `${sentence} (and ${more} more change${more === 1 ? '' : 's'})` : sentence);
    }

    function ordinal(number) {
        const tens = number % 100;
        const ones = number % 10;
        const suffix = tens >= 11 && tens <= 13 ? 'th' : ones === 1 ? 'st' : ones === 2 ? 'nd' : ones === 3 ? 'rd' : 'th';
        return `${number}${suffix}`;
    }

    function mark(id, move) {
        if (!move) return;
        movements.set(id, { ...move, until: Date.now() + markMilliseconds });
        setTimeout(expireMarks, markMilliseconds + 50);
    }

    function expireMarks() {
        const time = Date.now();
        let expired = false;
        for (const [id, move] of movements) {
            if (move.until <= time) {
                movements.delete(id);
                expired = true;
            }
        }
        if (expired && model) render(new Set(), new Set());
    }

    // Brings the DOM to the model's first `windowRows` rows, moving, adding and removing only
    // the rows that differ, and changing only the texts that differ. A row that moves is taken
    // out and put back, which takes the focus from it: the focus goes back to it.
    function render(moved, flashed) {
        const focused = main.contains(document.activeElement) ? document.activeElement : null;
        const keyboard = focused !== null && focused.matches(':focus-visible');
        let left = windowRows;
        const wanted = [];
        for (const section of model) {
            if (left <= 0) break;
            const shown = Math.min(left, section.rows.length);
            wanted.push([section, shown]);
            left -= shown;
        }
        const wantedIDs = new Set();
        for (const [section, shown] of wanted) {
            for (let i = 0; i < shown; i++) wantedIDs.add(section.rows[i].id);
        }
        for (const [id, li] of rowNodes) {
            if (!wantedIDs.has(id)) {
                li.remove();
                rowNodes.delete(id);
            } else if (moved.has(id)) {
                li.remove();
            }
        }
        const wantedSections = new Set(wanted.map(([section]) => section));
        for (const [key, node] of sectionNodes) {
            if (!wantedSections.has(key)) {
                node.remove();
                sectionNodes.delete(key);
            }
        }
        let previous = null;
        for (const [section, shown] of wanted) {
            let node = sectionNodes.get(section);
            if (!node) {
                node = makeSection();
                sectionNodes.set(section, node);
            }
            const expected = previous ? previous.nextElementSibling : main.firstElementChild;
            if (node !== expected) main.insertBefore(node, expected);
            setText(node.querySelector('.zone-name'), visible(section.name));
            setText(node.querySelector('.zone-count'), teams(section.count));
            const list = node.querySelector('ol');
            let rank = 1;
            for (let i = 0; i < shown; i++) {
                const row = section.rows[i];
                if (i > 0 && section.rows[i - 1].wins !== row.wins) rank = i + 1;
                let li = rowNodes.get(row.id);
                if (!li) {
                    li = makeRow(row);
                    rowNodes.set(row.id, li);
                } else {
                    fillRow(li, row);
                }
                showMarks(li, rank, movements.get(row.id));
                if (list.children[i] !== li) list.insertBefore(li, list.children[i] || null);
                if (flashed.has(row.id)) flash(li);
            }
            previous = node;
        }
        let total = 0;
        for (const section of model) total += section.rows.length;
        // The rank column is as wide as the longest rank shown.
        const digits = String(String(Math.max(1, ...wanted.map(([, shown]) => shown))).length);
        if (main.dataset.rankDigits !== digits) main.dataset.rankDigits = digits;
        setText(summary, `${teams(total)} in ${model.length} zone${model.length === 1 ? '' : 's'}`);
        setText(more, total > windowRows ? `${total - windowRows} more teams below` : '');
        if (focused && focused.isConnected && document.activeElement !== focused) keepInSight(focused, keyboard);
        if (tv) fitTVIfNeeded();
    }

    // The TV shows every zone at once, as large as the screen allows: it takes the number of
    // columns and the rows' size (which every other size follows) at which the standings are
    // largest and still fit the screen. When even the style sheet's size does not fit (a big
    // store), it keeps that size and shows the first rows. Fitted again only when the rows
    // shown per zone or the screen change, or the standings no longer fit.
    let fitted = null;
    const page = document.documentElement;
    const fitsScreen = () => page.scrollHeight <= innerHeight && page.scrollWidth <= innerWidth;
    function fitTVIfNeeded() {
        const lists = main.querySelectorAll('ol.teams');
        const shape = `${innerWidth}×${innerHeight}: ${Array.from(lists, (ol) => ol.children.length).join(' ')}`;
        if (!fitted || fitted.shape !== shape || (fitted.fits && !fitsScreen())) fitTV(shape);
    }

    function fitTV(shape) {
        const style = document.body.style;
        style.fontSize = '';
        main.style.columnCount = '';
        const base = parseFloat(getComputedStyle(document.body).fontSize);
        let best = null;
        for (let columns = 1; columns <= Math.max(1, Math.floor(innerWidth / (12 * base))); columns++) {
            main.style.columnCount = String(columns);
            style.fontSize = '';
            if (!fitsScreen()) continue;
            let low = base;
            let high = base * 4;
            for (let step = 0; step < 8; step++) {
                const middle = (low + high) / 2;
                style.fontSize = `${middle}px`;
                if (fitsScreen()) low = middle;
                else high = middle;
            }
            // Fewer columns, wider, unless more make the type larger.
            if (!best || low > best.size + 0.5) best = { columns, size: low };
        }
        main.style.columnCount = best ? String(best.columns) : '';
        style.fontSize = best ? `${Math.floor(best.size)}px` : '';
        fitted = { shape, fits: best !== null };
    }

    // Focuses a row; one the keyboard is on is kept in sight, wherever it went (a finger's
    // focus is not followed: the page stays where the user scrolled it).
    function keepInSight(li, keyboard) {
        const target = li.querySelector('button.tap') || li;
        target.focus({ preventScroll: true });
        if (keyboard) target.scrollIntoView({ block: 'nearest' });
    }

    function flash(li) {
        restartAnimation(li, 'flash');
    }

    function restartAnimation(li, name) {
        li.classList.remove(name);
        void li.offsetWidth;
        li.classList.add(name);
    }

    // A snapshot comes in parts: the first starts the standings afresh.
    function onSnapshot(part) {
        if (part.first) {
            loading = [];
            // Nodes of the server's rendering are matched by name; later ones by section.
            for (const [key, node] of sectionNodes) {
                if (typeof key === 'string') {
                    sectionNodes.delete(key);
                    node.dataset.pending = key;
                }
            }
        }
        for (const piece of part.sections) {
            let section = loading[piece.index];
            if (!section) {
                section = { name: piece.name, count: piece.count, rows: [] };
                loading[piece.index] = section;
                const node = main.querySelector(`section[data-pending="${CSS.escape(piece.name)}"]`);
                if (node) {
                    delete node.dataset.pending;
                    sectionNodes.set(section, node);
                }
            }
            for (const [id, name, wins] of piece.rows) section.rows.push({ id, name, wins });
        }
        if (part.first || part.last) {
            model = loading;
            render(new Set(), new Set());
        }
        if (part.last) {
            for (const section of model) section.count = section.rows.length;
            render(new Set(), new Set());
            for (const node of main.querySelectorAll('section[data-pending]')) node.remove();
            loading = null;
            report.version = part.v;
            report.snapshots += 1;
            if (!report.ready) report.readyAt = now();
            report.ready = true;
        }
    }

    // The rows of a change set by section index, at `key` ('from' or 'to').
    function bySection(rows, key) {
        const groups = new Map();
        for (const row of rows) {
            const index = row[key][0];
            if (!groups.has(index)) groups.set(index, []);
            groups.get(index).push(row);
        }
        return groups;
    }

    // Rows leave and join a section by index. A change set of many rows in one section (a
    // load step of thousands behind the first rows) rebuilds its array once: shifting a long
    // array once per row would keep the page busy for seconds at a million teams.
    const manyRows = 32;
    function removeRows(rows, indices) {
        if (indices.length < manyRows) {
            for (const index of indices.sort((a, b) => b - a)) rows.splice(index, 1);
            return rows;
        }
        const gone = new Set(indices);
        return rows.filter((row, index) => !gone.has(index));
    }

    // `entries`: [index in the new array, row]; the rows between keep their order.
    function insertRows(rows, entries) {
        entries.sort((a, b) => a[0] - b[0]);
        if (entries.length < manyRows) {
            for (const [index, row] of entries) rows.splice(index, 0, row);
            return rows;
        }
        const result = new Array(rows.length + entries.length);
        let from = 0;
        let to = 0;
        for (const [index, row] of entries) {
            while (to < index) result[to++] = rows[from++];
            result[to++] = row;
        }
        while (from < rows.length) result[to++] = rows[from++];
        return result;
    }

    // One change set: deletes against the old state, inserts against the new one.
    function onChange(change) {
        if (!model || loading) return;
        for (const run of change.runs) {
            run.rows.forEach(([id, name, wins], offset) => {
                const to = [run.at[0], run.at[1] + offset];
                change.rows.push({ type: 'insert', id, to, team: { id, name, wins } });
            });
        }
        const moved = new Set();
        const flashed = new Set();
        const touched = [];
        const removals = [];
        const inserts = [];
        const contents = new Map();
        for (const row of change.rows) {
            touched.push(row.id);
            if (row.from && row.type !== 'update') removals.push(row);
            if (row.to && row.type !== 'update') inserts.push(row);
            if (row.type === 'move') moved.add(row.id);
            if (row.team) contents.set(row.id, row.team);
            if (row.type !== 'delete') {
                const own = ownChanges.get(row.id) || 0;
                if (own > 0) ownChanges.set(row.id, own - 1);
                else flashed.add(row.id);
            }
        }
        const byRow = {};
        for (const row of change.rows) if (row.from) byRow[row.id] = model[row.from[0]].rows[row.from[1]];
        // The ranks before, for the movement marks; not for a load step (runs of rows), which
        // is no news, nor for an import's thousands.
        const news = change.runs.length === 0;
        const marks = news && change.rows.length <= mostMarkedRows;
        const before = new Map();
        if (marks) {
            for (const row of change.rows) {
                if (!row.from || row.type === 'delete') continue;
                const old = byRow[row.id];
                before.set(row.id, {
                    zone: model[row.from[0]].name, rank: rankOf(model[row.from[0]].rows, old.wins), wins: old.wins,
                });
            }
        }
        for (const [index, rows] of bySection(removals, 'from')) {
            model[index].rows = removeRows(model[index].rows, rows.map((row) => row.from[1]));
        }
        const sectionsOf = (type) => change.sections.filter((section) => section.type === type);
        const deleted = sectionsOf('delete').sort((a, b) => b.index - a.index);
        for (const section of deleted) model.splice(section.index, 1);
        for (const section of sectionsOf('insert').sort((a, b) => a.index - b.index)) {
            const rows = section.rows.map((team) => ({ id: team.id, name: team.name, wins: team.wins }));
            model.splice(section.index, 0, { name: section.name, count: rows.length, rows });
            for (const row of rows) {
                touched.push(row.id);
                flashed.add(row.id);
            }
        }
        for (const section of sectionsOf('rename')) model[section.index].name = section.name;
        for (const [index, rows] of bySection(inserts, 'to')) {
            const entries = rows.map((row) => {
                const content = contents.get(row.id) || { id: row.id, name: '', wins: 0 };
                const existing = byRow[row.id] || { id: row.id };
                existing.name = content.name;
                existing.wins = content.wins;
                return [row.to[1], existing];
            });
            model[index].rows = insertRows(model[index].rows, entries);
        }
        for (const row of change.rows) {
            if (row.type === 'update' && row.team && byRow[row.id]) {
                byRow[row.id].name = row.team.name;
                byRow[row.id].wins = row.team.wins;
            }
        }
        for (const section of model) section.count = section.rows.length;
        if (marks) {
            for (const row of change.rows) {
                if (!row.to) continue;
                const section = model[row.to[0]];
                const now = rankOf(section.rows, section.rows[row.to[1]].wins);
                const old = before.get(row.id);
                if (!old) mark(row.id, { mark: 'NEW', spoken: 'new' });
                else if (old.zone === section.name) mark(row.id, movement(old.rank, now));
            }
            for (const section of sectionsOf('insert')) {
                for (const team of section.rows) mark(team.id, { mark: 'NEW', spoken: 'new' });
            }
        }
        if (news) announce(change.rows.find((row) => row.to && flashed.has(row.id)), before, change.rows.length);
        if (news) {
            const time = new Date();
            const clock = [time.getHours(), time.getMinutes(), time.getSeconds()];
            setText(lastChange, `Last change ${clock.map((part) => String(part).padStart(2, '0')).join(':')}`);
        }
        render(moved, flashed);
        report.version = change.v;
        report.applied.push({ v: change.v, ids: touched, at: now() });
        report.appliedCount += 1;
        if (report.applied.length > 1000) report.applied.shift();
    }

    function connect() {
        const source = new EventSource('/events');
        source.addEventListener('snapshot', (event) => onSnapshot(JSON.parse(event.data)));
        source.addEventListener('change', (event) => onChange(JSON.parse(event.data)));
        source.addEventListener('open', () => setAway(false));
        source.addEventListener('error', () => {
            setAway(true);
            // An answer other than a stream (503: the server has as many viewers as it takes)
            // closes the source for good, where a lost connection is retried by the browser:
            // ask again a few seconds later, spread out so a room does not ask all at once.
            if (source.readyState === EventSource.CLOSED) setTimeout(connect, 4000 + Math.random() * 4000);
        });
    }

    // While the server is away the page says so plainly, at the top, and the scorer's bar says
    // what becomes of a tap; the standings shown are dimmed, as they may be behind.
    let away = false;
    function setAway(value) {
        away = value;
        document.body.classList.toggle('away', value);
        setStatus(value ? 'The server is away: reconnecting… The standings may be behind.' : '');
        showNote();
    }

    // Scoring: the token comes in the link's fragment, which browsers never send; it is kept
    // for this tab only, and taken out of the address bar.
    const scorer = { token: null, enabled: false, last: null };
    const fromLink = /(?:^|&)scorer=([A-Za-z0-9_-]+)/.exec(location.hash.slice(1));
    if (fromLink) {
        scorer.token = fromLink[1];
        sessionStorage.setItem('worldcup-scorer', scorer.token);
        history.replaceState(null, '', location.pathname + location.search);
    } else {
        scorer.token = sessionStorage.getItem('worldcup-scorer');
    }

    function newKey() {
        const bytes = crypto.getRandomValues(new Uint8Array(16));
        bytes[6] = (bytes[6] & 0x0f) | 0x40;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
        const parts = [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)];
        return parts.join('-');
    }

    // Sends a score until the server answers: a lost reply or a server that is away is sent
    // again with the same key, which the server counts once.
    async function send(method, url, key) {
        let pause = 250;
        for (;;) {
            try {
                const headers = { Authorization: `Bearer ${scorer.token}` };
                if (key) headers['Idempotency-Key'] = key;
                const response = await fetch(url, { method, headers, cache: 'no-store' });
                if (response.status < 500) return response;
            } catch (error) {
                // The connection broke: nobody knows whether it counted; the key tells.
            }
            setNote('Not answered yet: sending again…');
            await new Promise((resolve) => setTimeout(resolve, pause));
            pause = Math.min(pause * 2, 4000);
        }
    }

    async function problem(response) {
        try {
            return (await response.json()).error;
        } catch (error) {
            return `The server answered ${response.status}.`;
        }
    }

    // What the bar at the bottom says, beside Undo, where the thumb is.
    let note = '';
    function setNote(text) {
        note = text;
        showNote();
    }

    function showNote() {
        const awayNote = 'The server is away: a tap now is sent when it is back.';
        setText(scoringNote, away && scorer.enabled ? awayNote : note);
    }

    // The tab's last win, which Undo takes back: kept for the tab (as its token is), so that a
    // reload does not forget it.
    const lastWinKey = 'worldcup-last-win';
    function remember(last) {
        for (const li of main.querySelectorAll('li.team.last-win')) li.classList.remove('last-win');
        if (last && rowNodes.has(last.id)) rowNodes.get(last.id).classList.add('last-win');
        scorer.last = last;
        if (last) {
            sessionStorage.setItem(lastWinKey, JSON.stringify(last));
            undoButton.textContent = `Undo +1 for ${visible(last.name)}`;
        } else {
            sessionStorage.removeItem(lastWinKey);
        }
        undoButton.hidden = !last;
    }

    function remembered() {
        try {
            const last = JSON.parse(sessionStorage.getItem(lastWinKey));
            const valid = last && Number.isInteger(last.id) && typeof last.key === 'string';
            return valid ? { id: last.id, key: last.key, name: String(last.name) } : null;
        } catch (error) {
            return null;
        }
    }

    async function tap(li) {
        const id = Number(li.dataset.id);
        const name = li.querySelector('.name').textContent;
        const key = newKey();
        report.taps.push({ id, key, at: now() });
        ownChanges.set(id, (ownChanges.get(id) || 0) + 1);
        // The row shows the tap at once, then that it counted.
        li.classList.add('sending');
        const response = await send('POST', `/teams/${id}/wins`, key);
        li.classList.remove('sending');
        if (response.ok) {
            restartAnimation(li, 'counted');
            const answer = await response.json();
            remember({ id, key, name });
            setNote(`+1 for ${name}: ${wins(answer.wins)}`);
        } else {
            ownChanges.set(id, Math.max(0, (ownChanges.get(id) || 1) - 1));
            setNote(await problem(response));
        }
    }

    async function undo() {
        const last = scorer.last;
        if (!last) return;
        // The button goes; the focus goes to the row whose win it takes back, not to the page.
        const row = document.activeElement === undoButton ? rowNodes.get(last.id) : null;
        if (row) keepInSight(row, undoButton.matches(':focus-visible'));
        remember(null);
        ownChanges.set(last.id, (ownChanges.get(last.id) || 0) + 1);
        const response = await send('DELETE', `/teams/${last.id}/wins/${last.key}`, null);
        if (response.ok) {
            const answer = await response.json();
            setNote(`Took back the win for ${last.name}: ${wins(answer.wins)}`);
        } else {
            ownChanges.set(last.id, Math.max(0, (ownChanges.get(last.id) || 1) - 1));
            setNote(await problem(response));
        }
    }

    async function startScoring() {
        if (!scorer.token || tv) return;
        scoring.hidden = false;
        const headers = { Authorization: `Bearer ${scorer.token}` };
        const response = await fetch('/scorer', { headers, cache: 'no-store' }).catch(() => null);
        if (!response || !response.ok) {
            setNote(response ? await problem(response) : 'The server cannot be reached.');
            return;
        }
        scorer.enabled = true;
        document.body.classList.add('scoring');
        setNote('Tap a team to add a win.');
        remember(remembered());
        for (const li of rowNodes.values()) makeTappable(li);
        skipToUndo.hidden = false;
        // A button's click is also its Enter and Space.
        main.addEventListener('click', (event) => {
            const li = event.target.closest('li.team');
            if (li) tap(li);
        });
        undoButton.addEventListener('click', undo);
    }

    // The rows below the rendered ones come as the page scrolls near them.
    new IntersectionObserver((entries) => {
        if (!model || !entries.some((entry) => entry.isIntersecting)) return;
        windowRows += step;
        render(new Set(), new Set());
    }).observe(more);

    // The sticky header and the scorer's bar cover the top and the bottom of the screen: the
    // browser scrolls a row the keyboard moves to clear of them.
    const header = document.querySelector('header');
    const covers = new ResizeObserver(() => {
        page.style.scrollPaddingTop = `${header.offsetHeight}px`;
        page.style.scrollPaddingBottom = `${scoring.offsetHeight}px`;
    });
    covers.observe(header);
    covers.observe(scoring);

    if (tv) addEventListener('resize', () => model && fitTVIfNeeded());
    main.addEventListener('animationend', (event) => event.target.classList.remove('flash', 'counted'));
    startScoring();
    connect();
})();
