public import EventModel
public import Interactions
public import KVCConfig
import Matching
public import Reporters
import Synchronization
import ViewIdentity

/// The SDK's core pipeline: observes hooked interactions, applies the tracking plan, reports events.
///
/// `observe` runs synchronously on the thread that delivers the interaction (the UI thread): it
/// reads KVC values from the live node at once, since a reused cell shows other data a moment
/// later, then only submits to the reporting system, which delivers on its own queue.
/// Timestamps are the interaction's, from the hooks' injectable `InteractionClock`.
///
/// Around the plan (docs/agent.md "SDK"): who (`device`, `identify(user:)`, `reset()`, super
/// properties), when (sessions rotated after `sessionTimeout` and at app start), custom events
/// (`track(name:props:)`), consent, sampling, click debounce and rage clicks, and rules from the
/// collector swapped in while the app runs (`startRemoteConfig(source:)`). Nothing here knows a
/// toolkit: UIKit-model hooks and the GTK adapter feed the same tracker.
public final class Tracker: InteractionObserver, Sendable {
    /// How much a tracker has done.
    public struct Statistics: Sendable, Hashable {
        public var interactions = 0
        /// Events submitted, `kvc_error`, `custom` and diagnostic events included.
        public var events = 0
        public var kvcErrors = 0
        /// Events the reporting system refused (its queue was full).
        public var dropped = 0
        /// Repeated clicks within the debounce interval, reported as nothing.
        public var debounced = 0
        public var rageClicks = 0
        /// Interactions and `track` calls not captured: no consent, or this device is sampled out.
        public var notCaptured = 0
        /// Remote rule sets refused whole (each reported as a `config_rejected` event).
        public var rejectedRuleSets = 0
        /// Tracked methods of the plan that could not be hooked (each reported as a `method_rejected` event).
        public var rejectedMethods = 0
        /// Interactions on ignored views (`autotrack-ignore`, the plan's `ignore`), reported as nothing.
        public var ignored = 0

        public init(interactions: Int = 0, events: Int = 0, kvcErrors: Int = 0, dropped: Int = 0) {
            self.interactions = interactions
            self.events = events
            self.kvcErrors = kvcErrors
            self.dropped = dropped
        }
    }

    public let app: TrackedApp
    public let reporting: ReportingSystem
    public let settings: TrackerSettings
    private let writer: IdentityWriter
    /// The canonical text and viewId of the paths interacted with last.
    private let pathTexts = PathTextCache()
    /// The name of the event code interacted with last.
    private let codeNames = EventCodeNames()

    private struct State {
        var localPlan: TrackingPlan
        var shaper: EventShaper
        /// The remote rules merged over the local plan, while a set is in use.
        var remote: RemoteRules?
        var etag: String?
        var sampleRate: Double = 1
        var sessions: SessionClock
        var clicks: ClickFilter
        var identity: AgentIdentity
        var superProperties: JSONObject
        var statistics = Statistics()
        var discardHandlers: [@Sendable (Int64) -> Void] = []
        var refresher: ConfigRefresher?

        func capturing(appKey: String) -> Bool {
            identity.consent && Sampling.includes(device: identity.device, appKey: appKey, rate: sampleRate)
        }
    }

    private let state: Mutex<State>
    /// Held while a plan is swapped in and its methods hooked, so swaps happen one at a time, in order.
    private let loading = Mutex(())
    /// The plan's tracked methods the hooks refused, and who to tell of a plan swap (MethodTracking.swift).
    let methodRefusals = Mutex(MethodRefusals())
    /// Told after every plan swap: the hook systems watching impressions (Tracker+Impressions.swift).
    let impressionListeners = Mutex<[@Sendable () -> Void]>([])

