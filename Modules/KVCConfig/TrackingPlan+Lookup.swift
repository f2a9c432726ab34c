extension TrackingPlan {
    /// The rules for `appKey` whose version range holds `version`, in match order (what `CONFIG` serves).
    public func rules(appKey: String, version: AppVersion) -> [KVCRule] {
        rules.filter { $0.appKey == appKey && $0.appVersion.contains(version) }
    }

    /// The event id configured for `action` sent to a target of class `className`, if any.
    public func controlEventID(className: String, action: String) -> String? {
        eventTable[className]?.controlEvents[action]
    }

    /// The page event id configured for `className` appearing (`enter`) or disappearing.
    public func pageEventID(className: String, enter: Bool) -> String? {
        enter ? eventTable[className]?.pageEnter : eventTable[className]?.pageLeave
    }
}
