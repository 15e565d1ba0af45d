/// Markup with named slots, `{{name}}`, from a file in `Page/` (`row.html`, `section.html`):
/// the server fills it for the page's first paint and puts it in the page with its slots empty,
/// as a `<template>` the script clones, so that both make their rows from one file. The file's
/// leading comment, which describes it, is left out of both.
struct PageTemplate<Slot: RawRepresentable<String> & Sendable>: Sendable {
    /// The markup before each slot, and the rest after the last.
    private let texts: [String]
    private let slots: [Slot]

    /// The template in `file`. A slot that is no `Slot` stops the program: the file is part of
    /// the binary, and every page would be wrong.
    init(_ file: [UInt8]) {
        var rest = String(decoding: file, as: UTF8.self)[...]
        if rest.hasPrefix("<!--"), let end = rest.firstRange(of: "-->\n") {
            rest = rest[end.upperBound...]
        }
        var texts: [String] = []
        var slots: [Slot] = []
        while let open = rest.firstRange(of: "{{"), let close = rest[open.upperBound...].firstRange(of: "}}") {
            let name = String(rest[open.upperBound..<close.lowerBound])
            guard let slot = Slot(rawValue: name) else { fatalError("{{\(name)}} is no slot of \(Slot.self)") }
            texts.append(String(rest[..<open.lowerBound]))
            slots.append(slot)
            rest = rest[close.upperBound...]
        }
        texts.append(String(rest))
        self.texts = texts
        self.slots = slots
    }

    /// The markup with every slot empty: what the script clones.
    var empty: String { texts.joined() }

    /// Appends the markup to `html`, `fill` appending each slot's value (escaped, as it goes
    /// into markup).
    func render(into html: inout String, _ fill: (Slot, inout String) -> Void) {
        for index in slots.indices {
            html += texts[index]
            fill(slots[index], &html)
        }
        html += texts[slots.count]
    }
}
