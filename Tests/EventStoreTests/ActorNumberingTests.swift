import EventStore
import Testing

/// `ActorNumbers` and `ActorRowNumberer` (ActorEvents.swift): dense numbers by exact bytes,
/// whether an id is kept in its slot (up to 16 bytes) or out of line, and batches that keep
/// row order.
@Suite struct ActorNumberingTests {
    @Test func numbersAreDenseInOrderOfFirstAppearanceAndEqualExactlyForEqualBytes() {
        var n = ActorNumbers()
        #expect(n.number(appKey: "shop", id: "alice") == 0)
        #expect(n.number(appKey: "shop", id: "bob") == 1)
        #expect(n.number(appKey: "shop", id: "alice") == 0)
        // The same id in another app is another actor; the split between key and id counts.
        #expect(n.number(appKey: "blog", id: "alice") == 2)
        #expect(n.number(appKey: "ab", id: "c") == 3)
        #expect(n.number(appKey: "a", id: "bc") == 4)
        // Empty ids and keys are actors too; a prefix is not the id.
        #expect(n.number(appKey: "shop", id: "") == 5)
        #expect(n.number(appKey: "", id: "alice") == 6)
        #expect(n.number(appKey: "shop", id: "alic") == 7)
        #expect(n.count == 8)
    }

    @Test func idsAroundTheInlineLimitAreToldApart() {
        // 7, 8, 15, 16 bytes fit a slot; 17 and 40 do not. Ids of one length that share their
        // first and last 8 bytes differ only in the middle.
        let ids = [
            "1234567", "12345678", "123456789012345", "1234567890123456", "12345678901234567",
            "aaaaaaaaXbbbbbbbb", "aaaaaaaaYbbbbbbbb", "aaaaaaaaXXbbbbbbbb", "aaaaaaaaYYbbbbbbbb",
            String(repeating: "z", count: 40), String(repeating: "z", count: 39) + "y", "1234567\u{0}",
        ]
        var n = ActorNumbers()
        #expect(ids.map { n.number(appKey: "shop", id: $0) } == Array(0..<12))
        #expect(ids.reversed().map { n.number(appKey: "shop", id: $0) } == Array((0..<12).reversed()))
        #expect(n.number(appKey: "other", id: "aaaaaaaaXbbbbbbbb") == 12)
        #expect(n.count == 13)
    }

    @Test func numbersSurviveTheTableGrowing() {
        var n = ActorNumbers()
        let ids = (0..<5_000).map { $0.isMultiple(of: 3) ? "device-with-a-long-name-\($0)" : "user-\($0)" }
        #expect(ids.map { n.number(appKey: "shop", id: $0) } == Array(0..<5_000))
        #expect(ids.map { n.number(appKey: "shop", id: $0) } == Array(0..<5_000))
        #expect(n.count == 5_000)
    }

    @Test func aBatchHandsRowsOnInOrderWithTheNumberingsNumbers() {
        let rows: [(app: String, id: String, time: Int64)] = [
            ("shop", "u1", 10), ("shop", "a-long-device-identifier", 11), ("blog", "u1", 12), ("shop", "u2", 13),
            ("shop", "u1", 14), ("shop", "a-long-device-identifier", 15), ("blog", "u1", 16),
        ]
        var batch = ActorRowNumberer(capacity: 3)
        var out: [ActorEvent] = []
        for (i, r) in rows.enumerated() {
            var app = r.app, id = r.id
            let a = app.withUTF8 { batch.app(UnsafeRawBufferPointer($0)) }
            let going = id.withUTF8 {
                batch.add(kind: i % 2, app: a, id: UnsafeRawBufferPointer($0), time: r.time, seq: Int64(i)) { e in
                    out.append(e)
                    return true
                }
            }
            #expect(going)
        }
        #expect(out.count == 6)  // Two full batches of 3; the last row waits for `flush`.
        #expect(batch.flush { out.append($0); return true })
        // In order of first appearance, long ids (kept out of line) included.
        #expect(out.map(\.actor) == [0, 1, 2, 3, 0, 1, 2])
        #expect(out.map(\.time) == [10, 11, 12, 13, 14, 15, 16])
        #expect(out.map(\.seq) == Array(0..<7))
        #expect(out.map(\.kind) == [0, 1, 0, 1, 0, 1, 0])
    }

    @Test func aBatchStopsWhereTheConsumerDoes() {
        var batch = ActorRowNumberer(capacity: 4)
        var seen: [Int64] = []
        var going = true
        var added = 0
        for i in 0..<10 where going {
            var id = "u\(i % 3)"
            let app = batch.app(UnsafeRawBufferPointer(start: nil, count: 0))
            going = id.withUTF8 {
                batch.add(kind: 0, app: app, id: UnsafeRawBufferPointer($0), time: Int64(i), seq: Int64(i)) { e in
                    seen.append(e.seq)
                    return e.seq < 2
                }
            }
            added += 1
        }
        // The first batch (rows 0–3) is handed on until row 2 is refused; nothing after it.
        #expect(seen == [0, 1, 2])
        #expect(added == 4)
    }
}
