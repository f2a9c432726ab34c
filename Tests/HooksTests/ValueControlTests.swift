import EventModel
import Hooks
import Interactions
import Testing

/// A settings screen with one of each value control.
final class Settings: UIViewController {
    let toggle = UISwitch()
    let segments = UISegmentedControl(items: ["Day", "Week", "Month"])
    let stepper = UIStepper(value: 1, minimumValue: 0, maximumValue: 3, stepValue: 1)
    let slider = UISlider(value: 0.5)
    var changes = 0

    override func viewDidLoad() {
        for v in [toggle, segments, stepper, slider] as [UIControl] { view.addSubview(v) }
        toggle.addTarget(self, action: "onToggle:", for: .valueChanged) { s, _ in s.changes += 1 }
        segments.addTarget(self, action: "onRange:", for: .valueChanged) { s, _ in s.changes += 1 }
        stepper.addTarget(self, action: "onStep:", for: .valueChanged) { s, _ in s.changes += 1 }
        slider.addTarget(self, action: "onSlide:", for: .valueChanged) { s, _ in s.changes += 1 }
    }
}

@Suite struct ValueControlTests {
    @Test func valueControlsReportTheirInformation() throws {
        let rig = HookRig()
        let (window, s) = rig.show { Settings() }
        s.toggle.toggle()
        s.segments.select(segment: 2)
        s.segments.select(segment: 2)  // already selected: nothing sent
        s.stepper.increment()
        s.stepper.increment()
        s.stepper.increment()  // at the maximum: nothing sent
        s.slider.slide(to: 0.25)
        #expect(s.changes == 5)

        let values = rig.recorder.events.filter { $0.type == .valueChanged }
        try #require(values.count == 5)
        #expect(values.map(\.name) == [
            "Settings#Settings#onToggle:", "Settings#Settings#onRange:", "Settings#Settings#onStep:",
            "Settings#Settings#onStep:", "Settings#Settings#onSlide:",
        ])
        #expect(values[0].props == JSONObject([("controlEvents", "valueChanged"), ("isOn", true)]))
        #expect(values[1].props == JSONObject([("title", "Month"), ("controlEvents", "valueChanged"), ("selectedIndex", 2)]))
        #expect(values[2].props["value"] == .int(2))
        #expect(values[3].props["value"] == .int(3))
        #expect(values[4].props["value"] == .double(0.25))
        #expect(values[0].path == "Settings-UIView-UISwitch&0-0-0")
        #expect(values[1].path == "Settings-UIView-UISegmentedControl&0-0-0")
        _ = window
    }
}
