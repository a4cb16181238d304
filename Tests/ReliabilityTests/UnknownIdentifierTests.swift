import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import Testing
import WebApp

/// Finding 6: an identifier in an address that names nothing answers 404 in every journal (Smile ids answered
/// 500), whether it is well formed or not, for a page, a photo or a form post.
@Suite struct UnknownIdentifierTests {
    static let secret = String(repeating: "s", count: 43)
    static let csrf = String(repeating: "c", count: 43)
    static let host = "127.0.0.1:8737"
    static let uuid = "0f0f0f0f-1111-4222-8333-444444444444"

    static func site(in scratch: Scratch) throws -> WebApplication {
        let cairn = try CairnApplication.open(dataDirectory: scratch.file("vault").path, environment: [:])
        try cairn.settings.completeOnboarding()
        let services = WebServices(cairn)
        let configuration = try WebConfiguration(port: 8737, secret: secret, csrfToken: csrf)
        return buildApplication(configuration: configuration, services: services)
    }

    static func request(_ method: HTTPMethod, _ target: String) -> Request {
        var headers = ["Host": host, "Cookie": "cairn_session=\(secret)"]
        var body = Data()
        if method == .post {
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = Data("csrf=\(csrf)&x=10&y=10&side=200&note=&servings=1&value=1&date=2026-01-01&reason=typo&name=Left%20arm".utf8)
        }
        return Request(method: method, target: target, headers: headers, body: body)
    }

    static let pages: [String] = [
        "/smile/photo/ffffffff", "/smile/photo/\(uuid)", "/smile/export/ffffffff", "/smile/delete/\(uuid)",
        "/smile/crop/no-such-upload",
        "/skin/areas/\(uuid)", "/skin/areas/\(uuid)/trend", "/skin/areas/\(uuid)/entries/\(uuid)",
        "/skin/areas/\(uuid)/entries/\(uuid)/photo",
        "/regimen/products/\(uuid)",
    ]
    static let posts: [String] = [
        // (Discarding an upload that is already gone is not listed: it redirects to /smile, a harmless no-op.)
        "/smile/export/ffffffff", "/smile/delete/\(uuid)", "/smile/crop/no-such-upload",
        "/skin/areas/\(uuid)/delete", "/skin/areas/\(uuid)/rename",
        "/regimen/schedules/\(uuid)/pause", "/regimen/as-needed/\(uuid)", "/regimen/doses/nothing_2020-01-01_0800/taken",
        "/regimen/products/\(uuid)/edit",
        "/regimen/outcomes/entries/\(uuid)/correct",
    ]

    @Test(arguments: pages)
    func anUnknownIdentifierInAPageAddressAnswers404(_ target: String) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let response = try Self.site(in: scratch).handle(Self.request(.get, target))
        #expect(response.status == 404, "GET \(target): \(response.status)")
    }

    @Test(arguments: posts)
    func anUnknownIdentifierInAFormPostAnswers404(_ target: String) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let response = try Self.site(in: scratch).handle(Self.request(.post, target))
        #expect(response.status == 404, "POST \(target): \(response.status)")
    }
}
