public import KVCConfig
public import ViewIdentity

extension ViewEvent {
    /// Whether a node of `role` can be the view this event happens on, as the hooks report it
    /// (docs/drift.md): a page event's node is its controller; a list item click's is the
    /// selected cell; a button click's and a value change's is the control that sent the action, a
    /// scroll's the scroll view (all plain views); a tap's is the view the gesture recogniser sits
    /// on, a plain view or a cell; an impression's any element inside a page (a view or a cell). A window is never the node of a rule's event.
    ///
    /// Roles, not type names, decide: a tree says what a node is for paths, but not whether a
    /// custom class (`Shop.HeartView`) is a control, so guessing from names would call good rules
    /// broken.
    public func fits(_ role: ViewRole) -> Bool {
        switch self {
        case .pageEnter, .pageLeave: return role == .controller
        case .listItemClick: return role == .cell
        case .buttonClick, .valueChanged, .scroll: return role == .view
        case .viewTap, .impression: return role == .view || role == .cell
        }
    }
}
