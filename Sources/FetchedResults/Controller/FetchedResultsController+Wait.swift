#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What ended a ``FetchedResultsController/wait(alongside:until:clock:)``.
public struct ControllerWait: Sendable, Equatable {
    /// The caller's descriptors that are readable (or closed, or in error).
    public var readable: Set<Int32>
    /// Whether the store may have changes: what woke it fired, or a look it asked for is due.
    /// Call ``FetchedResultsController/processPendingChanges()``, which reads away what woke it.
    public var storeMayHaveChanged: Bool

    public init(readable: Set<Int32>, storeMayHaveChanged: Bool) {
        self.readable = readable
        self.storeMayHaveChanged = storeMayHaveChanged
    }
}

extension FetchedResultsController {
    /// Sleeps, in one `poll`, until one of the caller's `descriptors` turns readable, the store
    /// may have changes (another connection or process committed, a reconnection attempt or a
    /// safety look is due), or the caller's `deadline` passes — whichever comes first — and
    /// says which. The event loop of a terminal program in one call: its own descriptors (the
    /// keyboard, a signal pipe) beside the controller's, and its own next timer, with no wake
    /// descriptor or store deadline of its own to keep.
    ///
    /// ```swift
    /// while running {
    ///     let woke = controller.wait(alongside: [STDIN_FILENO], until: nextTimer)
    ///     if woke.storeMayHaveChanged { try controller.processPendingChanges() }
    ///     if woke.readable.contains(STDIN_FILENO) { handleKeys() }
    /// }
    /// ```
    ///
    /// The look after a wait is the loop's: on a store whose server may answer slowly
    /// (PostgreSQL), it waits for the answer a few milliseconds at most, and otherwise returns
    /// and delivers the changes when their rows arrive and wake the loop again, so that a slow
    /// server or a cut link never holds up the keys. ``processPendingChanges()`` called without
    /// a wait before it waits for the answer: it delivers everything committed before it.
    ///
    /// A signal that interrupts the `poll` ends the wait with nothing readable. The async
    /// sequences (``changeSets(bufferingPolicy:)``, ``snapshots(bufferingPolicy:)``) wait the
    /// same way by themselves.
    ///
    /// - Parameters:
    ///   - descriptors: the caller's descriptors to wait on as well.
    ///   - deadline: when the caller wants to run again even if nothing happens; nil: only when
    ///     something happens.
    ///   - clock: the clock `deadline` is on (a test's own clock, say).
    public func wait<C: Clock>(
        alongside descriptors: [Int32] = [], until deadline: C.Instant?, clock: C
    ) -> ControllerWait where C.Duration == Duration {
        let storeDeadline = core.nextLookDeadline
        var timeout = deadline.map { clock.now.duration(to: $0) }
        if let storeDeadline {
            let untilLook = ContinuousClock.now.duration(to: storeDeadline)
            timeout = min(timeout ?? untilLook, untilLook)
        }
        var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let wake = core.wakeDescriptor
        if let wake { polled.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0)) }
        let milliseconds = timeout.map { Int32(clamping: Int64(max(0, ($0 / .milliseconds(1)).rounded(.up)))) } ?? -1
        let count = poll(&polled, nfds_t(polled.count), milliseconds)
        var readable: Set<Int32> = []
        var woken = false
        if count > 0 {
            for (index, entry) in polled.enumerated() where entry.revents != 0 {
                if index < descriptors.count { readable.insert(entry.fd) } else { woken = true }
            }
        }
        let lookDue = storeDeadline.map { ContinuousClock.now >= $0 } ?? false
        core.waitedSinceLastLook = true
        return ControllerWait(readable: readable, storeMayHaveChanged: woken || lookDue)
    }

    /// ``wait(alongside:until:clock:)`` on the continuous clock.
    public func wait(
        alongside descriptors: [Int32] = [], until deadline: ContinuousClock.Instant? = nil
    ) -> ControllerWait {
        wait(alongside: descriptors, until: deadline, clock: ContinuousClock())
    }

    /// Suspends the calling task — blocking no thread — until the store may have changes (its
    /// wake source fired, or a look it asked for is due), then looks; returns whether the
    /// results changed (the delegate and the change sequences heard how). A server's loop in
    /// one call, in the caller's isolation (an actor that owns the controller, say); the async
    /// sequences are the same wait in a loop. Returns false at once when the task is cancelled.
    ///
    /// - Throws: as ``processPendingChanges()``.
    @discardableResult
    public func waitForChanges(isolation actor: isolated (any Actor)? = #isolation) async throws -> Bool {
        await StoreWake.wait(descriptor: core.wakeDescriptor, until: core.nextLookDeadline)
        guard !Task.isCancelled else { return false }
        core.waitedSinceLastLook = true
        return try core.processPendingChanges()
    }
}
