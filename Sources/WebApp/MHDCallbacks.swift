internal import CMicroHTTPD
import Foundation

// The libmicrohttpd callbacks. They live outside any `main.swift` (top-level code there is @MainActor and
// trapped when libmicrohttpd called it from its own threads; PLATFORM.md).

/// What a daemon's callbacks need: the application and the body limit. Immutable, shared across threads.
final class ServerContext: Sendable {
    let application: WebApplication
    let maximumBodyBytes: Int
    init(application: WebApplication, maximumBodyBytes: Int) {
        self.application = application
        self.maximumBodyBytes = maximumBodyBytes
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
    var tooLarge = false
    var malformed = false
    /// libmicrohttpd's form parser, when the body is a form.
    var postProcessor: OpaquePointer?
}

/// Receives form fields, possibly in several pieces, from libmicrohttpd's post processor.
private func collectFormField(_ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?,
                              _ filename: UnsafePointer<CChar>?, _ contentType: UnsafePointer<CChar>?,
                              _ transferEncoding: UnsafePointer<CChar>?, _ data: UnsafePointer<CChar>?,
                              _ offset: UInt64, _ size: Int) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let state = Unmanaged<RequestState>.fromOpaque(cls).takeUnretainedValue()
    let name = String(cString: key)
    var value = state.fields[name] ?? Data()
    if let data, size > 0 {
        value.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: size)
    }
    state.fields[name] = value
    return .YES
}

/// A post processor for form bodies (url-encoded or multipart); nil for any other body.
private func makePostProcessor(for connection: OpaquePointer, method: UnsafePointer<CChar>?,
                               state: RequestState) -> OpaquePointer? {
    guard let method, String(cString: method) == "POST",
          let type = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Type").map({ String(cString: $0).lowercased() }),
          type.hasPrefix("multipart/form-data") || type.hasPrefix("application/x-www-form-urlencoded") else { return nil }
    return MHD_create_post_processor(connection, 64 * 1024, collectFormField, Unmanaged.passUnretained(state).toOpaque())
}

/// Collects header or query values into a dictionary while libmicrohttpd iterates them.
private final class ValueCollector {
    var values: [String: String] = [:]
    let separator: String
    init(separator: String) { self.separator = separator }
}

private func collectValue(_ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?,
                          _ value: UnsafePointer<CChar>?) -> MHD_Result {
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

/// The access handler: called once when headers arrive, then for each body chunk, then once more to answer.
func webAccessHandler(_ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
                      _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?,
                      _ uploadData: UnsafePointer<CChar>?, _ uploadDataSize: UnsafeMutablePointer<Int>?,
                      _ reqCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> MHD_Result {
    guard let cls, let connection, let reqCls else { return .NO }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    guard let statePointer = reqCls.pointee else {
        let state = RequestState()
        state.postProcessor = makePostProcessor(for: connection, method: method, state: state)
        reqCls.pointee = Unmanaged.passRetained(state).toOpaque()
        return .YES
    }
    let state = Unmanaged<RequestState>.fromOpaque(statePointer).takeUnretainedValue()
    if let uploadDataSize, uploadDataSize.pointee > 0 {
        let size = uploadDataSize.pointee
        if !state.tooLarge, !state.malformed {
            state.received += size
            if state.received > context.maximumBodyBytes {
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

    let response: Response
    if state.tooLarge {
        response = context.application.errorResponse(.bodyTooLarge)
    } else if state.malformed {
        response = context.application.errorResponse(.badForm)
    } else {
        let request = Request(method: method.flatMap { HTTPMethod(rawValue: String(cString: $0)) },
                              path: url.map { String(cString: $0) } ?? "/",
                              query: values(of: connection, kind: .GET_ARGUMENT_KIND),
                              headers: values(of: connection, kind: .HEADER_KIND),
                              body: state.body, formFields: state.postProcessor == nil ? nil : state.fields)
        response = context.application.handle(request)
    }
    return queue(response, on: connection)
}

private func queue(_ response: Response, on connection: OpaquePointer) -> MHD_Result {
    var bytes = [UInt8](response.body)
    let mhdResponse: OpaquePointer? = bytes.withUnsafeMutableBytes { buffer in
        // MUST_COPY: libmicrohttpd keeps its own copy, so the Swift buffer may go away after this call.
        MHD_create_response_from_buffer(buffer.count, buffer.baseAddress, .RESPMEM_MUST_COPY)
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
func webRequestCompleted(_ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
                         _ reqCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_RequestTerminationCode) {
    guard let reqCls, let pointer = reqCls.pointee else { return }
    let state = Unmanaged<RequestState>.fromOpaque(pointer).takeUnretainedValue()
    if let processor = state.postProcessor { _ = MHD_destroy_post_processor(processor) }
    Unmanaged<RequestState>.fromOpaque(pointer).release()
    reqCls.pointee = nil
}
