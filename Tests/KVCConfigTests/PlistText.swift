import EventModel

/// Writes a JSON value as an XML property list, so every JSON test document can be loaded in both formats.
enum PlistText {
    static func document(_ v: JSONValue) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        \(value(v, indent: ""))
        </plist>

        """
    }

    static func escape(_ s: String) -> String {
        s.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;")
    }

    static func value(_ v: JSONValue, indent: String) -> String {
        switch v {
        case .null: return indent + "<string></string>"
        case .bool(let b): return indent + (b ? "<true/>" : "<false/>")
        case .int(let i): return indent + "<integer>\(i)</integer>"
        case .double(let d): return indent + "<real>\(d)</real>"
        case .string(let s): return indent + "<string>\(escape(s))</string>"
        case .array(let a):
            if a.isEmpty { return indent + "<array/>" }
            return indent + "<array>\n" + a.map { value($0, indent: indent + "  ") }.joined(separator: "\n") + "\n" + indent + "</array>"
        case .object(let o):
            if o.isEmpty { return indent + "<dict/>" }
            var lines: [String] = []
            for m in o {
                lines.append(indent + "  <key>\(escape(m.key))</key>")
                lines.append(value(m.value, indent: indent + "  "))
            }
            return indent + "<dict>\n" + lines.joined(separator: "\n") + "\n" + indent + "</dict>"
        }
    }
}

extension String {
    func replacingAll(_ a: String, _ b: String) -> String {
        split(separator: a, omittingEmptySubsequences: false).joined(separator: b)
    }
}

/// A document as JSON text and as XML plist text.
enum Formats {
    static func both(_ json: String) throws -> [(label: String, text: String)] {
        let v = try JSONValue.parse(json)
        return [("json", json), ("plist", PlistText.document(v))]
    }
}
