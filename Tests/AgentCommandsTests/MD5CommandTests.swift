import AgentCommands
import Foundation
import Testing

@Suite struct MD5CommandTests {
    @Test func digestsATextArgument() {
        let r = runAgent(["md5", "message digest"])
        #expect(r.code == 0)
        #expect(r.err == "")
        #expect(r.out == "f96b697d7cb7938d525a2f31aaf161d0\n")
        #expect(runAgent(["md5", ""]).out == "d41d8cd98f00b204e9800998ecf8427e\n")
        // A text that starts with '-' goes after '--'.
        #expect(runAgent(["md5", "--", "-abc"]).out == "c66f00dce0e77d95c17488928ae5063c\n")
    }

    @Test func digestsAFileStreamed() throws {
        // 3 MiB + 5 bytes of byte i = i mod 251: several 1 MiB pieces and a tail (hashlib, offline).
        let bytes = (0..<(3 << 20) + 5).map { UInt8($0 % 251) }
        let path = try temporaryFile(bytes, name: "data.bin")
        let r = runAgent(["md5", "--file", path])
        #expect(r.code == 0)
        #expect(r.err == "")
        #expect(r.out == "028bfcc1395093c0df0dc731de96e1b5\n")
        let empty = try temporaryFile([UInt8](), name: "empty.bin")
        #expect(runAgent(["md5", "--file", empty]).out == "d41d8cd98f00b204e9800998ecf8427e\n")
    }

    @Test func readsAHandleToItsEndInPieces() throws {
        // What `md5 -` does with standard input, here fed through a pipe.
        let pipe = Pipe()
        let text = Array(String(repeating: "1234567890", count: 8).utf8)  // the RFC's 80-byte vector
        try pipe.fileHandleForWriting.write(contentsOf: text)
        try pipe.fileHandleForWriting.close()
        let hex = try MD5Command.hexDigest(reading: pipe.fileHandleForReading, pieceSize: 7)
        #expect(hex == "57edf4a22be3c955ac49da2e2107b67a")
    }

    @Test func anUnreadableFileFails() {
        let r = runAgent(["md5", "--file", "/nonexistent/autotrack/file"])
        #expect(r.code == 1)
        #expect(r.out == "")
        #expect(r.err.contains("cannot read '/nonexistent/autotrack/file'"))
        let directory = runAgent(["md5", "--file", NSTemporaryDirectory()])
        #expect(directory.code == 1)
        #expect(directory.err.contains("is a directory"))
    }

    @Test func usageErrorsExitTwo() {
        for args in [["md5"], ["md5", "a", "b"], ["md5", "--file", "x", "text"], ["md5", "--file"], ["md5", "-x"]] {
            let r = runAgent(args)
            #expect(r.code == 2, "\(args)")
            #expect(r.out == "", "\(args)")
            #expect(r.err.contains("md5 --help"), "\(args)")
        }
    }

    @Test func helpShowsUsageAndExamples() {
        let r = runAgent(["md5", "--help"])
        #expect(r.code == 0)
        #expect(r.out.contains("USAGE: autotrack-agent md5 TEXT"))
        #expect(r.out.contains("autotrack-agent md5 -"))
    }
}
