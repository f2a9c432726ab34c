public import KVCConfig

extension AppVersion {
    /// `versions` in version order (`1.2.0` before `1.10.0`), the ones that do not parse after, by
    /// text; each once.
    public static func ordered(_ versions: some Sequence<String>) -> [String] {
        Set(versions).sorted { a, b in
            switch (AppVersion(a), AppVersion(b)) {
            case (let x?, let y?): return x != y ? x < y : a < b
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a < b
            }
        }
    }
}
