import EventStore
import StoreSQL
import Testing

/// The publish and prune statements both stores run (`RulePublication`, `Pruning`).
@Suite struct StoreStatementsTests {
    @Test func aPublicationReplacesEachAppsRulesInOrderWithTheLaterOfARepeatedID() {
        let rules = [
            StoredRule(appKey: "shop", id: "a", json: "{\"id\":\"a\"}"), StoredRule(appKey: "news", id: "n", json: "{}"),
            StoredRule(appKey: "shop", id: "b", json: "{\"id\":\"b\"}"), StoredRule(appKey: "shop", id: "a", json: "{\"id\":\"a2\"}"),
        ]
        let p = RulePublication(rules, sampleRate: 0.5, appKeys: ["news", "empty"], publishedAt: 7)
        #expect(p.appKeys == ["shop", "news", "empty"])
        #expect(p.rules["shop"]?.map(\.json) == ["{\"id\":\"b\"}", "{\"id\":\"a2\"}"])
        #expect(p.ruleCount == 3)
        let sqlite = p.statements(.sqlite).map { $0.rendered(for: .sqlite) }
        #expect(sqlite.map(\.sql).filter { $0.hasPrefix("DELETE FROM rules") }.count == 3)
        #expect(!sqlite.contains { $0.sql.contains("FOR UPDATE") })
        let insert = sqlite[1]
        #expect(insert.sql == "INSERT INTO rules (app_key, id, position, json, published_at) VALUES (?, ?, ?, ?, ?), (?, ?, ?, ?, ?)")
        #expect(insert.values == [.text("shop"), .text("b"), .int(0), .text("{\"id\":\"b\"}"), .int(7), .text("shop"), .text("a"), .int(1), .text("{\"id\":\"a2\"}"), .int(7)])
        let set = sqlite[2]
        #expect(set.sql.hasPrefix("INSERT INTO rule_sets"))
        let etag = StoredRuleSet.etag(ruleJSON: ["{\"id\":\"b\"}", "{\"id\":\"a2\"}"], sampleRate: 0.5)
        #expect(set.values == [.text("shop"), .double(0.5), .text(etag), .int(7)])
        // An app without rules: its rules deleted, its set stored with the empty list's etag, no INSERT INTO rules.
        let empty = p.statements(.sqlite).suffix(2).map { $0.rendered(for: .sqlite) }
        #expect(empty[0].sql == "DELETE FROM rules WHERE app_key = ?" && empty[0].values == [.text("empty")])
        #expect(empty[1].values[2] == .text(StoredRuleSet.etag(ruleJSON: [], sampleRate: 0.5)))
        // PostgreSQL locks each app's set first, with numbered placeholders.
        let postgres = p.statements(.postgres).map { $0.rendered(for: .postgres) }
        #expect(postgres[0].sql == "SELECT 1 FROM rule_sets WHERE app_key = $1 FOR UPDATE")
        #expect(postgres.count == sqlite.count + 3)
    }

    @Test func manyRulesAreInsertedInChunks() {
        let rules = (0..<150).map { StoredRule(appKey: "a", id: "r\($0)", json: "{}") }
        let inserts = RulePublication(rules, sampleRate: 1, appKeys: [], publishedAt: 1).statements(.sqlite)
            .map { $0.rendered(for: .sqlite) }.filter { $0.sql.hasPrefix("INSERT INTO rules") }
        #expect(inserts.map { $0.values.count / 5 } == [64, 64, 22])
        // Positions run on across chunks.
        #expect(inserts[1].values[2] == .int(64) && inserts[2].values.suffix(3).first == .int(149))
    }

    @Test func aPruneDeletesEachTableInChunksUntilOneIsShort() throws {
        let pruning = Pruning(before: 100, appKey: "shop", chunk: 2)
        let any = pruning.anyEvent(.sqlite).rendered(for: .sqlite)
        #expect(any.sql == "SELECT EXISTS (SELECT 1 FROM events WHERE +app_key = ? AND corrected_ts < ?) AS pruned")
        #expect(any.values == [.text("shop"), .int(100)])
        let sqlite = pruning.deleteChunk(from: "events", time: "corrected_ts", .sqlite).rendered(for: .sqlite)
        #expect(sqlite.sql == "DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE corrected_ts < ? AND +app_key = ? LIMIT ?)")
        #expect(sqlite.values == [.int(100), .text("shop"), .int(2)])
        // SQLite's zone map bounds the events' seqs (EventZones); the other tables, and
        // PostgreSQL's statements, stay as they are.
        var zoned = pruning
        zoned.eventConditions = ["seq BETWEEN \(Int64(3)) AND \(Int64(9))"]
        #expect(
            zoned.deleteChunk(from: "events", time: "corrected_ts", .sqlite).rendered(for: .sqlite).sql
                == "DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE corrected_ts < ? AND +app_key = ? AND seq BETWEEN ? AND ? LIMIT ?)")
        #expect(
            zoned.anyEvent(.sqlite).rendered(for: .sqlite).sql
                == "SELECT EXISTS (SELECT 1 FROM events WHERE +app_key = ? AND corrected_ts < ? AND seq BETWEEN ? AND ?) AS pruned")
        #expect(zoned.deleteChunk(from: "batches", time: "received_at", .sqlite) == pruning.deleteChunk(from: "batches", time: "received_at", .sqlite))
        let postgres = pruning.deleteChunk(from: "events", time: "corrected_ts", .postgres).rendered(for: .postgres)
        #expect(postgres.sql.hasSuffix("LIMIT $3) AND corrected_ts < $4"))
        // events: 2, 2, 1 rows; the others: none left.
        var left = ["events": 5, "rejected": 0, "batches": 2, "snapshots": 1]
        var seen: [String] = []
        let outcome = pruning.run(.sqlite, adding: PruneOutcome(events: 10, transactions: 1)) { (table, statement) -> Int in
            seen.append(table)
            #expect(statement == pruning.deleteChunk(from: table, time: PruneOutcome.tables.first { $0.table == table }!.time, .sqlite))
            let n = min(2, left[table]!)
            left[table]! -= n
            return n
        }
        #expect(seen == ["events", "events", "events", "rejected", "batches", "batches", "snapshots"])
        #expect(outcome == PruneOutcome(events: 15, rejected: 0, batches: 2, snapshots: 1, transactions: 8))
    }
}
