// The controller's public types live in FetchedResults, shared with the PostgreSQL store;
// re-exported so that `import FetchedResultsSQLite` is all a SQLite user needs.
@_exported import FetchedResults
