internal import CMicroHTTPD
import Foundation

// The libmicrohttpd callbacks. They live outside any `main.swift` (top-level code there is @MainActor and
// trapped when libmicrohttpd called it from its own threads; PLATFORM.md).

/// What a daemon answers with: the web app (`WebApplication`) or the phone listener's (`PhoneApplication`).
protocol HTTPAnswering: Sendable {
    /// The largest body a request to `path` may send.
    func maximumBodyBytes(forPath path: String, configured: Int) -> Int
    /// The answer to a request refused on its line and headers alone, or nil to read its body.
    func refusalBeforeBody(_ request: Request, maximumBodyBytes: Int) -> Response?
    /// Whether the request's line and headers pass the security checks (its connection is then kept).
    func passesSecurityChecks(_ request: Request) -> Bool
    /// Answers one whole request.
    func handle(_ request: Request) -> Response
    /// The response for an error, with the security headers.
    func errorResponse(_ error: WebError) -> Response
}

/// What a daemon's callbacks need: the application, the body limit and the timeouts. Immutable, shared across
/// threads.
final class ServerContext: Sendable {
    let application: any HTTPAnswering
    let maximumBodyBytes: Int
    /// The inactivity timeout once the headers are in (the daemon's own, shorter timeout covers the headers).
    let bodyTimeoutSeconds: UInt32
    /// One count per connection the server may serve at once: the accept loop takes one before it accepts, and
    /// a connection gives it back when libmicrohttpd closes it (`webConnectionNotified`).
    let connectionSlots: DispatchSemaphore
    /// The connections being served, for the header deadline and making room (`ConnectionTable`).
    let connections: ConnectionTable
    init(
        application: any HTTPAnswering, maximumBodyBytes: Int, bodyTimeoutSeconds: UInt32, maximumConnections: Int,
        headerDeadline: Duration = .seconds(WebServer.headerDeadlineSeconds)
    ) {
        self.application = application
        self.maximumBodyBytes = maximumBodyBytes
        self.bodyTimeoutSeconds = bodyTimeoutSeconds
        self.connectionSlots = DispatchSemaphore(value: maximumConnections)
        self.connections = ConnectionTable(headerDeadline: headerDeadline)
    }
}

/// libmicrohttpd's connection notifications: a connection that started (its `socket_context` is marked) gives its
/// slot back when it is closed.
func webConnectionNotified(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_ConnectionNotificationCode
) {
    guard let cls, let socketContext else { return }
    // MHD_CONNECTION_NOTIFY_STARTED is 0, MHD_CONNECTION_NOTIFY_CLOSED 1 (microhttpd.h).
    if code.rawValue == 0 {
        socketContext.pointee = cls
    } else if code.rawValue == 1, socketContext.pointee != nil, let connection {
        socketContext.pointee = nil
        let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
        context.connections.closed(cairn_mhd_connection_fd(connection))
        context.connectionSlots.signal()
    }
}

/// Per-request state kept in `req_cls` (retained there, released in the completion callback). A request is
/// handled by one thread at a time, so no locking is needed.
final class RequestState {
    /// The raw body, for requests that are not forms (a photo sent as the body, JSON).
    var body = Data()
    /// Form fields decoded by libmicrohttpd's post processor (url-encoded and multipart forms).
    var fields: [String: Data] = [:]
    /// Bytes received so far, raw or through the post processor.
    var received = 0
    /// The largest body this request's route accepts.
    var maximumBodyBytes = 0
    var tooLarge = false
    var malformed = false
    /// Set when the request was answered on its headers: any body that still arrives is dropped unread.
    var answered = false
    /// libmicrohttpd's form parser, when the body is a form.
    var postProcessor: OpaquePointer?

    /// Appends one piece of form field `name`. The value is taken out of the dictionary while it grows, so the
    /// append happens in place: a copy per piece made a 60 MB upload cost 35 s of CPU (quadratic).
    func appendField(_ name: String, _ bytes: UnsafeRawPointer, count: Int) {
        var value = fields.removeValue(forKey: name) ?? Data()
        value.append(bytes.assumingMemoryBound(to: UInt8.self), count: count)
        fields[name] = value
    }
}

