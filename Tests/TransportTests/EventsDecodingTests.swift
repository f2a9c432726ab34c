import ATLPWire
import EventModel
import Testing
import TestSupport

/// The `EVENTS` fast path (`EventList.parseBody`, `ATLPRequest.events(payload:)`) against the
/// generic one it replaced on the server (`JSONValue.parse`, `ATLPRequest(verb:body:)`, then per
/// event `TrackEvent(json:)`, the props written with `jsonText`, a refused event's `jsonText`):
/// the same events, props texts, refusals, reasons and errors, byte for byte.
@Suite struct EventsDecodingTests {
    /// What the collector stored of an event before the fast path: the oracle, spelled as it was.
    static func stored(_ raw: JSONValue) -> ReceivedEvent {
        do {
            let e = try TrackEvent(json: raw)
            return .valid(e, props: JSONValue.object(e.props).jsonText)
        } catch {
            return .rejected(raw: raw.jsonText, reason: error.description)
        }
    }

    static let valid = #""id":"v","ts":1700000000000,"type":"click","name":"n""#

    /// Events (as JSON text) of every kind the contract knows, and texts it must store as they were.
    static let trickyEvents: [String] = [
        #"{\#(valid),"props":{"title":"x"}}"#,
        #"{\#(valid),"props":{"q":"a\"b\\c\n\r\t\b\f\u0000\u001f\/é\u00e9"}}"#,
        #"{\#(valid),"props":{"emoji":"\ud83d\ude00","raw":"😀","hi":"\uD83D\uDE00"}}"#,
        #"{\#(valid),"props":{"ffff":"\uffff","raw":"￿","bom":"\ufeff","ls":"\u2028"}}"#,
        #"{\#(valid),"props":{"big":12345678901234567890,"neg":-5,"max":9223372036854775807,"min":-9223372036854775808}}"#,
        #"{\#(valid),"props":{"negzero":-0}}"#,
        #"{\#(valid),"props":{"f":1.5,"g":0.1,"h":-2.25,"big":1e300,"tiny":5e-324}}"#,
        #"{\#(valid),"props":{"e":1e2}}"#,
        #"{\#(valid),"props":{"E":2E-3}}"#,
        #"{\#(valid),"props":{"d":1.0}}"#,
        #"{\#(valid),"props":{"d":1.50}}"#,
        #"{\#(valid),"props":{"z":-0.0}}"#,
        #"{\#(valid),"props":{"w":100000000000000000000.0}}"#,
        #"{\#(valid),"props":{"huge":1e999}}"#,
        #"{\#(valid),"props":{"b":true,"c":false,"n":null}}"#,
        #"{\#(valid),"props":{"a":1,"a":2}}"#,
        #"{\#(valid),"props":{"a":[],"a":1,"b":2}}"#,
        #"{\#(valid),"props":{"a":1},"props":5}"#,
        #"{\#(valid),"props":5,"props":{"a":1}}"#,
        #"{\#(valid),"props":{"a":{"b":1}}}"#,
        #"{\#(valid),"props":{"a":[1]}}"#,
        #"{\#(valid),"props":{}}"#,
        #"{\#(valid),"props":{ }}"#,
        #"{\#(valid),"props":{"a" :1}}"#,
        #"{\#(valid),"props":{"ключ":"значение","idé":"x"}}"#,
        #"{\#(valid),"props":[]}"#,
        #"{\#(valid),"props":null}"#,
        #"{\#(valid),"props":"x"}"#,
        #"{"id":"x","id":"y","ts":1,"type":"click","name":"n"}"#,
        #"{"i\u0064":"esc","ts":1,"type":"click","name":"n","pr\u006fps":{"a":1}}"#,
        #"{"extra":{"deep":[1,{"x":null}],"id":5},"id":"u","ts":1,"type":"app_start","name":"n","zz":[]}"#,
        #"{"id":"é\u00e9","ts":0,"type":"page_enter","name":"Ünïcödé","page":"p","path":"a-b","session":"s","user":"u","device":"d"}"#,
        " { \"id\" : \"w\" ,\t\"ts\" : 5 ,\r\n\"type\" : \"click\" , \"name\" : \"n\" , \"props\" : { \"k\" : \"v\" } } ",
        #"{"id":"v","ts":1,"type":"page_leave","name":"n","duration":0}"#,
        #"{"id":"v","ts":1,"type":"page_leave","name":"n","duration":-1}"#,
        #"{"id":"v","ts":1,"type":"page_leave","name":"n","duration":1.0}"#,
        #"{"id":"v","ts":1,"type":"page_leave","name":"n","duration":99999999999999}"#,
        #"{"id":"v","ts":1,"type":"click","name":"n","viewId":"0123456789abcdefABCDEF0123456789"}"#,
        #"{"id":"v","ts":1,"type":"click","name":"n","viewId":"0123456789abcdef"}"#,
        #"{"id":"v","ts":1,"type":"click","name":"n","user":"\#(String(repeating: "u", count: 129))"}"#,
        #"{"id":"v","ts":1,"type":"click","name":"n","device":7}"#,
        #"{"id":"v","ts":1,"type":"click","name":"n","page":1}"#,
        #"{"id":"v","ts":1,"type":"click","name":"n","path":null}"#,
        #"{"id":"v","ts":1,"type":"click","name":"n","session":true}"#,
        #"{"ts":1,"type":"click","name":"n"}"#,
        #"{"id":"","ts":1,"type":"click","name":"n"}"#,
        #"{"id":"\#(String(repeating: "i", count: 129))","ts":1,"type":"click","name":"n"}"#,
        #"{"id":5,"ts":1,"type":"click","name":"n"}"#,
        #"{"id":"v","type":"click","name":"n"}"#,
        #"{"id":"v","ts":"1","type":"click","name":"n"}"#,
        #"{"id":"v","ts":1.0,"type":"click","name":"n"}"#,
        #"{"id":"v","ts":-1,"type":"click","name":"n"}"#,
        #"{"id":"v","ts":253402300800000,"type":"click","name":"n"}"#,
        #"{"id":"v","ts":1e20,"type":"click","name":"n"}"#,
        #"{"id":"v","ts":99999999999999999999,"type":"click","name":"n"}"#,
        #"{"id":"v","ts":1,"type":"tap","name":"n"}"#,
        #"{"id":"v","ts":1,"name":"n"}"#,
        #"{"id":"v","ts":1,"type":"click"}"#,
        #"{"id":"v","ts":1,"type":"click","name":"\#(String(repeating: "n", count: 257))"}"#,
        #"{}"#, "1", "-0", "\"s\"", "null", "true", "[]", #"[{"id":"a"}]"#, "1.5e3",
    ]

