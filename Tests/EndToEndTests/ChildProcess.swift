import Foundation
import Synchronization
import SystemCalls
import TestSupport

/// The built executables, found from the repository root (the test command builds them first).
enum Binaries {
    static var agent: URL { path("autotrack-agent") }
    static var collector: URL { path("autotrack-collector") }

    /// The debug build of executable `name`.
    static func path(_ name: String) -> URL {
        Fixtures.repositoryRoot.appendingPathComponent(".build/debug/\(name)")
    }
}

/// A failure of the harness itself: a process that did not start, answer or end in time.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
}

/// A process of a built executable, its output collected as it runs; killed when dropped.
///
/// Output is read on threads of its own (blocking reads never run on the Swift concurrency pool);
/// every wait polls with a deadline.
final class ChildProcess: Sendable {
    let label: String
    let process: ChildProgram
    private let buffers = OutputBuffers()

    /// The write end of standard input, when the process was started with `pipeStandardInput`.
    let standardInput: FileHandle?

    /// Starts `executable` with `arguments`; standard input is `stdin` (a file), a pipe the test
    /// writes (`pipeStandardInput`), or empty. `environment` adds to (or replaces in) this process's.
    init(
        _ executable: URL, _ arguments: [String], stdin: URL? = nil, pipeStandardInput: Bool = false,
        workingDirectory: URL? = nil, environment: [String: String] = [:]
    ) throws {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw HarnessError(description: "\(executable.path) is missing: build first with `swift build --build-tests`")
        }
        let outPipe = Pipe()
        let errPipe = Pipe()
        let input: ChildProgram.Stream
        var inputPipe: Pipe?
        var inputFile: FileHandle?
        if pipeStandardInput {
            let pipe = Pipe()
            inputPipe = pipe
            input = .descriptor(pipe.fileHandleForReading.fileDescriptor)
        } else if let stdin {
            let file = try FileHandle(forReadingFrom: stdin)
            inputFile = file
            input = .descriptor(file.fileDescriptor)
        } else {
            input = .discarded
        }
        process = try ChildProgram(
            executable.path, arguments: arguments,
            environment: environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 },
            workingDirectory: workingDirectory?.path, standardInput: input,
            standardOutput: .descriptor(outPipe.fileHandleForWriting.fileDescriptor),
            standardError: .descriptor(errPipe.fileHandleForWriting.fileDescriptor))
        // The child has its ends now: ours are closed, so the readers see the end of its output.
        try outPipe.fileHandleForWriting.close()
        try errPipe.fileHandleForWriting.close()
        try inputPipe?.fileHandleForReading.close()
        try inputFile?.close()
        standardInput = inputPipe?.fileHandleForWriting
        label = process.label
        startReader(outPipe.fileHandleForReading, isOut: true)
        startReader(errPipe.fileHandleForReading, isOut: false)
    }

    private func startReader(_ handle: FileHandle, isOut: Bool) {
        let buffers = self.buffers
        let thread = Thread {
            let output = buffers
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                output.state.withLock { o in
                    if isOut { o.out.append(contentsOf: data) } else { o.err.append(contentsOf: data) }
                }
            }
            output.state.withLock { $0.closed += 1 }
        }
        thread.start()
    }

    deinit { kill() }

    var standardOutput: String { buffers.state.withLock { String(decoding: $0.out, as: UTF8.self) } }
    var standardError: String { buffers.state.withLock { String(decoding: $0.err, as: UTF8.self) } }
    var pid: Int32 { process.pid }

    /// Sends `signal` (SIGKILL by default) if the process still runs.
    func kill(_ signal: Int32 = SIGKILL) { process.send(signal) }

    /// Waits until standard output holds a complete line, and returns the first one.
    func firstLine(within seconds: Double) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let line: String? = buffers.state.withLock { o in
                guard let nl = o.out.firstIndex(of: 0x0A) else { return nil }
                return String(decoding: o.out[..<nl], as: UTF8.self)
            }
            if let line { return line }
            if !process.isRunning, buffers.state.withLock({ $0.closed == 2 }) { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw HarnessError(
            description: "\(label): no first line on stdout within \(seconds) s; stderr: \(standardError)")
    }

    /// Waits until `condition` holds for the output so far (e.g. a progress line on stderr).
    func waitUntil(
        _ what: String, within seconds: Double, _ condition: (_ out: String, _ err: String) -> Bool
    ) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(standardOutput, standardError) { return }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw HarnessError(description: "\(label): \(what) did not happen within \(seconds) s; stderr: \(standardError)")
    }

    /// Waits for the process to end and its output to be read; kills it and throws past the deadline.
    @discardableResult
    func waitForExit(within seconds: Double) throws -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let ended = process.ended, buffers.state.withLock({ $0.closed == 2 }) {
                return ended.shellStatus
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        kill()
        throw HarnessError(
            description:
                "\(label): still running after \(seconds) s (killed); stdout: \(standardOutput) stderr: \(standardError)")
    }
}

/// The output read so far, shared with the reader threads.
final class OutputBuffers: Sendable {
    let state = Mutex<(out: [UInt8], err: [UInt8], closed: Int)>(([], [], 0))
}

/// What a finished command left: its exit status and output.
struct CommandResult {
    var status: Int32
    var out: String
    var err: String
}

/// Runs a command to its end (bounded by `seconds`).
func runCommand(_ executable: URL, _ arguments: [String], stdin: URL? = nil, within seconds: Double = 60) throws
    -> CommandResult
{
    let p = try ChildProcess(executable, arguments, stdin: stdin)
    defer { p.kill() }
    let status = try p.waitForExit(within: seconds)
    return CommandResult(status: status, out: p.standardOutput, err: p.standardError)
}

/// The `HOST:PORT` a server announced in its first line: the first `127.0.0.1:N` in it.
func announcedAddress(in line: String) throws -> String {
    let marker = "127.0.0.1:"
    guard let r = line.range(of: marker) else {
        throw HarnessError(description: "no 127.0.0.1:PORT in the server's first line \"\(line)\"")
    }
    let digits = line[r.upperBound...].prefix { $0.isNumber }
    guard let port = Int(digits), port > 0 else {
        throw HarnessError(description: "no port after 127.0.0.1: in the server's first line \"\(line)\"")
    }
    return "127.0.0.1:\(port)"
}
