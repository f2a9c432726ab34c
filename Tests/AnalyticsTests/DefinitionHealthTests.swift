import Collector
import CommandSupport
import Definitions
import EventModel
import EventStore
import Foundation
import KVCConfig
import Testing
import TestSupport
import ViewIdentity

/// A release moves a button: the definition's health per version says broken in the new one,
/// with the drift check's suggestion; `alert --definitions` exits 1 naming it; applying the
/// suggestion (`alsoViewPaths`) makes both versions count. On both stores.
@Suite(.timeLimit(.minutes(5))) struct DefinitionHealthTests {
    static let start: Int64 = 1_764_000_000_000

    /// The home page: Share directly under it (1.0), or inside a box after a Back button (2.0).
    static func tree(moved: Bool) -> String {
        let share: JSONValue = ["type": "GtkButton", "title": "Share", "id": "share"]
        let buttons: JSONValue = moved ? ["type": "GtkBox", "children": [["type": "GtkButton", "title": "Back", "id": "back"], share]] : share
        let root: JSONValue = ["type": "HomePage", "role": "controller", "children": [["type": "GtkLabel", "title": "Tea shop"], buttons]]
        return root.jsonText
    }

    /// The path of Share (or another node by id) in that tree, as the tree's reader names it.
    static func sharePath(moved: Bool, id: String = "share") throws -> String {
        let tree = try ViewTree(json: Array(tree(moved: moved).utf8))
        return try #require(tree.node(id: id)).viewPath.canonical
    }

    static func click(_ id: String, path: String, at: Int64, user: String) -> JSONValue {
        TrackEvent(id: id, ts: at, type: .click, name: "Share", path: path, user: user, props: JSONObject([("title", "Share")])).json
    }

    /// 1.0: three clicks on Share; 2.0: two on Share where it moved, one on Back; a picture of each.
    static func store(_ kind: FixtureStore, at location: String) throws -> any CollectorStore {
        let store = try kind.open(location)
        let old = try sharePath(moved: false), new = try sharePath(moved: true)
        _ = try store.append(
            EventBatch(appKey: "tea", appVersion: "1.0", events: (0..<3).map { click("a\($0)", path: old, at: start + Int64($0) * 1000, user: "u\($0)") }))
        _ = try store.append(
            EventBatch(
                appKey: "tea", appVersion: "2.0",
                events: (0..<2).map { click("b\($0)", path: new, at: start + 86_400_000 + Int64($0) * 1000, user: "u\($0)") }
                    + [click("back", path: try sharePath(moved: true, id: "back"), at: start + 86_500_000, user: "u0")]))
        let pictures = try #require(store as? any SnapshotStore)
        for (version, moved) in [("1.0", false), ("2.0", true)] {
            _ = try pictures.storeSnapshot(
                Snapshot(
                    appKey: "tea", appVersion: version, page: "HomePage", capturedAt: start, receivedAt: start, width: 10, height: 10,
                    png: [0x89, 0x50], tree: tree(moved: moved)))
        }
        return store
    }

    func collector(_ args: String...) -> (code: ExitCode, out: String, err: String) {
        let io = CapturedStreams()
        let code = CollectorCLI.group.main(args, io: io)
        return (code, io.standardOutput, io.standardError)
    }

    @Test(arguments: FixtureStore.allCases) func aMovedButtonIsBrokenInTheNewVersionUntilTheSuggestionIsApplied(_ kind: FixtureStore) throws {
        let location = try kind.location()
        let store = try Self.store(kind, at: location)
        let pictures = try #require(store as? any SnapshotStore)
        let old = try Self.sharePath(moved: false), new = try Self.sharePath(moved: true)
        #expect(old != new)
        var share = KVCRule(
            id: "share", name: "Share", appKey: "tea", appVersion: .any, viewEvent: .buttonClick, viewPath: try PathPattern(old),
            keyPath: nil, keyName: nil)
        let health = try store.definitionHealth(share, pictures: pictures)
        #expect(health.versions.map(\.appVersion) == ["1.0", "2.0"])
        #expect(health.versions.map(\.status) == [.ok, .broken])
        #expect(health.versions.map(\.count) == [3, 0])
        #expect(health.versions.map(\.inPicture) == [true, false])
        #expect(health.versions[1].pageInteractions == 3)
        #expect(health.versions[1].suggestion == new)
        #expect(health.versions[0].suggestion == nil)
        #expect(health.brokenInNewest)
        _ = try store.publish([StoredRule(share)], sampleRate: 1)
        store.close()

        let alert = collector("alert", "--db", location, "--definitions")
        #expect(alert.code == .failure, "\(alert.out)\(alert.err)")
        #expect(alert.out.contains("tea share (\"Share\") broken in 2.0"), "\(alert.out)")
        #expect(alert.out.contains("suggest adding \(new)"), "\(alert.out)")
        let json = collector("alert", "--db", location, "--definitions", "--format", "json")
        let broken = try JSONValue.parse(json.out)["broken"]?.arrayValue ?? []
        #expect(broken.count == 1 && broken.first?["suggestion"] == .string(new) && broken.first?["appVersion"] == "2.0", "\(json.out)")
        // --exec gets the document; a kvc errors' option beside --definitions is a usage error.
        let delivered = Fixtures.temporaryDirectory("alert").appendingPathComponent("alert.json").path
        #expect(collector("alert", "--db", location, "--definitions", "--exec", "cat > '\(delivered)'").code == .failure)
        #expect((try? String(contentsOfFile: delivered, encoding: .utf8))?.contains("\"rule\":\"share\"") == true)
        let mixed = collector("alert", "--db", location, "--definitions", "--within", "1h")
        #expect(mixed.code == ExitCode(2) && mixed.err.contains("--within belongs to the kvc errors' check"), "\(mixed.err)")

        // The suggestion applied: both versions count, nothing is broken.
        share.alsoViewPaths = [try PathPattern(new)]
        let reopened = try kind.open(location)
        _ = try reopened.publish([StoredRule(share)], sampleRate: 1)
        let fixed = try reopened.definitionHealth(share, pictures: try #require(reopened as? any SnapshotStore))
        #expect(fixed.versions.map(\.status) == [.ok, .ok])
        #expect(fixed.versions.map(\.count) == [3, 2])
        #expect(try reopened.definitionCounts(share).total == 5)
        reopened.close()
        let quiet = collector("alert", "--db", location, "--definitions")
        #expect(quiet.code == .success, "\(quiet.out)\(quiet.err)")
        #expect(quiet.out.contains("no definition is broken in its app's newest version (1 checked)"), "\(quiet.out)")
    }

    @Test(arguments: FixtureStore.allCases) func aVersionWithoutPicturesOrInteractionsOnThePageIsUnseen(_ kind: FixtureStore) throws {
        let store = try Self.store(kind, at: try kind.location())
        defer { store.close() }
        let pictures = try #require(store as? any SnapshotStore)
        // Only 2.0 is in range; a definition of another page has nothing to say about either version.
        let elsewhere = KVCRule(
            id: "cart", appKey: "tea", appVersion: try VersionRange(">=2.0"), viewEvent: .buttonClick, viewPath: try PathPattern("CartPage-GtkButton&0-0"),
            keyPath: nil, keyName: nil)
        let health = try store.definitionHealth(elsewhere, pictures: pictures)
        #expect(health.versions.map(\.appVersion) == ["2.0"])
        #expect(health.versions.map(\.status) == [.unseen])
        #expect(!health.brokenInNewest)
    }
}