    /// A tracker for `app` that applies `plan` and submits to `reporting`; `session` nil draws a
    /// fresh id. With `settings.dataDirectory` it reads (once, here) or creates the identity kept there.
    public init(
        plan: TrackingPlan, app: TrackedApp, reporting: ReportingSystem, session: String? = nil,
        settings: TrackerSettings = TrackerSettings()
    ) {
        self.app = app
        self.reporting = reporting
        self.settings = settings
        writer = IdentityWriter(directory: settings.dataDirectory)
        let identity = AgentIdentity.load(from: settings.dataDirectory, writer: writer)
        state = Mutex(
            State(
                localPlan: plan, shaper: EventShaper(plan: plan, app: app),
                sessions: SessionClock(session: session ?? Tracker.newSessionID(), timeout: settings.sessionTimeout),
                clicks: ClickFilter(settings: settings), identity: identity, superProperties: settings.superProperties))
    }

    /// A fresh session id: `s-` and 16 random hexadecimal digits.
    public static func newSessionID() -> String { "s-" + EventIDGenerator().prefix }

    public var statistics: Statistics { state.withLock { $0.statistics } }
    /// The session of the next event; also the prefix of its id.
    public var session: String { state.withLock { $0.sessions.session } }
    public var identity: AgentIdentity { state.withLock { $0.identity } }
    /// The etag of the remote rule set in use; nil while only the local plan applies.
    public var rulesEtag: String? { state.withLock { $0.etag } }
    public var sampleRate: Double { state.withLock { $0.sampleRate } }
    /// The plan from the app's own files, which remote rules are merged over.
    public var localPlan: TrackingPlan { state.withLock { $0.localPlan } }
    /// The plan in use: the local plan with the remote rules merged over it.
    public var plan: TrackingPlan { state.withLock { $0.shaper.matcher.plan } }
    /// The plan in use, indexed.
    var shaper: EventShaper { state.withLock { $0.shaper } }
    /// Whether events are captured now: consent given and this device sampled in.
    public var isCapturing: Bool { state.withLock { $0.capturing(appKey: app.key) } }

    // MARK: Interactions

    public func observe(_ interaction: Interaction) {
        if interaction.kind == .appForeground { state.withLock { $0.refresher }?.refreshSoon() }
        let ts = interaction.timestamp
        // The path (the hooks' own, or walked here) and its text are found once per interaction and
        // shared by the click rules, the event and the match; so is the node's title.
        let path = interaction.viewPath
        if let node = interaction.node, node.isInIgnoredView {
            state.withLock { s in
                s.statistics.interactions += 1
                s.statistics.ignored += 1
            }
            ignored(interaction, path: path, by: TrackingIgnoreMarker.name)
            return
        }
        let texts = path.map(pathTexts.texts(of:))
        let canonical = texts?.canonical
        // A multiple tap is a summary of the clicks it follows (a double click's `tapCount` 2), not a repeat of them.
        let clickedView = Tracker.isClick(interaction.kind) && (interaction.tapCount ?? 1) < 2 ? canonical : nil
        guard
            let context = prepare(
                at: ts, .interaction(appStart: interaction.kind == .appStart), clickedView: clickedView, ignoring: path)
        else {
            if settings.debugOutput != nil, let path, shaper.ignores(path) { ignored(interaction, path: path, by: "the plan's ignore") }
            return
        }
        if let verdict = context.verdict, !verdict.counted {
            state.withLock { $0.statistics.debounced += 1 }
            return
        }
        var events = context.shaper.events(
            base: interaction.trackEvent(
                id: context.ids.next(), session: context.ids.prefix, path: canonical, viewID: texts?.viewID,
                name: codeNames.name(of: interaction)),
            node: interaction.node, viewEvent: interaction.kind.viewEvent, className: Tracker.className(of: interaction),
            action: interaction.eventCode?.action, path: path, title: interaction.knownNodeTitle, nextID: context.ids.next,
            diagnose: settings.debugOutput.map { write in
                { diagnosis in
                    write(diagnosis.line(kind: "\(interaction.kind)", path: path, code: interaction.eventName))
                }
            })
        if interaction.kind.viewEvent == nil, let write = settings.debugOutput {
            // App lifecycle: no rule can name it, but debug mode still shows one line per interaction.
            write("autotrack debug: \(interaction.kind) path=- code=\(interaction.eventName) no view event: rules cannot name it")
        }
        let rage = context.verdict?.rage == true
        if rage, let own = events.first {
            var props = JSONObject()
            props["clicks"] = .int(Int64(settings.rageClicks))
            events.append(
                TrackEvent(
                    id: context.ids.next(), ts: ts, type: .custom, name: "rage_click", page: own.page, path: own.path,
                    viewId: own.viewId, session: context.ids.prefix, props: props))
        }
        submit(consume events, context: context) { s in
            if rage { s.rageClicks += 1 }
        }
    }

