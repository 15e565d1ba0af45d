// Index paths are Foundation's `IndexPath`, as UIKit code expects: `[section, row]`. Re-exported,
// so that `import FetchedResultsSQLite` names it without importing Foundation.
@_exported import struct Foundation.IndexPath

#if !canImport(UIKit)
    /// UIKit's section-and-row view of an index path, which Foundation has only on Apple's
    /// platforms, through UIKit.
    extension IndexPath {
        /// The path of `row` in `section` (the order of UIKit's `IndexPath(row:section:)`).
        @inlinable
        public init(row: Int, section: Int) {
            // Two appends keep the path in Foundation's two-index storage: no array is made.
            self = IndexPath(index: section).appending(row)
        }

        /// The section's index: the first index.
        @inlinable
        public var section: Int {
            get { self[0] }
            set { self[0] = newValue }
        }

        /// The row's index inside its section: the second index.
        @inlinable
        public var row: Int {
            get { self[1] }
            set { self[1] = newValue }
        }
    }
#endif
