import SystemCalls
import Testing

/// The wrappers `run`, the ELF reader, the preload and the benchmarks call.
@Suite struct PosixProcessTests {
    @Test func aChildsExitStatusAndTheSignalThatEndedItComeBack() throws {
        let env = ["PATH": "/usr/bin:/bin"]
        #expect(try Posix.runChild("/bin/sh", arguments: ["sh", "-c", "exit 3"], environment: env, defaultSignals: [SIGTERM]) == 3)
        #expect(try Posix.runChild("/bin/sh", arguments: ["sh", "-c", "kill -TERM $$"], environment: env, defaultSignals: [SIGTERM]) == 128 + SIGTERM)
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
