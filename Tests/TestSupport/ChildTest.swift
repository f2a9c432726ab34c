import Foundation
import SystemCalls

/// A test of this test binary run as a process of its own (to be killed, say), enabled in the
/// child by an environment variable: `KilledClientTests`, `SharedLogSyncTests`, `IngestLogTests`.
public enum ChildTest {
    /// Starts this binary running only the test `name`, with `variable` set to `value`, and
    /// returns it once its standard output printed `marker`; nil (the child killed) when it
    /// exited or went 600 reads without printing it.
    public static func start(_ name: String, variable: String, value: String, marker: String) throws -> Process? {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--testing-library", "swift-testing", "--filter", name]
        child.environment = ProcessInfo.processInfo.environment.merging([variable: value]) { $1 }
        let output = Pipe()
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()
        var seen = ""
        let reader = output.fileHandleForReading
        for _ in 0..<600 where !seen.contains(marker) {  // bounded: 600 reads
            let data = reader.availableData
            if data.isEmpty { break }
            seen += String(decoding: data, as: UTF8.self)
        }
        guard seen.contains(marker) else {
            if child.isRunning { child.terminate() }
            child.waitUntilExit()
            return nil
        }
        return child
    }

    /// `start`s the child and, once it printed `marker`, kills it (`SIGKILL`: no cleanup runs)
    /// and waits for it to end; nil when it never printed the marker.
    public static func killed(_ name: String, variable: String, value: String, marker: String) throws -> Process? {
        guard let child = try start(name, variable: variable, value: value, marker: marker) else { return nil }
        try Posix.sendSignal(SIGKILL, to: child.processIdentifier)
        child.waitUntilExit()
        return child
    }
}
