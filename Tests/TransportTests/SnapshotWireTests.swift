import ATLPWire
import EventModel
import Testing

/// The `SNAPSHOT` codec, its `ACK`, the `snapshots` flag on `RULES` and `maxSnapshot` in `WELCOME`.
@Suite struct SnapshotWireTests {
    static let png = SnapshotUpload.pngSignature + [0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3]
    static let tree: JSONObject = JSONObject([
        ("type", "Window"), ("path", "Home"), ("frame", [0, 0, 40, 30]),
        ("props", .object(JSONObject([("title", "Shop"), ("count", 3), ("on", true)]))), ("children", []),
    ])
    static let upload = SnapshotUpload(page: "Home", capturedAt: 1_700_000_000_123, width: 40, height: 30, png: png, tree: tree)

    @Test func base64RoundTripsEveryLengthAndMatchesRFC4648() throws {
        // RFC 4648 §10 test vectors.
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
        }
        for n in 0..<70 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 251) }
            #expect(Base64.decode(Base64.encode(bytes)) == bytes, "length \(n)")
        }
        for bad in ["Zg", "Zg=", "Z===", "Zm9v\n", "Zm-v", "Zm_v", "Zh==", "Zm9=", "=Zm9", "Zg==Zg==", "Zm 9v"] {
            #expect(Base64.decode(bad) == nil, "\(bad)")
        }
    }

    @Test func snapshotRoundTripsThroughItsFrameAndTheWireBytes() throws {
        let frame = Self.upload.frame
        #expect(frame.verb == "SNAPSHOT")
        #expect(frame["png"] == .string(Base64.encode(Self.png)))
        #expect(SnapshotUpload(frame) == Self.upload)
        var decoder = FrameDecoder(maxFrame: 1 << 20)
        decoder.append(frame.encoded)
        let payload = try #require(try decoder.next())
        #expect(SnapshotUpload(try ATLPFrame.parse(payload: payload)) == Self.upload)
        #expect(SnapshotUpload(ATLPFrame(verb: "EVENTS", body: frame.body)) == nil)
    }

    @Test func theSendersDeviceIsOptionalAndRoundTrips() throws {
        var named = Self.upload
        named.device = "d-0123456789abcdef0123456789abcdef"
        #expect(named.frame["device"] == .string("d-0123456789abcdef0123456789abcdef"))
        #expect(SnapshotUpload(named.frame) == named)
        // Without one the member is absent; null or "" read as none.
        #expect(Self.upload.frame["device"] == nil)
        var body = try #require(Self.upload.frame.body)
        for none in [JSONValue.null, .string("")] {
            body["device"] = none
            #expect(try SnapshotUpload(body: body).device == nil)
        }
    }

    /// Every bad-request case: the reason names the member at fault.
    @Test(arguments: [
        ("page", nil, "needs \"page\""),
        ("page", .int(3), "\"page\" must be a string"),
        ("page", .string(""), "\"page\" must be a string of 1 to"),
        ("page", .string(String(repeating: "p", count: 1025)), "\"page\" must be a string of 1 to"),
        ("capturedAt", nil, "needs \"capturedAt\""),
        ("capturedAt", .string("1"), "\"capturedAt\" must be an integer"),
        ("capturedAt", .double(1.5), "\"capturedAt\" must be an integer"),
        ("capturedAt", .int(-1), "\"capturedAt\" must be from 0"),
        ("capturedAt", .int(Int64.max), "\"capturedAt\" must be from 0"),
        ("width", nil, "needs \"width\""),
        ("width", .int(0), "\"width\" must be an integer from 1"),
        ("width", .int(65536), "\"width\" must be an integer from 1"),
        ("height", .string("30"), "\"height\" must be an integer from 1"),
        ("height", .int(-1), "\"height\" must be an integer from 1"),
        ("png", nil, "needs \"png\""),
        ("png", .array([]), "\"png\" must be a string"),
        ("png", .string("iVBORw0KGgo"), "\"png\" is not standard base64"),
        ("png", .string("iVBO-w0KGgo="), "\"png\" is not standard base64"),
        ("png", .string(Base64.encode(Array("GIF89a....".utf8))), "does not decode to a PNG file"),
        ("png", .string(""), "does not decode to a PNG file"),
        ("tree", nil, "needs \"tree\""),
        ("tree", .array([]), "\"tree\" must be an object"),
        ("tree", .string("{}"), "\"tree\" must be an object"),
        ("device", .int(7), "\"device\" must be a string of at most 128 bytes"),
        ("device", .string(String(repeating: "d", count: 129)), "\"device\" must be a string of at most 128 bytes"),
    ] as [(String, JSONValue?, String)])
    func badBodiesAreBadRequestsNamingTheMember(key: String, value: JSONValue?, reason: String) throws {
        var body = try #require(Self.upload.frame.body)
        body[key] = value
        let error = #expect(throws: ATLPError.self) { try SnapshotUpload(body: body) }
        #expect(error?.code == .badRequest)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        #expect(error?.message.hasPrefix("SNAPSHOT ") == true)
    }

    @Test func snapshotAckRoundTrips() {
        let reply = ATLPReply.snapshotStored(id: 42)
        #expect(reply.wireFrame.description == "ACK {\"snapshot\":42}")
        #expect(SnapshotAck(reply.wireFrame) == SnapshotAck(snapshot: 42))
        #expect(SnapshotAck(ATLPFrame(verb: "ACK", body: JSONObject([("stored", 1)]))) == nil)
    }

    @Test func rulesCarryTheSnapshotsFlagInBothFormsOnlyWhenOn() {
        let on = RulesUpdate.changed(etag: "e1", rules: [["id": "r"]], sampleRate: nil, snapshots: true)
        #expect(on.frame.description == "RULES {\"etag\":\"e1\",\"rules\":[{\"id\":\"r\"}],\"snapshots\":true}")
        #expect(RulesUpdate(on.frame) == on)
        let unchangedOn = RulesUpdate.unchanged(etag: "e1", snapshots: true)
        #expect(unchangedOn.frame.description == "RULES {\"etag\":\"e1\",\"unchanged\":true,\"snapshots\":true}")
        #expect(RulesUpdate(unchangedOn.frame)?.snapshots == true)
        let off = RulesUpdate.changed(etag: "e1", rules: [], sampleRate: 0.5)
        #expect(off.frame.description == "RULES {\"etag\":\"e1\",\"rules\":[],\"sampleRate\":0.5}")
        #expect(RulesUpdate(off.frame)?.snapshots == false)
        #expect(RulesUpdate.unchanged(etag: "e").frame.description == "RULES {\"etag\":\"e\",\"unchanged\":true}")
        #expect(ATLPReply.rulesUnchanged(etag: "e", snapshots: true).wireFrame == RulesUpdate.unchanged(etag: "e", snapshots: true).frame)
    }

    @Test func welcomeAnnouncesMaxSnapshotAndOldWelcomesFallBackToMaxFrame() {
        let w = Welcome(protocolVersion: 1, maxFrame: 1024, maxSnapshot: 16 << 20)
        #expect(w.frame.description == "WELCOME {\"protocol\":1,\"maxFrame\":1024,\"maxSnapshot\":16777216}")
        #expect(Welcome(w.frame) == w)
        let old = Welcome(ATLPFrame(verb: "WELCOME", body: JSONObject([("protocol", 1), ("maxFrame", 1024)])))
        #expect(old?.maxSnapshot == nil)
        #expect(old?.snapshotLimit == 1024)
        #expect(w.snapshotLimit == 16 << 20)
    }
}
