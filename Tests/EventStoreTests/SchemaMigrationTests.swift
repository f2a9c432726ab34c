import EventModel
import EventStore
import Foundation
import SQLiteStore
import Testing
import TestSupport

/// A database written by schema version 1 (as `serve` wrote it before `user`, `device`, `sentAt`
/// and sampling) opens, migrates in place and keeps everything.
@Suite struct SchemaMigrationTests {
    static let version1 = """
        CREATE TABLE events (seq INTEGER PRIMARY KEY, app_key TEXT NOT NULL, id TEXT NOT NULL, ts INTEGER NOT NULL,
            type TEXT NOT NULL, name TEXT NOT NULL, page TEXT, path TEXT, view_id TEXT, session TEXT, duration INTEGER,
            props TEXT NOT NULL DEFAULT '{}', app_version TEXT, received_at INTEGER NOT NULL, UNIQUE (app_key, id));
        CREATE INDEX events_ts ON events (app_key, ts);
        CREATE TABLE rejected (seq INTEGER PRIMARY KEY, app_key TEXT NOT NULL, app_version TEXT, raw TEXT NOT NULL,
            reason TEXT NOT NULL, received_at INTEGER NOT NULL);
        CREATE INDEX rejected_reason ON rejected (reason);
        CREATE TABLE batches (seq INTEGER PRIMARY KEY, app_key TEXT NOT NULL, app_version TEXT, agent TEXT, batch TEXT,
            stored INTEGER NOT NULL, duplicates INTEGER NOT NULL, rejected INTEGER NOT NULL, received_at INTEGER NOT NULL);
        CREATE TABLE rules (app_key TEXT NOT NULL, id TEXT NOT NULL, app_version TEXT NOT NULL, view_event TEXT NOT NULL,
            view_path TEXT NOT NULL, key_path TEXT NOT NULL, key_name TEXT NOT NULL, content TEXT, json TEXT NOT NULL,
            position INTEGER NOT NULL, published_at INTEGER NOT NULL, PRIMARY KEY (app_key, id)) WITHOUT ROWID;
        INSERT INTO events (app_key, id, ts, type, name, props, received_at) VALUES ('shop', 'e1', 1234, 'click', 'n', '{}', 99);
        INSERT INTO rules VALUES ('shop', 'r2', '*', 'ButtonClick', 'A', 'k', 'k', NULL, '{"id":"r2"}', 1, 7);
        INSERT INTO rules VALUES ('shop', 'r1', '*', 'ButtonClick', 'A', 'k', 'k', NULL, '{"id":"r1"}', 0, 7);
        PRAGMA user_version = 1;
        """

    @Test func aVersion1DatabaseIsMigratedAndKeepsItsEventsAndRules() throws {
        let path = temporaryDatabase("v1")
        _ = try sqlite(path, Self.version1)
        // Read-only refuses to migrate, and says how.
        do {
            _ = try SQLiteEventStore(path: path, options: StoreOptions(access: .readOnly))
            Issue.record("read an old schema without migrating")
        } catch {
            #expect(error.code == .schemaVersion)
            #expect(error.message.contains("older than \(SQLiteEventStore.currentSchemaVersion)"))
        }
        let store = try SQLiteEventStore(path: path, options: StoreOptions(access: .existing))
        #expect(try store.schemaVersion() == SQLiteEventStore.currentSchemaVersion)
        #expect(try sqlite(path, "SELECT id, ts, corrected_ts, user_id IS NULL FROM events") == ["e1|1234|1234|1"])
        let set = try #require(try store.ruleSet(appKey: "shop"))
        #expect(set.rules.map(\.id) == ["r1", "r2"])
        #expect(set.sampleRate == 1)
        #expect(set.etag == StoredRuleSet.etag(ruleJSON: [#"{"id":"r1"}"#, #"{"id":"r2"}"#], sampleRate: 1))
        // The snapshot tables of version 6 are there and empty.
        #expect(try store.snapshots(appKey: nil, appVersion: nil) == [])
        // Dedup still holds across the migration.
        #expect(try store.append(EventBatch(appKey: "shop", events: [event("e1")])).duplicates == 1)
    }

    @Test func aForeignDatabaseIsRefusedAndLeftUnchanged() throws {
        let path = temporaryDatabase("foreign")
        _ = try sqlite(path, "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers VALUES (1, 'x');")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for access in [StoreOptions.Access.create, .existing, .readOnly] {
            do {
                _ = try SQLiteEventStore(path: path, options: StoreOptions(access: access))
                Issue.record("opened a foreign database with \(access)")
            } catch {
                #expect(error.code == .notAutotrack)
                #expect(error.message.contains("tables: customers"))
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try sqlite(path, "PRAGMA journal_mode; PRAGMA user_version") == ["delete", "0"])
    }

    @Test func readOnlyReadsWithoutWriting() throws {
        let path = temporaryDatabase("ro")
        do {
            let writer = try SQLiteEventStore(path: path)
            _ = try writer.append(EventBatch(appKey: "shop", events: [event("a")]))
            writer.close()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let reader = try SQLiteEventStore(path: path, options: StoreOptions(access: .readOnly))
        #expect(try reader.totals(.all).events == 1)
        do {
            _ = try reader.append(EventBatch(appKey: "shop", events: [event("b")]))
            Issue.record("wrote through a read-only store")
        } catch {
            #expect(error.code == .readOnly)
        }
        reader.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
