/// An event a collector received, validated by `TrackEvent`'s rules (docs/wire.md §3): what a
/// store keeps of it.
public enum ReceivedEvent: Sendable, Hashable {
    /// A valid event, with its `props` as the JSON text stored (compact, keys in order: what
    /// `JSONValue.object(event.props).jsonText` gives).
    case valid(TrackEvent, props: String)
    /// An event that breaks the contract: its compact JSON text and the reason.
    case rejected(raw: String, reason: String)

    /// Validates one event of a batch as a generic value.
    public init(json: JSONValue) {
        do throws(EventValidationError) {
            let event = try TrackEvent(json: json)
            self = .valid(event, props: JSONValue.object(event.props).jsonText)
        } catch {
            self = .rejected(raw: json.jsonText, reason: error.description)
        }
    }
}
