/// The interaction a KVC rule listens for (docs/config.md §3).
public enum ViewEvent: String, Sendable, Hashable, CaseIterable {
    case buttonClick = "ButtonClick"
    case listItemClick = "ListItemClick"
    case viewTap = "ViewTap"
    case valueChanged = "ValueChanged"
    case pageEnter = "PageEnter"
    case pageLeave = "PageLeave"
    case scroll = "Scroll"
}
