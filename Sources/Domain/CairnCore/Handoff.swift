import Foundation

/// Two stages of one job on two threads, so that a long import uses both cores: `produce` runs on a thread of
/// its own and hands what it makes over in order; `consume` runs on the calling thread (the one holding the
/// database) and takes it in that order. Memory stays flat: the producer waits while `depth` chunks of `chunk`
/// elements are waiting.
///
/// - A throw from `consume` stops the producer at its next hand-over (its `emit` throws `Handoff.Stopped`), waits
///   for its thread to end and rethrows the consumer's error.
/// - A throw from `produce` ends the hand-over at once (what was not yet consumed is dropped) and is rethrown
///   once the consumer has returned.
/// - Otherwise everything produced is consumed, then `produce`'s result is returned.
public enum Handoff {
    /// What `emit` throws once the consumer has stopped.
    public struct Stopped: Error {}

    public static func run<Element: Sendable, Produced: Sendable>(
        chunk: Int = 256, depth: Int = 8,
        produce: @escaping @Sendable (_ emit: (Element) throws -> Void) throws -> Produced,
        consume: (Element) throws -> Void
    ) throws -> Produced {
        precondition(chunk > 0 && depth > 0)
        let channel = Channel<Element, Produced>(depth: depth)
        let thread = Thread {
            var buffer: [Element] = []
            buffer.reserveCapacity(chunk)
            let result = Result {
                let produced = try produce { element in
                    buffer.append(element)
                    if buffer.count == chunk {
                        try channel.put(buffer)
                        buffer.removeAll(keepingCapacity: true)
                    }
                }
                if !buffer.isEmpty { try channel.put(buffer) }
                return produced
            }
            channel.finish(result)
        }
        thread.stackSize = 1 << 22
        thread.start()
        do {
            while let elements = channel.take() {
                for element in elements { try consume(element) }
            }
        } catch {
            channel.stop()
            _ = channel.waitForResult()
            throw error
        }
        return try channel.waitForResult().get()
    }

    /// The queue between the two threads (all state under `condition`).
    private final class Channel<Element: Sendable, Produced: Sendable>: @unchecked Sendable {
        private let condition = NSCondition()
        private let depth: Int
        private var waiting: [[Element]] = []
        private var result: Result<Produced, any Error>?
        private var stopped = false

        init(depth: Int) { self.depth = depth }

        func put(_ elements: [Element]) throws {
            condition.lock()
            defer { condition.unlock() }
            while waiting.count >= depth && !stopped { condition.wait() }
            if stopped { throw Stopped() }
            waiting.append(elements)
            condition.broadcast()
        }

        /// The next chunk, or nil once the producer has finished and everything was taken (or it failed).
        func take() -> [Element]? {
            condition.lock()
            defer { condition.unlock() }
            while waiting.isEmpty && result == nil { condition.wait() }
            if case .failure = result { return nil }
            guard !waiting.isEmpty else { return nil }
            condition.broadcast()
            return waiting.removeFirst()
        }

        func finish(_ produced: Result<Produced, any Error>) {
            condition.lock()
            result = produced
            condition.broadcast()
            condition.unlock()
        }

        func stop() {
            condition.lock()
            stopped = true
            waiting.removeAll()
            condition.broadcast()
            condition.unlock()
        }

        func waitForResult() -> Result<Produced, any Error> {
            condition.lock()
            defer { condition.unlock() }
            while result == nil { condition.wait() }
            return result!
        }
    }
}
