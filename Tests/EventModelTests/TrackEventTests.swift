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

    @Test(arguments: [
        (#"{"ts":1,"type":"click","name":"n"}"#, "id is required"),
        (#"{"id":"","ts":1,"type":"click","name":"n"}"#, "id must be 1 to 128 bytes, found 0"),
        (#"{"id":"a","ts":1.5,"type":"click","name":"n"}"#, "ts must be an integer, found a number"),
        (#"{"id":"a","ts":1,"type":"tap","name":"n"}"#, #"type unknown event type "tap""#),
        (#"{"id":"a","ts":1,"type":"click","name":"n","viewId":"xyz"}"#, "viewId must be 32 hexadecimal digits"),
        (#"{"id":"a","ts":1,"type":"click","name":"n","props":{"a":[1]}}"#, "props.a must be a scalar, found an array"),
        (#"[1]"#, "an event must be a JSON object, found an array"),
    ])
    func invalidEventsNameTheField(text: String, reason: String) throws {
        let v = try JSONValue.parse(text)
        #expect(throws: EventValidationError.self) { try TrackEvent(json: v) }
        do { _ = try TrackEvent(json: v) } catch { #expect(error.description == reason) }
    }
}
