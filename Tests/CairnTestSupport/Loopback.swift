import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// A bare HTTP/1.1 client over loopback sockets, for tests and benchmarks that must control every byte (slow
// clients, bodies refused mid-send). Only 127.0.0.1 is ever dialled.

/// One HTTP response read off a socket.
public struct RawResponse {
    public let status: Int
    public let head: String
    public let body: Data
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// Every value of header `name` (case-insensitive).
    public func headers(_ name: String) -> [String] {
        head.split(separator: "\r\n").compactMap { line in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == name.lowercased() else { return nil }
            return parts[1].trimmingCharacters(in: .whitespaces)
        }
    }
}

public struct SocketFailure: Error, CustomStringConvertible {
    public let step: String
    public init(step: String) { self.step = step }
    public var description: String { "socket \(step) failed: \(String(cString: strerror(errno)))" }
}

/// A TCP connection to 127.0.0.1 with send and receive timeouts (no test waits unboundedly).
public final class LoopbackSocket: @unchecked Sendable {
    public let fd: Int32

    public init(port: UInt16, timeoutSeconds: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketFailure(step: "socket") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw SocketFailure(step: "connect")
        }
    }

    deinit { close(fd) }

    /// Sends every byte; false when the peer closed or reset the connection (no SIGPIPE).
    @discardableResult
    public func send(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    /// Reads one response and parses it: up to its `Content-Length`, or the end of a chunked body (dechunked), or
    /// else until the peer closes (requests are sent with `Connection: close`; some servers, chromedriver among
    /// them, keep the connection open anyway).
    public func receive() throws -> RawResponse {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        let separator = Data("\r\n\r\n".utf8)
        func parsed(_ split: Range<Data.Index>, body: Data) -> RawResponse {
            let head = String(decoding: data[..<split.lowerBound], as: UTF8.self)
            return RawResponse(status: Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0, head: head, body: body)
        }
        while true {
            if let split = data.firstRange(of: separator) {
                let lines = String(decoding: data[..<split.lowerBound], as: UTF8.self).lowercased().split(separator: "\r\n")
                let length = lines.first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                let body = data[split.upperBound...]
                if let length, body.count >= length { return parsed(split, body: Data(body.prefix(length))) }
                if lines.contains(where: { $0.hasPrefix("transfer-encoding:") && $0.contains("chunked") }),
                    body.firstRange(of: Data("\r\n0\r\n".utf8)) != nil || body.starts(with: Data("0\r\n".utf8))
                {
                    return parsed(split, body: Self.dechunk(Data(body)))
                }
            }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 { data.append(contentsOf: buffer[0..<n]) } else { break }
        }
        guard let split = data.firstRange(of: separator) else { throw SocketFailure(step: "read response") }
        return parsed(split, body: Data(data[split.upperBound...]))
    }

    /// Sends `request` on a new connection to `port` and reads the response.
    public static func exchange(port: UInt16, _ request: Data, timeoutSeconds: Int = 10) throws -> RawResponse {
        let socket = try LoopbackSocket(port: port, timeoutSeconds: timeoutSeconds)
        guard socket.send(request) else { throw SocketFailure(step: "send") }
        return try socket.receive()
    }

    /// A port nothing listens on right now on 127.0.0.1 (bind to 0, read it, close).
    public static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketFailure(step: "socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0 else { throw SocketFailure(step: "bind") }
        let named = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        guard named == 0 else { throw SocketFailure(step: "getsockname") }
        return UInt16(bigEndian: address.sin_port)
    }

    private static func dechunk(_ data: Data) -> Data {
        var out = Data()
        var index = data.startIndex
        while let lineEnd = data[index...].firstRange(of: Data("\r\n".utf8)) {
            let size = Int(String(decoding: data[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? "", radix: 16) ?? 0
            if size == 0 { break }
            let start = lineEnd.upperBound
            out.append(data[start..<min(start + size, data.endIndex)])
            index = min(start + size + 2, data.endIndex)
        }
        return out
    }
}

/// CPU use of processes, read from /proc.
public enum ProcessCPU {
    /// CPU seconds (user + system) a process has used so far, from /proc/PID/stat.
    public static func cpuSeconds(of pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return .nan }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3; utime and stime are fields 14 and 15 (1-based overall).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

/// HTTP requests as bytes, for `LoopbackSocket`.
public enum LoopbackHTTP {
    /// A request to 127.0.0.1:`port` with `Connection: close`, the session cookie when `session` is given, and a
    /// `Content-Length` for a body (always for POST).
    public static func raw(
        _ method: String, _ target: String, port: UInt16, session: String?, headers: [String] = [],
        body: Data = Data()
    ) -> Data {
        var lines = ["\(method) \(target) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"]
        if let session { lines.append("Cookie: cairn_session=\(session)") }
        lines += headers
        if !body.isEmpty || method == "POST" { lines.append("Content-Length: \(body.count)") }
        var raw = Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        raw.append(body)
        return raw
    }

    /// Reads the first line `cairn serve` prints on `pipe` (its address with the launch key): the port and the key,
    /// nil when it printed none (with the line read, for the failure's message).
    public static func login(readingFirstLineOf pipe: Pipe) -> (port: UInt16, key: String)? {
        var first = Data()
        while !first.contains(0x0A) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            first.append(chunk)
        }
        let line = String(decoding: first, as: UTF8.self)
        guard let match = line.firstMatch(of: /127\.0\.0\.1:(\d+)\/\?key=([A-Za-z0-9_-]+)/), let port = UInt16(match.1) else {
            return nil
        }
        return (port, String(match.2))
    }

    /// Sends one request to 127.0.0.1:`port` (the session cookie when `session` is given; `form`, when given, as a
    /// url-encoded body) and reads its response.
    public static func send(
        _ method: String, _ target: String, port: UInt16, session: String?,
        form: [String: String]? = nil
    ) throws -> RawResponse {
        let body =
            form.map { fields in
                fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
            } ?? ""
        let socket = try LoopbackSocket(port: port)
        socket.send(
            raw(
                method, target, port: port, session: session,
                headers: form == nil ? [] : ["Content-Type: application/x-www-form-urlencoded"], body: Data(body.utf8)))
        return try socket.receive()
    }

    /// A multipart form body as a browser sends a file input: the `csrf` field, then field `file` holding
    /// `size` bytes. Returns the Content-Type header line and the body.
    public static func multipart(csrf: String, fileBytes size: Int, boundary: String = "cairnBoundary42") -> (header: String, body: Data) {
        var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n\(csrf)\r\n".utf8)
        body.append(
            Data(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"export.zip\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                    .utf8))
        body.append(Data(repeating: 0x41, count: size))
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        return ("Content-Type: multipart/form-data; boundary=\(boundary)", body)
    }
}
