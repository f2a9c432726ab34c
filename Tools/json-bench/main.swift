// json-bench: EventModel's JSON parser and writer on an EVENTS body of 500 events (≈110 KB),
// against Foundation's JSONSerialization on the same bytes in the same run; and the collector's
// two ways to turn that body into events to store (each validated, its props text ready):
// the generic tree then `ReceivedEvent(json:)` per event, and `EventList.parseBody`, which reads
// the events straight from the bytes into records of spans (`withRecords`: what the SQLite store
// copies into its rows).
// Run: swift run -c release json-bench [--quick]
import BenchmarkSupport
import EventModel
import Foundation

ToolArguments(
    "json-bench",
    usage: Benchmark.usage(
        "json-bench", measures: "EventModel's JSON parser and writer on an EVENTS body of 500 events, as a ratio to Foundation's JSONSerialization, and the collector's straight EVENTS decoding as a ratio to the generic tree.",
        quick: "3 rounds of 20 instead of 7 of 100", example: "swift run -c release json-bench --quick")
).read()

let rounds = Benchmark.rounds(quick: 3, full: 7)
let iterations = Benchmark.isQuick ? 20 : 100

func makeBody(events: Int) -> [UInt8] {
    var list: [JSONValue] = []
    for i in 0..<events {
        let e = TrackEvent(
            id: "s-0123456789abcdef-\(i)", ts: 1_763_769_600_000 + Int64(i), type: .click,
            name: "HomeViewController#HomeViewController#onFavBtnPressed:", page: "HomeViewController",
            path: "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:\(i % 40)-0-1",
            viewId: "a5b721d95905e8b7cbd64740d74710e1", session: "s-0123456789abcdef",
            props: JSONObject([("title", "Fav"), ("productId", .string("p-\(i % 12)")), ("price", .double(9.5)), ("isOn", true)]))
        list.append(e.json)
    }
    return JSONValue.object(JSONObject([("batch", "b-1"), ("events", .array(list))])).jsonBytes
}

/// Best of `rounds`, each the mean of `iterations` runs, in microseconds.
func measure(_ body: () -> Void) -> Double {
    Benchmark.best(rounds) {
        Benchmark.nanoseconds(Benchmark.wallTime { for _ in 0..<iterations { body() } }) / 1000 / Double(iterations)
    }
}

let body = makeBody(events: 500)
let data = Data(body)
var sink = 0
let ours = measure {
    if case .object(let o) = try! JSONValue.parse(body) { sink &+= o.count }
}
let foundation = measure {
    let v = try! JSONSerialization.jsonObject(with: data) as! [String: Any]
    sink &+= v.count
}
let value = try! JSONValue.parse(body)
let ourWrite = measure { sink &+= value.jsonBytes.count }
let any = try! JSONSerialization.jsonObject(with: data)
let foundationWrite = measure { sink &+= (try! JSONSerialization.data(withJSONObject: any)).count }

let slice = body[...]
let generic = measure {
    if case .array(let events)? = try! JSONValue.parse(body)["events"] { sink &+= events.map(ReceivedEvent.init(json:)).count }
}
let straight = measure { sink &+= try! EventList.parseBody(slice, eventsMember: "events").events!.withRecords { events, _ in events.count } }

let mb = Double(body.count) / 1e6
Benchmark.start("json-bench: EVENTS body of 500 events, \(body.count) bytes; best of \(rounds) rounds × \(iterations)")
print("                         µs/body     MB/s   ratio to Foundation (>1: faster)")
print(String(format: "parse  EventModel     %9.1f  %7.1f   %.2f", ours, mb / ours * 1e6, foundation / ours))
print(String(format: "parse  Foundation     %9.1f  %7.1f   1.00 (baseline)", foundation, mb / foundation * 1e6))
print(String(format: "write  EventModel     %9.1f  %7.1f   %.2f", ourWrite, mb / ourWrite * 1e6, foundationWrite / ourWrite))
print(String(format: "write  Foundation     %9.1f  %7.1f   1.00 (baseline)", foundationWrite, mb / foundationWrite * 1e6))
print("events to store (validated, props text)  µs/body  µs/event  ratio to the generic path (>1: faster)")
print(String(format: "  generic tree, then ReceivedEvent(json:) %9.1f  %8.2f  1.00 (baseline)", generic, generic / 500))
print(String(format: "  EventList.parseBody, records           %9.1f  %8.2f  %.2f", straight, straight / 500, generic / straight))
if sink == 42 { print("") }
