import CLibpq
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One connection to a PostgreSQL server through libpq, the reference client that `psql` uses:
/// connection strings and URIs, the `PG*` environment variables, `~/.pgpass`, service files and
/// `sslmode` behave exactly as users know them from `psql`.
///
/// Every value travels as a parameter (`PQexecParams`, text format), never inside the SQL
/// text; parameters are typed as rows are decoded (``PostgreSQLValue``). The connection's
/// socket (``socket``) fits a `poll` loop: it becomes readable when a notification (`NOTIFY`)
/// arrives. Not thread-safe: use a connection from one thread at a time.
public final class PostgreSQLConnection {
    /// libpq's connection.
    let connection: OpaquePointer
    /// The statements ``executePrepared(_:_:)`` has prepared on this connection.
    var preparedStatements = PreparedStatements()
    /// A query sent ahead by ``sendAhead(_:_:)``, until its rows are taken.
    var sentAhead = SentAhead.none

    /// Connects, waiting until the connection is made or has failed.
    ///
    /// - Parameters:
    ///   - conninfo: anything `psql` accepts (`postgresql://user@host/db?sslmode=…`, or
    ///     `host=… dbname=…`), with the `PG*` variables filling in what it leaves out.
    ///   - defaults: connection parameters (`connect_timeout`, `keepalives_idle`…) used when
    ///     neither `conninfo` nor their `PG*` variable sets them: an application's choices that
    ///     its user can still override as in `psql`.
    ///
    /// - Throws: ``PostgreSQLError/clientLibraryMissing(_:)`` when libpq is not installed,
    ///   ``PostgreSQLError/connectionFailed(_:)`` when the server cannot be reached or refuses.
    public convenience init(_ conninfo: String, defaults: [String: String] = [:]) throws {
        try Self.loadClientLibrary()
        let made = Self.withParameters(conninfo, defaults) { PQconnectdbParams($0, $1, 1) }
        guard let connection = made else { throw PostgreSQLError.connectionFailed("out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.text(PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgreSQLError.connectionFailed(message)
        }
        self.init(established: connection)
    }

    /// Loads libpq, the first time only. The package loads it when it first needs it rather
    /// than linking it, so that a program that never connects does not load its twenty-odd
    /// libraries at every start; a program can call this early to learn that it is missing.
    ///
    /// - Throws: ``PostgreSQLError/clientLibraryMissing(_:)`` with the system's reason.
    public static func loadClientLibrary() throws {
        if let failure = clibpq_load() { throw PostgreSQLError.clientLibraryMissing(String(cString: failure)) }
    }

    /// Takes over a connection libpq has made.
    init(established connection: OpaquePointer) {
        // libpq prints the server's notices ("… does not exist, skipping") on stderr, over a
        // curses screen; they are informational, so they are dropped.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        self.connection = connection
    }

    /// Calls `body` with libpq's keyword and value arrays for `conninfo` and `defaults`.
    ///
    /// libpq reads the keywords in order and the expanded `dbname` (the conninfo) overrides
    /// what comes before it; a parameter with a `PG*` variable set is left to the variable.
    static func withParameters<T>(
        _ conninfo: String, _ defaults: [String: String],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<UnsafePointer<CChar>?>) -> T
    ) -> T {
        let environment = ProcessInfo.processInfo.environment
        let chosen = defaults.sorted { $0.key < $1.key }.filter { keyword, _ in
            Self.environmentVariable(for: keyword).map { environment[$0] == nil } ?? true
        }
        let keywords = chosen.map(\.key) + ["dbname"], values = chosen.map(\.value) + [conninfo]
        return withCStrings(keywords) { keywordPointers in withCStrings(values) { body(keywordPointers, $0) } }
    }

    deinit {
        // A query still in flight is dropped with the connection, without waiting for it.
        if case let .arrived(result) = sentAhead { PQclear(result) }
        PQfinish(connection)
    }

