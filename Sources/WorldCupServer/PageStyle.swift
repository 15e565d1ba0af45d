/// The page's style sheet, served at `/app.css`: phone first, `?tv` large, light and dark.
///
/// The body's font size is the rows' size; every other size is in `em` of it, so that the
/// headings and notes keep their proportion to the rows whatever size the rows are.
enum PageStyle {
    static let source = #"""
        :root {
            color-scheme: light dark;
            --background: #ffffff;
            --text: #1b1f24;
            --muted: #5b6570;
            --line: #d8dde3;
            --zone: #0b5d3b;
            --flash: #ffe58a;
            --tap: #e8f3ee;
            --counted: #b5e0c8;
            --away: #fde3b0;
            --away-text: #4d3000;
            font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
        }

        @media (prefers-color-scheme: dark) {
            :root {
                --background: #14171a;
                --text: #e8eaed;
                --muted: #9aa3ad;
                --line: #2c3238;
                --zone: #6fd3a2;
                --flash: #6b5a12;
                --tap: #1f3229;
                --counted: #2e6b4c;
                --away: #5c4100;
                --away-text: #ffe2a8;
            }
        }

        body {
            margin: 0 auto;
            max-width: 40rem;
            padding: 0 0.75rem;
            background: var(--background);
            color: var(--text);
            font-size: 1rem;
            line-height: 1.4;
        }

        header {
            position: sticky;
            top: 0;
            background: var(--background);
            padding: 0.5em 0;
            border-bottom: 1px solid var(--line);
            z-index: 1;
        }

        h1 {
            margin: 0;
            font-size: 1.3em;
        }

        #summary, #more {
            margin: 0.15em 0 0;
            color: var(--muted);
            font-size: 0.9em;
        }

        /* The connection's state: said plainly, as large as the rows, when the server is away. */
        #status {
            margin: 0.4rem 0 0;
            padding: 0.3em 0.6em;
            border-radius: 0.3em;
            font-weight: 700;
            color: var(--away-text);
            background: var(--away);
        }

        body.away main {
            opacity: 0.6;
        }

        #status:empty, #more:empty {
            display: none;
        }

        main {
            padding: 0.6em 0 1.5em;
        }

        /* Zones are spaced by the margin below them, not above: on the TV a margin above the
           first zone of the first column would set it lower than the others. */
        section.zone {
            margin-bottom: 1em;
        }

        /* Scoring: a bar at the bottom of the screen, where the thumb is, wherever the page is
           scrolled: what the last tap did, and Undo. */
        #scoring {
            position: sticky;
            bottom: 0;
            display: flex;
            align-items: center;
            gap: 0.75rem;
            margin: 0 -0.75rem;
            padding: 0.5rem 0.75rem;
            background: var(--background);
            border-top: 1px solid var(--line);
            z-index: 1;
        }

        #scoring[hidden], #undo[hidden] {
            display: none;
        }

        #scoring-note {
            flex: 1;
            margin: 0;
        }

        #undo {
            flex: none;
            max-width: 60%;
            min-height: 2.75rem;
            padding: 0.4rem 0.8rem;
            font: inherit;
            font-weight: 600;
            border: 1px solid var(--line);
            border-radius: 0.4rem;
            background: var(--tap);
            color: var(--text);
        }

        h2 {
            margin: 0 0 0.3em;
            font-size: 1.1em;
            color: var(--zone);
            display: flex;
            align-items: baseline;
            justify-content: space-between;
            gap: 1em;
        }

        .zone-count {
            flex: none;
            color: var(--muted);
            font-weight: normal;
            font-size: 0.8em;
        }

        ol.teams {
            list-style: none;
            margin: 0;
            padding: 0;
            counter-reset: rank;
        }

        li.team {
            counter-increment: rank;
            display: flex;
            align-items: baseline;
            gap: 0.6em;
            padding: 0.35em 0.2em;
            border-bottom: 1px solid var(--line);
        }

        /* The rank column is as wide as the page's longest rank (its digits are counted by the
           server and the script), so that every name starts in line: "10 Portugal" under
           "9 Netherlands". */
        li.team::before {
            content: counter(rank);
            min-width: var(--rank-width, 2ch);
            color: var(--muted);
            font-variant-numeric: tabular-nums;
            text-align: right;
        }

        #standings[data-rank-digits="1"] { --rank-width: 1ch; }
        #standings[data-rank-digits="3"] { --rank-width: 3ch; }
        #standings[data-rank-digits="4"] { --rank-width: 4ch; }
        #standings[data-rank-digits="5"] { --rank-width: 5ch; }
        #standings[data-rank-digits="6"] { --rank-width: 6ch; }
        #standings[data-rank-digits="7"] { --rank-width: 7ch; }
        #standings[data-rank-digits="8"] { --rank-width: 8ch; }

        .name {
            flex: 1;
            overflow-wrap: anywhere;
        }

        .wins {
            font-variant-numeric: tabular-nums;
            font-weight: 600;
        }

        /* A row a finger taps is 2.75 rows' type high (44 px on a phone), its text in the middle. */
        body.scoring li.team {
            cursor: pointer;
            padding-top: 0.675em;
            padding-bottom: 0.675em;
        }

        body.scoring li.team:active, li.team.sending {
            background: var(--tap);
        }

        li.team:focus-visible {
            outline: 0.15rem solid var(--zone);
            outline-offset: -0.15rem;
        }

        /* The tab's last win, which Undo takes back: marked until it is taken back or another
           tap is the last. */
        li.team.last-win {
            box-shadow: inset 0.3rem 0 0 var(--zone);
        }

        li.team.flash {
            animation: flash 1.2s ease-out;
        }

        li.team.counted {
            animation: counted 1.2s ease-out;
        }

        @keyframes flash {
            from { background: var(--flash); }
            to { background: transparent; }
        }

        @keyframes counted {
            from { background: var(--counted); }
            to { background: transparent; }
        }

        /* TV: large type, several zones side by side, no controls. The script sets the number
           of columns and the rows' size that fill the screen (see fitTV). */
        body.tv {
            max-width: none;
            padding: 0 2rem;
            font-size: 1.6rem;
        }

        body.tv header {
            display: flex;
            align-items: baseline;
            gap: 1em;
        }

        /* Over the standings, at the bottom, so that it moves nothing when it comes and goes. */
        body.tv #status {
            position: fixed;
            left: 2rem;
            right: 2rem;
            bottom: 1rem;
            margin: 0;
            text-align: center;
        }

        body.tv main {
            column-width: 16em;
            column-gap: 2em;
        }

        body.tv section.zone {
            break-inside: avoid;
        }

        body.tv h1 {
            font-size: 1.4em;
        }

        body.tv #summary {
            font-size: 1em;
            margin: 0;
        }

        body.tv #scoring {
            display: none;
        }
        """#
}
