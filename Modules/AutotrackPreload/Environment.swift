import SystemCalls

/// The process environment as the preload's constructor sees it (before `main`, so no Foundation).
enum Environment {
    static func current() -> [String: String] {
        Posix.environment()
    }

    /// The running program's path (`/proc/self/exe`).
    static func programPath() -> String {
        (try? Posix.readLink("/proc/self/exe")) ?? "/proc/self/exe"
    }

    /// Drops this library from `LD_PRELOAD`, so programs the tracked one starts are not tracked.
    static func removeSelfFromPreload() {
        guard let value = Posix.environmentValue("LD_PRELOAD") else { return }
        let kept = value.split(whereSeparator: { $0 == ":" || $0 == " " }).filter { !$0.contains("libAutotrackPreload") }
        Posix.setEnvironmentValue("LD_PRELOAD", to: kept.isEmpty ? nil : kept.joined(separator: ":"))
    }
}
