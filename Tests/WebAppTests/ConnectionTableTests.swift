import Foundation
import Testing

@testable import WebApp

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 36, finding 4: connections without the key cannot starve those with it. `ConnectionTable` decides which
/// connection is closed; closing is a shutdown the peer sees as the end of the stream.
struct ConnectionTableTests {
    /// A connected pair of sockets: `server` goes in the table, `client` sees whether it was closed.
    final class Pair {
        let server: Int32, client: Int32
        init() {
            var fds: [Int32] = [0, 0]
            _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds)
            server = fds[0]
            client = fds[1]
            var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
            _ = setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        /// Whether the server side was shut down (the client reads the end of the stream).
        var closed: Bool {
            var byte: UInt8 = 0
            return recv(client, &byte, 1, 0) == 0
        }
        deinit {
            close(server)
            close(client)
        }
    }

    @Test func theOldestConnectionsWithoutTheKeyAreClosedFirstAndOnlyAfterTheirGrace() {
        let table = ConnectionTable(headerDeadline: .seconds(10))
        let start = ContinuousClock.now
        let pairs = (0..<4).map { _ in Pair() }
        for (i, pair) in pairs.enumerated() { table.accepted(pair.server, at: start + .seconds(i)) }
        table.authorised(pairs[0].server)  // the oldest has the key: never closed to make room
        // At start + 3.5 s only the connections accepted at least a second ago may go: 1 and 2, oldest first.
        #expect(table.closeOldestUnauthorised(count: 1, olderThan: .seconds(1), now: start + .milliseconds(3_500)) == 1)
        #expect(pairs.map(\.closed) == [false, true, false, false])
        #expect(table.closeOldestUnauthorised(count: 8, olderThan: .seconds(1), now: start + .milliseconds(3_500)) == 1)
        #expect(pairs.map(\.closed) == [false, true, true, false], "2 closed too; 3 is within its grace")
        #expect(table.closeOldestUnauthorised(count: 8, olderThan: .seconds(1), now: start + .milliseconds(3_500)) == 0)
        for pair in pairs { table.closed(pair.server) }
        #expect(table.counts.open == 0)
    }

    @Test func aConnectionWithoutTheKeyPastItsHeaderDeadlineIsClosedWhateverItSends() {
        let table = ConnectionTable(headerDeadline: .seconds(10))
        let start = ContinuousClock.now
        let trickling = Pair()
        let authorised = Pair()
        let young = Pair()
        table.accepted(trickling.server, at: start)
        table.accepted(authorised.server, at: start)
        table.authorised(authorised.server)
        table.accepted(young.server, at: start + .seconds(5))
        #expect(table.closeOverdue(now: start + .seconds(9)) == 0)
        #expect(table.closeOverdue(now: start + .seconds(10)) == 1)
        #expect([trickling.closed, authorised.closed, young.closed] == [true, false, false])
    }
}