    /// The events for one interaction as the plan makes them (no session, consent or click rules,
    /// nothing submitted): the interaction's own event, then its `kvc_error`s. Reads the live node now.
    public func events(for interaction: Interaction) -> [TrackEvent] {
        let (shaper, ids) = state.withLock { ($0.shaper, $0.sessions.ids) }
        let base = interaction.trackEvent(id: ids.next(), session: ids.prefix)
        return shaper.events(
            base: base, node: interaction.node, viewEvent: interaction.kind.viewEvent,
            className: Tracker.className(of: interaction), action: interaction.eventCode?.action, nextID: ids.next)
    }

    /// The class the event table is keyed by: the controller's for page events (with its alias,
    /// `GtkBox(page1)`, which the table looks up before the type name), the target's for actions.
    static func className(of interaction: Interaction) -> String? {
        switch interaction.kind {
        case .pageEnter, .pageLeave:
            guard let node = interaction.node else { return interaction.page }
            guard let alias = node.pageAlias, !alias.isEmpty else { return node.typeName }
            return "\(node.typeName)(\(alias))"
        default:
            return interaction.eventCode?.target
        }
    }

    /// Interactions that debounce and rage-click rules apply to.
    static func isClick(_ kind: Interaction.Kind) -> Bool {
        kind == .click || kind == .listItemClick || kind == .gesture
    }

    // MARK: Custom events

    /// Reports a `custom` event named `name` (1–256 bytes) with `props` (non-scalar values are
    /// sent as their JSON text), at the settings' clock's time. False when nothing was captured
    /// (no consent, sampled out) or the reporting queue was full.
    @discardableResult
    public func track(name: String, props: JSONObject = JSONObject()) throws(TrackerError) -> Bool {
        guard (1...256).contains(name.utf8.count) else {
            throw TrackerError(.badEventName, "a custom event's name must be 1 to 256 bytes; \"\(name.prefix(40))\" has \(name.utf8.count)")
        }
        let ts = settings.clock.wallMilliseconds()
        guard let context = prepare(at: ts, .custom) else { return false }
        var wire = JSONObject()
        for (k, v) in props { wire[k] = v.propValue }
        let event = TrackEvent(id: context.ids.next(), ts: ts, type: .custom, name: name, session: context.ids.prefix, props: wire)
        return submit([event], context: context) { _ in } == 1
    }

    // MARK: Who

    /// Sets the signed-in user (1–128 bytes), sent as `user` on every event from now on, and kept
    /// in the data directory.
    public func identify(user: String) throws(TrackerError) {
        guard (1...128).contains(user.utf8.count) else {
            throw TrackerError(.badUserID, "a user id must be 1 to 128 bytes; \"\(user.prefix(40))\" has \(user.utf8.count)")
        }
        let identity = state.withLock { s in
            s.identity.user = user
            return s.identity
        }
        writer.save(identity)
    }

    /// Signs the user out: no `user`, a new anonymous `device` id and a new session, as after a
    /// fresh install (consent is kept).
    public func reset() {
        let identity = state.withLock { s in
            s.identity.user = nil
            s.identity.device = AgentIdentity.newDeviceID()
            s.sessions.rotate()
            return s.identity
        }
        writer.save(identity)
    }

    /// Adds props to every later event (replacing super properties of the same names).
    public func register(superProperties: JSONObject) {
        state.withLock { s in
            for (k, v) in superProperties { s.superProperties[k] = v.propValue }
        }
    }

    public var superProperties: JSONObject { state.withLock { $0.superProperties } }

