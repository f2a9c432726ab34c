import EventModel
import EventStore
import KVCConfig
import ViewIdentity

/// KVC rules as the JSON objects of config.md §3, the form `PUBLISH` takes and `RULES` serves.
public enum RuleJSON {
    /// The rule object, fields in config.md's order, `content` only when set.
    public static func object(_ rule: KVCRule) -> JSONValue {
        var o = JSONObject()
        o["id"] = .string(rule.id)
        o["appKey"] = .string(rule.appKey)
        o["appVersion"] = .string(rule.appVersion.text)
        o["viewEvent"] = .string(rule.viewEvent.rawValue)
        o["viewPath"] = .string(rule.viewPath.text)
        o["keyPath"] = .string(rule.keyPath.text)
        o["keyName"] = .string(rule.keyName)
        if let content = rule.content { o["content"] = .string(content) }
        return .object(o)
    }

    /// The row the store keeps for `rule`.
    public static func stored(_ rule: KVCRule) -> StoredRule {
        StoredRule(
            appKey: rule.appKey, id: rule.id, appVersion: rule.appVersion.text, viewEvent: rule.viewEvent.rawValue,
            viewPath: rule.viewPath.text, keyPath: rule.keyPath.text, keyName: rule.keyName, content: rule.content,
            json: object(rule).jsonText)
    }

    /// Reads a stored rule back into a `KVCRule`; nil if it no longer parses (never for rules this build stored).
    public static func rule(_ stored: StoredRule) -> KVCRule? {
        guard let value = try? JSONValue.parse(stored.json) else { return nil }
        return try? decode(value, location: ConfigLocation(file: "database", keyPath: "rules[\(stored.appKey)/\(stored.id)]"))
    }

    /// Validates one rule object with KVCConfig's types; the error names the field at fault.
    public static func decode(_ value: JSONValue, location: ConfigLocation) throws(RuleJSONError) -> KVCRule {
        guard case .object(let o) = value else {
            throw RuleJSONError(location: location, reason: "a rule must be a JSON object, found \(value.kindDescription)")
        }
        func string(_ key: String, required: Bool = true) throws(RuleJSONError) -> String? {
            guard let v = o[key] else {
                if required { throw RuleJSONError(location: location, field: key, reason: "is required") }
                return nil
            }
            guard case .string(let s) = v else {
                throw RuleJSONError(location: location, field: key, reason: "must be a string, found \(v.kindDescription)")
            }
            if required, s.isEmpty { throw RuleJSONError(location: location, field: key, reason: "must not be empty") }
            return s
        }
        let id = try string("id")!
        let appKey = try string("appKey")!
        let versionText = try string("appVersion", required: false) ?? "*"
        let eventText = try string("viewEvent")!
        let pathText = try string("viewPath")!
        let keyPathText = try string("keyPath")!
        let keyName = try string("keyName")!
        let content = try string("content", required: false)
        let range: VersionRange
        do throws(VersionRangeError) { range = try VersionRange(versionText) } catch {
            throw RuleJSONError(location: location, field: "appVersion", reason: error.description)
        }
        guard let viewEvent = ViewEvent(rawValue: eventText) else {
            throw RuleJSONError(
                location: location, field: "viewEvent",
                reason: "\"\(eventText)\" is not one of \(ViewEvent.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let pattern: PathPattern
        do throws(ViewPathParseError) { pattern = try PathPattern(pathText) } catch {
            throw RuleJSONError(location: location, field: "viewPath", reason: error.description)
        }
        let keyPath: KVCKeyPath
        do throws(KeyPathSyntaxError) { keyPath = try KVCKeyPath(keyPathText) } catch {
            throw RuleJSONError(location: location, field: "keyPath", reason: error.description)
        }
        return KVCRule(
            id: id, appKey: appKey, appVersion: range, viewEvent: viewEvent, viewPath: pattern, keyPath: keyPath,
            keyName: keyName, content: content, location: location)
    }
}

/// A rule object that breaks config.md §3.
public struct RuleJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    public var location: ConfigLocation
    public var field: String?
    public var reason: String

    public init(location: ConfigLocation, field: String? = nil, reason: String) {
        self.location = location
        self.field = field
        self.reason = reason
    }

    public var description: String {
        let at = field.map { location.keyPath.isEmpty ? $0 : "\(location.keyPath).\($0)" } ?? location.keyPath
        let place = location.file.isEmpty ? at : (at.isEmpty ? location.file : "\(location.file): \(at)")
        return place.isEmpty ? reason : "\(place) \(reason)"
    }
}
