/// Columns of text aligned for a monospace terminal: numbers right, text left.
struct TextTable {
    var header: [String]
    var rows: [[String]]
    /// Column indexes aligned to the right.
    var numeric: Set<Int> = []

    /// The table, one line per row, header first; `(none)` when there are no rows.
    var text: String {
        guard !rows.isEmpty else { return "(none)\n" }
        let all = [header] + rows.map { row in header.indices.map { $0 < row.count ? Self.oneLine(row[$0]) : "" } }
        // Width in characters, not bytes, so names in other scripts still line up.
        var widths = header.map(\.count)
        for row in all {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        var s = ""
        for row in all {
            var line = ""
            for (i, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                let last = i == row.count - 1
                line += numeric.contains(i) ? pad + cell : (last ? cell : cell + pad)
                if !last { line += "  " }
            }
            s += line + "\n"
        }
        return s
    }

    /// Control characters would break the table (and could drive the terminal): shown as `?`.
    static func oneLine(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : $0 }))
    }
}
