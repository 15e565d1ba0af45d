import Foundation

/// A flag one thread raises (or lowers) and others read.
public final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    public init() {}
    public var value: Bool { lock.withLock { raised } }
    public func set(_ value: Bool = true) { lock.withLock { raised = value } }
}
