import Synchronization

import class Foundation.Thread

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ControllerCore {
    // MARK: - One thread at a time

    /// Runs the body of a public method as the one thread inside the controller. A controller
    /// is not `Sendable`, so Swift 6 code cannot share it between threads; Swift 5 code can, and
    /// a second thread inside it would corrupt its state or fail deep in the database library.
    /// That second thread is stopped here, with a message that names both threads. The same
    /// thread may come back in (a callback reading the controller); a controller handed from one
    /// thread to another between calls is fine.
    @inline(__always)
    func exclusive<T>(_ method: StaticString, _ body: () throws -> T) rethrows -> T {
        let thread = ThreadIdentity.current
        let (entered, inside) = threadInside.compareExchange(
            expected: 0, desired: thread, successOrdering: .acquiring, failureOrdering: .relaxed)
        guard entered else {
            if inside == thread { return try body() }
            fatalError(ThreadIdentity.refusal(method: method, caller: thread, inside: inside))
        }
        defer { threadInside.store(0, ordering: .releasing) }
        return try body()
    }
}

/// A thread's identity as a number (its `pthread_t`), as messages name it.
enum ThreadIdentity {
    static var current: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }

    static func describe(_ thread: UInt) -> String {
        "thread 0x" + String(thread, radix: 16)
    }

    static func refusal(method: StaticString, caller: UInt, inside: UInt) -> String {
        let callerName = describe(caller) + (Thread.isMainThread ? " (the main thread)" : "")
        return "a FetchedResultsController is used by one thread at a time: \(method) was called on \(callerName) "
            + "while \(describe(inside)) was inside the controller. A controller is not Sendable: keep it in one "
            + "isolation domain (the main actor, or an actor of its own), or, in Swift 5 language mode, make sure "
            + "that no two threads call it at once"
    }
}
