public import ATLPWire
import Definitions
import EventModel
public import EventStore
import KVCConfig
import SystemCalls

/// The collector's side of ATLP/1: stores `EVENTS` and `SNAPSHOT`, answers `CONFIG` (with
/// `"snapshots":true` while circle mode is on for the app), takes `PUBLISH`.
///
/// Holds only the store, a cache of parsed rule sets and one of the circle modes (each under
/// its own lock), so one instance
/// serves every connection; the server calls it on its worker threads, and the store serializes
/// writers. A storage failure is logged in full and answered with its kind only (`unavailable`,
/// `closed`, ...): SQL, paths and database messages are the operator's, not the client's.
public struct CollectorHandler: ATLPHandler {
    public let store: any EventIngest & RuleStore
    public let access: CollectorAccess
    /// Receives one line per failure the client cannot see in full (a failed commit); may be nil.
    /// What the client chose in it (its app key, the store's error quoting its data) is escaped
    /// (`LogText`), so a line cannot be forged.
    public let log: (@Sendable (String) -> Void)?
    private let parsed = ParsedRuleSets()
    private let answers = RulesAnswers()
    private let circleModes: CircleModeCache

    public init(store: any EventIngest & RuleStore, access: CollectorAccess = CollectorAccess(), log: (@Sendable (String) -> Void)? = nil) {
        self.store = store
        self.access = access
        self.log = log
        circleModes = CircleModeCache(store: store as? any SnapshotStore, log: log)
    }

    public func hello(_ hello: Hello, peer: String) -> HelloDecision {
        access.decide(hello)
    }

    public func handle(_ request: ATLPRequest, client: ConnectedClient) -> ATLPReply {
        switch request {
        case .events(let label, let events, let sentAt):
            return handle(events: IncomingEvents(batch: label, events: EventList(events), sentAt: sentAt), client: client)
        case .config(let body): return config(clientEtag: body["etag"]?.stringValue, client: client)
        case .publish(let rules, let sampleRate): return publish(rules, sampleRate: sampleRate ?? 1, client: client)
        case .snapshot(let upload): return storeSnapshot(upload, client: client)
        }
    }

    /// Stores an `EVENTS` batch; `ACK` after the commit.
    public func handle(events request: IncomingEvents, client: ConnectedClient) -> ATLPReply {
        let label = request.batch
        let batch = EventBatch(
            appKey: client.appKey, appVersion: client.appVersion, agent: client.hello.agent, label: label.jsonText,
            sentAt: request.sentAt, eventList: request.events)
        do throws(StoreError) {
            // append returns after COMMIT: the ACK below is only ever sent for a durable batch.
            let outcome = try store.append(batch)
            return .ack(batch: label, stored: outcome.stored, duplicates: outcome.duplicates, rejected: outcome.rejected)
        } catch {
            log?("EVENTS from \(LogText.escaped(client.peer)) (\(LogText.escaped(client.appKey))) not stored: \(LogText.escaped("\(error)"))")
            // No ACK: the client keeps the batch and sends it again after reconnecting.
            return unavailable("could not store this batch (\(error.code)); keep it and resend later")
        }
    }

    /// `RULES` for the client's app and version; only the etag when the client's is current.
    /// Both carry `"snapshots":true` while circle mode is on: the flag is not part of the etag.
    private func config(clientEtag: String?, client: ConnectedClient) -> ATLPReply {
        do throws(StoreError) {
            let set = try store.ruleSet(appKey: client.appKey)
            // After the rules: a store that cannot answer fails the CONFIG once, not twice.
            let snapshots = circleModes.isOn(appKey: client.appKey)
            let answer = answers.answer(.init(appKey: client.appKey, appVersion: client.appVersion), set: set) {
                RuleSelection(rules: set.map(parsed.rules) ?? [], sampleRate: set?.sampleRate ?? 1, appVersion: client.appVersion)
            }
            if clientEtag == answer.etag { return .rulesUnchanged(etag: answer.etag, snapshots: snapshots) }
            return answer.rules(snapshots: snapshots)
        } catch {
            log?("CONFIG from \(LogText.escaped(client.peer)) (\(LogText.escaped(client.appKey))) failed: \(LogText.escaped("\(error)"))")
            return unavailable("could not read its rules (\(error.code)); try again later")
        }
    }

    /// Stores a `SNAPSHOT` under the client's app key and version; `ACK {"snapshot":S}`.
    private func storeSnapshot(_ upload: SnapshotUpload, client: ConnectedClient) -> ATLPReply {
        guard let snapshots = store as? any SnapshotStore else {
            return .error(.unknownVerb, "this collector's store keeps no snapshots")
        }
        guard access.acceptsUnaskedSnapshots || circleModes.isOn(appKey: client.appKey) else {
            let app = LogText.escaped(client.appKey)
            return .error(
                .forbidden,
                "this collector takes snapshots of \(app) only while circle mode is on for it (the studio's circle mode, or 'autotrack-collector circle --db DB --app \(app) --minutes 30'), or from agents an operator allowed with 'serve --accept-snapshots'; this one was not stored"
            )
        }
        let snapshot = Snapshot(
            appKey: client.appKey, appVersion: client.appVersion ?? "", page: upload.page,
            capturedAt: upload.capturedAt, receivedAt: Posix.wallClockMillis(), width: upload.width, height: upload.height,
            png: upload.png, tree: JSONValue.object(upload.tree).jsonText, device: upload.device)
        do throws(StoreError) {
            return .snapshotStored(id: try snapshots.storeSnapshot(snapshot))
        } catch {
            log?("SNAPSHOT from \(LogText.escaped(client.peer)) (\(LogText.escaped(client.appKey))) not stored: \(LogText.escaped("\(error)"))")
            return unavailable("could not store this snapshot (\(error.code)); send it again later")
        }
    }

    private func publish(_ values: [JSONValue], sampleRate: Double, client: ConnectedClient) -> ATLPReply {
        // The server answers `forbidden` before we are called; this keeps the rule true if it ever does not.
        guard client.isAdmin else { return .error(.forbidden, "PUBLISH needs a HELLO carrying the admin token") }
        let rules: [KVCRule]
        do throws(ConfigError) {
            rules = try KVCRule.rules(json: values, source: "PUBLISH")
        } catch {
            // All or nothing: a half-published plan would serve rules the author never saw together.
            let shown = error.problems.prefix(5).map(\.description).joined(separator: "; ")
            let more = error.problems.count > 5 ? " (and \(error.problems.count - 5) more)" : ""
            return .error(.badRequest, "no rule stored: \(shown)\(more)")
        }
        do throws(StoreError) {
            return .published(stored: try store.publish(rules.map(StoredRule.init), sampleRate: sampleRate))
        } catch {
            log?("PUBLISH from \(LogText.escaped(client.peer)) failed: \(LogText.escaped("\(error)"))")
            return unavailable("could not store the rules (\(error.code)); nothing was published, try again later")
        }
    }

    /// A storage failure (disk full, database locked by another process): not the client's
    /// fault, so not `bad-request`, which a shipper rightly sets aside for good. ATLP/1 has no
    /// "try later" code; `unavailable` (our extension) closes the connection, and clients
    /// reconnect with backoff and resend, which is what a storage failure needs.
    private func unavailable(_ what: String) -> ATLPReply {
        .error(.unavailable, "the collector \(what)")
    }
}