    /// The `PG*` variable that sets a connection parameter, as libpq documents them.
    static func environmentVariable(for keyword: String) -> String? {
        let known = [
            "connect_timeout": "PGCONNECT_TIMEOUT", "sslmode": "PGSSLMODE", "sslrootcert": "PGSSLROOTCERT",
            "application_name": "PGAPPNAME", "target_session_attrs": "PGTARGETSESSIONATTRS",
        ]
        return known[keyword]
    }

    /// Calls `body` with a NULL-terminated array of C strings.
    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// `values` as a PostgreSQL array literal (`{"a","b",NULL}`), for one array parameter
    /// (`$1::text[]`) instead of one parameter per value.
    public static func arrayLiteral(_ values: [String?]) -> String {
        "{"
            + values.map { value in
                value.map {
                    "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                        + "\""
                } ?? "NULL"
            }.joined(separator: ",") + "}"
    }

    /// The parameters `conninfo` sets itself (not the `PG*` variables), as libpq parses it; nil
    /// when it cannot be parsed or libpq cannot be loaded (then connecting says why).
    public static func parameters(of conninfo: String) -> [String: String]? {
        guard (try? loadClientLibrary()) != nil, let options = PQconninfoParse(conninfo, nil) else { return nil }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        return values
    }

    /// Why libpq cannot parse `conninfo` ("invalid percent-encoded token: …"); nil when it can,
    /// or when libpq cannot be loaded.
    public static func parseProblem(of conninfo: String) -> String? {
        guard (try? loadClientLibrary()) != nil else { return nil }
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &message) else {
            defer { if let message { PQfreemem(message) } }
            let text = message.map { String(cString: $0) } ?? "libpq cannot parse it"
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        PQconninfoFree(options)
        return nil
    }

    /// `conninfo` as people name a server, `user@host:port/database`, without its password or
    /// other parameters (for messages and file names); nil when libpq cannot parse it.
    public static func summary(of conninfo: String) -> String? {
        guard let values = parameters(of: conninfo) else { return nil }
        let environment = ProcessInfo.processInfo.environment
        let user = values["user"] ?? environment["PGUSER"]
        let host = values["host"] ?? environment["PGHOST"] ?? "localhost"
        let port = values["port"] ?? environment["PGPORT"]
        let database = values["dbname"] ?? environment["PGDATABASE"] ?? user
        return (user.map { $0 + "@" } ?? "") + host + (port.map { ":" + $0 } ?? "") + (database.map { "/" + $0 } ?? "")
    }

    /// Whether the connection is still up. Reads first, without waiting, what the server sent
    /// meanwhile, so a connection it closed (a restart, `pg_terminate_backend`) is known as
    /// closed before a statement is sent on it; a cut cable says nothing and is found later.
    public var isConnected: Bool {
        // Until the socket has nothing more: the server's farewell message, then its end.
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        while PQstatus(connection) == CONNECTION_OK, poll(&descriptor, 1, 0) > 0, PQconsumeInput(connection) == 1 {}
        return PQstatus(connection) == CONNECTION_OK
    }

    /// Runs one statement with its parameters (`$1`, `$2`… in the SQL) and returns its rows as
    /// text, as the server formats them.
    ///
    /// Parameters are typed as rows are decoded (``PostgreSQLValue``: `Int64`, `Int`, `Double`,
    /// `String`, `Bool`, `Data`, `Date` and their optionals), and nil is NULL:
    ///
    /// ```swift
    /// try connection.execute("UPDATE team SET wins = $1 WHERE id = $2", [3, id])
    /// try connection.execute("INSERT INTO team (name, flag) VALUES ($1, $2)", [name, nil])
    /// ```
    ///
    /// Each is sent in the text form the server reads, and the server takes it as the type the
    /// statement gives the parameter (a column's, or a cast's: `$1::bigint[]`).
    @discardableResult
    public func execute(_ sql: String, _ parameters: [(any PostgreSQLValue)?] = []) throws -> PostgreSQLRows {
        try withResult(sql, postgreSQLParameters(parameters)) { PostgreSQLRows($0) }
    }

