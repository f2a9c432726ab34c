import ATLPServer
@testable import ATLPWire
import EventModel
import Foundation
import TestSupport
import Testing

@testable import ATLPClient

@Suite struct FrameDecoderTests {
    static let frames: [ATLPFrame] = [
        ATLPFrame(verb: "HELLO", body: obj(["protocol": 1, "appKey": "shop", "appVersion": "1.0", "agent": "a", "token": "t"])),
        ATLPFrame(verb: "PING"),
        ATLPFrame(verb: "BYE", body: nil),
        ATLPFrame(verb: "EVENTS", body: obj(["batch": "b-1", "events": [["id": "é\n✓", "ts": 1, "type": "click", "name": "x"]]])),
        ATLPFrame(verb: "ERR", body: obj(["code": "bad-json", "message": "line 1, column 2: \"quoted\""])),
    ]

    @Test func specExampleEncodesExactly() {
        #expect(ATLPFrame(verb: "HELLO", body: obj(["protocol": 1])).encoded == Array("20 HELLO {\"protocol\":1}".utf8))
        #expect(ATLPFrame(verb: "PONG").encoded == Array("7 PONG {}".utf8))
    }

    @Test func roundTripUnderEverySplit() throws {
        let stream = Self.frames.flatMap(\.encoded)
        // Every single split point, and every pair of split points (three pieces).
        for i in 0...stream.count {
            var d = FrameDecoder(maxFrame: 1024)
            var out: [ATLPFrame] = []
            for part in [stream[0..<i], stream[i...]] {
                d.append(part)
                while let p = try d.next() { out.append(try ATLPFrame.parse(payload: p)) }
            }
            #expect(out == Self.frames, "split at \(i)")
        }
        for i in stride(from: 0, through: stream.count, by: 3) {
            for j in stride(from: i, through: stream.count, by: 7) {
                var d = FrameDecoder(maxFrame: 1024)
                var out: [ATLPFrame] = []
                for part in [stream[0..<i], stream[i..<j], stream[j...]] {
                    d.append(part)
                    while let p = try d.next() { out.append(try ATLPFrame.parse(payload: p)) }
                }
                #expect(out == Self.frames, "split at \(i), \(j)")
            }
        }
        // Byte by byte.
        var d = FrameDecoder(maxFrame: 1024)
        var out: [ATLPFrame] = []
        for b in stream {
            d.append([b])
            while let p = try d.next() { out.append(try ATLPFrame.parse(payload: p)) }
        }
        #expect(out == Self.frames)
        #expect(d.bufferedCount == 0)
    }

    @Test(arguments: [
        ("05 PING", "leading zero"),
        ("0 ", "zero"),
        (" 4 PING", "space first"),
        ("+4 PING", "sign"),
        ("-4 PING", "sign"),
        ("4PING", "no space"),
        ("4\nPING", "LF instead of space"),
        ("12345678901 X", "11 digits"),
        ("abc", "letters"),
    ])
    func badLengthPrefixes(text: String, why: String) {
        var d = FrameDecoder(maxFrame: Int.max)
        d.append(Array(text.utf8))
        #expect(throws: ATLPError.self, "\(why)") { _ = try d.next() }
        do {
            _ = try d.next()
        } catch {
            #expect(error.code == .badFrame, "\(why)")
        }
    }

    @Test func tenDigitsAreAllowedAndMaximumIsCheckedBeforeThePayload() throws {
        var d = FrameDecoder(maxFrame: Int.max)
        d.append(Array("9999999999 ".utf8))
        #expect(try d.next() == nil)  // legal prefix, payload still to come
        var small = FrameDecoder(maxFrame: 10)
        small.append(Array("11 ".utf8))  // not one payload byte yet
        do {
            _ = try small.next()
            Issue.record("no error")
        } catch {
            #expect(error.code == .frameTooLarge)
        }
        // Exactly the maximum is fine.
        var exact = FrameDecoder(maxFrame: 10)
        exact.append(Array("10 PING {}   ".utf8) + [])
        #expect(try exact.next() == Array("PING {}   ".utf8))
    }

    @Test func theDecoderStaysFailed() {
        var d = FrameDecoder(maxFrame: 100)
        d.append(Array("x".utf8))
        #expect(throws: ATLPError.self) { _ = try d.next() }
        d.append(Array("4 PING".utf8))
        #expect(throws: ATLPError.self) { _ = try d.next() }
    }

