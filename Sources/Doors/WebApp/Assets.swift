import Foundation

/// The bundled stylesheet, script and mark, served under `/assets/NAME`. Loaded once; nothing is fetched.
struct AssetStore: Sendable {
    struct Asset: Sendable {
        let contentType: String
        let data: Data
    }

    let assets: [String: Asset]

    /// Reads every file in the bundled `Assets` folder.
    static func bundled() -> AssetStore {
        var assets: [String: Asset] = [:]
        if let dir = Bundle.module.url(forResource: "Assets", withExtension: nil),
            let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path)
        {
            for name in names {
                guard let type = contentType(forFileName: name),
                    let data = FileManager.default.contents(atPath: dir.appendingPathComponent(name).path)
                else { continue }
                assets[name] = Asset(contentType: type, data: data)
            }
        }
        return AssetStore(assets: assets)
    }

    /// The content type for the kinds of files we bundle; nil for anything else (not served).
    static func contentType(forFileName name: String) -> String? {
        switch (name as NSString).pathExtension.lowercased() {
        case "css": return "text/css; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "woff2": return "font/woff2"
        default: return nil
        }
    }

    /// The asset named `name` (a bare file name; paths with `/` or `..` never match).
    func asset(named name: String) -> Asset? { assets[name] }

    /// `GET /assets/NAME`.
    func routes() -> [Route] {
        [
            route(.get, "/assets/{name}") { r in
                guard let asset = asset(named: r.parameter("name")) else { throw WebError.notFound }
                return Response(status: 200, headers: [("Content-Type", asset.contentType)], body: asset.data)
            }
        ]
    }
}
