import ATLPWire
import EventModel
import Testing

/// The `ACK`s of `EVENTS` and `PUBLISH`: written by `ATLPReply` and read by the client through
/// one codec each in ATLPWire.
@Suite struct AckCodecTests {
    @Test func batchAckRoundTripsWithItsWireText() {
        let reply = ATLPReply.ack(batch: "b1", stored: 2, duplicates: 1, rejected: 0)
        #expect(reply.wireFrame.description == "ACK {\"batch\":\"b1\",\"stored\":2,\"duplicates\":1,\"rejected\":0}")
        #expect(BatchAck(reply.wireFrame) == BatchAck(batch: "b1", stored: 2, duplicates: 1, rejected: 0))
        #expect(BatchAck(ATLPFrame(verb: "ACK", body: JSONObject([("stored", 1)]))) == nil)
    }

    @Test func publishAckRoundTripsWithItsWireText() {
        let reply = ATLPReply.published(stored: 3)
        #expect(reply.wireFrame.description == "ACK {\"stored\":3}")
        #expect(PublishAck(reply.wireFrame) == PublishAck(stored: 3))
        #expect(PublishAck(ATLPFrame(verb: "ACK", body: JSONObject([("snapshot", 1)]))) == nil)
        #expect(PublishAck(ATLPFrame(verb: "RULES", body: JSONObject([("stored", 1)]))) == nil)
    }
}
