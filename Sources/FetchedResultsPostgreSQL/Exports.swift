// The controller and its types live in FetchedResults; re-exported so that
// `import FetchedResultsPostgreSQL` is all a PostgreSQL user needs.
@_exported import FetchedResults
