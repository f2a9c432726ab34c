import KVCConfig
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

/// SplitMix64: a small seeded generator, so every random test replays the same cases.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

import Matching
