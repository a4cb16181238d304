import CairnCore
import Foundation
import Synchronization
import Testing

private struct ConsumerFailed: Error, Equatable {}
private struct ProducerFailed: Error, Equatable {}

@Test func everythingProducedIsConsumedInOrderOnTheCallingThreadAndTheProducersResultReturned() throws {
    let caller = Thread.current
    var consumed: [Int] = []
    var onCaller = true
    let result = try Handoff.run(
        chunk: 7, depth: 2,
        produce: { emit in
            for i in 0..<10_000 { try emit(i) }
            return "done"
        },
        consume: { (value: Int) in
            consumed.append(value)
            onCaller = onCaller && Thread.current == caller
        })
    #expect(result == "done")
    #expect(consumed == Array(0..<10_000))
    #expect(onCaller)
}

@Test func theProducerRunsOnAnotherThread() throws {
    let caller = pthread_self()
    let producer = try Handoff.run(
        produce: { (emit: (Int) throws -> Void) in
            try emit(1)
            return UInt(bitPattern: Int(bitPattern: pthread_self()))
        }, consume: { _ in })
    #expect(producer != UInt(bitPattern: Int(bitPattern: caller)))
}

@Test func aConsumerErrorStopsTheProducerAndIsRethrown() throws {
    let emitted = Atomic<Int>(0)
    let stoppedSeen = Atomic<Bool>(false)
    #expect(throws: ConsumerFailed.self) {
        _ = try Handoff.run(
            chunk: 4, depth: 2,
            produce: { (emit: (Int) throws -> Void) in
                do {
                    for i in 0..<1_000_000 {
                        try emit(i)
                        emitted.add(1, ordering: .relaxed)
                    }
                } catch let stopped as Handoff.Stopped {
                    stoppedSeen.store(true, ordering: .relaxed)
                    throw stopped
                }
                return 0
            },
            consume: { value in
                if value == 10 { throw ConsumerFailed() }
            })
    }
    // The producer stopped at a hand-over soon after: it waits while `depth` chunks wait.
    let sawStop = stoppedSeen.load(ordering: .relaxed)
    let count = emitted.load(ordering: .relaxed)
    #expect(sawStop)
    #expect(count < 100)
}

@Test func aProducerErrorEndsTheHandOverAndIsRethrown() throws {
    var consumed = 0
    #expect(throws: ProducerFailed.self) {
        _ = try Handoff.run(
            chunk: 1, depth: 1,
            produce: { (emit: (Int) throws -> Void) -> Int in
                try emit(1)
                throw ProducerFailed()
            }, consume: { _ in consumed += 1 })
    }
    #expect(consumed <= 1)
}
