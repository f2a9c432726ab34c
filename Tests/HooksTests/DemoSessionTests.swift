import EventModel
import Hooks
import Reporters
import DemoShop
import Testing
import ViewIdentity

@Suite struct DemoSessionTests {
    @Test func printStandard() throws {
        let recorder = InteractionRecorder()
        let session = DemoSession(observer: recorder)
        try session.run()
        for e in recorder.events { print(e.json.jsonText) }
    }
}
