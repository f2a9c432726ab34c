import AgentCommands
import EventModel
import Foundation
import Testing
import TestSupport

@Suite struct SendInputTests {
    /// Writes `text` to a temporary file and reads every line back with a small chunk size,
    /// so lines straddle chunk boundaries.
    func readAll(_ text: String, chunkSize: Int = 7) throws -> [EventLine] {
        let dir = Fixtures.temporaryDirectory("send-input")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("events.ndjson")
        try Data(text.utf8).write(to: url)
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var reader = EventLineReader(handle: handle, chunkSize: chunkSize)
        var lines: [EventLine] = []
        for _ in 0..<1000 {
            guard let line = try reader.next() else { break }
            lines.append(line)
        }
        return lines
    }

    @Test func readsEventsWithTheirLineNumbers() throws {
        let text = """
            {"id":"a","ts":1,"type":"click","name":"x"}
            {"id":"b","ts":2,"type":"scroll","name":"y","props":{"k":1}}\r

            {"id":"c","ts":3,"type":"custom","name":"z"}
            """
        let lines = try readAll(text)
        #expect(lines.count == 3)
        guard case .event(let l1, let e1) = lines[0], case .event(let l2, let e2) = lines[1],
            case .event(let l4, let e4) = lines[2]
        else {
            Issue.record("expected three events, got \(lines)")
            return
        }
        #expect((l1, e1.id, e1.ts, e1.type) == (1, "a", 1, .click))
        #expect((l2, e2.id, e2.props["k"]) == (2, "b", .int(1)))
        #expect((l4, e4.id, e4.name) == (4, "c", "z"))
    }

    @Test func reportsInvalidLinesByNumberAndGoesOn() throws {
        let text = """
            {"id":"a","ts":1,"type":"click","name":"x"}
            {"id":"b","ts":"soon","type":"click","name":"x"}
            not json
            {"id":"c","ts":1,"type":"tap","name":"x"}
            [1,2]
            {"id":"d","ts":1,"type":"click","name":"x","props":{"nested":{"a":1}}}
            {"id":"e","ts":5,"type":"click","name":"x"}

            """
        let lines = try readAll(text)
        #expect(lines.map(\.problem) == [
            nil,
            "line 2: ts must be an integer, found a string",
            "line 3: not valid JSON (column 1: invalid literal)",
            "line 4: type unknown event type \"tap\"",
            "line 5: an event must be a JSON object, found an array",
            "line 6: props.nested must be a scalar, found an object",
            nil,
        ])
    }

    @Test func emptyInputHasNoLines() throws {
        #expect(try readAll("").isEmpty)
        #expect(try readAll("\n \n\t\n").isEmpty)
    }
}
