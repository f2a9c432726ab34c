import Analytics
import EventStore
import EventModel
import Testing

@Suite struct TimeArgumentTests {
    @Test func instantsInEveryForm() {
        #expect(TimeArgument.instant("2026-11-01") == 1_793_491_200_000)
        #expect(TimeArgument.instant("2026-11-01T00:00:00Z") == 1_793_491_200_000)
        #expect(TimeArgument.instant("2026-11-01T01:30:00.25+01:30") == 1_793_491_200_250)
        #expect(TimeArgument.instant("2026-10-31t23:00:00-01:00") == 1_793_491_200_000)
        #expect(TimeArgument.instant("1793491200000") == 1_793_491_200_000)
        #expect(TimeArgument.instant("1970-01-01") == 0)
        #expect(TimeArgument.instant("1969-12-31") == -86_400_000)
        for bad in ["", "2026-02-30", "2026-13-01", "2026-11-01T25:00:00Z", "2026-11-01T10:00:00", "yesterday", "2026-11-1"] {
            #expect(TimeArgument.instant(bad) == nil, "\(bad)")
        }
    }

    /// The valid event times' ends (EventModel.EventTime) are the first and last millisecond of
    /// the four-digit years, and the longest window is their span.
    @Test func theValidTimesAreTheFourDigitYears() {
        #expect(TimeArgument.instant("1970-01-01T00:00:00Z") == EventTime.earliest)
        #expect(TimeArgument.instant("9999-12-31T23:59:59.999Z") == EventTime.latest)
        #expect(TimeArgument.duration("2932896d")! <= EventTime.longestDuration)
        #expect(TimeArgument.duration("2932897d")! > EventTime.longestDuration)
    }

    @Test func durations() {
        #expect(TimeArgument.duration("1h") == 3_600_000)
        #expect(TimeArgument.duration("30m") == 1_800_000)
        #expect(TimeArgument.duration("90s") == 90_000)
        #expect(TimeArgument.duration("500ms") == 500)
        #expect(TimeArgument.duration("2d") == 172_800_000)
        #expect(TimeArgument.duration("250") == 250)
        for bad in ["", "h", "1.5h", "-1h", "1w", "ms"] { #expect(TimeArgument.duration(bad) == nil, "\(bad)") }
    }

    @Test func daysAndWeeksRoundTrip() {
        #expect(UTCDay("2026-11-01")!.description == "2026-11-01")
        #expect(UTCDay(time: 1_793_491_200_000 - 1).description == "2026-10-31")
        #expect(UTCDay("2026-11-01")!.weekStart.description == "2026-10-26")
        #expect(UTCDay("2026-11-02")!.weekStart.description == "2026-11-02")
        #expect(UTCDay("2000-02-29")!.description == "2000-02-29")
        #expect(UTCDay("1900-02-29") == nil)
        #expect(UTCDay(time: -1).description == "1969-12-31")
    }
}