    // MARK: Consent

    /// The user's consent, kept in the data directory. Withdrawing it stops capture at once and
    /// discards what is not yet sent: every handler added with `onDiscard` is called with the
    /// current time (a `ConsentGate` drops events queued before it; a spool empties itself).
    public func setConsent(_ granted: Bool) {
        let now = settings.clock.wallMilliseconds()
        let (identity, handlers, changed) = state.withLock { s in
            let changed = s.identity.consent != granted
            s.identity.consent = granted
            return (s.identity, s.discardHandlers, changed)
        }
        guard changed else { return }
        writer.save(identity)
        if !granted { for h in handlers { h(now) } }
    }

    public var hasConsent: Bool { state.withLock { $0.identity.consent } }

    /// Registers what to do with unsent events when consent is withdrawn; `body` gets the time of
    /// the withdrawal (milliseconds since the epoch, the settings' clock): events up to it are discarded.
    public func onDiscard(_ body: @escaping @Sendable (Int64) -> Void) {
        state.withLock { $0.discardHandlers.append(body) }
    }

    /// Waits until identity changes (identify, reset, consent) are on disk.
    public func waitForSaves() { writer.wait() }

    // MARK: Remote configuration

    /// Starts asking `source` for rules at once, on return to the foreground and every
    /// `settings.configRefresh`, on a thread of its own; the last good set is kept in (and first
    /// read from) `settings.dataDirectory`. Calling it again returns the running refresher.
    @discardableResult
    public func startRemoteConfig(source: any RulesSource) -> ConfigRefresher {
        let (refresher, created) = state.withLock { s -> (ConfigRefresher, Bool) in
            if let r = s.refresher { return (r, false) }
            let r = ConfigRefresher(
                tracker: self, source: source, interval: settings.configRefresh, directory: settings.dataDirectory)
            s.refresher = r
            return (r, true)
        }
        if created { refresher.start() }
        return refresher
    }

    /// Stops the remote configuration's thread, if started.
    public func stop() {
        state.withLock { $0.refresher }?.stop()
    }

    /// Swaps `rules` in over the local plan, atomically: the next interaction uses them. A set
    /// that does not load is refused whole (the rules in use stay) and, when it came from the
    /// collector, reported as a `config_rejected` event. Returns whether it was swapped in.
    @discardableResult
    public func apply(_ rules: RemoteRules, fromDisk: Bool = false) -> Bool {
        loading.withLock { _ in
            let plan: TrackingPlan
            do throws(ConfigError) {
                plan = try rules.plan(over: localPlan)
            } catch {
                if fromDisk {
                    AgentDiagnostics.write("the rules kept on disk (etag \(rules.etag)) no longer load and are ignored: \(error)")
                } else {
                    rejected(rules, error)
                }
                return false
            }
            let shaper = EventShaper(plan: plan, app: app)
            state.withLock { s in
                s.shaper = shaper
                s.remote = rules
                s.etag = rules.etag
                s.sampleRate = rules.sampleRate ?? 1
            }
            trackedMethodsChanged()
            impressionRulesChanged()
            return true
        }
    }

    /// Loads `plan` as the app's own plan in place of the one it has (its configuration files read
    /// again), atomically: the remote rules in use are merged over it, the next interaction uses it,
    /// and its tracked methods are hooked in every registry this tracker observes, those it no
    /// longer names unhooked (docs/hooks.md "SPOC on any method").
    public func load(_ plan: TrackingPlan) {
        loading.withLock { _ in
            let remote = state.withLock { $0.remote }
            // Remote rules refused over the new plan: the new plan alone (the collector's next set decides).
            let merged = remote.flatMap { try? $0.plan(over: plan) }
            let shaper = EventShaper(plan: merged ?? plan, app: app)
            state.withLock { s in
                s.localPlan = plan
                s.shaper = shaper
                if merged == nil {
                    s.remote = nil
                    s.etag = nil
                    s.sampleRate = 1
                }
            }
            trackedMethodsChanged()
            impressionRulesChanged()
        }
    }

