import CairnCore

/// The web app's route table: every page is one `route(.get, "/skin/areas/{area}/trend") { ... }` line in the
/// `routes(...)` of its page group, and the table alone decides which handler answers, or that the answer is 404
/// (no route has this path) or 405 with an `Allow` header (routes have this path, none for this method).
///
/// A pattern is a path of literal segments and `{name}` parameters; a parameter matches any one segment. When several
/// patterns match a path, the most specific wins: at the first segment where they differ, a literal beats a
/// parameter (`/regimen/products/new` beats `/regimen/products/{product}`). Empty segments are ignored, so
/// `/skin/` is `/skin`. HEAD is answered as GET.
struct Route: Sendable {
    /// One segment of a pattern.
    enum Segment: Equatable, Sendable {
        case literal(String)
        case parameter(String)
    }

    let method: HTTPMethod
    let pattern: [Segment]
    let handler: @Sendable (RouteRequest) throws -> Response

    /// The pattern as written, e.g. `/skin/areas/{area}` (for tests and messages).
    var path: String {
        "/"
            + pattern.map { segment in
                switch segment {
                case .literal(let text): return text
                case .parameter(let name): return "{\(name)}"
                }
            }.joined(separator: "/")
    }

    /// The parameters when `segments` match the pattern, else nil.
    func match(_ segments: [String]) -> [String: String]? {
        guard segments.count == pattern.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, text) in zip(pattern, segments) {
            switch segment {
            case .literal(let literal): guard literal == text else { return nil }
            case .parameter(let name): parameters[name] = text
            }
        }
        return parameters
    }

    /// Whether this pattern is more specific than `other` (a literal beats a parameter at the first difference).
    func isMoreSpecific(than other: Route) -> Bool {
        for (mine, theirs) in zip(pattern, other.pattern) {
            switch (mine, theirs) {
            case (.literal, .parameter): return true
            case (.parameter, .literal): return false
            default: continue
            }
        }
        return false
    }
}

/// Declares one route: `route(.post, "/skin/areas/{area}/rename") { request in ... }`.
func route(_ method: HTTPMethod, _ path: String, _ handler: @escaping @Sendable (RouteRequest) throws -> Response) -> Route {
    let pattern = path.split(separator: "/").map { part -> Route.Segment in
        part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
    }
    return Route(method: method, pattern: pattern, handler: handler)
}

/// A request as a handler sees it: the request itself and the pattern's parameters.
struct RouteRequest: Sendable {
    let request: Request
    let parameters: [String: String]

    /// The value of the pattern's `{name}` segment (the pattern guarantees it is there).
    func parameter(_ name: String) -> String {
        guard let value = parameters[name] else { preconditionFailure("the route's pattern has no {\(name)}") }
        return value
    }

    /// The `{name}` segment read by its type's one parser (`TextParsable`). A segment the parser refuses names
    /// nothing, so it answers 404 like an identifier that names no record.
    func parameter<Value: TextParsable>(_ name: String, as type: Value.Type) throws -> Value {
        do { return try Value.parse(parameter(name)) } catch is any CairnError { throw WebError.notFound }
    }

    /// Query parameters of the request.
    var query: [String: String] { request.query }
    /// The form's text fields.
    var form: [String: String] { request.form }
}

extension [String: String] {
    /// The form or query field `name` read by its type's one parser (`TextParsable`); nil when it is absent or
    /// blank. Throws the parser's refusal, for the page to show beside the field.
    func value<Parsed: TextParsable>(_ name: String, as type: Parsed.Type) throws -> Parsed? {
        guard let text = self[name], !text.allSatisfy(\.isWhitespace) else { return nil }
        return try Parsed.parse(text)
    }
}

/// The table of every route, and the one place that matches a request against it.
struct Router: Sendable {
    /// What the table answers for a method and a path.
    enum Match {
        case found(Route, parameters: [String: String])
        /// Routes have this path, none for this method; `allowed` is for the `Allow` header.
        case methodNotAllowed(allowed: [HTTPMethod])
        case notFound
    }

    let routes: [Route]

    /// Builds the table; two routes with one method and one pattern are a programming error.
    init(_ routes: [Route]) {
        var seen: Set<String> = []
        for route in routes {
            let key = "\(route.method.rawValue) \(route.path)"
            precondition(seen.insert(key).inserted, "two routes for \(key)")
        }
        self.routes = routes
    }

    /// The route for `method` (HEAD as GET; nil: a method we do not serve) at `path`.
    func match(method: HTTPMethod?, path: String) -> Match {
        let segments = path.split(separator: "/").map(String.init)
        var best: [(route: Route, parameters: [String: String])] = []
        for route in routes {
            guard let parameters = route.match(segments) else { continue }
            if let first = best.first {
                if route.isMoreSpecific(than: first.route) {
                    best = [(route, parameters)]
                } else if !first.route.isMoreSpecific(than: route) {
                    best.append((route, parameters))
                }
            } else {
                best = [(route, parameters)]
            }
        }
        guard !best.isEmpty else { return .notFound }
        let wanted = method == .head ? .get : method
        if let hit = best.first(where: { $0.route.method == wanted }) { return .found(hit.route, parameters: hit.parameters) }
        var allowed = best.map(\.route.method)
        if allowed.contains(.get) { allowed.insert(.head, at: allowed.firstIndex(of: .get)! + 1) }
        return .methodNotAllowed(allowed: allowed)
    }
}
