import Foundation

extension Error {
    /// The system's own words for a failed file operation ("No space left on device"), rather
    /// than Foundation's ("There isn't enough space."), without a closing full stop: the message
    /// that quotes them adds one.
    var systemReason: String {
        let error = (self as NSError).userInfo[NSUnderlyingErrorKey] as? NSError ?? (self as NSError)
        if error.domain == NSPOSIXErrorDomain, let words = strerror(Int32(error.code)) { return String(cString: words) }
        var text = error.localizedDescription
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
