/// A day of the UTC calendar, as a count of days since 1970-01-01 (negative before it): the one
/// day type of the collector. The rollup tables' unit (`UTCDay.number(of:)` keys their rows), and
/// the analytics' days and weeks (Monday to Sunday) of the corrected event time.
public struct UTCDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 1970-01-01 (negative before it).
    public var number: Int64

    public init(number: Int64) { self.number = number }

    public static let milliseconds: Int64 = 86_400_000

    /// The number of the day holding `time` (ms since the epoch): `UTCDay(time:).number`.
    public static func number(of time: Int64) -> Int64 {
        let q = time / milliseconds
        return time % milliseconds < 0 ? q - 1 : q
    }

    /// True when `time` is the first millisecond of a day.
    public static func isStart(_ time: Int64) -> Bool { time % milliseconds == 0 }

    /// The UTC day holding `time` (ms since the epoch).
    public init(time: Int64) {
        number = Self.number(of: time)
    }

    /// `year-month-day` of the proleptic Gregorian calendar; nil for a date that does not exist.
    public init?(year: Int64, month: Int64, day: Int64) {
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year) else { return nil }
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = Self.floorDivide(y, 400)
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        number = era * 146_097 + doe - 719_468
    }

    /// Parses `YYYY-MM-DD`.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
            let y = Int64(parts[0]), let m = Int64(parts[1]), let d = Int64(parts[2])
        else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// The first millisecond of the day.
    public var startTime: Int64 { number * Self.milliseconds }

    /// The Monday that starts this day's week (1970-01-01 was a Thursday).
    public var weekStart: UTCDay { UTCDay(number: Self.floorDivide(number + 3, 7) * 7 - 3) }

    /// `(year, month, day)`: Howard Hinnant's civil_from_days.
    public var civil: (year: Int64, month: Int64, day: Int64) {
        let z = number + 719_468
        let era = Self.floorDivide(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        let (y, m, d) = civil
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : String(v) }
        let year = String(y)
        return (y >= 0 && y < 1000 ? String(repeating: "0", count: 4 - year.count) : "") + year + "-" + two(m) + "-" + two(d)
    }

    public static func < (a: UTCDay, b: UTCDay) -> Bool { a.number < b.number }

    package static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    package static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}

extension Character {
    /// `0`–`9`.
    package var isASCIIDigit: Bool { isASCII && isNumber }
}
