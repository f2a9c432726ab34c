/// Turns a handler's response into the bytes on the wire: the status line, the handler's
/// fields (checked), then `Date`, `Content-Length` and `Connection` of the server's own.
enum ResponseWriter {
    /// Fields only the server sets.
    static let serverFields = ["Content-Length", "Transfer-Encoding", "Connection", "Date", "Keep-Alive"]

    /// The response's bytes. `closing`: the connection closes after it; `keepAliveHTTP10`:
    /// an HTTP/1.0 client asked to keep it open (it is told so); `omitBody`: a HEAD request.
    static func serialize(
        _ response: HTTPResponse, date: String, closing: Bool, keepAliveHTTP10: Bool, omitBody: Bool
    ) -> [UInt8] {
        guard isSendable(response) else {
            return serialize(
                .error(.internalServerError, "the handler's response had a header that cannot be sent"), date: date,
                closing: closing, keepAliveHTTP10: keepAliveHTTP10, omitBody: omitBody)
        }
        var head = "HTTP/1.1 \(response.status.code) \(response.status.reason)\r\nDate: \(date)\r\n"
        for field in response.headers where !serverFields.contains(where: { HTTPHeaders.sameName($0, field.name) }) {
            head += "\(field.name): \(field.value)\r\n"
        }
        let hasContent = response.status.allowsContent
        if hasContent { head += "Content-Length: \(response.body.count)\r\n" }
        if closing {
            head += "Connection: close\r\n"
        } else if keepAliveHTTP10 {
            head += "Connection: keep-alive\r\n"
        }
        head += "\r\n"
        var bytes = Array(head.utf8)
        if hasContent && !omitBody { bytes += response.body }
        return bytes
    }

    /// The interim answer to `Expect: 100-continue`.
    static let continueBytes = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Names are tokens, values and the reason hold no CR, LF, NUL or other control (a handler
    /// echoing request data into a field must not split the response), the code is a final one
    /// (200 to 999: interim answers are the server's, and it sends only `100 Continue`).
    static func isSendable(_ response: HTTPResponse) -> Bool {
        let valueOK: (String) -> Bool = { $0.utf8.allSatisfy { ($0 >= 0x20 && $0 != 0x7F) || $0 == 0x09 } }
        return (200...999).contains(response.status.code) && valueOK(response.status.reason)
            && response.headers.allSatisfy { !$0.name.isEmpty && $0.name.utf8.allSatisfy(RequestParser.isTokenByte) && valueOK($0.value) }
    }

    /// The connection closes after the response: the client or the handler said so.
    static func closes(_ response: HTTPResponse, request: HTTPRequest) -> Bool {
        !request.wantsKeepAlive || response.headers.listContains("Connection", token: "close")
    }
}

/// IMF-fixdate (RFC 9110 §5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`, from seconds since the
/// epoch: the civil calendar from days (H. Hinnant's algorithm), no time zone library.
enum HTTPDate {
    static func format(epochSeconds: Int64) -> String {
        let days = epochSeconds >= 0 ? epochSeconds / 86400 : (epochSeconds - 86399) / 86400
        let secondOfDay = epochSeconds - days * 86400
        let weekday = Int((days % 7 + 11) % 7)  // 1970-01-01 was a Thursday
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(names[weekday]), \(two(day)) \(months[Int(month) - 1]) \(year) "
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }
}
