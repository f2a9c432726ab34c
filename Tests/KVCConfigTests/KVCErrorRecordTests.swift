import EventModel
import Testing

@testable import KVCConfig

@Suite struct KVCErrorRecordTests {
    @Test func missingKeyBecomesAValidKVCErrorEvent() throws {
        let rule = try #require(try ConfigLoader.parse(text: SpecDocuments.rules, file: "r").rules.first)
        let props: JSONValue = ["product": ["sku": "x"]]
        guard case .failure(let record) = rule.value(from: props, appVersion: "1.4.0") else {
            Issue.record("read a value")
            return
        }
        #expect(
            record
                == KVCErrorRecord(
                    ruleID: "fav-product", appKey: "shop", appVersion: "1.4.0", keyPath: "product.id", missingKey: "id",
                    resolvedPrefix: "product"))
        let event = record.event(id: "e-1", ts: 1_700_000_000_000, page: "HomeViewController", path: "A&0")
        #expect(event.type == .kvcError)
        #expect(event.name == "fav-product")
        #expect(
            event.props
                == JSONObject([
                    ("ruleId", "fav-product"), ("appKey", "shop"), ("appVersion", "1.4.0"), ("keyPath", "product.id"), ("missingKey", "id"),
                ]))
        // It passes the wire contract's validation.
        #expect(try TrackEvent(json: event.json) == event)
        #expect(record.description == "rule fav-product (shop 1.4.0): key path \"product.id\" has no \"id\" under \"product\"")
    }

    @Test func presentValueIsRead() throws {
        let rule = try #require(try ConfigLoader.parse(text: SpecDocuments.rules, file: "r").rules.first)
        #expect(try rule.value(from: ["product": ["id": "p-1"]], appVersion: "1.2").get() == "p-1")
        struct Product { var id: Int }
        struct Row { var product: Product? }
        #expect(try rule.value(reflecting: Row(product: Product(id: 7)), appVersion: "1.2").get() == 7)
        guard case .failure(let r) = rule.value(reflecting: Row(product: nil), appVersion: "1.2") else {
            Issue.record("read through nil")
            return
        }
        #expect(r.missingKey == "id" && r.resolvedPrefix == "product")
    }
}