    /// Inside a transaction: runs a query through a cursor, `fetchSize` rows at a time, and hands
    /// the rows to `body` one by one as the server's bytes (no Swift string per value), so that
    /// memory holds one batch of rows however many the query returns.
    public func forEachRow(
        throughCursor sql: String, _ parameters: [(any PostgreSQLValue)?] = [], fetchSize: Int = 10_000,
        _ body: (PostgreSQLRawRow) throws -> Void
    ) throws {
        try execute("DECLARE fetched_results_rows NO SCROLL CURSOR FOR " + sql, parameters)
        var fetched = fetchSize
        while fetched == fetchSize {
            fetched = try withResult("FETCH \(fetchSize) FROM fetched_results_rows", []) { result in
                for row in 0..<PQntuples(result) { try body(PostgreSQLRawRow(result: result, row: row)) }
                return Int(PQntuples(result))
            }
        }
        try execute("CLOSE fetched_results_rows")
    }

    /// Runs a query in one round trip and hands its rows to `body` one by one as the server's
    /// bytes; the whole result is in memory meanwhile, so this is for results known to be small
    /// (a `LIMIT`). Bigger ones go through ``forEachRow(throughCursor:_:fetchSize:_:)``.
    public func forEachRow(
        of sql: String, _ parameters: [(any PostgreSQLValue)?] = [], _ body: (PostgreSQLRawRow) throws -> Void
    ) throws {
        try withResult(sql, postgreSQLParameters(parameters)) { result in
            for row in 0..<PQntuples(result) { try body(PostgreSQLRawRow(result: result, row: row)) }
        }
    }

    private func withResult<T>(_ sql: String, _ parameters: [String?], _ body: (OpaquePointer) throws -> T) throws -> T
    {
        try withResult(parameters, body) { connection, count, values in
            PQexecParams(connection, sql, count, nil, values, nil, nil, 0)
        }
    }

    /// Sends a statement through `send` (given the connection, the parameter count and the
    /// parameters as C strings) and hands its result to `body`, or throws the server's error.
    func withResult<T>(
        _ parameters: [String?], _ body: (OpaquePointer) throws -> T,
        send: (OpaquePointer, Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> OpaquePointer?
    ) throws -> T {
        settleSentAhead()
        let result = Self.withCParameters(parameters) { count, values in send(connection, count, values) }
        guard let result else { throw PostgreSQLError.connectionLost(Self.text(PQerrorMessage(connection))) }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return try body(result)
        default:
            if PQstatus(connection) != CONNECTION_OK {
                throw PostgreSQLError.connectionLost(Self.text(PQerrorMessage(connection)))
            }
            throw PostgreSQLError.statementFailed(
                sqlState: SQLState(rawValue: Self.text(PQresultErrorField(result, Int32(UInt8(ascii: "C"))))),
                message: Self.text(PQresultErrorField(result, Int32(UInt8(ascii: "M")))))
        }
    }

    /// The parameters as C strings (NULL for nil), as libpq takes them, while `body` runs.
    static func withCParameters<T>(
        _ parameters: [String?], _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> T
    ) -> T {
        let values = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { values.forEach { free($0) } }
        return values.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { body(Int32(parameters.count), $0.baseAddress) }
        }
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    ///
    /// - Parameters:
    ///   - isolation: the transaction's isolation level.
    ///   - readOnly: whether the transaction may only read (the server refuses its writes).
    ///   - body: the transaction's work; its value is returned.
    public func transaction<T>(
        isolation: IsolationLevel = .readCommitted, readOnly: Bool = false, _ body: () throws -> T
    ) throws -> T {
        try execute("BEGIN ISOLATION LEVEL " + isolation.sql + (readOnly ? " READ ONLY" : ""))
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            if PQstatus(connection) == CONNECTION_OK { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    /// The descriptor a `poll` loop waits on: readable when the server sent something, such
    /// as a notification. Then call ``notifications()``.
    public var socket: Int32 { PQsocket(connection) }

    /// The notifications that have arrived (reads what the socket holds, without waiting).
    public func notifications() throws -> [PostgreSQLNotification] {
        guard PQconsumeInput(connection) == 1 else {
            throw PostgreSQLError.connectionLost(Self.text(PQerrorMessage(connection)))
        }
        var received: [PostgreSQLNotification] = []
        while let notify = PQnotifies(connection) {
            received.append(
                PostgreSQLNotification(
                    channel: Self.text(notify.pointee.relname), payload: Self.text(notify.pointee.extra),
                    processID: notify.pointee.be_pid))
            PQfreemem(notify)
        }
        return received
    }

    /// The server process serving this connection (for `pg_terminate_backend`, and to tell
    /// one's own notifications from others').
    public var serverProcessID: Int32 { PQbackendPID(connection) }

    static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0).trimmingCharacters(in: .newlines) } ?? ""
    }

    static func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        text(UnsafePointer(pointer))
    }
}

