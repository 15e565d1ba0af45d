import HTTPTypes
import Hummingbird
import NIOCore

/// A request refused with a 4xx (or a store's failure, 5xx), and the reason as JSON.
struct Refusal: Error {
    var status: HTTPResponse.Status
    var message: String
    var allow: String?
    var authenticate = false
    /// Seconds after which the same request may succeed (`Retry-After`).
    var retryAfter: Int?

    init(
        _ status: HTTPResponse.Status, _ message: String, allow: String? = nil, authenticate: Bool = false,
        retryAfter: Int? = nil
    ) {
        self.status = status
        self.message = message
        self.allow = allow
        self.authenticate = authenticate
        self.retryAfter = retryAfter
    }

    var response: Response {
        var headers = ServeHeaders.fields(type: "application/json; charset=utf-8")
        if let allow { headers[.allow] = allow }
        if authenticate { headers[.wwwAuthenticate] = "Bearer" }
        if let retryAfter { headers[.retryAfter] = "\(retryAfter)" }
        var json = WireJSON()
        json.raw("{\"error\":")
        json.string(message)
        json.raw("}")
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: json.bytes)))
    }
}
