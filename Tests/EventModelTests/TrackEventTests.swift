import EventModel
import Testing

@Suite struct TrackEventTests {
    @Test func wireRoundTrip() throws {
        let e = TrackEvent(
            id: "e1", ts: 1_700_000_000_000, type: .pageLeave, name: "EVENT_HOME_LEAVE_PAGE", page: "HomeViewController",
            duration: 1500, props: JSONObject([("k", .string("v"))]))
        #expect(try TrackEvent(json: e.json) == e)
        #expect(e.json.jsonText == #"{"id":"e1","ts":1700000000000,"type":"page_leave","name":"EVENT_HOME_LEAVE_PAGE","page":"HomeViewController","duration":1500,"props":{"k":"v"}}"#)
    }

    /// The ends of the valid times and durations are valid.
    @Test func theEndsOfTheValidRangesAreAccepted() throws {
        for ts in [EventTime.earliest, EventTime.latest] {
            for duration in [0, EventTime.longestDuration] {
                let e = TrackEvent(id: "a", ts: ts, type: .pageLeave, name: "n", duration: duration)
                #expect(try TrackEvent(json: e.json) == e)
            }
        }
    }

    @Test(arguments: [
        (#"{"ts":1,"type":"click","name":"n"}"#, "id is required"),
        (#"{"id":"","ts":1,"type":"click","name":"n"}"#, "id must be 1 to 128 bytes, found 0"),
        (#"{"id":"a","ts":1.5,"type":"click","name":"n"}"#, "ts must be an integer, found a number"),
        (#"{"id":"a","ts":1,"type":"tap","name":"n"}"#, #"type unknown event type "tap""#),
        (#"{"id":"a","ts":1,"type":"click","name":"n","viewId":"xyz"}"#, "viewId must be 32 hexadecimal digits"),
        (#"{"id":"a","ts":1,"type":"click","name":"n","props":{"a":[1]}}"#, "props.a must be a scalar, found an array"),
        (#"[1]"#, "an event must be a JSON object, found an array"),
        (
            #"{"id":"a","ts":9223372036854775807,"type":"click","name":"n"}"#,
            "ts must be from 0 (1970-01-01T00:00:00Z) to 253402300799999 (9999-12-31T23:59:59.999Z) ms since the epoch, found 9223372036854775807"
        ),
        (
            #"{"id":"a","ts":-1,"type":"click","name":"n"}"#,
            "ts must be from 0 (1970-01-01T00:00:00Z) to 253402300799999 (9999-12-31T23:59:59.999Z) ms since the epoch, found -1"
        ),
        (
            #"{"id":"a","ts":253402300800000,"type":"click","name":"n"}"#,
            "ts must be from 0 (1970-01-01T00:00:00Z) to 253402300799999 (9999-12-31T23:59:59.999Z) ms since the epoch, found 253402300800000"
        ),
        (#"{"id":"a","ts":1,"type":"page_leave","name":"n","duration":-1}"#, "duration must be from 0 to 253402300799999 ms, found -1"),
        (
            #"{"id":"a","ts":1,"type":"page_leave","name":"n","duration":-9223372036854775808}"#,
            "duration must be from 0 to 253402300799999 ms, found -9223372036854775808"
        ),
        (
            #"{"id":"a","ts":1,"type":"page_leave","name":"n","duration":253402300800000}"#,
            "duration must be from 0 to 253402300799999 ms, found 253402300800000"
        ),
    ])
    func invalidEventsNameTheField(text: String, reason: String) throws {
        let v = try JSONValue.parse(text)
        #expect(throws: EventValidationError.self) { try TrackEvent(json: v) }
        do { _ = try TrackEvent(json: v) } catch { #expect(error.description == reason) }
    }
}
