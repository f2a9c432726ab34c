/// Repeated clicks on one view: a click within `debounce` of the last counted click on the same
/// view is not counted (a bounce is one click), and `rageClicks` counted clicks on one view
/// within `rageWindow` make a rage click. After a rage click the count starts again, so a long
/// burst gives one rage click per `rageClicks` clicks.
///
/// A view is its canonical viewPath: a reused cell showing another row is another view.
struct ClickFilter {
    let debounceMilliseconds: Int64
    let rageClicks: Int
    let rageWindowMilliseconds: Int64
    private var lastCounted: (view: String, ts: Int64)?
    private var burst: (view: String, times: [Int64])?

    init(settings: TrackerSettings) {
        debounceMilliseconds = settings.debounce.wholeMilliseconds
        rageClicks = max(2, settings.rageClicks)
        rageWindowMilliseconds = settings.rageWindow.wholeMilliseconds
    }

    struct Verdict: Equatable {
        /// False: a repeat within the debounce interval, reported as nothing.
        var counted: Bool
        /// This click completed a rage click.
        var rage: Bool
    }

    mutating func click(on view: String, at ts: Int64) -> Verdict {
        if let last = lastCounted, last.view == view, ts - last.ts < debounceMilliseconds {
            return Verdict(counted: false, rage: false)
        }
        lastCounted = (view, ts)
        var times = burst?.view == view ? burst!.times : []
        times.removeAll { ts - $0 >= rageWindowMilliseconds }
        times.append(ts)
        let rage = times.count >= rageClicks
        burst = (view, rage ? [] : times)
        return Verdict(counted: true, rage: rage)
    }
}
