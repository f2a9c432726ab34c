import EventStore

/// The time and duration texts the analytics' commands take (`--since`, `--until`, `--within`).
public enum TimeArgument {
    /// An instant, ms since the epoch: `YYYY-MM-DD` (midnight UTC), RFC 3339
    /// (`2026-11-01T09:30:00Z`, `2026-11-01T09:30:00.250+01:00`; `t` and `z` accepted), or whole
    /// epoch milliseconds (`1762000000000`). Nil when it is none of them.
    public static func instant(_ text: String) -> Int64? {
        if !text.isEmpty, text.allSatisfy(\.isASCIIDigit) || (text.first == "-" && text.count > 1 && text.dropFirst().allSatisfy(\.isASCIIDigit)) {
            return Int64(text)
        }
        if let day = UTCDay(text) { return day.startTime }
        return rfc3339(text)
    }

    /// A duration in ms: a whole number with a unit, `ms`, `s`, `m`, `h` or `d` (`90s`, `30m`,
    /// `1h`, `7d`), or a bare whole number of milliseconds. Nil when it is not one, or negative.
    public static func duration(_ text: String) -> Int64? {
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        for (unit, factor) in units where text.hasSuffix(unit) {
            let number = text.dropLast(unit.count)
            // `ms` is tried first, so `5ms` is never read as 5 minutes and an `s`.
            guard !number.isEmpty, number.allSatisfy(\.isASCIIDigit), let n = Int64(number) else { continue }
            let (v, overflow) = n.multipliedReportingOverflow(by: factor)
            return overflow ? nil : v
        }
        guard !text.isEmpty, text.allSatisfy(\.isASCIIDigit) else { return nil }
        return Int64(text)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
    static func rfc3339(_ text: String) -> Int64? {
        let chars = Array(text.utf8)
        guard chars.count >= 20, chars[10] == UInt8(ascii: "T") || chars[10] == UInt8(ascii: "t"),
            let day = UTCDay(String(decoding: chars[0..<10], as: UTF8.self))
        else { return nil }
        func number(_ r: Range<Int>) -> Int64? {
            guard r.upperBound <= chars.count else { return nil }
            var v: Int64 = 0
            for c in chars[r] {
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            return v
        }
        guard let h = number(11..<13), chars[13] == UInt8(ascii: ":"), let mi = number(14..<16), chars[16] == UInt8(ascii: ":"),
            let s = number(17..<19), h < 24, mi < 60, s < 61
        else { return nil }
        var i = 19
        var millis: Int64 = 0
        if i < chars.count, chars[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < chars.count, chars[i] >= 48, chars[i] <= 57 {
                if digits < 3 { millis = millis * 10 + Int64(chars[i] - 48) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { millis *= 10 }
        }
        guard i < chars.count else { return nil }
        var offset: Int64 = 0
        switch chars[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard i + 1 == chars.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard i + 6 == chars.count, let oh = number(i + 1..<i + 3), chars[i + 3] == UInt8(ascii: ":"),
                let om = number(i + 4..<i + 6), oh < 24, om < 60
            else { return nil }
            offset = (oh * 60 + om) * 60_000 * (chars[i] == UInt8(ascii: "+") ? 1 : -1)
        default:
            return nil
        }
        return day.startTime + ((h * 60 + mi) * 60 + s) * 1000 + millis - offset
    }
}
