import FetchedResultsPostgreSQL
import Foundation
import TestSupport
import Testing

extension PostgreSQLServerTests {
    /// Parameters are typed as rows are decoded: each type goes in through `execute` (and the
    /// other ways a connection runs a statement) and comes back equal.
    @Suite struct PostgreSQLParameterTests {
        static let table = """
            CREATE TABLE value (
                id bigint PRIMARY KEY, small integer, real double precision, name text, flag boolean,
                bytes bytea, at timestamptz)
            """
        static let insert =
            "INSERT INTO value (id, small, real, name, flag, bytes, at) VALUES ($1, $2, $3, $4, $5, $6, $7)"
        static let name = "O'Brien said \"hi\" \\ $1 -- 日本代表 🇯🇵\n"
        static let bytes = Data([0, 0xFF, 0x27, 0x5C, 0, 0x0A])
        static let date = Date(timeIntervalSince1970: 1_402_603_200.5)
        static let earlyDate = Date(timeIntervalSince1970: -1_000_000.25)

        struct Value: PostgreSQLRecord, Equatable {
            var id: Int64
            var small: Int?
            var real: Double?
            var name: String?
            var flag: Bool?
            var bytes: Data?
            var at: Date?

            init(id: Int64, small: Int?, real: Double?, name: String?, flag: Bool?, bytes: Data?, at: Date?) {
                (self.id, self.small, self.real, self.name, self.flag, self.bytes, self.at) =
                    (id, small, real, name, flag, bytes, at)
            }

            init(row: PostgreSQLRow) throws {
                id = try row.decode(forColumn: "id")
                small = try row.decode(forColumn: "small")
                real = try row.decode(forColumn: "real")
                name = try row.decode(forColumn: "name")
                flag = try row.decode(forColumn: "flag")
                bytes = try row.decode(forColumn: "bytes")
                at = try row.decode(forColumn: "at")
            }
        }

        func values(_ connection: PostgreSQLConnection) throws -> [Value] {
            try connection.execute("SELECT * FROM value ORDER BY id").records.map(Value.init(row:))
        }

        @Test func everyTypeRoundTripsThroughExecute() throws {
            let connection = try PostgreSQLConnection(try freshDatabase())
            try connection.execute(Self.table)
            let big: Int64 = 9_007_199_254_740_993  // beyond a double's integers
            try connection.execute(Self.insert, [big, -42, 0.1, Self.name, true, Self.bytes, Self.date])
            try connection.execute(Self.insert, [-1, Int.max >> 32, -1.5e-300, "", false, Data(), Self.earlyDate])
            // NULL: nil itself, an optional holding none, and one behind `any PostgreSQLValue`.
            let noName: String? = nil
            let noFlag: any PostgreSQLValue = Bool?.none
            try connection.execute(Self.insert, [2, nil, nil, noName, noFlag, nil, nil])
            #expect(
                try values(connection) == [
                    Value(
                        id: -1, small: Int.max >> 32, real: -1.5e-300, name: "", flag: false, bytes: Data(),
                        at: Self.earlyDate),
                    Value(id: 2, small: nil, real: nil, name: nil, flag: nil, bytes: nil, at: nil),
                    Value(
                        id: big, small: -42, real: 0.1, name: Self.name, flag: true, bytes: Self.bytes, at: Self.date),
                ])
            // Parameters of a WHERE, read back through the other ways to run a statement.
            let optionalID: Int64? = big
            #expect(try connection.execute("SELECT name FROM value WHERE id = $1", [optionalID]).scalar == Self.name)
            #expect(
                try connection.executePrepared(
                    "SELECT id FROM value WHERE bytes = $1 AND at = $2", [Self.bytes, Self.date]
                )
                .scalar == String(big))
            var names: [String?] = []
            try connection.forEachRow(of: "SELECT name FROM value WHERE flag = $1 OR flag IS NULL ORDER BY id", [false])
            {
                names.append($0.text(0))
            }
            #expect(names == ["", nil])
            try connection.execute("UPDATE value SET name = $1 WHERE id = $2", [nil, -1])
            #expect(try connection.execute("SELECT count(*) FROM value WHERE name IS NULL").scalar == "2")
        }

        /// A predicate takes its arguments the same way, NULL behind `any PostgreSQLValue` too.
        @Test func aPredicateEncodesItsArgumentsAsExecuteDoes() {
            let noID: any PostgreSQLValue = Int64?.none
            let predicate = PostgreSQLPredicate(sql: "a = $1", arguments: [3, "x", nil, noID, true, Self.bytes])
            #expect(predicate.arguments == ["3", "x", nil, nil, "t", "\\x00ff275c000a"])
        }
    }
}
