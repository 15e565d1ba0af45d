import HTTPTypes
import Hummingbird
import NIOCore

/// What every answer carries: no script but the page's own, no framing, no sniffing.
enum ServeHeaders {
    static func fields(type: String?) -> HTTPFields {
        var headers = HTTPFields()
        if let type { headers[.contentType] = type }
        headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[.cacheControl] = "no-store"
        return headers
    }

    /// A 200 with `text` as its body.
    static func ok(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: fields(type: type), body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
