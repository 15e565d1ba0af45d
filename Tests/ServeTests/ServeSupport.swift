import Foundation
import TestSupport

/// The two stores every serve test runs on.
enum StoreKind: String, CaseIterable {
    case sqlite, postgresql

    /// A new store of this kind (seeded by the first command that opens it), and the folder
    /// that holds the SQLite file and the servers' homes.
    func makeStore() throws -> (db: String, folder: TemporaryDirectory, database: SharedDatabase?) {
        let folder = TemporaryDirectory()
        switch self {
        case .sqlite: return (folder.store, folder, nil)
        case .postgresql:
            let database = try SharedDatabase()
            return (database.uri(), folder, database)
        }
    }
}

/// Runs `worldcup` (not `serve`) on a store, as a script would.
@discardableResult
func worldcup(_ arguments: [String], db: String) throws -> ProgramRun {
    try ProgramRun(
        ServeProcess.binary, arguments + ["--db", db, "--seed", ServeProcess.seed],
        environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": NSTemporaryDirectory()])
}

/// The page as a browser shows it: each section's name and count, and its rows in order.
struct PageRows: Equatable {
    var sections: [Section]
    var ready: Bool
    var version: Int

    struct Section: Equatable {
        var name: String
        var count: String
        var rows: [Row]
    }

    struct Row: Equatable {
        var id: Int
        var name: String
        var wins: Int
    }

    /// Team names and wins by zone, for comparing with `worldcup list --json`.
    var standings: [[String]] {
        sections.map { [$0.name] + $0.rows.map { "\($0.name)=\($0.wins)" } }
    }

    func row(named name: String) -> Row? {
        sections.lazy.flatMap(\.rows).first { $0.name == name }
    }

    static let script = """
        const report = window.worldcup || {};
        return {
            ready: !!report.ready,
            version: report.version || 0,
            sections: Array.from(document.querySelectorAll('#standings section.zone')).map((section) => ({
                name: section.querySelector('.zone-name').textContent,
                count: section.querySelector('.zone-count').textContent,
                rows: Array.from(section.querySelectorAll('li.team')).map((li) => ({
                    id: Number(li.dataset.id),
                    name: li.querySelector('.name').textContent,
                    wins: Number(li.querySelector('.wins').textContent),
                })),
            })),
        };
        """

    static func read(_ browser: WebDriver) throws -> PageRows {
        let value = try browser.run(script) as? [String: Any] ?? [:]
        let sections = (value["sections"] as? [[String: Any]] ?? []).map { section in
            Section(
                name: section["name"] as? String ?? "", count: section["count"] as? String ?? "",
                rows: (section["rows"] as? [[String: Any]] ?? []).map {
                    Row(id: $0["id"] as? Int ?? -1, name: $0["name"] as? String ?? "", wins: $0["wins"] as? Int ?? -1)
                })
        }
        return PageRows(
            sections: sections, ready: value["ready"] as? Bool ?? false, version: value["version"] as? Int ?? 0)
    }
}

/// `worldcup list --json` as names and wins by zone: the oracle for what a page shows.
func listedStandings(db: String) throws -> [[String]] {
    let listed = try worldcup(["list", "--json"], db: db)
    let sections = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
    return sections.map { section in
        [section["zone"] as? String ?? ""]
            + (section["teams"] as? [[String: Any]] ?? []).map {
                "\($0["teamName"] as? String ?? "")=\($0["wins"] as? Int ?? -1)"
            }
    }
}

/// Counts the rows of the page that anything changes from now on: a `MutationObserver` on the
/// standings, each record traced to its team's row (or named "other" when outside every row).
enum MutationCounter {
    static let install = """
        window.touchedRows = new Set();
        const rowOf = (node) => {
            const element = node.nodeType === 1 ? node : node.parentElement;
            return element ? element.closest('li.team') : null;
        };
        new MutationObserver((records) => {
            for (const record of records) {
                const row = rowOf(record.target);
                if (row) { window.touchedRows.add(row.dataset.id); continue; }
                for (const node of [...record.addedNodes, ...record.removedNodes]) {
                    if (node.nodeType === 1 && node.matches('li.team')) window.touchedRows.add(node.dataset.id);
                    else window.touchedRows.add('other ' + node.nodeName);
                }
                if (record.type !== 'childList') window.touchedRows.add('other ' + record.target.nodeName);
            }
        }).observe(document.getElementById('standings'),
            { subtree: true, childList: true, characterData: true, attributes: true });
        """

    static func touched(_ browser: WebDriver) throws -> Set<String> {
        Set(try browser.run("return Array.from(window.touchedRows);") as? [String] ?? [])
    }
}
