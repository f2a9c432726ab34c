#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Posix {
    /// This process's environment as `environ` holds it now. Needs no Foundation, so it also
    /// works in a preloaded library's constructor, before `main`.
    package static func environment() -> [String: String] {
        var out: [String: String] = [:]
        guard var p = Optional(environ) else { return out }
        while let entry = p.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") {
                out[String(text[..<eq])] = String(text[text.index(after: eq)...])
            }
            p += 1
        }
        return out
    }

    /// The value of the environment variable `name`; nil when it is not set.
    package static func environmentValue(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Sets the environment variable `name` to `value` for this process and the programs it
    /// starts from now on; nil removes it.
    package static func setEnvironmentValue(_ name: String, to value: String?) {
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }

    /// This process's id.
    package static func processID() -> Int32 { getpid() }

    /// This process's effective user id (0: root).
    package static func effectiveUserID() -> UInt32 { geteuid() }
}
