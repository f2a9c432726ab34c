public import Foundation
import SystemCalls

/// What a program run to its end by `runProgram` left.
public struct ProgramOutput: Sendable {
    /// Its exit status, or 128 + the signal that ended it (as a shell reports it).
    public var status: Int32
    public var standardOutput: Data
    public var standardError: Data
    public var output: String { String(decoding: standardOutput, as: UTF8.self) }
    public var errors: String { String(decoding: standardError, as: UTF8.self) }
}

/// Runs `executable` with `arguments` to its end (`SystemCalls.ChildProgram`, never Foundation's
/// `Process`), standard input from the file `input` (empty when nil), its output collected in
/// temporary files (so nothing it prints can block it). `environment` is the whole environment
/// (this process's when nil). Killed, and a `HarnessFailure` thrown, past `timeout` seconds.
public func runProgram(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: String? = nil,
    workingDirectory: String? = nil, timeout: Double = 120
) throws -> ProgramOutput {
    let directory = URL(fileURLWithPath: NSTemporaryDirectory())
    let tag = UUID().uuidString.prefix(8)
    let outURL = directory.appendingPathComponent("program-\(tag).out")
    let errURL = directory.appendingPathComponent("program-\(tag).err")
    guard FileManager.default.createFile(atPath: outURL.path, contents: nil),
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
    else { throw HarnessFailure("cannot create output files in \(directory.path); check $TMPDIR") }
    defer {
        try? FileManager.default.removeItem(at: outURL)
        try? FileManager.default.removeItem(at: errURL)
    }
    let out = try FileHandle(forWritingTo: outURL)
    let err = try FileHandle(forWritingTo: errURL)
    let inputHandle = try input.map { try FileHandle(forReadingFrom: URL(fileURLWithPath: $0)) }
    defer {
        try? out.close()
        try? err.close()
        try? inputHandle?.close()
    }
    let child = try ChildProgram(
        executable, arguments: arguments, environment: environment, workingDirectory: workingDirectory,
        standardInput: inputHandle.map { .descriptor($0.fileDescriptor) } ?? .discarded,
        standardOutput: .descriptor(out.fileDescriptor), standardError: .descriptor(err.fileDescriptor))
    let (ending, killed) = child.stop(within: .milliseconds(Int64(timeout * 1000)))
    let output = (try? Data(contentsOf: outURL)) ?? Data()
    let errors = (try? Data(contentsOf: errURL)) ?? Data()
    if killed {
        throw HarnessFailure(
            "\(child.label): still running after \(timeout) s (killed); stderr: \(String(decoding: errors, as: UTF8.self).suffix(2000))")
    }
    return ProgramOutput(status: ending.shellStatus, standardOutput: output, standardError: errors)
}
