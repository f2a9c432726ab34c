import ATLPClient
import ATLPWire
import EventModel
import Foundation
import Synchronization
import SystemCalls
import TestSupport
import Testing

/// The built `autotrack-collector`, when `swift build` has made it.
let collectorBinary = Fixtures.repositoryRoot.appendingPathComponent(".build/debug/autotrack-collector")

/// `serve` as users run it: a child process, read through its output, stopped by a signal.
@Suite struct ServeProcessTests {
    @Test func serveListensStoresAndStopsOnSIGTERM() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: collectorBinary.path),
            "the collector binary \(collectorBinary.path) is missing: run `swift build` first (Tools/test.sh does)")
        let db = Fixtures.temporaryDirectory("serve").appendingPathComponent("events.sqlite").path
        let out = Pipe()
        let process = try ChildProgram(
            collectorBinary.path, arguments: ["serve", "--listen", "127.0.0.1:0", "--db", db, "--ingest-token", "in", "--admin-token", "ad"],
            standardOutput: .descriptor(out.fileHandleForWriting.fileDescriptor), standardError: .discarded)
        try out.fileHandleForWriting.close()
        defer { _ = process.stop(within: .seconds(10)) }

        // The first two lines, read on a thread of their own, waited for at most 30 s.
        let lines = LockedLines()
        let reader = Thread {
            var buffer = Data()
            while lines.count < 2 {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                lines.set(String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init))
            }
            lines.done.signal()
        }
        reader.start()
        #expect(lines.done.wait(timeout: .now() + 30) == .success)
        let first = try #require(lines.all.first)
        #expect(first.hasPrefix("listening on 127.0.0.1:"))
        #expect(lines.all.dropFirst().first == "database \(db)")
        let port = try #require(UInt16(first.dropFirst("listening on 127.0.0.1:".count)))

        let c = try ATLPConnection(
            to: SocketAddress(host: "127.0.0.1", port: port), hello: Hello(appKey: "shop", token: "in"))
        let ack = try c.sendEvents(batch: 1, events: [["id": "a", "ts": 1, "type": "click", "name": "n"]])
        #expect(ack.stored == 1)
        c.close()

        process.terminate()  // SIGTERM
        #expect(process.waitForExit(within: .seconds(30)) == .exited(0))
        let rest = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(rest.contains("stopped after 1 connection and "))
        // Closed cleanly: the WAL was checkpointed into the file and removed.
        #expect(!FileManager.default.fileExists(atPath: db + "-wal"))
        #expect(try sqlite(db, "SELECT id FROM events") == ["a"])
    }
}

/// Lines shared between the reader thread and the test.
final class LockedLines: Sendable {
    private let lines = Mutex<[String]>([])
    let done = DispatchSemaphore(value: 0)

    func set(_ l: [String]) { lines.withLock { $0 = l } }
    var all: [String] { lines.withLock { $0 } }
    var count: Int { all.count }

    @Test func readyFileHoldsTheBoundAddressWhileServing() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: collectorBinary.path),
            "the collector binary \(collectorBinary.path) is missing: run `swift build` first (Tools/test.sh does)")
        let dir = Fixtures.temporaryDirectory("serve-ready")
        let ready = dir.appendingPathComponent("ready").path
        let process = try ChildProgram(
            collectorBinary.path, arguments: ["serve", "--listen", "127.0.0.1:0", "--db", dir.appendingPathComponent("e.sqlite").path, "--ready-file", ready],
            standardOutput: .discarded, standardError: .discarded)
        defer { _ = process.stop(within: .seconds(10)) }
        // At most 30 s, in 300 steps of 0.1 s.
        var text: String?
        for _ in 0..<300 where text == nil {
            if let d = FileManager.default.contents(atPath: ready) { text = String(decoding: d, as: UTF8.self) }
            else { Thread.sleep(forTimeInterval: 0.1) }
        }
        let line = try #require(text)
        #expect(line.hasPrefix("127.0.0.1:") && line.hasSuffix("\n"))
        let port = try #require(UInt16(line.dropFirst("127.0.0.1:".count).dropLast()))
        let c = try ATLPConnection(to: SocketAddress(host: "127.0.0.1", port: port), hello: Hello(appKey: "shop"))
        c.close()
        process.terminate()
        #expect(process.waitForExit(within: .seconds(30)) != nil)
        #expect(!FileManager.default.fileExists(atPath: ready))
    }
}
