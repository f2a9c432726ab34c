import KVCConfig
import TestSupport
import ViewIdentity

/// Builds a rule from texts, as a config file would give them.
func rule(
    _ id: String, app: String = "shop", versions: String = "*", event: ViewEvent = .buttonClick, path: String,
    keyPath: String = "product.id", keyName: String = "productId", content: String? = nil
) throws -> KVCRule {
    KVCRule(
        id: id, appKey: app, appVersion: try VersionRange(versions), viewEvent: event, viewPath: try PathPattern(path),
        keyPath: try KVCKeyPath(keyPath), keyName: keyName, content: content)
}

/// A query from texts.
func query(
    _ canonical: String, event: ViewEvent = .buttonClick, title: String? = nil, app: String? = nil, version: String? = nil
) throws -> MatchQuery {
    MatchQuery(
        viewEvent: event, path: try ViewPath(canonical: canonical), title: title, appKey: app,
        appVersion: version.flatMap { AppVersion($0) })
}


import Matching
