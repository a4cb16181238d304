import Foundation

/// An HTTP request method the web shell knows about.
public enum HTTPMethod: String, Sendable, CaseIterable {
    case get = "GET"
    case head = "HEAD"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"
    case options = "OPTIONS"

    /// Whether the method changes state and therefore needs a CSRF token.
    public var isStateChanging: Bool {
        switch self {
        case .post, .put, .patch, .delete: return true
        case .get, .head, .options: return false
        }
    }
}

/// One HTTP request, independent of the server that received it, so tests can call the application in process.
public struct Request: Sendable {
    /// The method; `nil` when the client sent one we do not serve (answered with 405).
    public var method: HTTPMethod?
    /// The decoded path without the query string, e.g. `/settings`.
    public var path: String
    /// Query parameters (decoded; the last value wins).
    public var query: [String: String]
    /// Header fields with lower-cased names.
    public var headers: [String: String]
    /// The raw body bytes (empty when the server decoded the body as a form).
    public var body: Data
    /// The fields of a form body (url-encoded or multipart), as the server's form parser decoded them; nil when
    /// the body was not decoded as a form.
    public var formFields: [String: Data]?

    /// Creates a request. Header names are lower-cased here.
    public init(
        method: HTTPMethod?, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: Data = Data(), formFields: [String: Data]? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        var lowered: [String: String] = [:]
        for (name, value) in headers { lowered[name.lowercased()] = value }
        self.headers = lowered
        self.body = body
        self.formFields = formFields
    }

    /// Parses a request target such as `/a/b?x=1&y=%20` into a path and query (used by tests and the adapter).
    public init(method: HTTPMethod?, target: String, headers: [String: String] = [:], body: Data = Data()) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = String(parts.first ?? "/")
        let path = rawPath.removingPercentEncoding ?? rawPath
        let query = parts.count > 1 ? FormData.parse(String(parts[1])) : [:]
        self.init(method: method, path: path.isEmpty ? "/" : path, query: query, headers: headers, body: body)
    }

    /// The value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// Cookies sent with the request (`Cookie: a=1; b=2`).
    public var cookies: [String: String] {
        guard let raw = header("cookie") else { return [:] }
        var result: [String: String] = [:]
        for pair in raw.split(separator: ";") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { continue }
            let name = kv[0].trimmingCharacters(in: .whitespaces)
            if result[name] == nil { result[name] = kv[1].trimmingCharacters(in: .whitespaces) }
        }
        return result
    }

    /// The form's text fields: the server's decoded fields when there are some, else an
    /// `application/x-www-form-urlencoded` body (as tests build requests); empty for any other body.
    public var form: [String: String] {
        if let formFields {
            // The text fields only: a file's bytes (a field with its ".filename" beside it) are not text, and decoding
            // a 12 MP photo as UTF-8 to read the CSRF field beside it cost as much as the upload itself.
            var text: [String: String] = [:]
            for (name, data) in formFields where formFields[name + ".filename"] == nil { text[name] = String(decoding: data, as: UTF8.self) }
            return text
        }
        let type = header("content-type")?.lowercased() ?? ""
        guard type.hasPrefix("application/x-www-form-urlencoded") else { return [:] }
        return FormData.parse(String(decoding: body, as: UTF8.self))
    }

    /// One form field's bytes (a file input's content, or a text field), if present.
    public func formValue(_ name: String) -> Data? {
        formFields?[name] ?? form[name].map { Data($0.utf8) }
    }
}

/// Parsing of `a=1&b=two+words` strings (query strings and url-encoded form bodies).
public enum FormData {
    /// Decodes pairs; `+` is a space, percent escapes are decoded, malformed escapes are kept as written.
    public static func parse(_ string: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in string.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(String(kv[0]))
            guard !name.isEmpty else { continue }
            result[name] = kv.count > 1 ? decode(String(kv[1])) : ""
        }
        return result
    }

    private static func decode(_ s: String) -> String {
        let spaced = s.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

/// One HTTP response. The application adds the security headers to every response it returns.
public struct Response: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// Header fields in order; a name may repeat (e.g. `Set-Cookie`).
    public var headers: [(name: String, value: String)]
    /// The body bytes.
    public var body: Data
    /// A body read from an open file instead of `body` (a large download, sent without holding it in memory):
    /// the server sends the file's bytes and closes the descriptor. See `download(file:name:type:)`.
    public var bodyFile: Int32?

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data(), bodyFile: Int32? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyFile = bodyFile
    }

    /// A file to save (`Content-Disposition: attachment`), sent from an open descriptor of a file already removed
    /// from its folder (`BackupService.createForDownload`), so nothing of it stays behind once it is sent.
    public static func download(descriptor fd: Int32, name: String, type: String) -> Response {
        Response(
            status: 200, headers: [("Content-Type", type), ("Content-Disposition", "attachment; filename=\"\(name)\"")],
            bodyFile: fd)
    }

    /// A JSON body encoded from `value` (keys sorted), never built by interpolation: a string in it is escaped by
    /// the encoder whatever it holds.
    public static func json(_ value: some Encodable, status: Int = 200) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [("Content-Type", "application/json")], body: body)
    }

    /// An HTML page.
    public static func html(_ html: String, status: Int = 200) -> Response {
        Response(status: status, headers: [("Content-Type", "text/html; charset=utf-8")], body: Data(html.utf8))
    }

    /// A short plain-text body.
    public static func text(_ text: String, status: Int) -> Response {
        Response(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data(text.utf8))
    }

    /// A `303 See Other` redirect to a path on this server (after a form post, or after login).
    public static func redirect(to location: String) -> Response {
        Response(status: 303, headers: [("Location", location)])
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body as UTF-8 text (for tests and logging of our own pages).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
