/// One piece of evidence that a node of the new build is the view a rule tracked (docs/drift.md).
///
/// Each gives a value from 0 to 1 and has a weight; a candidate's score is the weighted mean of the
/// signals that apply. A signal agrees when its value is at least `agreement`.
public enum DriftSignal: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The rule's pattern and the candidate's path, by elements added, removed or renamed.
    case path
    /// The pattern's last name and the candidate's name.
    case type
    /// The rule's `content` and the candidate's title (rules with `content` only).
    case content
    /// The rule's `keyPath` resolves in the candidate's props (where it resolved in the baseline node's too).
    case keyPath
    /// The baseline node's `id` and the candidate's (baseline nodes with an id).
    case id
    /// The baseline node's title and the candidate's (baseline nodes with a title).
    case title
    /// The share of the baseline node's key paths (leaves of its props) that resolve in the candidate's.
    case props
    /// The baseline node's parent and siblings (names and titles) against the candidate's.
    case neighbours
    /// Where the node sits among its parent's children, as a fraction from first to last.
    case position

    public var weight: Double {
        switch self {
        case .id: return 4
        case .path, .content, .title: return 3
        case .type, .keyPath, .neighbours: return 2
        case .props, .position: return 1
        }
    }

    /// The signals that say which view it is, not only where or what kind: when the rule or its
    /// baseline node has one, a suggestion needs a candidate that agrees on one.
    public var isIdentity: Bool { self == .id || self == .title || self == .content }

    /// The value from which a signal counts as agreeing.
    public static let agreement = 0.8

    public var description: String { rawValue }
}
