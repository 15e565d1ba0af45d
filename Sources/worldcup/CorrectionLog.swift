import WorldCupModel

/// The audit log (`--log FILE`, the scoreboard's option) for a correction: opened before the
/// store is changed, so that a log that cannot be written refuses the correction; its line
/// added once the transaction has committed.
struct CorrectionLog {
    private let log: AuditLog?

    /// Opens the log file `path` names, if any: never one of the store's own files.
    init(path: String?, store: StoreOptions) throws {
        guard let path else {
            log = nil
            return
        }
        if case let .sqlite(storePath) = try store.address() {
            try OutputFile.refuseStoreFiles(path, storePath: storePath, kind: .auditLog)
        }
        log = try AuditLog(path: path)
    }

    /// Adds the line of `change`, which has committed.
    func record(_ change: CommittedChange) throws {
        guard let log, !log.record(change) else { return }
        throw WorldCupError.auditLogUnwritten(path: log.path)
    }
}
