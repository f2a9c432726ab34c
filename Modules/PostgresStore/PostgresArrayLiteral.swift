/// PostgreSQL array literals in text format (`{"a","b",NULL}`), so a whole column of a group
/// commit travels as one parameter and `unnest` turns the columns back into rows.
enum PostgresArrayLiteral {
    /// Text elements, each quoted (`"` and `\` escaped); nil is NULL.
    static func text(_ values: [String?]) -> String {
        var s = "{"
        s.reserveCapacity(values.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 })
        for (i, v) in values.enumerated() {
            if i > 0 { s.append(",") }
            guard let v else {
                s.append("NULL")
                continue
            }
            s.append("\"")
            if v.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                for c in v.unicodeScalars {
                    if c == "\"" || c == "\\" { s.append("\\") }
                    s.unicodeScalars.append(c)
                }
            } else {
                s.append(v)
            }
            s.append("\"")
        }
        s.append("}")
        return s
    }

    static func text(_ values: [String]) -> String { text(values.map(Optional.some)) }

    /// Integer elements; nil is NULL.
    static func integers(_ values: [Int64?]) -> String {
        "{" + values.map { $0.map(String.init) ?? "NULL" }.joined(separator: ",") + "}"
    }
}
