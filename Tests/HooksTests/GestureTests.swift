import EventModel
import Hooks
import Interactions
import Testing

/// A screen with a tappable photo.
final class Gallery: UIViewController {
    let photo = UIImageView(imageName: "cat")
    let tap = UITapGestureRecognizer()
    var taps = 0

    override func viewDidLoad() {
        view.addSubview(UILabel(text: "caption"))
        view.addSubview(photo)
        photo.props = ["photo": ["id": "cat-1"]]
        photo.addGestureRecognizer(tap)
        tap.addTarget(self, action: "onPhotoTapped:") { g, recognizer in
            #expect(recognizer.view === g.photo)
            g.taps += 1
        }
    }
}

@Suite struct GestureTests {
    private func show(_ rig: HookRig) -> (UIWindow, Gallery) {
        rig.show { Gallery() }
    }

    @Test func aRecognisedGestureIsReportedAndItsTargetRuns() throws {
        let rig = HookRig()
        let (window, g) = show(rig)
        g.tap.recognize()
        #expect(g.taps == 1)
        let seen = try #require(rig.recorder.seen.last)
        #expect(seen.kind == .gesture)
        #expect(seen.event.type == .gesture)
        #expect(seen.event.name == "Gallery#Gallery#onPhotoTapped:")
        #expect(seen.event.path == "Gallery-UIView-UIImageView&0-0-0")
        #expect(seen.event.props["gesture"] == .string("UITapGestureRecognizer"))
        #expect(seen.props == ["photo": ["id": "cat-1"]])
        _ = window
    }

    @Test func removingTheGestureTargetRemovesItsProxy() {
        let rig = HookRig()
        let (window, g) = show(rig)
        #expect(g.tap.trackingProxyCount == 1)
        g.tap.removeTarget(g, action: "onPhotoTapped:")
        #expect(g.tap.trackingProxyCount == 0)
        g.tap.recognize()
        #expect(g.taps == 0)
        #expect(rig.recorder.events.allSatisfy { $0.type != .gesture })
        _ = window
    }

    @Test func aDetachedRecogniserSendsNothing() {
        let rig = HookRig()
        let (window, g) = show(rig)
        g.photo.removeGestureRecognizer(g.tap)
        g.tap.recognize()
        #expect(g.taps == 0)
        #expect(rig.recorder.events.allSatisfy { $0.type != .gesture })
        _ = window
    }

    @Test func aRecogniserAcceptsInitTargetAction() throws {
        let rig = HookRig()
        let (window, g) = show(rig)
        let double = rig.build {
            UITapGestureRecognizer(target: g, action: "onPhotoDoubleTapped:") { gallery, _ in gallery.taps += 10 }
        }
        #expect(double.registeredActions.map(\.action) == ["onPhotoDoubleTapped:"])
        g.photo.addGestureRecognizer(double)
        double.recognize()
        #expect(g.taps == 10)
        #expect(rig.recorder.events.last?.name == "Gallery#Gallery#onPhotoDoubleTapped:")
        _ = window
    }

    @Test func aTapRecogniserReportsItsTapCount() throws {
        let rig = HookRig()
        let (window, g) = show(rig)
        g.tap.recognize()
        #expect(rig.recorder.events.last?.props["tapCount"] == .int(1))
        g.tap.numberOfTapsRequired = 2
        g.tap.recognize()
        #expect(rig.recorder.events.last?.props["tapCount"] == .int(2))
        _ = window
    }
}
