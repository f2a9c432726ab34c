/// Repeated clicks on one view: a click within `debounce` of the last counted click on the same
/// view is not counted (a bounce is one click), and `rageClicks` counted clicks on one view
/// within `rageWindow` make a rage click. After a rage click the count starts again, so a long
/// burst gives one rage click per `rageClicks` clicks.
///
/// A view is its canonical viewPath: a reused cell showing another row is another view.
///
/// It runs inside every click on the UI thread, so a click costs O(1) amortized whatever the
/// settings: the burst keeps its times in place (no copy per click) and drops expired ones from
/// the front (they are in time order), compacting only when half of what it holds has expired.
struct ClickFilter {
    let debounceMilliseconds: Int64
    let rageClicks: Int
    let rageWindowMilliseconds: Int64
    private var lastCounted: (view: String, ts: Int64)?
    /// The view of the current burst and its counted clicks' times, oldest first, from `burstStart` on.
    private var burstView: String?
    private var burstTimes: [Int64] = []
    private var burstStart = 0

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
        if burstView != view {
            burstView = view
            burstTimes.removeAll(keepingCapacity: true)
            burstStart = 0
        }
        if let newest = burstTimes.last, ts < newest {
            // The clock went back: the times are out of order, so test every one.
            burstTimes.removeSubrange(0..<burstStart)
            burstTimes.removeAll { ts - $0 >= rageWindowMilliseconds }
            burstStart = 0
        } else {
            // In time order, expired times are a prefix; bounded by the times held.
            while burstStart < burstTimes.count, ts - burstTimes[burstStart] >= rageWindowMilliseconds { burstStart += 1 }
            if burstStart > 0, burstStart * 2 >= burstTimes.count {
                burstTimes.removeFirst(burstStart)
                burstStart = 0
            }
        }
        burstTimes.append(ts)
        let rage = burstTimes.count - burstStart >= rageClicks
        if rage {
            burstTimes.removeAll(keepingCapacity: true)
            burstStart = 0
        }
        return Verdict(counted: true, rage: rage)
    }
}
