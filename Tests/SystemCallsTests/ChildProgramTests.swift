import Foundation
import SystemCalls
import Testing

/// `ChildProgram`, how every test and tool starts another program.
@Suite(.timeLimit(.minutes(3))) struct ChildProgramTests {
    @Test func itsStreamsEnvironmentAndDirectoryAreTheOnesGiven() throws {
        let outPath = "/tmp/child-program-\(Posix.processID())-out"
        let errPath = "/tmp/child-program-\(Posix.processID())-err"
        defer {
            try? Posix.unlink(outPath)
            try? Posix.unlink(errPath)
        }
        let out = try Posix.open(outPath, O_WRONLY | O_CREAT | O_TRUNC)
        let err = try Posix.open(errPath, O_WRONLY | O_CREAT | O_TRUNC)
        let child = try ChildProgram(
            "/bin/sh", arguments: ["-c", "echo \"$GREETING\"; pwd; echo oops >&2; ls /proc/self/fd | wc -l"],
            environment: ["GREETING": "hello there", "PATH": "/usr/bin:/bin"], workingDirectory: "/tmp",
            standardOutput: .descriptor(out), standardError: .descriptor(err))
        Posix.close(out)
        Posix.close(err)
        #expect(child.waitForExit() == .exited(0))
        #expect(!child.isRunning)
        let lines = String(decoding: try Posix.readFile(outPath), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.prefix(2) == ["hello there", "/tmp"])
        // 0, 1, 2 and the descriptor `ls` opens: none of ours leaked into the child.
        #expect(Int(lines.last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 99 <= 4)
        #expect(String(decoding: try Posix.readFile(errPath), as: UTF8.self) == "oops\n")
    }

    @Test func anExitStatusAndASignalComeBackAsTheyHappened() throws {
        let exited = try ChildProgram("/bin/sh", arguments: ["-c", "exit 3"])
        #expect(exited.waitForExit() == .exited(3))
        #expect(exited.waitForExit().shellStatus == 3)
        let sleeper = try ChildProgram("/bin/sleep", arguments: ["30"])
        #expect(sleeper.waitForExit(within: .milliseconds(50)) == nil)
        sleeper.terminate()
        #expect(sleeper.waitForExit(within: .seconds(20)) == .signalled(SIGTERM))
        #expect(sleeper.waitForExit().shellStatus == 128 + SIGTERM)
        // Once reaped, nothing is sent to its pid again (another process may have it by now).
        sleeper.send(SIGKILL)
        #expect(sleeper.ended == .signalled(SIGTERM))
    }

    @Test func stopKillsWhatDoesNotEndInTime() throws {
        let sleeper = try ChildProgram("/bin/sleep", arguments: ["30"])
        let start = ContinuousClock.now
        let (ending, killed) = sleeper.stop(within: .milliseconds(100))
        #expect(killed)
        #expect(ending == .signalled(SIGKILL))
        #expect(ContinuousClock.now - start < .seconds(20))
    }

    @Test func aMissingProgramIsAnErrorNamingIt() {
        #expect {
            try ChildProgram("/nonexistent/program", arguments: [])
        } throws: { error in
            "\(error)".contains("/nonexistent/program")
        }
    }
}
