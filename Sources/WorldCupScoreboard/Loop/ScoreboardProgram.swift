import FetchedResults
import TerminalUI

/// The scoreboard as update and effects, in the shape of Bubble Tea's `Update`: each event goes
/// to ``update(_:at:)``, which changes the screen's state and returns effects — a write, a look,
/// a load step, a redraw… — that ``dispatch(_:at:terminal:)`` runs, in order. An effect that
/// finds something (a look) answers with an event of its own.
///
/// Time is an input: every event comes with the instant it is handled at, and
/// ``nextWake(at:)`` says when the program wants a ``ScoreboardEvent/timer``. The real loop
/// (``ScoreboardSession``) reads both from the clock; a driver can pass instants of its own,
/// and so never waits for a timer.
public final class ScoreboardProgram {
    /// The screen the events act on.
    public let screen: ScoreboardScreen
    private let stats: SessionStats?
    /// Since when keys and changes have rested; nil once the resting work is done.
    public private(set) var restingSince: ContinuousClock.Instant?
    /// When the store was last looked at.
    private var lastLook: ContinuousClock.Instant
    /// A highlight ended at the last timer: the frame after the look draws its row again.
    private var highlightsEnded = false
    /// The frame being drawn shows other programs' changes (for the statistics).
    private var showsExternalChanges = false
    /// When the last frame was drawn.
    private var lastFrame: ContinuousClock.Instant

    /// How long keys and changes rest before the checkpoint and the cache save.
    public static let rest = Duration.seconds(1)
    /// How often the scoreboard looks while scores wait to be sent again.
    public static let doubtLookInterval = Duration.milliseconds(250)
    /// Writes after which a checkpoint runs even while keys keep coming, so the log stays small.
    public static let checkpointThreshold = 1_000
    /// How often a load behind the first frame draws a frame when its steps change no row on
    /// screen: the count of teams loaded so far moves a few times a second.
    public static let loadFrameInterval = Duration.milliseconds(100)

    /// - Parameter now: the instant the first frame was shown; the program rests from then.
    public init(screen: ScoreboardScreen, stats: SessionStats? = nil, now: ContinuousClock.Instant) {
        self.screen = screen
        self.stats = stats
        restingSince = now
        lastLook = now
        lastFrame = now
    }

    /// Changes the screen's state for `event`, handled at `now`, and says what to do next.
    public func update(_ event: ScoreboardEvent, at now: ContinuousClock.Instant) -> [ScoreboardEffect] {
        switch event {
        case let .key(key):
            restingSince = now
            let effect = screen.handle(key)
            switch effect {
            case .repaint: return [.repaint, .redraw]
            case .write: return [effect, .checkpoint(afterWrites: Self.checkpointThreshold), .redraw]
            default: return [effect]
            }
        case .resize:
            restingSince = now
            _ = screen.handle(.resize)
            return [.repaint, .redraw]
        case .resumed:
            screen.layout()
            return [.redraw]
        case .storeReadable, .timer:
            if screen.expireHighlights(at: now) { highlightsEnded = true }
            // While a load or a count paces the timer, the store is looked at when its
            // deadline says so, not at every step: a load step follows the store itself, and
            // another program's commit wakes the loop through the store's descriptor. (On
            // PostgreSQL a look is a round trip, which every step of a load paid once more.)
            if event == .timer, hasWorkWaiting, !isLookDue(at: now) { return afterLook(changed: false, at: now) }
            return [.look]
        case let .looked(changed):
            return afterLook(changed: changed, at: now)
        case let .loadStepped(finished, saidSomething):
            // A step's rows mostly land below the screen, and a frame per step would slow the
            // load for nothing to see: draw when rows on screen changed, when the load is done or
            // says why it failed, and otherwise now and then, for the count in the heading.
            let due = now - lastFrame >= Self.loadFrameInterval
            return finished || saidSomething || due || screen.tableView.hasRowsToDraw ? [.redraw] : []
        case let .stopSignal(number):
            return [.saveCache, .quit(.stopSignal(number))]
        case .inputClosed:
            return [.quit(.inputClosed)]
        }
    }

