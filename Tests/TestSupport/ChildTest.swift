import Foundation
package import SystemCalls

/// A test of this test binary run as a process of its own (to be killed, say), enabled in the
/// child by an environment variable: `KilledClientTests`, `SharedLogSyncTests`, `IngestLogTests`.
public enum ChildTest {
    /// Starts this binary running only the test `name`, with `variable` set to `value`, and
    /// returns it once its standard output printed `marker`; nil (the child killed) when it
    /// exited or went 600 reads without printing it. The rest of its output is read and dropped
    /// on a thread of its own until the child closes it, so a child that goes on to end normally
    /// (printing its test results) is not ended by SIGPIPE.
    package static func start(_ name: String, variable: String, value: String, marker: String) throws -> ChildProgram? {
        let output = Pipe()
        let child = try ChildProgram(
            CommandLine.arguments[0], arguments: ["--testing-library", "swift-testing", "--filter", name],
            environment: ProcessInfo.processInfo.environment.merging([variable: value]) { $1 },
            standardOutput: .descriptor(output.fileHandleForWriting.fileDescriptor), standardError: .discarded)
        try output.fileHandleForWriting.close()
        var seen = ""
        let reader = output.fileHandleForReading
        for _ in 0..<600 where !seen.contains(marker) {  // bounded: 600 reads
            let data = reader.availableData
            if data.isEmpty { break }
            seen += String(decoding: data, as: UTF8.self)
        }
        guard seen.contains(marker) else {
            _ = child.stop(within: .seconds(10))
            return nil
        }
        // Bounded by the child: its end closes the pipe, and an empty read ends the loop.
        Thread { while !reader.availableData.isEmpty {} }.start()
        return child
    }

    /// `start`s the child and, once it printed `marker`, kills it (`SIGKILL`: no cleanup runs)
    /// and waits for it to end; nil when it never printed the marker.
    package static func killed(_ name: String, variable: String, value: String, marker: String) throws -> ChildProgram? {
        guard let child = try start(name, variable: variable, value: value, marker: marker) else { return nil }
        child.send(SIGKILL)
        child.waitForExit()
        return child
    }
}
