import Foundation

/// Label records in the JSON format of the NIH Dietary Supplement Label Database (DSLD: its API v9 and bulk
/// download; `fullName`, `brandName`, `upcSku`, `servingSizes`, `physicalState`, `ingredientRows` with
/// `quantity[].dailyValueTargetGroup[]`, `forms[]` and `nestedRows`, `entryDate`, `offMarket`), made from the
/// facts of 148 real labels in ../shared/data/labels/dsld-labels.json (a cleaned shape of the same data). The
/// cleaned file has no barcodes: each label gets a made-up UPC-A with a right check digit (`upc(for:)`), written
/// with spaces as DSLD writes them.
public enum DSLDFixtures {
    /// The cleaned file.
    public static var cleanedURL: URL { SharedData.root.appendingPathComponent("labels/dsld-labels.json") }

    /// The 148 labels as DSLD label objects, in the cleaned file's order.
    public static func labels() throws -> [[String: Any]] {
        let cleaned = try JSONSerialization.jsonObject(with: Data(contentsOf: cleanedURL)) as? [[String: Any]] ?? []
        return cleaned.enumerated().map { index, label in raw(label, index: index) }
    }

    /// One label as JSON bytes.
    public static func json(_ label: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: label, options: [.sortedKeys])
    }

    /// Labels as one JSON array (DSLD's bulk file as one large array).
    public static func jsonArray(_ labels: [[String: Any]]) throws -> Data {
        try JSONSerialization.data(withJSONObject: labels, options: [.prettyPrinted, .sortedKeys])
    }

    /// Writes a zip at `url` holding `members` (name and bytes), with the `zip` tool.
    public static func zip(_ members: [(name: String, data: Data)], to url: URL) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        for member in members {
            let file = scratch.file(member.name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try member.data.write(to: file)
        }
        guard let zip = Tools.path(of: "zip") else { throw ToolFailure(tool: "zip", message: "not installed") }
        try? FileManager.default.removeItem(at: url)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: zip)
        process.arguments = ["-q", "-r", url.path] + members.map(\.name)
        process.currentDirectoryURL = scratch.url
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ToolFailure(tool: "zip", message: "exit \(process.terminationStatus)") }
    }

    /// A made-up UPC-A for label `index`: "0 7" then the index, and its GS1 check digit, spaced as DSLD writes it
    /// ("0 70000 00012 3").
    public static func upc(for index: Int) -> String {
        let body = "07" + String(format: "%09d", index + 1)
        let digits = body + String(checkDigit(of: body))
        let d = Array(digits)
        return "\(d[0]) \(String(d[1...5])) \(String(d[6...10])) \(d[11])"
    }

    /// The GS1 check digit of `body` (the digits before it).
    public static func checkDigit(of body: String) -> Int {
        let values = body.compactMap(\.wholeNumberValue)
        var sum = 0
        for (position, value) in values.reversed().enumerated() { sum += value * (position % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10
    }

    /// The DSLD label object for a cleaned label.
    static func raw(_ label: [String: Any], index: Int) -> [String: Any] {
        let id = Int(label["dsldId"] as? String ?? "") ?? (100_000 + index)
        let serving = (label["servingSizes"] as? [[String: Any]])?.first ?? [:]
        let active = label["activeIngredients"] as? [[String: Any]] ?? []
        var rows: [[String: Any]] = []
        var members: [String: [[String: Any]]] = [:]
        for item in active {
            let row = ingredientRow(item, serving: serving)
            if let parent = item["parentBlend"] as? String, active.contains(where: { ($0["name"] as? String) == parent }) {
                members[parent, default: []].append(row)
            } else {
                rows.append(row)
            }
        }
        rows = rows.map { row in
            var row = row
            if let name = row["name"] as? String, let nested = members[name] { row["nestedRows"] = nested }
            return row
        }
        let year = 2011 + index % 13
        return [
            "id": id, "fullName": label["product"] as? String ?? "", "brandName": label["brand"] as? String ?? "",
            "upcSku": upc(for: index), "entryDate": String(format: "%04d-%02d-%02d", year, 1 + index % 12, 1 + index % 28),
            "offMarket": index % 10 == 9 ? 1 : 0, "productVersionCode": "1",
            "physicalState": ["langualCode": "E0000", "langualCodeDescription": label["physicalState"] as? String ?? ""],
            "servingSizes": [
                [
                    "order": 1, "minQuantity": serving["minQuantity"] ?? 1, "maxQuantity": serving["maxQuantity"] ?? 1,
                    "unit": serving["unit"] ?? "", "minDailyServings": serving["minDailyServings"] ?? 1,
                    "maxDailyServings": serving["maxDailyServings"] ?? 1,
                ]
            ],
            "servingsPerContainer": "\(label["servingsPerContainer"] ?? "")",
            "netContents": [["order": 1, "display": label["netContents"] ?? ""]],
            "ingredientRows": rows,
            "otheringredients": [
                "ingredients": (label["otherIngredients"] as? [String] ?? []).enumerated().map { ["order": $0.offset + 1, "name": $0.element] }
            ],
            "statements": (label["statements"] as? [String] ?? []).map { ["type": "Other", "notes": $0] },
            "events": [["date": "2011-06-21", "type": "Date entered into DSLD"]],
        ]
    }

    static func ingredientRow(_ item: [String: Any], serving: [String: Any]) -> [String: Any] {
        var quantity: [String: Any] = [
            "servingSizeOrder": 1, "servingSizeQuantity": serving["minQuantity"] ?? 1, "servingSizeUnit": serving["unit"] ?? "",
            "operator": "=", "quantity": item["quantity"] ?? 0, "unit": item["unit"] ?? "NP",
        ]
        if let percent = item["dailyValuePercent"] as? Double, percent > 0 {
            quantity["dailyValueTargetGroup"] = [
                ["name": "Adults and children 4 or more years of age", "operator": "=", "percent": percent, "footnote": NSNull()]
            ]
        } else {
            quantity["dailyValueTargetGroup"] = [[String: Any]]()
        }
        let forms = (item["forms"] as? [String] ?? []).filter { $0 != "unspecified" }.enumerated().map {
            ["order": $0.offset + 1, "name": $0.element, "prefix": "as"]
        }
        return [
            "order": item["order"] ?? 0, "ingredientId": 1000 + (item["order"] as? Int ?? 0), "name": item["name"] ?? "",
            "category": "other", "ingredientGroup": item["name"] ?? "", "notes": item["labelNote"] ?? "", "quantity": [quantity],
            "forms": forms, "nestedRows": [[String: Any]](),
        ]
    }
}
