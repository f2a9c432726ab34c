/// Line and column of a byte offset, for error locations.
enum TextPosition {
    /// 1-based line, and 1-based column counted in characters (UTF-8 continuation bytes skipped).
    static func lineColumn(_ bytes: [UInt8], _ offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        var i = 0
        let end = min(offset, bytes.count)
        while i < end {
            if bytes[i] == 0x0A {
                line += 1
                column = 1
            } else if bytes[i] & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return (line, column)
    }
}
