import Dispatch
import Foundation

/// SIGINT and SIGTERM (Ctrl+C, `systemctl stop`), caught from its creation on, so one sent the moment a command
/// says it is running is not lost. `wait()` blocks until one has arrived; `hasArrived` is for loops that poll.
final class TerminationSignal: @unchecked Sendable {
    private let arrived = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var raised = false
    private var sources: [DispatchSourceSignal] = []

    init() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [weak self] in self?.raise() }
            source.resume()
            sources.append(source)
        }
    }

    /// Whether SIGINT or SIGTERM has arrived.
    var hasArrived: Bool { lock.withLock { raised } }

    /// Blocks until SIGINT or SIGTERM has arrived.
    func wait() {
        arrived.wait()
        arrived.signal()
    }

    private func raise() {
        let first = lock.withLock { () -> Bool in
            defer { raised = true }
            return !raised
        }
        if first { arrived.signal() }
    }
}
