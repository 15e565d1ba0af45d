import Foundation

/// One row as the server sent it, with its values decoded by column name into Swift types, as
/// GRDB's `Row` decodes SQLite's:
///
/// ```swift
/// let wins: Int64 = try row.decode(forColumn: "wins")
/// let flag: String? = try row.decode(forColumn: "image_name")
/// ```
///
/// Values travel in PostgreSQL's text form; the column names of a result are shared by its rows
/// and looked up by hash.
public struct PostgreSQLRow: Sendable, Equatable {
    /// The row's column names.
    public let columns: PostgreSQLColumns
    /// The values in PostgreSQL's text form, in column order (nil for NULL).
    public let values: [String?]

    /// A row of these columns and values.
    public init(columns: PostgreSQLColumns, values: [String?]) {
        self.columns = columns
        self.values = values
    }

    /// A row of these column names and values.
    public init(columns: [String], values: [String?]) {
        self.init(columns: PostgreSQLColumns(columns), values: values)
    }

    /// The text of a column, or nil when it is NULL or absent.
    public subscript(column: String) -> String? {
        columns.index(of: column).flatMap { values[$0] }
    }

    /// The value of a column, decoded; an optional type decodes NULL as nil.
    ///
    /// - Throws: ``PostgreSQLDecodingError`` when the row has no such column, when the value is
    ///   NULL and `Value` is not optional, or when its text is not a `Value`.
    public func decode<Value: PostgreSQLValue>(
        _ type: Value.Type = Value.self, forColumn column: String
    ) throws -> Value {
        guard let index = columns.index(of: column) else { throw PostgreSQLDecodingError.noSuchColumn(column) }
        guard let text = values[index] else {
            guard let null = Value.nullValue else { throw PostgreSQLDecodingError.unexpectedNull(column: column) }
            return null
        }
        guard let value = Value(postgreSQLText: text) else {
            throw PostgreSQLDecodingError.notConvertible(column: column, text: text, type: "\(Value.self)")
        }
        return value
    }
}

/// The column names of a result, shared by its rows, with a hash index for lookups by name.
public final class PostgreSQLColumns: Sendable, Equatable {
    /// The names, in column order.
    public let names: [String]
    private let indexes: [String: Int]

    /// Columns of these names; where a name repeats, lookups find its first column.
    public init(_ names: [String]) {
        self.names = names
        var indexes: [String: Int] = [:]
        for (index, name) in names.enumerated() where indexes[name] == nil { indexes[name] = index }
        self.indexes = indexes
    }

    /// The position of the first column of this name.
    public func index(of name: String) -> Int? { indexes[name] }

    public static func == (lhs: PostgreSQLColumns, rhs: PostgreSQLColumns) -> Bool {
        lhs === rhs || lhs.names == rhs.names
    }
}

/// Why a row's value could not be decoded.
public enum PostgreSQLDecodingError: Error, Equatable, CustomStringConvertible {
    /// The row has no column of that name.
    case noSuchColumn(String)
    /// The column is NULL and the type asked for is not optional.
    case unexpectedNull(column: String)
    /// The column's text is not a value of the type asked for.
    case notConvertible(column: String, text: String, type: String)

    public var description: String {
        switch self {
        case let .noSuchColumn(column): return "the row has no column \"\(column)\""
        case let .unexpectedNull(column): return "column \"\(column)\" is NULL: decode it as an optional"
        case let .notConvertible(column, text, type):
            return "column \"\(column)\" holds \"\(text)\", which is not a \(type)"
        }
    }
}

/// A type whose values travel in PostgreSQL's text form: decoded from a row's column, and sent
/// as a statement's parameter, the same way for both:
///
/// ```swift
/// try connection.execute("UPDATE team SET wins = $1, flag = $2 WHERE id = $3", [3, nil, id])
/// let wins: Int64 = try row.decode(forColumn: "wins")
/// ```
///
/// `Int64`, `Int`, `Int32`, `Double`, `String`, `Bool`, `Data` (`bytea`), `Date` (`timestamptz`)
/// and their optionals are values; nil, or an optional holding none, is NULL.
public protocol PostgreSQLValue: Sendable {
    /// The value of this text, or nil when the text is not one.
    init?(postgreSQLText text: String)
    /// The value as the server reads it.
    var postgreSQLText: String { get }
    /// The value as a statement's parameter: its text, or nil for NULL.
    var postgreSQLParameter: String? { get }
    /// What NULL decodes to: nil for a type that cannot hold it.
    static var nullValue: Self? { get }
}

extension PostgreSQLValue {
    public var postgreSQLParameter: String? { postgreSQLText }

    public static var nullValue: Self? { nil }
}

extension Optional: PostgreSQLValue where Wrapped: PostgreSQLValue {
    public init?(postgreSQLText text: String) {
        guard let value = Wrapped(postgreSQLText: text) else { return nil }
        self = .some(value)
    }

    /// NULL has no text of its own: as a parameter it is sent as NULL (see
    /// ``postgreSQLParameter``), and this is for completeness.
    public var postgreSQLText: String { map(\.postgreSQLText) ?? "" }

    /// The wrapped value's parameter, or NULL.
    public var postgreSQLParameter: String? { flatMap(\.postgreSQLParameter) }

    public static var nullValue: Self? { .some(.none) }
}