/// Receives form fields, possibly in several pieces, from libmicrohttpd's post processor.
private func collectFormField(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?,
    _ filename: UnsafePointer<CChar>?, _ contentType: UnsafePointer<CChar>?,
    _ transferEncoding: UnsafePointer<CChar>?, _ data: UnsafePointer<CChar>?,
    _ offset: UInt64, _ size: Int
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let state = Unmanaged<RequestState>.fromOpaque(cls).takeUnretainedValue()
    let name = String(cString: key)
    if let filename, offset == 0 {
        // The uploaded file's own name, beside its bytes ("file.filename" for a field "file").
        state.fields[name + ".filename"] = Data(String(cString: filename).utf8)
    }
    if let data, size > 0 {
        state.appendField(name, UnsafeRawPointer(data), count: size)
    } else if state.fields[name] == nil {
        state.fields[name] = Data()
    }
    return .YES
}

/// A post processor for form bodies (url-encoded or multipart); nil for any other body.
private func makePostProcessor(
    for connection: OpaquePointer, method: UnsafePointer<CChar>?,
    state: RequestState
) -> OpaquePointer? {
    guard let method, String(cString: method) == "POST",
        let type = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Type").map({ String(cString: $0).lowercased() }),
        type.hasPrefix("multipart/form-data") || type.hasPrefix("application/x-www-form-urlencoded")
    else { return nil }
    return MHD_create_post_processor(connection, 64 * 1024, collectFormField, Unmanaged.passUnretained(state).toOpaque())
}

/// Collects header or query values into a dictionary while libmicrohttpd iterates them.
private final class ValueCollector {
    var values: [String: String] = [:]
    let separator: String
    init(separator: String) { self.separator = separator }
}

private func collectValue(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let collector = Unmanaged<ValueCollector>.fromOpaque(cls).takeUnretainedValue()
    let name = String(cString: key).lowercased()
    let text = value.map { String(cString: $0) } ?? ""
    if let existing = collector.values[name], kind == .HEADER_KIND {
        collector.values[name] = existing + (name == "cookie" ? "; " : collector.separator) + text
    } else {
        collector.values[name] = text
    }
    return .YES
}

private func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [String: String] {
    let collector = ValueCollector(separator: ", ")
    let unmanaged = Unmanaged.passRetained(collector)
    defer { unmanaged.release() }
    _ = MHD_get_connection_values(connection, kind, collectValue, unmanaged.toOpaque())
    return collector.values
}

/// The request line and headers, without a body.
private func head(of connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?) -> Request {
    Request(
        method: method.flatMap { HTTPMethod(rawValue: String(cString: $0)) },
        path: url.map { String(cString: $0) } ?? "/",
        query: values(of: connection, kind: .GET_ARGUMENT_KIND),
        headers: values(of: connection, kind: .HEADER_KIND))
}