    /// Reports a refused rule set (docs/agent.md "config_rejected").
    private func rejected(_ rules: RemoteRules, _ error: ConfigError) {
        var props = JSONObject()
        props["etag"] = .string(rules.etag)
        props["problems"] = .int(Int64(error.problems.count))
        props["problem"] = .string(error.problems.first.map(\.description) ?? String(describing: error))
        reportDiagnostic(name: "config_rejected", props: props) { $0.rejectedRuleSets += 1 }
    }

    /// Reports a problem of the agent's configuration as a `kvc_error` event named `name` (the
    /// report's error table shows it): `props` after the app's `appKey` and `appVersion`.
    func reportDiagnostic(name: String, props extra: JSONObject, count: (inout Statistics) -> Void) {
        let ts = settings.clock.wallMilliseconds()
        state.withLock { count(&$0.statistics) }
        guard let context = prepare(at: ts, .diagnostic) else { return }
        var props = JSONObject()
        props["appKey"] = .string(app.key)
        props["appVersion"] = .string(app.version)
        for (k, v) in extra { props[k] = v }
        let event = TrackEvent(
            id: context.ids.next(), ts: ts, type: .kvcError, name: name, session: context.ids.prefix, props: props)
        submit([event], context: context) { _ in }
    }

    // MARK: Shared steps

    /// What an event comes from: the user's interaction, the app's `track` (both are activity
    /// that keeps a session alive), or the agent's own diagnostics (which is not).
    private enum Origin {
        case interaction(appStart: Bool)
        case custom
        case diagnostic
    }

    private struct Context {
        var shaper: EventShaper
        var ids: EventIDGenerator
        var identity: AgentIdentity
        var superProperties: JSONObject
        var verdict: ClickFilter.Verdict?
    }

    /// Under the lock: counts the interaction, refuses it on a view the plan ignores (`ignoring`:
    /// its path), without consent or out of sample, moves the session, applies the click rules;
    /// returns what the events are made with.
    private func prepare(at ts: Int64, _ origin: Origin, clickedView: String? = nil, ignoring path: ViewPath? = nil) -> Context? {
        state.withLock { s -> Context? in
            if case .interaction = origin { s.statistics.interactions += 1 }
            if let path, s.shaper.ignores(path) {
                s.statistics.ignored += 1
                return nil
            }
            guard s.capturing(appKey: app.key) else {
                s.statistics.notCaptured += 1
                return nil
            }
            switch origin {
            case .interaction(let appStart): s.sessions.touch(at: ts, appStart: appStart)
            case .custom: s.sessions.touch(at: ts)
            case .diagnostic: break
            }
            let verdict = clickedView.map { s.clicks.click(on: $0, at: ts) }
            return Context(
                shaper: s.shaper, ids: s.sessions.ids, identity: s.identity, superProperties: s.superProperties,
                verdict: verdict)
        }
    }

    /// Adds who and the super properties to each event, submits them, counts; returns how many
    /// the reporting system took.
    @discardableResult
    private func submit(_ events: consuming [TrackEvent], context: Context, count: (inout Statistics) -> Void) -> Int {
        let total = events.count
        // Each event is moved out, first first, and handed to the queue without a copy (counting
        // with `count(where:)` would copy every event).
        var remaining = consume events
        remaining.reverse()
        var accepted = 0
        var kvcErrors = 0
        while var e = remaining.popLast() {
            if e.type == .kvcError { kvcErrors += 1 }
            stamp(&e, context)
            if reporting.submit(consume e) { accepted += 1 }
        }
        state.withLock { s in
            s.statistics.events += total
            s.statistics.kvcErrors += kvcErrors
            s.statistics.dropped += total - accepted
            count(&s.statistics)
        }
        return accepted
    }

    /// Who the event is about (`device`, and `user` once identified) and the super properties.
    private func stamp(_ event: inout TrackEvent, _ context: Context) {
        event.device = context.identity.device
        event.user = context.identity.user
        SuperProperties.merge(context.superProperties, into: &event.props)
    }
}
