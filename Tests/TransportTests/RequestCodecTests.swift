import ATLPWire
import EventModel
import Testing

/// ATLPWire's request codec: what a client encodes, the server decodes to the same request, and
/// the shipper's `EVENTS` payload over spooled JSON lines is the codec's own bytes.
@Suite struct RequestCodecTests {
    static let events: [JSONValue] = [
        .object(JSONObject([("id", "e1"), ("name", "tap"), ("ts", 1_700_000_000_000), ("props", .object(JSONObject([("q", "a\"b")])))])),
        .object(JSONObject([("id", "e2"), ("name", "view"), ("ts", 1_700_000_000_001)])),
    ]

    /// Encodes `request`, sends it through the frame decoder, and decodes it as the server does.
    static func roundTrip(_ request: ATLPRequest) throws -> ATLPRequest {
        var decoder = FrameDecoder(maxFrame: 1 << 20)
        decoder.append(request.frame.encoded)
        let payload = try #require(try decoder.next())
        let frame = try ATLPFrame.parse(payload: payload)
        #expect(frame.verb == request.verb)
        return try ATLPRequest(verb: frame.verb, body: frame.body ?? JSONObject())
    }

    @Test func everyRequestRoundTripsThroughItsWireBytes() throws {
        let requests: [ATLPRequest] = [
            .events(batch: .string("17"), events: Self.events, sentAt: 1_700_000_000_500),
            .events(batch: .int(3), events: [], sentAt: nil),
            .config(JSONObject()),
            .config(JSONObject([("etag", "9f2c")])),
            .publish(rules: [.object(JSONObject([("id", "r1"), ("viewEvent", "ButtonClick")]))], sampleRate: 0.25),
            .publish(rules: [], sampleRate: nil),
            .snapshot(SnapshotWireTests.upload),
        ]
        for request in requests {
            #expect(try Self.roundTrip(request) == request, "\(request.frame)")
        }
    }

    @Test func theEventsPayloadOverEncodedEventsIsTheCodecsOwnBytes() throws {
        let lines = Self.events.map { value -> ArraySlice<UInt8> in
            var out: [UInt8] = []
            value.write(to: &out)
            return out[...]
        }
        for sentAt: Int64? in [1_700_000_000_500, nil] {
            let payload = ATLPRequest.eventsPayload(batch: "42", sentAt: sentAt, encodedEvents: lines)
            let request = ATLPRequest.events(batch: .string("42"), events: Self.events, sentAt: sentAt)
            #expect(payload == request.frame.payload)
            let frame = try ATLPFrame.parse(payload: payload)
            #expect(try ATLPRequest(verb: frame.verb, body: try #require(frame.body)) == request)
        }
        let none = ATLPRequest.eventsPayload(batch: "1", sentAt: nil, encodedEvents: [])
        #expect(String(decoding: none, as: UTF8.self) == #"EVENTS {"batch":"1","events":[]}"#)
    }

    @Test func aBodyThatBreaksTheContractIsABadRequestNamingTheMember() {
        func code(_ verb: String, _ body: String) -> (ATLPErrorCode, String)? {
            guard case .object(let object)? = try? JSONValue.parse(Array(body.utf8)[...]) else { return nil }
            do {
                _ = try ATLPRequest(verb: verb, body: object)
                return nil
            } catch {
                return (error.code, error.message)
            }
        }
        let cases: [(String, String, ATLPErrorCode, String)] = [
            ("EVENTS", #"{"events":[]}"#, .badRequest, "\"batch\""),
            ("EVENTS", #"{"batch":"","events":[]}"#, .badRequest, "1 to 128 bytes"),
            ("EVENTS", #"{"batch":"\#(String(repeating: "b", count: 129))","events":[]}"#, .badRequest, "1 to 128 bytes"),
            ("EVENTS", #"{"batch":1.5,"events":[]}"#, .badRequest, "1 to 128 bytes"),
            ("EVENTS", #"{"batch":1,"events":{}}"#, .badRequest, "\"events\""),
            ("EVENTS", #"{"batch":1,"events":[],"sentAt":"now"}"#, .badRequest, "\"sentAt\""),
            ("PUBLISH", #"{"sampleRate":1}"#, .badRequest, "\"rules\""),
            ("PUBLISH", #"{"rules":[],"sampleRate":2}"#, .badRequest, "from 0 to 1"),
            ("SNAPSHOT", #"{"page":"Home"}"#, .badRequest, "SNAPSHOT"),
            ("PONG", #"{}"#, .unknownVerb, "HELLO, EVENTS, CONFIG, PUBLISH, SNAPSHOT, PING, BYE"),
        ]
        for (verb, body, expected, mention) in cases {
            let got = code(verb, body)
            #expect(got?.0 == expected, "\(verb) \(body)")
            #expect(got?.1.contains(mention) == true, "\(verb) \(body): \(got?.1 ?? "accepted")")
        }
        #expect(code("EVENTS", #"{"batch":"\#(String(repeating: "b", count: 128))","events":[]}"#) == nil)
    }
}
