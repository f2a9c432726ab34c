import Foundation
import SystemCalls
import Testing

/// The wrappers `run`, the ELF reader, the preload and the benchmarks call.
@Suite struct PosixProcessTests {
    @Test func aChildsExitStatusAndTheSignalThatEndedItComeBack() throws {
        let env = ["PATH": "/usr/bin:/bin"]
        #expect(try Posix.runChild("/bin/sh", arguments: ["sh", "-c", "exit 3"], environment: env, defaultSignals: [SIGTERM]) == 3)
        #expect(try Posix.runChild("/bin/sh", arguments: ["sh", "-c", "kill -TERM $$"], environment: env, defaultSignals: [SIGTERM]) == 128 + SIGTERM)
    }

    @Test(.timeLimit(.minutes(3))) func aProgramsOutputGoesToItsFileAndItIsKilledAtTheTimeout() throws {
        let output = "/tmp/posix-run-\(Posix.processID())"
        defer { try? Posix.unlink(output) }
        // Descriptor 3 and up are closed in the child: `ls /proc/self/fd` lists 0, 1, 2 and its own.
        let ran = try Posix.runProgram(
            "/bin/sh", arguments: ["sh", "-c", "echo out; echo err >&2; ls /proc/self/fd | wc -l; exit 4"], output: output,
            timeout: .seconds(60))
        #expect(ran == .exited(4))
        let lines = String(decoding: try Posix.readFile(output), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.prefix(2) == ["out", "err"])
        #expect(Int(lines.last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 99 <= 4)
        let start = ContinuousClock.now
        #expect(try Posix.runProgram("/bin/sleep", arguments: ["sleep", "30"], output: output, timeout: .milliseconds(200)) == .timedOut)
        #expect(ContinuousClock.now - start < .seconds(20))
        #expect(Posix.processExists(Posix.processID()))
    }

    @Test func aMissingProgramIsAnErrorNamingIt() {
        #expect {
            try Posix.spawn("/nonexistent/program", arguments: ["program"], environment: [:], defaultSignals: [])
        } throws: { error in
            (error as? PosixError)?.errno == ENOENT && "\(error)".contains("/nonexistent/program")
        }
    }

    @Test func readsAtAnOffsetUpToTheEnd() throws {
        let path = "/tmp/posix-read-\(getpid())"
        let fd = try Posix.open(path, O_RDWR | O_CREAT | O_TRUNC)
        defer {
            Posix.close(fd)
            try? Posix.unlink(path)
        }
        try Posix.writeAll(fd, Array("0123456789".utf8), path: path)
        #expect(try Posix.read(fd, count: 3, at: 4, path: path) == Array("456".utf8))
        #expect(try Posix.read(fd, count: 8, at: 7, path: path) == Array("789".utf8))
    }

    @Test func readsALinkAndTheKernelsName() throws {
        #expect(try Posix.readLink("/proc/self/exe").hasPrefix("/"))
        #expect(Posix.kernel()?.name == "Linux")
    }

    @Test(.timeLimit(.minutes(3))) func sleepsAtLeastAsLongAsAsked() {
        let start = ContinuousClock.now
        Posix.sleep(.milliseconds(20))
        #expect(ContinuousClock.now - start >= .milliseconds(20))
    }
}