/// The rows a statement returned, as text (nil for NULL), and how many rows it changed.
public struct PostgreSQLRows: Sendable {
    /// The column names, in order.
    public var columns: [String] { columnIndex.names }
    /// The column names with their index, shared by the rows.
    public let columnIndex: PostgreSQLColumns
    /// Each row's values as text, nil for NULL.
    public let rows: [[String?]]
    /// Rows inserted, updated or deleted by the statement (0 for others).
    public let affectedRows: Int

    init(_ result: OpaquePointer) {
        let fields = Int(PQnfields(result)), count = Int(PQntuples(result))
        columnIndex = PostgreSQLColumns(Self.columns(of: result))
        rows = (0..<count).map { row in
            (0..<fields).map { field in
                PQgetisnull(result, Int32(row), Int32(field)) == 1
                    ? nil : String(cString: PQgetvalue(result, Int32(row), Int32(field)))
            }
        }
        affectedRows = Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// The first column of the first row, if any.
    public var scalar: String? { rows.first?.first ?? nil }

    /// The rows, each decodable by column name.
    public var records: [PostgreSQLRow] { rows.map { PostgreSQLRow(columns: columnIndex, values: $0) } }

    /// The column names as the server sent them: a quoted name may end in a newline, which
    /// ``PostgreSQLConnection/text(_:)`` (for messages) would trim.
    static func columns(of result: OpaquePointer) -> [String] {
        (0..<PQnfields(result)).map { field in PQfname(result, field).map { String(cString: $0) } ?? "" }
    }
}

/// One row of a result, read in place: each field's text as the server sent it, valid only
/// inside ``PostgreSQLConnection/forEachRow(throughCursor:_:fetchSize:_:)``'s closure.
public struct PostgreSQLRawRow {
    let result: OpaquePointer
    let row: Int32

    /// The field's text as a NUL-terminated C string, or nil for NULL.
    public func cString(_ field: Int) -> UnsafePointer<CChar>? {
        PQgetisnull(result, row, Int32(field)) == 1 ? nil : UnsafePointer(PQgetvalue(result, row, Int32(field)))
    }

    /// The field's bytes (without the NUL), or nil for NULL.
    public func bytes(_ field: Int) -> UnsafeBufferPointer<UInt8>? {
        cString(field).map { pointer in
            pointer.withMemoryRebound(to: UInt8.self, capacity: 1) {
                UnsafeBufferPointer(start: $0, count: Int(PQgetlength(result, row, Int32(field))))
            }
        }
    }

    /// The field's length in bytes (0 for NULL).
    public func length(_ field: Int) -> Int { Int(PQgetlength(result, row, Int32(field))) }

    /// The field as a string, or nil for NULL.
    public func text(_ field: Int) -> String? { bytes(field).map { String(decoding: $0, as: UTF8.self) } }

    /// The column names of the result.
    public var columns: [String] { PostgreSQLRows.columns(of: result) }

