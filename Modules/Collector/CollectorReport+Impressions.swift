import Definitions
import EventStore
public import KVCConfig

/// What one published impression rule saw (docs/reports.md "Impressions"): how many impressions
/// its elements made, and how many clicks the same elements had, for a click-through rate.
public struct ImpressionFigures: Sendable, Hashable {
    public var rule: KVCRule
    /// Stored `impression` events the rule selects (its coverage).
    public var impressions: Int
    /// The app's published click rules (`ButtonClick`, `ListItemClick`, `ViewTap`) with the same
    /// pattern as the impression rule, in publish order.
    public var clickRules: [String]
    /// Stored click events of those rules' types on the elements the impression rule selects
    /// (same app, versions, pattern and content), each counted once.
    public var clicks: Int

    public init(rule: KVCRule, impressions: Int, clickRules: [String], clicks: Int) {
        self.rule = rule
        self.impressions = impressions
        self.clickRules = clickRules
        self.clicks = clicks
    }

    /// Clicks per impression; nil without impressions or without a click rule of the same pattern.
    public var clickThroughRate: Double? {
        impressions > 0 && !clickRules.isEmpty ? Double(clicks) / Double(impressions) : nil
    }

    /// The view events a click on an element is reported as.
    static let clickEvents: Set<ViewEvent> = [.buttonClick, .listItemClick, .viewTap]

    /// One entry per impression rule among `coverage` (publish order), its clicks counted over
    /// `paths` (the stored events per app, version, type, path and title).
    static func figures(coverage: [RuleCoverage], paths: [PathCount]) -> [ImpressionFigures] {
        coverage.filter { $0.rule.viewEvent == .impression }.map { seen in
            let rule = seen.rule
            // "The same pattern": equal names and index patterns (PathPattern's equality).
            let clickRules = coverage.map(\.rule).filter {
                $0.appKey == rule.appKey && ImpressionFigures.clickEvents.contains($0.viewEvent) && $0.viewPath == rule.viewPath
            }
            var clicks = 0
            for viewEvent in Set(clickRules.map(\.viewEvent)) {
                // The impression rule's selection, on that click's type.
                var clicked = rule
                clicked.viewEvent = viewEvent
                var matcher = RuleEventMatcher(clicked)
                for p in paths where matcher.selects(appKey: p.appKey, appVersion: p.appVersion, type: p.type, path: p.path, title: p.title) {
                    clicks += p.count
                }
            }
            return ImpressionFigures(rule: rule, impressions: seen.covered, clickRules: clickRules.map(\.id), clicks: clicks)
        }
    }
}
