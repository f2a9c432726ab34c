import EventModel
import EventStore
import Foundation
import SQLiteStore
import Testing
import TestSupport

/// The byte path of the collector (`EventList.parseBody` → `EventRecord`s of spans → the rows
/// `PendingBatch` copies from them) against the generic-value path (`ReceivedEvent(json:)` per
/// event of the parsed body), over a seeded corpus of generated events: valid ones of every type
/// with every optional field present or absent, escapes, non-ASCII text, repeated and unknown
/// members, props as the writer writes them and otherwise, and one fault of each kind. The same
/// rows, refusals, reasons and ACK counts, byte for byte; and each generated fault refused
/// naming the field it broke, so a rule lost from the validator fails here too.
@Suite struct EventRecordRowsTests {
    /// One generated event: its JSON text, and the field its one fault breaks (nil: valid; ""
    /// for an event that is no object).
    struct Case {
        var text: String
        var fault: String?
    }

    /// Builds events from a seed: the same corpus every run.
    struct Corpus {
        var rng: SeededGenerator
        var serial = 0

        init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

        mutating func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &rng)] }
        mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }

        /// A JSON string literal's inside: plain, escaped, non-ASCII raw and escaped, surrogate pairs.
        mutating func text(maxPieces: Int = 4) -> String {
            let pieces = ["a", "Zq", "7", " ", "é", #"\u00e9"#, #"\n"#, #"\""#, #"\/"#, #"\\"#, #"\t"#, #"\ud83d\ude00"#, "😀", "ключ", "-", "#"]
            return (0..<Int.random(in: 1...maxPieces, using: &rng)).map { _ in pick(pieces) }.joined()
        }

        mutating func hex(_ count: Int) -> String {
            String((0..<count).map { _ in pick(Array("0123456789abcdefABCDEF")) })
        }

        /// Props the contract takes, written as the writer writes them or not.
        mutating func validProps() -> String {
            let scalars = [#""v""#, #""\u0041\/""#, "5", "-12", "0", "1.5", "-2.25", "true", "false", "null", "9223372036854775807", "1e300"]
            let notAsWritten = ["1.0", "-0", "1e2", "2E-3", "12345678901234567890", #""\n""#, "-0.0", "100000000000000000000.0"]
            var members: [String] = []
            let count = Int.random(in: 0...(chance(10) ? 20 : 5), using: &rng)
            for i in 0..<count {
                let key = chance(10) ? "ключ\(i)" : chance(5) ? #"k\u0031\#(i)"# : "k\(i)"
                let value = chance(15) ? pick(notAsWritten) : pick(scalars)
                members.append(chance(5) ? #" "\#(key)" : \#(value) "# : #""\#(key)":\#(value)"#)
            }
            if count > 0 && chance(10) { members.append(#""k0":"again""#) }  // a repeated key: the last wins
            members.shuffle(using: &rng)
            return "{" + members.joined(separator: chance(5) ? " , " : ",") + "}"
        }

        /// A valid event's members, in a random order, some repeated with a first value that does not count.
        mutating func validMembers() -> [(String, String)] {
            serial += 1
            let type = pick(EventType.allCases)
            var m: [(String, String)] = [
                ("id", chance(20) ? #""e\#(serial)\#(text(maxPieces: 2))""# : #""e\#(serial)""#),
                ("ts", String(Int64.random(in: chance(5) ? EventTime.range : 1_600_000_000_000...1_800_000_000_000, using: &rng))),
                ("type", chance(5) ? #""\#(type.rawValue.replacingOccurrences(of: "_", with: #"\u005f"#))""# : #""\#(type.rawValue)""#),
                ("name", #""\#(text())""#),
            ]
            if chance(60) { m.append(("page", #""\#(text())""#)) }
            if chance(40) { m.append(("path", #""\#(text())""#)) }
            if chance(30) { m.append(("viewId", #""\#(hex(32))""#)) }
            if chance(70) { m.append(("session", #""s\#(Int.random(in: 0..<20, using: &rng))""#)) }
            if chance(40) { m.append(("user", chance(5) ? #""\#(String(repeating: "u", count: 128))""# : #""\#(text())""#)) }
            if chance(80) { m.append(("device", #""d\#(Int.random(in: 0..<10, using: &rng))""#)) }
            if chance(30) { m.append(("duration", String(Int64.random(in: chance(5) ? EventTime.durations : 0...100_000, using: &rng)))) }
            if chance(70) { m.append(("props", validProps())) }
            if chance(15) { m.append((pick(["extra", "i\\u0064x", "props2"]), pick([#"{"deep":[1,{"x":null}],"id":5}"#, "[]", #""s""#, "1e999"]))) }
            m.shuffle(using: &rng)
            if chance(10) {
                // A member sent twice: the first value (even a wrong one) does not count.
                let (name, _) = pick(m)
                m.insert((name, pick(["5", #""x""#, "{}", "null", "1e999"])), at: 0)
            }
            return m
        }

        /// The faults the contract refuses, one at a time: (the field named, member to set, value).
        static let faults: [(String, String, String)] = [
            ("ts", "ts", "-1"), ("ts", "ts", "253402300800000"), ("ts", "ts", #""1""#), ("ts", "ts", "1.0"), ("ts", "ts", "1e20"),
            ("viewId", "viewId", #""0123456789abcdef""#), ("viewId", "viewId", #""0123456789abcdefABCDEF012345678g""#),
            ("user", "user", #""\#(String(repeating: "u", count: 129))""#), ("user", "user", #""\#(String(repeating: "é", count: 65))""#),
            ("device", "device", #""\#(String(repeating: "d", count: 129))""#), ("device", "device", "7"),
            ("duration", "duration", "-1"), ("duration", "duration", "253402300800000"), ("duration", "duration", "1.5"),
            ("type", "type", #""tap""#), ("type", "type", #""Click""#), ("type", "type", "3"), ("type", "type", #""clack""#),
            ("type", "type", #""page_entry""#), ("type", "type", #""app_forexround""#), ("type", "type", #""list_item_clicl""#),
            ("id", "id", #""""#), ("id", "id", "5"), ("id", "id", #""\#(String(repeating: "i", count: 129))""#),
            ("name", "name", "null"), ("name", "name", #""\#(String(repeating: "n", count: 257))""#),
            ("page", "page", "1"), ("path", "path", "[]"), ("session", "session", "true"),
            ("props.k", "props", #"{"a":1,"k":{"b":1}}"#), ("props.k", "props", #"{"k":[1]}"#), ("props.k", "props", #"{"k":1e999}"#),
            ("props.k", "props", #"{ "k" : [] , "z" : 1 }"#), ("props.k", "props", #"{"k":[],"k":{}}"#),
            ("props", "props", "5"), ("props", "props", #""x""#), ("props", "props", "[]"), ("props", "props", "null"),
        ]

        mutating func next() -> Case {
            if chance(3) { return Case(text: pick(["5", #""x""#, "[]", "null", #"[{"id":"a"}]"#, "-0"]), fault: "") }
            var members = validMembers()
            var fault: String?
            if chance(25) {
                let (field, name, value) = pick(Self.faults)
                members.removeAll { $0.0 == name }
                members.append((name, value))
                fault = field
            } else if chance(3) {
                let missing = pick(["id", "ts", "type", "name"])
                members.removeAll { $0.0 == missing }
                fault = missing
            }
            let spaced = chance(5)
            let text = members.map { spaced ? #" "\#($0.0)" : \#($0.1) "# : #""\#($0.0)":\#($0.1)"# }.joined(separator: ",")
            return Case(text: "{" + text + "}", fault: fault)
        }
    }

    /// What a store keeps of an event: its row's texts (nil: NULL) and numbers, or its refusal.
    enum Kept: Equatable {
        case row([String?])
        case rejected(raw: String, reason: String)
    }

    /// The oracle: the generic-value path.
    static func kept(_ received: ReceivedEvent) -> Kept {
        switch received {
        case .valid(let e, let props):
            return .row([
                e.id, String(e.ts), e.type.rawValue, e.name, e.page, e.path, e.viewId, e.session, e.user, e.device,
                e.duration.map { String($0) }, props,
            ])
        case .rejected(let raw, let reason): return .rejected(raw: raw, reason: reason)
        }
    }

    /// The byte path: each record's texts as `PendingBatch` copies them.
    static func kept(_ list: EventList) -> [Kept] {
        list.withRecords { events, texts in
            events.map { event in
                switch event {
                case .valid(let e):
                    let s = { (t: EventText?) in texts[t].map { String(decoding: $0, as: UTF8.self) } }
                    return .row([
                        s(e.id), String(e.ts), e.type.rawValue, s(e.name), s(e.page), s(e.path), s(e.viewId), s(e.session), s(e.user),
                        s(e.device), e.duration.map { String($0) }, s(e.props),
                    ])
                case .rejected(let raw, let reason): return .rejected(raw: raw, reason: reason)
                }
            }
        }
    }

    static func body(_ cases: [Case]) -> [UInt8] {
        Array(#"{"batch":"b","sentAt":1700000000500,"events":[\#(cases.map(\.text).joined(separator: ","))]}"#.utf8)
    }

    @Test(.timeLimit(.minutes(3))) func generatedEventsGiveTheGenericPathsRecordsAndRefusals() throws {
        var corpus = Corpus(seed: 25)
        var faultsSeen = Set<String>()
        var valid = 0
        for round in 0..<40 {
            let cases = (0..<100).map { _ in corpus.next() }
            let bytes = Self.body(cases)
            let values = try #require(JSONValue.parse(bytes)["events"]?.arrayValue)
            let oracle = values.map(ReceivedEvent.init(json:))
            let list = try #require(EventList.parseBody(bytes[...], eventsMember: "events").events)
            let byteKept = Self.kept(list)
            let generic = oracle.map(Self.kept)
            for i in cases.indices where byteKept[i] != generic[i] {
                Issue.record("round \(round) event \(i): \(cases[i].text)\nbytes:   \(byteKept[i])\ngeneric: \(generic[i])")
            }
            #expect(list.received == oracle, "round \(round)")
            #expect(Self.kept(EventList(values)) == generic, "round \(round): the generic list's records")
            // Each generated fault is refused naming its field; every other event is valid.
            for (c, received) in zip(cases, oracle) {
                switch (c.fault, received) {
                case (nil, .valid): valid += 1
                case (let field?, .rejected(_, let reason)):
                    faultsSeen.insert(field)
                    let named = field.isEmpty ? reason.hasPrefix("an event must be a JSON object") : reason.hasPrefix(field + " ")
                    #expect(named, "\(c.text): \(reason)")
                default: Issue.record("\(c.text): expected \(c.fault.map { "a fault in \($0)" } ?? "valid"), got \(received)")
                }
            }
        }
        #expect(valid > 2_000)
        #expect(faultsSeen == Set(Corpus.faults.map(\.0) + ["", "id", "ts", "type", "name"]), "every fault was generated")
    }

    /// The hex of a row's text as `sqlite3` prints `hex(x)`, NULL as "NULL".
    static func hex(_ s: String?) -> String {
        s.map { "X" + $0.utf8.map { String(format: "%02X", $0) }.joined() } ?? "NULL"
    }

    @Test(.timeLimit(.minutes(3))) func generatedEventsAreStoredAsTheGenericPathSaysWithTheSameCounts() throws {
        let path = Fixtures.temporaryDirectory("event-record-rows").appendingPathComponent("events.sqlite").path
        let store = try SQLiteEventStore(path: path)
        var corpus = Corpus(seed: 7)
        var expectedRows: [String] = []
        var expectedRejected: [String] = []
        var ids = Set<String>()
        for round in 0..<10 {
            var cases = (0..<100).map { _ in corpus.next() }
            cases.append(cases[3])  // an event sent twice in one batch: a duplicate when valid
            let bytes = Self.body(cases)
            let values = try #require(JSONValue.parse(bytes)["events"]?.arrayValue)
            var expected = BatchOutcome()
            for received in values.map(ReceivedEvent.init(json:)) {
                switch Self.kept(received) {
                case .row(let row):
                    if ids.insert(row[0]!).inserted {
                        expected.stored += 1
                        expectedRows.append((row + ["1.0"]).map(Self.hex).joined(separator: "|"))
                    } else {
                        expected.duplicates += 1
                    }
                case .rejected(let raw, let reason):
                    expected.rejected += 1
                    expected.rejections.append(reason)
                    expectedRejected.append(Self.hex(raw) + "|" + Self.hex(reason))
                }
            }
            let list = try #require(EventList.parseBody(bytes[...], eventsMember: "events").events)
            let outcome = try store.append(EventBatch(appKey: "shop", appVersion: "1.0", label: "\(round)", eventList: list))
            #expect(outcome == expected, "round \(round): the ACK's counts")
        }
        store.close()
        func column(_ c: String) -> String { "CASE WHEN \(c) IS NULL THEN 'NULL' ELSE 'X' || hex(\(c)) END" }
        let columns = ["id", "CAST(ts AS TEXT)", "type", "name", "page", "path", "view_id", "session", "user_id", "device_id",
                       "CAST(duration AS TEXT)", "props", "app_version"].map(column).joined(separator: " || '|' || ")
        let rows = try sqlite(path, "SELECT \(columns) FROM events ORDER BY seq")
        #expect(rows.count == expectedRows.count)
        for (i, (row, expected)) in zip(rows, expectedRows).enumerated() where row != expected {
            Issue.record("row \(i): stored \(row), expected \(expected)")
        }
        #expect(try sqlite(path, "SELECT \(column("raw")) || '|' || \(column("reason")) FROM rejected ORDER BY rowid") == expectedRejected)
    }
}