    /// The whole row as text values, under `columns` (the result's, made once for its rows).
    public func fullRow(columns: PostgreSQLColumns) -> PostgreSQLRow {
        PostgreSQLRow(columns: columns, values: (0..<Int(PQnfields(result))).map(text))
    }
}

/// A `NOTIFY` received on a channel this connection `LISTEN`s to.
public struct PostgreSQLNotification: Sendable, Equatable {
    /// The channel it was sent on.
    public let channel: String
    /// The sender's text (the feed's triggers send the table's name).
    public let payload: String
    /// The server process that sent it.
    public let processID: Int32
}

/// A transaction's isolation level, as PostgreSQL names them.
public enum IsolationLevel: Sendable, Equatable {
    /// Each statement sees what was committed before it began (PostgreSQL's default).
    case readCommitted
    /// Every statement sees one snapshot, taken at the transaction's first statement.
    case repeatableRead
    /// As if the transactions ran one after the other; the server may refuse a commit that
    /// could not have.
    case serializable

    /// The level in SQL.
    var sql: String {
        switch self {
        case .readCommitted: "READ COMMITTED"
        case .repeatableRead: "REPEATABLE READ"
        case .serializable: "SERIALIZABLE"
        }
    }
}

/// A PostgreSQL error code (SQLSTATE), five characters: the server's own classification of
/// what went wrong. The codes a program reacts to have names here.
public struct SQLState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The five characters.
    public let rawValue: String

    /// A code from its five characters.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The role may not do this (`GRANT` is missing).
    public static let insufficientPrivilege = SQLState(rawValue: "42501")
    /// A row would repeat a value a unique index holds.
    public static let uniqueViolation = SQLState(rawValue: "23505")
    /// The table does not exist.
    public static let undefinedTable = SQLState(rawValue: "42P01")
    /// The server is shutting down on an administrator's order.
    public static let adminShutdown = SQLState(rawValue: "57P01")
    /// The server is shutting down after a crash.
    public static let crashShutdown = SQLState(rawValue: "57P02")
    /// The server cannot accept connections now.
    public static let cannotConnectNow = SQLState(rawValue: "57P03")
    /// The server cannot do this; among others, a prepared statement whose result columns
    /// changed since it was prepared.
    public static let featureNotSupported = SQLState(rawValue: "0A000")
    /// A connection exception; every code of class 08 is one.
    public static let connectionExceptionClass = "08"

    /// Whether the code says the connection itself broke, not that a statement was refused.
    public var meansConnectionLost: Bool {
        rawValue.hasPrefix(Self.connectionExceptionClass)
            || [Self.adminShutdown, Self.crashShutdown, Self.cannotConnectNow].contains(self)
    }

    public var description: String { rawValue }
}

/// What went wrong talking to PostgreSQL, with the server's or libpq's own words.
public enum PostgreSQLError: Error, CustomStringConvertible, Equatable {
    /// The connection could not be made (libpq's reason: host, password, certificate…).
    case connectionFailed(String)
    /// The connection broke (the server went away, or the connection was terminated).
    case connectionLost(String)
    /// A connection broke and the next attempt to make it again is not due yet, or is still
    /// under way: `lastError` is why the connection is away.
    case reconnecting(lastError: String)
    /// The server refused a statement; `sqlState` is its code.
    case statementFailed(sqlState: SQLState, message: String)
    /// libpq itself (`libpq.so.5`) could not be loaded: the system's reason.
    case clientLibraryMissing(String)

    /// The error in words, for a status line or stderr.
    public var description: String {
        switch self {
        case let .connectionFailed(message): return "cannot connect to PostgreSQL: \(message)"
        case let .connectionLost(message): return "the connection to PostgreSQL was lost: \(message)"
        case let .reconnecting(lastError): return "reconnecting to PostgreSQL (\(lastError))"
        case let .statementFailed(state, message): return "PostgreSQL refused the statement (\(state)): \(message)"
        case let .clientLibraryMissing(reason):
            return "PostgreSQL's client library, libpq, could not be loaded (\(reason)); "
                + "install it (Debian: apt-get install libpq5)"
        }
    }
}

extension PostgreSQLError {
    /// Whether the connection itself broke (as opposed to a refused statement): what was sent
    /// may or may not have been done.
    public var isConnectionLost: Bool {
        switch self {
        case .connectionLost, .reconnecting: return true
        case let .statementFailed(state, _): return state.meansConnectionLost
        case .connectionFailed, .clientLibraryMissing: return false
        }
    }
}