/// Statement parameters in the text form the server reads, nil for NULL: how
/// ``PostgreSQLConnection`` and ``PostgreSQLPredicate`` send values.
func postgreSQLParameters(_ values: [(any PostgreSQLValue)?]) -> [String?] {
    values.map { $0?.postgreSQLParameter }
}

extension String: PostgreSQLValue {
    public init?(postgreSQLText text: String) { self = text }
    public var postgreSQLText: String { self }
}

extension Int64: PostgreSQLValue {
    public init?(postgreSQLText text: String) { self.init(text) }
    public var postgreSQLText: String { String(self) }
}

extension Int: PostgreSQLValue {
    public init?(postgreSQLText text: String) { self.init(text) }
    public var postgreSQLText: String { String(self) }
}

extension Int32: PostgreSQLValue {
    public init?(postgreSQLText text: String) { self.init(text) }
    public var postgreSQLText: String { String(self) }
}

extension Double: PostgreSQLValue {
    /// Also the server's `Infinity`, `-Infinity` and `NaN`.
    public init?(postgreSQLText text: String) { self.init(text) }
    public var postgreSQLText: String {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return String(self)
    }
}

extension Bool: PostgreSQLValue {
    /// The server writes `t` and `f`; `true` and `false` are read too.
    public init?(postgreSQLText text: String) {
        switch text {
        case "t", "true": self = true
        case "f", "false": self = false
        default: return nil
        }
    }

    public var postgreSQLText: String { self ? "t" : "f" }
}

extension Data: PostgreSQLValue {
    /// `bytea` in the server's hex form (`\x0aff…`).
    public init?(postgreSQLText text: String) {
        let digits = Array(text.utf8)
        guard digits.count >= 2, digits[0] == UInt8(ascii: "\\"), digits[1] == UInt8(ascii: "x"), digits.count % 2 == 0
        else {
            return nil
        }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2 - 1)
        for index in stride(from: 2, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.init(bytes)
    }

    public var postgreSQLText: String {
        "\\x" + map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}

extension Date: PostgreSQLValue {
    /// A `timestamptz`, `timestamp` (read as UTC) or `date` in the server's ISO style:
    /// `2014-06-12 20:00:00.5+02`, `2014-06-12 18:00:00`, `2014-06-12`.
    public init?(postgreSQLText text: String) {
        guard let seconds = PostgreSQLTimestamp.secondsSince1970(text) else { return nil }
        self.init(timeIntervalSince1970: seconds)
    }

    /// In UTC, to the microsecond, as `timestamptz` reads it.
    public var postgreSQLText: String { PostgreSQLTimestamp.text(secondsSince1970: timeIntervalSince1970) }
}

/// The server's ISO date style, read and written without a locale.
enum PostgreSQLTimestamp {
    static func secondsSince1970(_ text: String) -> Double? {
        let scanner = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= scanner.count else { return nil }
            var value = 0
            for byte in scanner[index..<index + digits] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += digits
            return value
        }
        func skip(_ byte: Character) -> Bool {
            guard index < scanner.count, scanner[index] == byte.asciiValue else { return false }
            index += 1
            return true
        }
        guard let year = number(4), skip("-"), let month = number(2), skip("-"), let day = number(2) else { return nil }
        var seconds = Double(days(year: year, month: month, day: day) * 86_400)
        guard index < scanner.count else { return seconds }
        guard skip(" ") || skip("T"), let hour = number(2), skip(":"), let minute = number(2), skip(":"),
            let second = number(2)
        else { return nil }
        seconds += Double(hour * 3600 + minute * 60 + second)
        if skip(".") {
            var scale = 0.1
            while index < scanner.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(scanner[index]) {
                seconds += Double(scanner[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
        }
        guard index < scanner.count else { return seconds }
        let sign: Double = skip("+") ? -1 : (skip("-") ? 1 : 0)
        guard sign != 0, let offsetHours = number(2) else { return nil }
        var offset = offsetHours * 3600
        if skip(":") { guard let minutes = number(2) else { return nil }; offset += minutes * 60 }
        if skip(":") { guard let secondsPart = number(2) else { return nil }; offset += secondsPart }
        guard index == scanner.count else { return nil }
        return seconds + sign * Double(offset)
    }

    static func text(secondsSince1970 value: Double) -> String {
        let microseconds = Int64((value * 1_000_000).rounded())
        let (daysSinceEpoch, remainder) = microseconds.quotientAndRemainder(dividingBy: 86_400_000_000)
        let (dayNumber, dayMicroseconds) =
            remainder < 0
            ? (daysSinceEpoch - 1, remainder + 86_400_000_000) : (daysSinceEpoch, remainder)
        let (year, month, day) = civil(fromDays: Int(dayNumber))
        let secondsOfDay = Int(dayMicroseconds / 1_000_000), fraction = Int(dayMicroseconds % 1_000_000)
        func pad(_ number: Int, _ width: Int) -> String {
            let digits = String(number)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) "
            + "\(pad(secondsOfDay / 3600, 2)):\(pad(secondsOfDay / 60 % 60, 2)):"
            + "\(pad(secondsOfDay % 60, 2)).\(pad(fraction, 6))+00"
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day counted from 1970-01-01 (`civil_from_days`).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// A type a PostgreSQL results controller makes its objects of, from a row of the table.
public protocol PostgreSQLRecord {
    /// Decodes one row; throws when the row does not fit.
    init(row: PostgreSQLRow) throws
}

extension PostgreSQLRow: PostgreSQLRecord {
    /// The row itself.
    public init(row: PostgreSQLRow) { self = row }
}
