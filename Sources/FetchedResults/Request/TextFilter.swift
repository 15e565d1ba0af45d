/// Narrows a request to the rows whose text value of one sort descriptor contains some
/// characters: a list's filter as the user types it (htop's and k9s' filter).
///
/// It matches as a ``TextSearch`` does: a value matches as SQL's `instr(value, text) > 0` does on
/// the value as its sort descriptor's collation folds it (`caseInsensitive`: ASCII letters in
/// either case, every other character only itself), and only text values match, never NULL, a
/// number or a blob. Each store adds it to its SQL for its reads; the controller can also answer
/// it from the sort keys it holds, so a filter that narrows the one in force (a longer text that
/// contains it, or a first filter) is applied by ``FetchedResultsController/setFetchRequest(_:)``
/// in memory, without a query, once every row is loaded; with a batch size, so is any other text
/// after that (Backspace, Esc), from the keys the first filter narrowed. An empty text matches
/// every text value, and is left to the store; a text is matched up to a NUL character.
///
/// ```swift
/// var request = controller.fetchRequest
/// request.textFilter = TextFilter(sortDescriptorAt: 2, containing: typed)  // "teamName"
/// try controller.setFetchRequest(request)
/// ```
///
/// The sort descriptor must name a text column of the fetched table, not a key path across a
/// relationship.
public struct TextFilter: Sendable, Hashable {
    /// The sort descriptor whose values are matched (0 for the first).
    public var sortDescriptorIndex: Int
    /// The characters looked for.
    public var text: String

    public init(sortDescriptorAt index: Int, containing text: String) {
        sortDescriptorIndex = index
        self.text = text
    }

    /// The characters matched: `text` up to a NUL character, if it holds one, which is where
    /// the stores' SQL functions and the sort keys' text values end.
    public var matchedText: String {
        guard text.utf8.contains(0) else { return text }
        return String(decoding: text.utf8.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// The encoded needle of this filter over keys sorted by `sortDescriptors`.
    func matcher(_ sortDescriptors: [ColumnSortDescriptor]) -> KeyTextMatcher {
        KeyTextMatcher(
            text: matchedText, component: sortDescriptorIndex, ascending: sortDescriptors.map(\.ascending),
            foldsCase: sortDescriptors[sortDescriptorIndex].foldsCase)
    }
}
