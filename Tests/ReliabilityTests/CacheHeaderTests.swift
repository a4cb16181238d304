import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import Testing

/// Finding 2: photos were served `private, max-age=3600`, so browsers kept copies outside the vault.
@Suite struct CacheHeaderTests {
    @Test func everyRouteAnswersNoStoreAndNothingElse() throws {
        let vault = try ServedVault(maximumBodyBytes: 4096)
        let area = try vault.app.skin.addArea(name: "Left forearm")
        let first = try vault.app.skin.log(photo: try Photos.jpeg(seed: 0), in: area.id)
        let second = try vault.app.skin.log(photo: try Photos.jpeg(seed: 9), in: area.id)
        let areaPath = "/skin/areas/\(area.id.rawValue)"
        let port = vault.port
        var responses: [(String, RawResponse)] = []
        for target in [
            "/", "/welcome/1", "/skin", areaPath, "\(areaPath)/trend", "\(areaPath)/capture",
            "\(areaPath)/entries/\(first.id.rawValue)", "\(areaPath)/entries/\(first.id.rawValue)/photo.jpg",
            "\(areaPath)/entries/\(first.id.rawValue)/thumbnail.jpg",
            "\(areaPath)/entries/\(second.id.rawValue)/change-map.jpg", "/smile", "/smile/capture",
            "/regimen", "/regimen/outcomes", "/regimen/outcomes/health", "/regimen/insights",
            "/settings", "/settings/delete", "/assets/cairn.css", "/assets/skin.js", "/assets/mark.svg",
            "/no/such/page", "/smile/entries/unknown",
        ] {
            responses.append((target, try HTTP.request("GET", target, port: port)))
        }
        responses.append(("login", try HTTP.request("GET", "/?key=\(Keys.secret)", port: port, cookie: false)))
        responses.append(("no key", try HTTP.request("GET", "/settings", port: port, cookie: false)))
        responses.append(("wrong host", try HTTP.request("GET", "/settings", port: port, headers: ["Host: evil.example"])))
        responses.append(("post", try HTTP.post("/settings/comparison-details", port: port, form: ["value": "on"])))
        responses.append(
            (
                "no csrf",
                try HTTP.request(
                    "POST", "/settings/comparison-details", port: port,
                    headers: ["Content-Type: application/x-www-form-urlencoded"],
                    body: Data("value=on".utf8))
            ))
        responses.append(
            (
                "too large",
                try HTTP.request(
                    "POST", "/settings/comparison-details", port: port,
                    headers: ["Content-Type: application/x-www-form-urlencoded"],
                    body: Data(repeating: 0x61, count: 8192))
            ))
        responses.append(
            (
                "photo post",
                try HTTP.request(
                    "POST", "\(areaPath)/photos", port: port,
                    headers: ["X-CSRF-Token: \(Keys.csrf)", "Content-Type: image/jpeg"],
                    body: Data([0xFF, 0xD8]))
            ))
        #expect(responses.contains { $0.1.head.contains("Content-Type: image/jpeg") && $0.1.status == 200 })
        for (target, response) in responses {
            #expect(response.status != 0, "\(target) got no answer")
            #expect(
                response.headers("Cache-Control") == ["no-store"], "\(target) answered \(response.status) with \(response.headers("Cache-Control"))")
        }
    }
}
