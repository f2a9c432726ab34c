public import ViewIdentity

/// One thing the user did (or the app's lifecycle did), as the hooks saw it, delivered synchronously.
///
/// It carries the live node: an observer reads business data (`props`) from it at once, on the
/// UI thread, because a reused cell shows other data a moment later. So an interaction is not
/// `Sendable` and should not be kept; convert it (`trackEvent(id:session:)`) to keep it.
///
/// Its optional fields are spelled `Optional<…>`: a `T?` stored `var` gets an implicit `= nil`,
/// and with one the initializer builds the interaction in a temporary and copies it out (Swift
/// 6.3, -O), on every interaction.
public struct Interaction {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case click, listItemClick, valueChanged, gesture, pageEnter, pageLeave
        case appStart, appForeground, appBackground, appEnd, scroll
        /// An element an impression rule watches was at least half visible for 500 ms.
        case impression
    }

    public var kind: Kind
    /// The sender (control), the gesture's view, the selected cell, the scrolled view or the
    /// controller of a page event; nil for app events.
    public var node: Optional<(any ViewNode)>
    /// `Controller#Target#Action` for target-actions, list selections and scrolls.
    public var eventCode: Optional<EventCode>
    /// The control events that fired (controls only).
    public var controlEvents: Optional<ControlEvents>
    /// The node's visible text: a button's title, a selected segment's title, a cell's title.
    public var title: Optional<String>
    /// A value control's information (`selectedIndex`, `isOn`, `value`), or a scroll's offset.
    public var value: Optional<ControlValue>
    /// The selected row, or the row of the cell that holds the sender.
    public var indexPath: Optional<CellIndexPath>
    /// Milliseconds: dwell time on `pageLeave`; time in the foreground on `appBackground` and `appEnd`.
    public var duration: Optional<Int64>
    /// The page the node belongs to: its controller's name (with alias, `DetailViewController(gift)`).
    public var page: Optional<String>
    /// Page events: how many times this page was entered in this hook system, this time included.
    public var pageCount: Optional<Int>
    /// Gestures: the recogniser's type name (`UITapGestureRecognizer`).
    public var gesture: Optional<String>
    /// Tap gestures: how many taps recognised it.
    public var tapCount: Optional<Int>
    /// Gestures: what the user did (`tap`, `longPress`, `swipe`, `pan`, `pinch`), sent as `props.kind`.
    public var gestureKind: Optional<GestureKind>
    /// Scrolls at rest: where the view came to rest, which way it moved, how far down it was seen.
    public var scrollRest: Optional<ScrollRest>
    /// Interactions in a web view: the address of the document (`props.url`).
    public var url: Optional<String>
    /// Milliseconds since the Unix epoch.
    public var timestamp: Int64
    /// The node's viewPath when the hooks found it in the walk that placed the node
    /// (`ViewLocation`); nil: `viewPath` walks the tree.
    public var knownPath: Optional<ViewPath>
    /// The node's own `title` when the hooks read it (`.some(nil)`: it has none); nil: not read.
    /// It differs from `title` where the hooks named the interaction otherwise (a drop-down's choice).
    public var knownNodeTitle: Optional<Optional<String>>

    public init(
        kind: Kind, node: (any ViewNode)? = nil, eventCode: EventCode? = nil, controlEvents: ControlEvents? = nil,
        title: String? = nil, value: ControlValue? = nil, indexPath: CellIndexPath? = nil, duration: Int64? = nil,
        page: String? = nil, pageCount: Int? = nil, gesture: String? = nil, tapCount: Int? = nil, timestamp: Int64
    ) {
        self.kind = kind
        self.node = node
        self.eventCode = eventCode
        self.controlEvents = controlEvents
        self.title = title
        self.value = value
        self.indexPath = indexPath
        self.duration = duration
        self.page = page
        self.pageCount = pageCount
        self.gesture = gesture
        self.tapCount = tapCount
        self.timestamp = timestamp
        gestureKind = nil
        scrollRest = nil
        url = nil
        knownPath = nil
        knownNodeTitle = nil
    }

    /// The node's viewPath: the one the hooks found, else computed now (it walks the tree).
    public var viewPath: ViewPath? { knownPath ?? node?.viewPath }

    /// The node's own `title`: as the hooks read it, else read now.
    public var nodeTitle: String? { knownNodeTitle ?? node?.title }
}
