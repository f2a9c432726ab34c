public import EventModel
import ViewIdentity

extension Interaction {
    /// The wire type (docs/wire.md §3), as its kind's table says (`Interaction.Kind.eventType`).
    public var eventType: EventType { kind.eventType }

    /// The event name: the event code where there is one, the page for page events, the type for app events.
    public var eventName: String {
        if let eventCode { return eventCode.description }
        switch kind {
        case .pageEnter, .pageLeave:
            if let page { return page }
        default: break
        }
        if let node { return ViewPath.elementName(of: node) }
        return eventType.rawValue
    }

    /// The interaction's facts as scalar props, in a fixed order: `title`, `controlEvents`,
    /// `selectedIndex`, `isOn`, `value`, `indexPath` (`"s:r"`), `count`, `gesture`, `kind`, `tapCount`,
    /// a scroll's `offset` (`"[x,y]"`), `direction` and `depth`, a web view's `url`, and `duration`
    /// on `app_background` and `app_end`.
    public var eventProps: JSONObject {
        var p = JSONObject()
        // Room for a few facts and what a plan adds (code, label, a value, rule ids): one allocation.
        p.reserveCapacity(4)
        if let title { p["title"] = .string(title) }
        if let controlEvents { p["controlEvents"] = .string(controlEvents.description) }
        if let value {
            if let i = value.selectedIndex { p["selectedIndex"] = .int(Int64(i)) }
            if let b = value.isOn { p["isOn"] = .bool(b) }
            if let v = value.value { p["value"] = Interaction.number(v) }
        }
        if let indexPath { p["indexPath"] = .string(indexPath.description) }
        if let pageCount { p["count"] = .int(Int64(pageCount)) }
        if let gesture { p["gesture"] = .string(gesture) }
        if let gestureKind { p["kind"] = .string(gestureKind.rawValue) }
        if let tapCount { p["tapCount"] = .int(Int64(tapCount)) }
        if let scrollRest {
            p["offset"] = .string(scrollRest.offsetText)
            p["direction"] = .string(scrollRest.direction.rawValue)
            p["depth"] = Interaction.number(scrollRest.depth)
        }
        if let url { p["url"] = .string(url) }
        // The foreground time is a prop too on app events (Sensors' `$event_duration`), where
        // analytics that read props find it.
        if kind == .appBackground || kind == .appEnd, let duration { p["duration"] = .int(duration) }
        return p
    }

    /// The interaction as a wire event (docs/wire.md §3), with `extraProps` (KVC values…) after its own.
    ///
    /// The public conversion every observer shares: the default `ReportingObserver` and the
    /// configured tracker produce the same fields. An observer that already has the node's
    /// canonical path (to match rules and apply click rules) passes it as `path`, so it is neither
    /// walked nor written again, and with it that path's viewId as `viewID`, so it is not hashed again;
    /// one that already has `eventName` passes it as `name`.
    public func trackEvent(
        id: String, session: String? = nil, extraProps: JSONObject = JSONObject(), path known: String? = nil,
        viewID knownID: String? = nil, name knownName: String? = nil
    ) -> TrackEvent {
        let canonical = known ?? viewPath?.canonical
        var props = eventProps
        for m in extraProps { props[m.key] = m.value }
        return TrackEvent(
            id: id, ts: timestamp, type: eventType, name: Interaction.clip(knownName ?? eventName), page: page,
            path: canonical, viewId: knownID ?? canonical.map { ViewID(canonical: $0).hex }, session: session, duration: duration,
            props: props)
    }

    /// Whole numbers stay integers on the wire (a stepper at 2 reports `2`, not `2.0`).
    static func number(_ v: Double) -> JSONValue {
        if v.rounded() == v, abs(v) < 9e15 { return .int(Int64(v)) }
        return .double(v)
    }

    /// Names are 1–256 bytes on the wire; a longer one is cut at a character boundary.
    static func clip(_ name: String) -> String {
        if name.isEmpty { return "unnamed" }
        guard name.utf8.count > 256 else { return name }
        var out = ""
        for ch in name {
            if out.utf8.count + String(ch).utf8.count > 256 { break }
            out.append(ch)
        }
        return out
    }
}