    @Test(arguments: [
        ("PING", nil as ATLPErrorCode?),
        ("PING {}", nil),
        ("PING  {} ", nil),
        ("ping {}", .unknownVerb),
        ("PING{}", .unknownVerb),
        (" {}", .unknownVerb),
        ("PING []", .badJSON),
        ("PING 1", .badJSON),
        ("PING ", .badJSON),
        ("PING {", .badJSON),
        ("PING {\"a\":1}x", .badJSON),
        ("PING {\"a\":\n1}", .badFrame),
    ])
    func payloadRules(text: String, expected: ATLPErrorCode?) {
        do {
            let frame = try ATLPFrame.parse(payload: Array(text.utf8))
            #expect(expected == nil, "\(text) parsed as \(frame)")
        } catch {
            #expect(error.code == expected, "\(text): \(error)")
        }
    }

    @Test func invalidUTF8IsABadFrame() {
        do {
            _ = try ATLPFrame.parse(payload: Array("PING {\"a\":\"".utf8) + [0xC3, 0x28] + Array("\"}".utf8))
            Issue.record("accepted invalid UTF-8")
        } catch {
            #expect(error.code == .badFrame)
        }
    }

    /// The payload is read eight bytes at a time (`ATLPFrame.scan`): a line feed, an invalid
    /// byte or a valid non-ASCII character at every offset of payloads of every length around
    /// the word size is found as a byte-by-byte reading finds it.
    @Test func aLineFeedOrANonASCIIByteIsFoundAtEveryOffset() {
        for length in 0...27 {
            for at in 0...length {
                let filler = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                func payload(_ inserted: [UInt8]) -> [UInt8] {
                    Array("PING {\"a\":\"".utf8) + filler[0..<at] + inserted + filler[at...] + Array("\"}".utf8)
                }
                for (inserted, expected) in [([0x0A], "line feed"), ([0xFF], "not valid UTF-8"), ([0xC3], "not valid UTF-8")] as [([UInt8], String)] {
                    do {
                        _ = try ATLPFrame.parse(payload: payload(inserted))
                        Issue.record("\(inserted) at \(at) of \(length) accepted")
                    } catch {
                        #expect(error.code == .badFrame && error.message.contains(expected), "\(inserted) at \(at) of \(length): \(error)")
                    }
                }
                let accented = try? ATLPFrame.parse(payload: payload(Array("é✓".utf8)))
                #expect(accented?.body?["a"] == .string(String(repeating: "x", count: at) + "é✓" + String(repeating: "x", count: length - at)))
            }
        }
        #expect(ATLPFrame.scan(Array("PING".utf8)) == (lineFeed: false, ascii: true))
        #expect(ATLPFrame.scan(Array("PING é".utf8)) == (lineFeed: false, ascii: false))
        #expect(ATLPFrame.scan([]) == (lineFeed: false, ascii: true))
    }
}

@Suite struct WireDocumentTests {
    /// docs/wire.md's example session: every line is a well-formed frame with the right length.
    @Test func exampleSessionFramesAreExact() throws {
        let url = Fixtures.repositoryRoot.appendingPathComponent("docs/wire.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("C: ") || $0.hasPrefix("S: ") }
        #expect(lines.count >= 10)
        for line in lines {
            var d = FrameDecoder(maxFrame: 1 << 20)
            d.append(Array(line.dropFirst(3).utf8))
            let payload = try #require(try d.next(), "\(line)")
            #expect(d.bufferedCount == 0, "\(line)")
            _ = try ATLPFrame.parse(payload: payload)
        }
    }

    /// Replays the example's client lines against a real server: its answers are the
    /// example's server lines, byte for byte.
    @Test func exampleSessionReplaysByteForByte() throws {
        let url = Fixtures.repositoryRoot.appendingPathComponent("docs/wire.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("C: ") || $0.hasPrefix("S: ") }
        let (server, address) = try startServer(TestHandler(etag: "9f2c"), maxFrame: 1 << 20)
        defer { server.stop() }
        let c = try ATLPConnection(to: address)
        for line in lines {
            let frame = Array(line.dropFirst(3).utf8)
            if line.hasPrefix("C: ") {
                try c.sendBytes(frame)
            } else {
                #expect(try c.receive().encoded == frame, "\(line)")
            }
        }
        #expect(throws: TransportError.self) { try c.receive() }  // closed after BYE
    }

    /// The contract's own example frame (docs/wire.md §1) decodes to what it says.
    @Test func specExampleFrame() throws {
        let text = try String(contentsOf: Fixtures.docsDirectory.appendingPathComponent("wire.md"), encoding: .utf8)
        #expect(text.contains("20 HELLO {\"protocol\":1}"))
        var d = FrameDecoder(maxFrame: 1 << 20)
        d.append(Array("20 HELLO {\"protocol\":1}".utf8))
        #expect(try ATLPFrame.parse(payload: try #require(try d.next())) == ATLPFrame(verb: "HELLO", body: obj(["protocol": 1])))
    }
}