/// The access handler: called once when the headers arrive, then for each body chunk, then once more to answer.
///
/// The first call makes every check the headers allow (Host, key, Origin, declared length against the
/// route's limit) and answers a refused request at once, before any body byte is read.
func webAccessHandler(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?,
    _ uploadData: UnsafePointer<CChar>?, _ uploadDataSize: UnsafeMutablePointer<Int>?,
    _ reqCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let reqCls else { return .NO }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    guard let statePointer = reqCls.pointee else {
        let state = RequestState()
        reqCls.pointee = Unmanaged.passRetained(state).toOpaque()
        let request = head(of: connection, url: url, method: method)
        state.maximumBodyBytes = context.application.maximumBodyBytes(forPath: request.path, configured: context.maximumBodyBytes)
        if let refusal = context.application.refusalBeforeBody(request, maximumBodyBytes: state.maximumBodyBytes) {
            state.answered = true
            var closing = refusal
            // Without the key the connection is not kept: it would hold a slot others need.
            if !context.application.passesSecurityChecks(request) {
                closing.headers.append(("Connection", "close"))
            } else {
                context.connections.authorised(cairn_mhd_connection_fd(connection))
            }
            return queue(closing, on: connection)
        }
        // (The phone listener lets the pairing page in without counting it: only a paired phone's connection is kept.)
        if context.application.passesSecurityChecks(request) { context.connections.authorised(cairn_mhd_connection_fd(connection)) }
        // The headers are in: the body may take longer between bytes than the headers were given.
        _ = cairn_mhd_set_connection_timeout(connection, context.bodyTimeoutSeconds)
        state.postProcessor = makePostProcessor(for: connection, method: method, state: state)
        return .YES
    }
    let state = Unmanaged<RequestState>.fromOpaque(statePointer).takeUnretainedValue()
    if let uploadDataSize, uploadDataSize.pointee > 0 {
        let size = uploadDataSize.pointee
        if !state.answered, !state.tooLarge, !state.malformed {
            state.received += size
            if state.received > state.maximumBodyBytes {
                state.tooLarge = true
                state.body = Data()
                state.fields = [:]
            } else if let uploadData {
                if let processor = state.postProcessor {
                    if MHD_post_process(processor, uploadData, size) != .YES { state.malformed = true }
                } else {
                    state.body.append(UnsafeRawPointer(uploadData).assumingMemoryBound(to: UInt8.self), count: size)
                }
            }
        }
        uploadDataSize.pointee = 0
        return .YES
    }
    guard !state.answered else { return .YES }

    let response: Response
    if state.tooLarge {
        response = context.application.errorResponse(.bodyTooLarge)
    } else if state.malformed {
        response = context.application.errorResponse(.badForm)
    } else {
        var request = head(of: connection, url: url, method: method)
        request.body = state.body
        request.formFields = state.postProcessor == nil ? nil : state.fields
        // While the application works (an import may take a minute) the client is not expected to send anything.
        _ = cairn_mhd_set_connection_timeout(connection, 0)
        response = context.application.handle(request)
        state.body = Data()
        state.fields = [:]
        _ = cairn_mhd_set_connection_timeout(connection, context.bodyTimeoutSeconds)
    }
    state.answered = true
    return queue(response, on: connection)
}

private func queue(_ response: Response, on connection: OpaquePointer) -> MHD_Result {
    var bytes = [UInt8](response.body)
    let mhdResponse: OpaquePointer?
    if let fd = response.bodyFile {
        // libmicrohttpd reads the file as it sends and closes the descriptor with the response.
        var info = stat()
        mhdResponse = fstat(fd, &info) == 0 ? MHD_create_response_from_fd64(UInt64(info.st_size), fd) : nil
        if mhdResponse == nil { close(fd) }
    } else {
        mhdResponse = bytes.withUnsafeMutableBytes { buffer in
            // MUST_COPY: libmicrohttpd keeps its own copy, so the Swift buffer may go away after this call.
            MHD_create_response_from_buffer(buffer.count, buffer.baseAddress, .RESPMEM_MUST_COPY)
        }
    }
    guard let mhdResponse else { return .NO }
    defer { MHD_destroy_response(mhdResponse) }
    for header in response.headers {
        _ = MHD_add_response_header(mhdResponse, header.name, header.value)
    }
    bytes.removeAll()
    return MHD_queue_response(connection, UInt32(response.status), mhdResponse)
}

/// Releases the per-request state when libmicrohttpd is done with a request (answered or aborted).
func webRequestCompleted(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ reqCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_RequestTerminationCode
) {
    guard let reqCls, let pointer = reqCls.pointee else { return }
    let state = Unmanaged<RequestState>.fromOpaque(pointer).takeUnretainedValue()
    if let processor = state.postProcessor { _ = MHD_destroy_post_processor(processor) }
    Unmanaged<RequestState>.fromOpaque(pointer).release()
    reqCls.pointee = nil
}
