import TestSupport
import Testing

@testable import Tracker

/// The click rules run inside every click, so `ClickFilter` keeps its burst in place; these tests
/// hold it to the rules as written (docs/agent.md "Clicks"): a full scan of the burst per click.
struct ClickFilterTests {
    /// The rules, stated the simple way: every counted time of the view's burst within the window.
    struct Reference {
        let settings: TrackerSettings
        var lastCounted: (view: String, ts: Int64)?
        var burst: (view: String, times: [Int64])?

        mutating func click(on view: String, at ts: Int64) -> ClickFilter.Verdict {
            if let last = lastCounted, last.view == view, ts - last.ts < settings.debounce.wholeMilliseconds {
                return ClickFilter.Verdict(counted: false, rage: false)
            }
            lastCounted = (view, ts)
            var times = burst?.view == view ? burst!.times : []
            times.removeAll { ts - $0 >= settings.rageWindow.wholeMilliseconds }
            times.append(ts)
            let rage = times.count >= max(2, settings.rageClicks)
            burst = (view, rage ? [] : times)
            return ClickFilter.Verdict(counted: true, rage: rage)
        }
    }

    @Test(arguments: [(3, 100), (5, 0), (40, 0), (Int.max, 0)])
    func verdictsMatchTheRulesOverLongRandomBursts(rageClicks: Int, debounce: Int) {
        var settings = TrackerSettings()
        settings.rageClicks = rageClicks
        settings.debounce = .milliseconds(debounce)
        settings.rageWindow = .seconds(1)
        var filter = ClickFilter(settings: settings)
        var reference = Reference(settings: settings)
        var random = SeededGenerator(seed: UInt64(rageClicks & 0xffff) &+ UInt64(debounce))
        var ts: Int64 = 1_000_000
        var rages = 0
        for i in 0..<5_000 {
            // Mostly one view in quick clicks, sometimes another view, a pause or the clock set back.
            let view = Int.random(in: 0..<10, using: &random) == 0 ? "b" : "a"
            switch Int.random(in: 0..<50, using: &random) {
            case 0: ts -= Int64.random(in: 1...2_000, using: &random)
            case 1: ts += Int64.random(in: 1_000...3_000, using: &random)
            default: ts += Int64.random(in: 0...120, using: &random)
            }
            let got = filter.click(on: view, at: ts)
            let expected = reference.click(on: view, at: ts)
            #expect(got == expected, "click \(i) on \(view) at \(ts)")
            if got != expected { return }
            if got.rage { rages += 1 }
        }
        if rageClicks <= 5 { #expect(rages > 0, "the sequence makes rage clicks") }
    }
}
