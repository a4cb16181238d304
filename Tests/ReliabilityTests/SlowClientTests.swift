import CairnTestSupport
import Foundation
import Synchronization
import Testing
import WebApp

#if canImport(Glibc)
    import Glibc
#endif

/// Finding 3: 64 connections trickling header bytes blocked every other request, and connections beyond 64 were
/// reset instead of queued.
@Suite(.serialized) struct SlowClientTests {
    @Test func sixtyFourSlowClientsDoNotStallANormalOne() throws {
        let served = try ServedVault()
        let port = served.port
        let slow = try (0..<64).map { _ in
            let socket = try LoopbackSocket(port: port)
            socket.send(Data("GET / HTTP/1.1\r\nHo".utf8))
            return socket
        }
        // They keep trickling (one byte each, every 200 ms, for up to a minute) while normal requests are made: each
        // must be answered while every slow client is still connected and trickling, however loaded the machine.
        let stop = DispatchSemaphore(value: 0)
        let trickled = Mutex(0)
        let trickler = Thread {
            for _ in 0..<300 {
                for socket in slow { socket.send(Data("s".utf8)) }
                trickled.withLock { $0 += 1 }
                if stop.wait(timeout: .now() + 0.2) == .success { return }
            }
            trickled.withLock { $0 = -1 }
        }
        trickler.start()
        defer { stop.signal() }
        for _ in 0..<5 {
            let response = try HTTP.request("GET", "/settings", port: port)
            #expect(response.status == 200)
            #expect(trickled.withLock { $0 } != -1, "a normal request waited until the slow clients stopped")
        }
    }

    @Test func aClientThatGoesSilentInItsHeadersIsCutOffAfterTheHeaderTimeout() throws {
        let served = try ServedVault()
        let socket = try LoopbackSocket(port: served.port, timeoutSeconds: Int(WebServer.headerTimeoutSeconds) + 5)
        socket.send(Data("GET / HTTP/1.1\r\nHost: 127.0".utf8))
        let started = ContinuousClock.now
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = recv(socket.fd, &buffer, buffer.count, 0)
        let elapsed = ContinuousClock.now - started
        #expect(n <= 0)
        #expect(elapsed < .seconds(Int(WebServer.headerTimeoutSeconds) + 3), "closed after \(elapsed)")
    }

    @Test func aBurstOfConnectionsIsQueuedNotReset() throws {
        let served = try ServedVault()
        let port = served.port
        // More connections at once than the server serves at once: the rest wait in the listen queue.
        let count = Int(WebServer.maximumConnections) + 64
        var open: [LoopbackSocket] = []
        for _ in 0..<count { open.append(try LoopbackSocket(port: port, timeoutSeconds: 20)) }
        for socket in open { socket.send(HTTP.raw("GET", "/assets/cairn.css", port: port)) }
        var answered = 0
        for socket in open { if (try? socket.receive())?.status == 200 { answered += 1 } }
        #expect(answered == count)
    }
}

/// Issue 36, finding 4: more connections without the key than the server serves at once, each trickling a header
/// byte (so libmicrohttpd's silence timeout never closes them), no longer starve a request with the key: the
/// oldest of them are closed to make room. Without that the request would wait for the 10 s header deadline, past
/// its socket's 5 s timeout.
@Suite(.serialized) struct StarvationTests {
    @Test func aRequestWithTheKeyIsAnsweredBesideMoreTricklingConnectionsThanTheServerServes() throws {
        let served = try ServedVault()
        let port = served.port
        let trickling = try (0..<(Int(WebServer.maximumConnections) + 40)).map { _ -> LoopbackSocket in
            let socket = try LoopbackSocket(port: port, timeoutSeconds: 15)
            socket.send(Data("GET / HTTP/1.1\r\nHo".utf8))
            return socket
        }
        let stop = DispatchSemaphore(value: 0)
        let trickler = Thread {
            repeat { for socket in trickling { socket.send(Data("s".utf8)) } } while stop.wait(timeout: .now() + 0.2) == .timedOut
        }
        trickler.start()
        defer { stop.signal() }
        Thread.sleep(forTimeInterval: 0.8)  // past their grace
        let socket = try LoopbackSocket(port: port, timeoutSeconds: 5)
        socket.send(HTTP.raw("GET", "/assets/cairn.css", port: port))
        #expect(try socket.receive().status == 200)
        // The ones closed to make room were the oldest: the first trickling connection reads the end of the stream.
        var byte: UInt8 = 0
        #expect(recv(trickling[0].fd, &byte, 1, 0) == 0)
    }
}
