/// The interaction a KVC rule listens for (docs/config.md §3).
public enum ViewEvent: String, Sendable, Hashable, CaseIterable {
    case buttonClick = "ButtonClick"
    case listItemClick = "ListItemClick"
    case viewTap = "ViewTap"
    case valueChanged = "ValueChanged"
    case pageEnter = "PageEnter"
    case pageLeave = "PageLeave"
    case scroll = "Scroll"
    /// An element shown at least half for 500 ms, once per page visit (docs/agent.md "Impressions").
    case impression = "Impression"
}
