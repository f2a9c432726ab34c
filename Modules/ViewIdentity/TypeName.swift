/// A type's name as paths and event codes print it (docs/viewpath.md §2 rule 3), kept apart because
/// path names, event codes and the hooks all use it.
public enum TypeName {
    /// Rule 3's name of a runtime type name: private and local declaration contexts dropped, then
    /// the module prefix. `Shop.(unknown context at $55a6851fc5f4).SecretCell` → `SecretCell`,
    /// `Shop.ProductCell` → `ProductCell`.
    public static func name(_ typeName: String) -> String {
        stripModulePrefix(dropPrivateContexts(typeName))
    }

    /// Drops every `(unknown context at $…).` segment, which Swift prints for private and local
    /// declaration contexts and whose address changes between launches.
    public static func dropPrivateContexts(_ typeName: String) -> String {
        let marker = "(unknown context at $"
        guard typeName.utf8.count > marker.utf8.count, typeName.contains(marker) else { return typeName }
        var out = ""
        var rest = Substring(typeName)
        while let open = rest.firstRange(of: marker) {
            out += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].firstIndex(of: ")") else {
                // An unterminated segment is left as it is.
                out += rest[open.lowerBound...]
                return out
            }
            var after = rest.index(after: close)
            if after < rest.endIndex, rest[after] == "." { after = rest.index(after: after) }
            rest = rest[after...]
        }
        out += rest
        return out.isEmpty ? typeName : out
    }

    /// `Shop.ProductCell` → `ProductCell`; `Shop.Outer.Inner` → `Outer.Inner`; `UIButton` → `UIButton`.
    ///
    /// The text before the first dot must be a plain identifier (letters, digits, `_`); otherwise
    /// (`Box<Shop.X>`, `.X`) nothing is stripped. A name that would be left empty (`Shop.`) is kept
    /// whole, because an empty path name cannot be written in a canonical form.
    public static func stripModulePrefix(_ typeName: String) -> String {
        let start = nameStart(typeName)
        return start == typeName.startIndex ? typeName : String(typeName[start...])
    }

    /// Where the name begins once the module prefix is dropped (`startIndex` when there is none).
    static func nameStart(_ typeName: String) -> String.Index {
        let utf8 = typeName.utf8
        let dot: String.Index?
        // Searched in the contiguous bytes where there are some: the generic search costs far more.
        if let offset = utf8.withContiguousStorageIfAvailable({ $0.firstIndex(of: UInt8(ascii: ".")) }) {
            dot = offset.map { utf8.index(utf8.startIndex, offsetBy: $0) }
        } else {
            dot = utf8.firstIndex(of: UInt8(ascii: "."))
        }
        guard let dot, dot != utf8.startIndex else { return typeName.startIndex }
        let after = utf8.index(after: dot)
        guard after != utf8.endIndex, isPlainIdentifier(typeName[..<dot]) else { return typeName.startIndex }
        return after
    }

    /// Letters, digits and `_`, at least one character.
    ///
    /// "Letters" are Unicode letters (general category L*) with their combining marks (M*), so a
    /// module named in any script is stripped; "digits" are decimal digits (Nd).
    public static func isPlainIdentifier(_ s: Substring) -> Bool {
        guard !s.isEmpty else { return false }
        for ch in s.unicodeScalars {
            let v = ch.value
            if v < 0x80 {
                let isASCIIWord =
                    (0x30...0x39).contains(v) || (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) || v == 0x5F
                if isASCIIWord { continue }
                return false
            }
            switch ch.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber:
                continue
            default:
                return false
            }
        }
        return true
    }
}
