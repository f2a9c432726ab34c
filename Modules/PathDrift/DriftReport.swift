public import EventModel
import KVCConfig
import ViewIdentity

/// Everything one drift run found: each KVC rule in range, and (with an inventory) the renamed
/// classes and actions of the event table and labels.
public struct DriftReport: Sendable, Hashable {
    public var rules: [RuleDrift]
    /// Nil when no inventory was given.
    public var actions: [ActionDrift]?

    public init(rules: [RuleDrift], actions: [ActionDrift]? = nil) {
        self.rules = rules
        self.actions = actions
    }

    /// True when any rule is broken or any configured class or action is missing: the CI gate.
    public var hasBreakage: Bool {
        rules.contains { $0.status == .broken } || !(actions ?? []).isEmpty
    }

    /// `{"rules":[{"rule":ID,"status":"ok"|"broken","matches":N,"suggestion":{"viewPath":P,"score":S,
    /// "signals":[…]}|null,"candidates":[{"viewPath":P,"score":S}…]}]}`, and `"actions":[…]` after
    /// it when an inventory was given.
    public var json: JSONValue {
        var root = JSONObject()
        root["rules"] = .array(
            rules.map { r in
                .object(
                    JSONObject([
                        ("rule", .string(r.rule.id)), ("status", .string(r.status.rawValue)), ("matches", .int(Int64(r.matches))),
                        (
                            "suggestion",
                            r.suggestion.map { s in
                                .object(
                                    JSONObject([
                                        ("viewPath", .string(s.viewPath)), ("score", .double(s.score)),
                                        ("signals", .array(s.signals.map { .string($0.rawValue) })),
                                    ]))
                            } ?? .null
                        ),
                        (
                            "candidates",
                            .array(
                                r.candidates.map { c in
                                    .object(JSONObject([("viewPath", .string(c.viewPath)), ("score", .double(c.score))]))
                                })
                        ),
                    ]))
            })
        if let actions {
            func candidate(_ c: ActionCandidate) -> JSONValue {
                .object(
                    JSONObject([
                        ("class", .string(c.className)), ("action", c.action.map(JSONValue.string) ?? .null),
                        ("score", .double(c.score)),
                    ]))
            }
            root["actions"] = .array(
                actions.map { a in
                    .object(
                        JSONObject([
                            ("class", .string(a.className)), ("action", a.action.map(JSONValue.string) ?? .null),
                            ("location", .string(a.location.description)),
                            ("suggestion", a.suggestion.map(candidate) ?? .null),
                            ("candidates", .array(a.candidates.map(candidate))),
                        ]))
                })
        }
        return .object(root)
    }

    /// Lines for a person: one per rule (`ok`/`broken`, id, matches), then for a broken rule its
    /// suggestion or why there is none, and its candidates; then the missing classes and actions.
    public var table: String {
        var lines: [String] = []
        let width = rules.map(\.rule.id.count).max() ?? 0
        for r in rules {
            let id = r.rule.id + String(repeating: " ", count: width - r.rule.id.count)
            let matches = "\(r.matches) match\(r.matches == 1 ? "" : "es")"
            guard r.status == .broken else {
                lines.append("ok      \(id)  \(matches)")
                continue
            }
            let why = r.matchesOtherViews ? "the pattern now matches other views" : "no view matches"
            lines.append("broken  \(id)  \(matches): \(why) \(r.rule.viewPath.text) (\(r.rule.viewEvent.rawValue))")
            if !r.pageFound, let page = r.rule.viewPath.names.first {
                lines.append("        the page \(page) is in none of the new trees: renamed, or give its tree")
            }
            if let s = r.suggestion {
                lines.append("        suggest    \(s.viewPath)  \(Self.number(s.score))  agreeing: \(s.signals.map(\.rawValue).joined(separator: ", "))")
            } else {
                let why: String
                switch r.absence ?? .tooWeak {
                case .noCandidate: why = "no node of the new trees can take a \(r.rule.viewEvent.rawValue) there"
                case .viewGone: why = "no candidate has the view's id, title or content: the view looks removed"
                case .tooWeak: why = "the best candidate scores under \(Self.number(PathDrift.threshold))"
                case .tooClose: why = "two candidates are within \(Self.number(PathDrift.margin)) of each other"
                }
                lines.append("        no suggestion: \(why)")
            }
            for c in r.candidates {
                lines.append("        candidate  \(c.viewPath)  \(Self.number(c.score))")
            }
        }
        for a in actions ?? [] {
            let kind = a.action == nil ? "missing-class " : "missing-action"
            var line = "\(kind)  \(a.subject) at \(a.location): "
            if let s = a.suggestion {
                line += "suggest \(s.subject)  \(Self.number(s.score))"
            } else if a.candidates.isEmpty {
                line += "no similar name in the inventory"
            } else {
                line += "no suggestion (several names are as close): "
                    + a.candidates.map { "\($0.subject) \(Self.number($0.score))" }.joined(separator: ", ")
            }
            lines.append(line)
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// `0.85`, `1`, as JSON prints them.
    static func number(_ x: Double) -> String { JSONValue.double(x).jsonText }
}
