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
            self.init(valid: try TrackEvent(json: json), props: nil)
        } catch {
            self = .rejected(raw: json.jsonText, reason: error.description)
        }
    }

    /// A valid event with its `props` text: `canonicalProps` when the reader kept the text as sent
    /// (it is what the writer writes), else written.
    init(valid event: TrackEvent, props canonicalProps: String?) {
        self = .valid(event, props: canonicalProps ?? JSONValue.object(event.props).jsonText)
    }
}