    /// A body of `events` (JSON texts) as a client sends it.
    static func body(_ events: [String], batch: String = #""b-1""#) -> [UInt8] {
        Array(#"{"batch":\#(batch),"sentAt":1700000000500,"events":[\#(events.joined(separator: ","))]}"#.utf8)
    }

    /// Decodes `bytes` both ways and expects the same value, events and errors.
    static func expectSame(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let shown = String(decoding: bytes.prefix(160), as: UTF8.self)
        let old: Result<JSONValue, JSONParseError>
        do throws(JSONParseError) { old = .success(try JSONValue.parse(bytes)) } catch { old = .failure(error) }
        let new: Result<(value: JSONValue, events: EventList?), JSONParseError>
        do throws(JSONParseError) { new = .success(try EventList.parseBody(bytes[...], eventsMember: "events")) } catch { new = .failure(error) }
        switch (old, new) {
        case (.failure(let a), .failure(let b)):
            #expect(a == b, "\(shown)", sourceLocation: sourceLocation)
        case (.success(let value), .success(let read)):
            if case .array(let events)? = value["events"], case .object(var object) = value {
                let list = read.events
                #expect(list?.received == events.map(stored), "\(shown)", sourceLocation: sourceLocation)
                #expect(list?.values == events, "\(shown)", sourceLocation: sourceLocation)
                #expect(list?.count == events.count, sourceLocation: sourceLocation)
                object["events"] = .array([])
                #expect(read.value == .object(object), "\(shown)", sourceLocation: sourceLocation)
            } else {
                #expect(read.events == nil, "\(shown)", sourceLocation: sourceLocation)
                #expect(read.value == value, "\(shown)", sourceLocation: sourceLocation)
            }
        default:
            Issue.record("one way threw and the other did not: \(old) / \(new) for \(shown)", sourceLocation: sourceLocation)
        }
    }

    @Test(.timeLimit(.minutes(3))) func theIngestMixDecodesAsTheGenericPathDoes() throws {
        var traffic = ShopTraffic.ingestMix(seed: 25)
        var batches = 0
        var valid = 0
        traffic.batches(total: 6_000, batchSize: 500) { events in
            let payload = ATLPRequest.events(batch: .string("b\(batches)"), events: events, sentAt: 1_700_000_000_500).frame.payload
            Self.expectSame(Array(payload[("EVENTS ".utf8.count)...]))
            let read = try? EventList.parseBody(payload[("EVENTS ".utf8.count)...], eventsMember: "events")
            valid += read?.events?.received.filter { if case .valid = $0 { true } else { false } }.count ?? 0
            batches += 1
        }
        #expect(batches == 12 && valid == 6_000, "every event of the mix is valid, so the mix exercises the fast path")
    }

    @Test func trickyEventsDecodeAsTheGenericPathDoes() {
        Self.expectSame(Self.body(Self.trickyEvents))
        for event in Self.trickyEvents { Self.expectSame(Self.body([event])) }
    }

    /// The props texts the fast path keeps as sent are exactly those the writer writes alike.
    @Test func propsAreKeptAsSentOnlyWhenTheyAreWhatTheWriterWrites() throws {
        for (props, stored) in [
            (#"{"title":"x","n":-5,"b":true,"f":1.5}"#, #"{"title":"x","n":-5,"b":true,"f":1.5}"#),
            (#"{ "title" : "x" }"#, #"{"title":"x"}"#),
            (#"{"q":"\u0041\/"}"#, #"{"q":"A/"}"#),
            (#"{"d":1.0,"e":1e2,"z":-0}"#, #"{"d":1,"e":100,"z":0}"#),
            (#"{"a":1,"a":2}"#, #"{"a":2}"#),
        ] {
            let read = try EventList.parseBody(Self.body([#"{\#(Self.valid),"props":\#(props)}"#])[...], eventsMember: "events")
            guard case .valid(_, let text)? = read.events?.received.first else {
                Issue.record("not valid: \(props)")
                continue
            }
            #expect(text == stored)
        }
    }

    @Test func bodiesOfEveryShapeDecodeAsTheGenericPathDoes() {
        let one = Self.trickyEvents[0]
        let bodies: [String] = [
            #"{"batch":1,"events":[]}"#,
            #"{"batch":1,"events":[ ]}"#,
            " {\"events\" :\n[ \(one) , \(one) ] ,\"batch\":\"x\"} ",
            #"{"batch":1,"events":[\#(one)],"events":5}"#,
            #"{"batch":1,"events":5,"events":[\#(one)]}"#,
            #"{"batch":1,"events":[\#(one)],"events":[{"id":"second"}]}"#,
            #"{"batch":1,"ev\u0065nts":[\#(one)]}"#,
            #"{"batch":1}"#,
            #"{"batch":1,"events":{"id":"a"}}"#,
            #"{"batch":{"a":[1,2]},"sentAt":1.5,"other":[{"x":"y"}],"events":[\#(one)]}"#,
            "[1]", "\"x\"", "5", "{}", "", " ",
            // Broken JSON, inside and after the events: the same error at the same place.
            #"{"batch":1,"events":[\#(one)]"#,
            #"{"batch":1,"events":[\#(one)]}x"#,
            #"{"batch":1,"events":[\#(one),]}"#,
            #"{"batch":1,"events":[\#(one) \#(one)]}"#,
            #"{"batch":1,"events":[{"id":"a\q"}]}"#,
            #"{"batch":1,"events":[{"id":"a"#,
            #"{"batch":1,"events":[{"id":"\ud800"}]}"#,
            #"{"batch":1,"events":[{"id":"\udc00x"}]}"#,
            #"{"batch":1,"events":[{"id" "a"}]}"#,
            #"{"batch":1,"events":[{"id":"a",}]}"#,
            #"{"batch":1,"events":[{"id":01}]}"#,
            #"{"batch":1,"events":[{"id":-}]}"#,
            #"{"batch":1,"events":[{"id":tru}]}"#,
            #"{"batch":1,"events":[{"props":{"a":1.}}]}"#,
            #"{"batch":1,"events":[{5:1}]}"#,
            "{\"batch\":1,\"events\":[{\"id\":\"a\tb\"}]}",
            #"{"batch":1,"events":[{"props":\#(String(repeating: "[", count: 600))}]}"#,
            #"{"batch":1,"events":[\#(String(repeating: "[", count: 600))]}"#,
        ]
        for body in bodies { Self.expectSame(Array(body.utf8)) }
        // Bytes that are not UTF-8, in a key, a value and a props value.
        for bad: [UInt8] in [[0xFF], [0xC3], [0xED, 0xA0, 0x80]] {
            for template in [#"{"batch":1,"events":[{"id":"@"}]}"#, #"{"batch":1,"events":[{"@":1}]}"#, #"{"batch":1,"events":[{\#(Self.valid),"props":{"k":"@"}}]}"#] {
                let parts = template.split(separator: "@", omittingEmptySubsequences: false)
                Self.expectSame(Array(parts[0].utf8) + bad + Array(parts[1].utf8))
            }
        }
    }

    /// The server's `EVENTS` decoding: the same requests and the same errors as the codec.
    @Test func eventsPayloadsDecodeToTheCodecsRequestsAndErrors() {
        let one = Self.trickyEvents[0]
        let payloads: [String] = [
            "EVENTS", "EVENTS ", "EVENTS {}", "EVENTS [1]", #"EVENTS {"batch":1,"events":[]"#,
            #"EVENTS {"batch":1,"events":[\#(one),1,{"id":"x"}],"sentAt":5}"#,
            #"EVENTS {"batch":"","events":[]}"#, #"EVENTS {"batch":1.5,"events":[]}"#, #"EVENTS {"batch":1}"#,
            #"EVENTS {"batch":1,"events":{}}"#, #"EVENTS {"batch":1,"events":[],"sentAt":"x"}"#,
            #"EVENTS {"events":[\#(one)]}"#, #"EVENTS {"batch":1,"events":[\#(one)],"events":null}"#,
        ]
        for text in payloads {
            let payload = Array(text.utf8)
            let old: Result<ATLPRequest, ATLPError>
            do throws(ATLPError) {
                let frame = try ATLPFrame.parse(payload: payload)
                old = .success(try ATLPRequest(verb: frame.verb, body: frame.body ?? JSONObject()))
            } catch { old = .failure(error) }
            let new: Result<ATLPRequest, ATLPError>
            do throws(ATLPError) { new = .success(try ATLPRequest.events(payload: payload).request) } catch { new = .failure(error) }
            #expect(old == new, "\(text)")
        }
    }
}
