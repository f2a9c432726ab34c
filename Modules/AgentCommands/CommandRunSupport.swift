import CommandSupport
import Foundation
import KVCConfig

/// A temporary folder of a command run, removed by `remove()`.
struct ScratchFolder {
    let path: String

    init(_ label: String) throws {
        let url = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("autotrack-\(label)-\(UUID().uuidString.prefix(8).lowercased())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Loads configuration files into a plan, or prints every problem and returns nil.
func loadPlan(files: [String], io: any OutputStreams, command: String) -> TrackingPlan? {
    do {
        return try TrackingPlan.load(files: files)
    } catch {
        for p in error.problems { io.printError("\(command): \(p)") }
        io.printError("\(command): fix the configuration above (docs/config.md describes the three document shapes)")
        return nil
    }
}

/// A duration of `seconds`, for options given in seconds.
func duration(seconds: Double) -> Duration { .milliseconds(Int64(seconds * 1000)) }
