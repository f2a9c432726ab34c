public import Foundation
import SystemCalls

/// Where the agent keeps what must outlive the process: `identity.json` (device id, user,
/// consent) and `rules.json` (the last good remote rule set).
///
/// The default, per app key: `$AUTOTRACK_DATA_DIR` when set (used as is), else
/// `$XDG_DATA_HOME/autotrack/<appKey>`, else `~/.local/share/autotrack/<appKey>`, else the
/// temporary folder's `autotrack/<appKey>`.
public enum AgentDataDirectory {
    public static func `default`(appKey: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String
    {
        if let dir = environment["AUTOTRACK_DATA_DIR"], !dir.isEmpty { return dir }
        let key = appKey.map { $0 == "/" ? "_" : $0 }
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return "\(xdg)/autotrack/\(String(key))" }
        if let home = environment["HOME"], !home.isEmpty { return "\(home)/.local/share/autotrack/\(String(key))" }
        return NSTemporaryDirectory() + "autotrack/\(String(key))"
    }

    /// The bytes of `name` in `directory`, or nil when it is absent or unreadable.
    static func read(_ name: String, in directory: String) -> [UInt8]? {
        FileManager.default.contents(atPath: directory + "/" + name).map { [UInt8]($0) }
    }

    /// Writes `bytes` to `name` in `directory` (created if needed) through a temporary file and a
    /// rename, so a crash leaves the old file or the new one, never half of one.
    static func write(_ bytes: [UInt8], to name: String, in directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let temporary = directory + "/." + name + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary])
        }
        do throws(PosixError) {
            try Posix.rename(temporary, directory + "/" + name)
        } catch {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: directory + "/" + name])
        }
    }
}
