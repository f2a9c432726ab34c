import SystemCalls

/// The process environment as the preload's constructor sees it (before `main`, so no Foundation).
enum Environment {
    static func current() -> [String: String] {
        var out: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") {
                out[String(text[..<eq])] = String(text[text.index(after: eq)...])
            }
            p += 1
        }
        return out
    }

    /// The running program's path (`/proc/self/exe`).
    static func programPath() -> String {
        (try? Posix.readLink("/proc/self/exe")) ?? "/proc/self/exe"
    }

    /// Drops this library from `LD_PRELOAD`, so programs the tracked one starts are not tracked.
    static func removeSelfFromPreload() {
        guard let value = getenv("LD_PRELOAD").map({ String(cString: $0) }) else { return }
        let kept = value.split(whereSeparator: { $0 == ":" || $0 == " " }).filter { !$0.contains("libAutotrackPreload") }
        if kept.isEmpty { unsetenv("LD_PRELOAD") } else { setenv("LD_PRELOAD", kept.joined(separator: ":"), 1) }
    }

    static func printError(_ line: String) {
        Posix.writeToStandardError(line + "\n")
    }
}
