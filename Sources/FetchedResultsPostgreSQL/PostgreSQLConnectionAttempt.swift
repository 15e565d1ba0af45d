import CLibpq

#if canImport(Glibc)
    import Glibc
#endif

/// A connection being made without blocking (libpq's `PQconnectStartParams` and
/// `PQconnectPoll`): each ``advance()`` does what the network allows at that moment and
/// returns, so a program reconnecting to an unreachable server stays responsive.
///
/// libpq ignores `connect_timeout` in this mode; the attempt enforces it itself (30 s when the
/// parameters do not set it).
public final class PostgreSQLConnectionAttempt {
    private var connection: OpaquePointer?
    private var waitsFor = Int16(POLLOUT)
    private let deadline: ContinuousClock.Instant

    /// Starts connecting as ``PostgreSQLConnection/init(_:defaults:)`` would.
    ///
    /// - Throws: ``PostgreSQLError/clientLibraryMissing(_:)`` when libpq is not installed,
    ///   ``PostgreSQLError/connectionFailed(_:)`` when the parameters cannot be used.
    public init(_ conninfo: String, defaults: [String: String] = [:]) throws {
        try PostgreSQLConnection.loadClientLibrary()
        let started = PostgreSQLConnection.withParameters(conninfo, defaults) { PQconnectStartParams($0, $1, 1) }
        guard let started else { throw PostgreSQLError.connectionFailed("out of memory") }
        guard PQstatus(started) != CONNECTION_BAD else {
            let message = PostgreSQLConnection.text(PQerrorMessage(started))
            PQfinish(started)
            throw PostgreSQLError.connectionFailed(message)
        }
        connection = started
        deadline = ContinuousClock.now + .seconds(Self.connectTimeoutSeconds(of: started))
    }

    deinit { if let connection { PQfinish(connection) } }

    /// The `connect_timeout` in effect (libpq treats values below 2 as 2; 0 or none is "no
    /// limit", which becomes 30 s here).
    private static func connectTimeoutSeconds(of connection: OpaquePointer) -> Int {
        guard let options = PQconninfo(connection) else { return 30 }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "connect_timeout", let value = option.pointee.val,
                let seconds = Int(String(cString: value)), seconds > 0
            {
                return max(2, seconds)
            }
            option += 1
        }
        return 30
    }

    /// Goes as far as the network allows now, without waiting: the connection once it is made,
    /// nil while it waits for the server.
    ///
    /// - Throws: ``PostgreSQLError/connectionFailed(_:)`` with libpq's reason, or when the
    ///   timeout passed; the attempt is over then.
    public func advance() throws -> PostgreSQLConnection? {
        guard let connection else { throw PostgreSQLError.connectionFailed("the attempt is over") }
        while true {
            // libpq must be called only once the socket is ready for what it waits for.
            var descriptor = pollfd(fd: PQsocket(connection), events: waitsFor, revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else {
                guard ContinuousClock.now < deadline else { throw fail("timeout expired") }
                return nil
            }
            switch PQconnectPoll(connection) {
            case PGRES_POLLING_READING: waitsFor = Int16(POLLIN)
            case PGRES_POLLING_WRITING: waitsFor = Int16(POLLOUT)
            case PGRES_POLLING_OK:
                self.connection = nil
                return PostgreSQLConnection(established: connection)
            default:
                throw fail(PostgreSQLConnection.text(PQerrorMessage(connection)))
            }
        }
    }

    private func fail(_ reason: String) -> PostgreSQLError {
        if let connection { PQfinish(connection) }
        connection = nil
        return .connectionFailed(reason)
    }
}
