import DemoShop
import EventModel
import Hooks
import Interactions
import Reporters
import ViewIdentity

/// An observer that keeps what each interaction looked like when it happened.
final class InteractionRecorder: InteractionObserver {
    struct Seen {
        var kind: Interaction.Kind
        var event: TrackEvent
        /// The node's props at interaction time.
        var props: JSONValue?
        /// The id of the product the node's cell shows at interaction time (the live model a KVC rule reads).
        var productID: String?
        var nodeID: ObjectIdentifier?
    }

    private(set) var seen: [Seen] = []
    /// Called during `observe`, to check what else has (not) happened yet.
    var onObserve: ((Interaction) -> Void)?

    func observe(_ interaction: Interaction) {
        onObserve?(interaction)
        seen.append(
            Seen(
                kind: interaction.kind, event: interaction.trackEvent(id: "e\(seen.count + 1)"),
                props: interaction.node?.props, productID: Self.cellProduct(of: interaction.node),
                nodeID: interaction.node.map { ObjectIdentifier($0) }))
    }

    /// The product of the demo shop cell at or above `node`, if any.
    static func cellProduct(of node: (any ViewNode)?) -> String? {
        var current = node
        // Bounded by the tree's depth.
        while let n = current {
            if let cell = n as? ProductCell { return cell.product?.id }
            current = n.parentNode
        }
        return nil
    }

    var events: [TrackEvent] { seen.map(\.event) }
    /// `type name` per event.
    var summary: [String] { events.map { "\($0.type.rawValue) \($0.name)" } }
}

/// A hook system on a registry and manual clock of its own, with a recorder.
struct HookRig {
    let aspects = AspectRegistry(diagnostics: { _ in })
    let clock = ManualInteractionClock(wallMilliseconds: 1_000_000)
    let recorder = InteractionRecorder()
    let hooks: HookSystem

    init(start: Bool = true) {
        hooks = HookSystem(observer: recorder, aspects: aspects, clock: clock)
        if start { try! hooks.start() }
    }

    /// A visible window (in this rig's registry) whose root is the controller `make` builds.
    func show<C: UIViewController>(_ make: () -> C) -> (UIWindow, C) {
        build {
            let window = UIWindow()
            let controller = make()
            window.rootViewController = controller
            window.makeKeyAndVisible()
            return (window, controller)
        }
    }

    /// Runs `body` with this rig's registry as the one new UI objects join.
    func build<R>(_ body: () throws -> R) rethrows -> R {
        try AspectRegistry.$current.withValue(aspects) { try body() }
    }
}

/// A screen for the target-action tests: a controller whose view holds a label and two buttons.
final class TestController: UIViewController {
    let label = UILabel(text: "hello")
    let okButton = UIButton(title: "OK")
    let cancelButton = UIButton(title: "Cancel")
    var log: [String] = []

    override func viewDidLoad() {
        view.addSubview(label)
        view.addSubview(okButton)
        view.addSubview(cancelButton)
    }

    func onOK(_ sender: UIButton) { log.append("onOK \(sender.title ?? "")") }

    /// Registers `onOK:` on the OK button (the button joined its registry when created).
    func wireOK() {
        okButton.addTarget(self, action: "onOK:", for: .touchUpInside) { target, sender in target.onOK(sender) }
    }
}
