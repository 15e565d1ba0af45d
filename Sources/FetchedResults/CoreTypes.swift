import FetchedResultsCore

// The change types live in FetchedResultsCore, shared with the PostgreSQL store; these names
// keep them part of this module's API, so `import FetchedResults` is all a SQLite user needs.

/// The kind of a change (Core Data's `NSFetchedResultsChangeType`): insert, delete, move or
/// update.
public typealias ChangeType = FetchedResultsCore.ChangeType

/// One object's change in a committed transaction, with table-view batch-update paths:
/// `indexPath` against the old state, `newIndexPath` against the new one.
public typealias ObjectChange = FetchedResultsCore.ObjectChange

/// One section's insertion, deletion or renaming.
public typealias SectionChange = FetchedResultsCore.SectionChange

/// The identifiers of the results in order (section names and row ids), plus the rows to
/// reload: the diffable-data-source style of change.
public typealias ResultsSnapshot = FetchedResultsCore.ResultsSnapshot

/// A position in sectioned results: a section and a row inside it.
public typealias IndexPath = FetchedResultsCore.IndexPath

/// Which change callbacks a controller computes and delivers to its delegate.
public typealias ChangeStyles = FetchedResultsCore.ChangeStyles

/// One section of the fetched results (Core Data's `NSFetchedResultsSectionInfo`): its name,
/// index title and objects.
public typealias SectionInfo<Record> = FetchedResultsCore.SectionInfo<Record>

/// Where a controller's ordering came from at its last fetch: the store or the cache file.
public typealias FetchSource = FetchedResultsCore.FetchSource

/// A search of the results for the rows whose text sort value contains some characters,
/// answered from the sort keys in memory (see
/// ``FetchedResultsController/search(sortDescriptorAt:containing:narrowing:)``).
public typealias TextSearch = FetchedResultsCore.TextSearch

/// A match a ``TextSearch`` found, and whether the search went round the end to find it.
public typealias SearchHit = FetchedResultsCore.SearchHit

/// How many rows match a ``TextSearch``, counted so far or exactly.
public typealias MatchCount = FetchedResultsCore.MatchCount