    /// After a look: the frame it calls for, then one piece of the work that waits for quiet —
    /// the filter typed so far, a search's count or a load step, else, once everything rested,
    /// the idle housekeeping.
    private func afterLook(changed: Bool, at now: ContinuousClock.Instant) -> [ScoreboardEffect] {
        var effects: [ScoreboardEffect] = []
        if changed { restingSince = now }
        if changed || highlightsEnded { effects.append(.redraw) }
        highlightsEnded = false
        if screen.hasFilterToApply {
            effects += [.filterStep, .redraw]
        } else if screen.hasSearchToCount {
            effects += [.searchStep, .redraw]
        } else if screen.canLoadMoreStandings {
            effects.append(.loadStep)
        } else if let since = restingSince, now - since >= Self.rest {
            restingSince = nil
            effects += [.checkpoint(afterWrites: 1), .saveCache]
        }
        return effects
    }

    /// Whether work waits for quiet: a filter typed, a load behind the first frame, a search's
    /// count.
    private var hasWorkWaiting: Bool {
        screen.hasFilterToApply || screen.canLoadMoreStandings || screen.hasSearchToCount
    }

    /// Whether scores in doubt wait to be sent again. (The store's own looks — a store without
    /// a wake descriptor, a reconnection — come as ``ScoreboardEvent/storeReadable``, from the
    /// controller's wait.)
    private func isLookDue(at now: ContinuousClock.Instant) -> Bool {
        screen.hasScoresInDoubt && now - lastLook >= Self.doubtLookInterval
    }

    /// When the program wants a ``ScoreboardEvent/timer`` if nothing else happens first: `now`
    /// while work waits for quiet (a load, a count), nil when only an event can bring news.
    public func nextWake(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        if hasWorkWaiting { return now }
        var deadlines = [
            restingSince.map { $0 + Self.rest }, screen.nextHighlightExpiry, screen.nextMovementExpiry,
            screen.nextAnnouncementDue,
        ]
        if screen.hasScoresInDoubt { deadlines.append(lastLook + Self.doubtLookInterval) }
        return deadlines.compactMap { $0 }.min()
    }

    /// Hands `event` to ``update(_:at:)`` and runs the effects, and those of the events they
    /// lead to; returns why the scoreboard ends, or nil to go on.
    public func dispatch(
        _ event: ScoreboardEvent, at now: ContinuousClock.Instant, terminal: any TerminalControl
    )
        -> ScoreboardExit?
    {
        if case .key = event { stats?.keyReceived() }
        var events = [event]
        while !events.isEmpty {
            for effect in update(events.removeFirst(), at: now) {
                switch effect {
                case let .quit(exit):
                    return exit
                case .suspend:
                    terminal.suspend()
                    events.append(.resumed)
                case .repaint:
                    terminal.invalidate()
                default:
                    if let answer = perform(effect, at: now) { events.append(answer) }
                }
            }
        }
        return nil
    }

    /// Runs an effect on the screen and the store; returns what it found, if anything.
    private func perform(_ effect: ScoreboardEffect, at now: ContinuousClock.Instant) -> ScoreboardEvent? {
        switch effect {
        case let .write(write):
            screen.perform(write, at: now)
        case .look:
            lastLook = now
            let changed = screen.showExternalChanges(at: now)
            showsExternalChanges = changed
            return .looked(changed: changed)
        case .loadStep:
            let message = screen.message
            if let stats { stats.timeLoadStep(screen.loadMoreStandings) } else { screen.loadMoreStandings() }
            let finished = !screen.isLoadingStandings
            if finished { stats?.standingsLoaded(source: screen.fetchSource) }
            return .loadStepped(finished: finished, saidSomething: screen.message != message)
        case .searchStep:
            if let stats { stats.timeSearchStep(screen.countSearchStep) } else { screen.countSearchStep() }
        case .filterStep:
            if let stats { stats.timeFilterStep(screen.applyTypedFilter) } else { screen.applyTypedFilter() }
        case let .checkpoint(minimumWrites):
            screen.checkpoint(afterWrites: minimumWrites)
        case .saveCache:
            screen.saveCacheIfNeeded()
        case .redraw:
            lastFrame = now
            screen.readRowsOnScreen()
            screen.render()
            stats?.frameFlushed()
            if showsExternalChanges {
                stats?.externalChangesFlushed()
                showsExternalChanges = false
            }
        case .repaint, .suspend, .quit:
            preconditionFailure("the terminal's effects are run by dispatch")
        }
        return nil
    }
}
