import Foundation

/// The bundled ingredient catalogue (Resources/catalogue.json): supplement ingredients with synonyms,
/// forms, label unit, FDA Daily Value and upper limit where they exist, plus medication classes, each
/// citing its public sources. Figures are shown for context only.
public struct Catalogue: Sendable {
    /// The cited documents.
    public let sources: [CatalogueSource]
    /// All entries, in file order.
    public let ingredients: [CatalogueIngredient]
    /// Normalised texts that name more than one entry (a data error; the validation test keeps it empty).
    public let collisions: [String: [String]]

    private let byID: [String: CatalogueIngredient]
    private let index: [String: [IndexEntry]]
    private let strippedIndex: [String: [IndexEntry]]
    private let fuzzyKeys: [(key: String, prepared: CatalogueText.Prepared, entries: [IndexEntry])]

    private struct IndexEntry: Hashable, Sendable {
        let ingredientID: String
        let formName: String?
        let kind: CatalogueMatchKind
        let text: String
    }

    /// The catalogue bundled with Cairn, read once per process. Throws `RegimenError.catalogueUnreadable`
    /// when the resource is missing or malformed.
    public static func bundled() throws -> Catalogue { try bundledResult.get() }

    private static let bundledResult: Result<Catalogue, RegimenError> = {
        do { return .success(try loadBundled()) } catch let error as RegimenError { return .failure(error) } catch {
            return .failure(RegimenError.catalogueUnreadable("the resource file cannot be read"))
        }
    }()

    private static func loadBundled() throws -> Catalogue {
        guard
            let url = Bundle.module.url(forResource: "catalogue", withExtension: "json", subdirectory: "Resources")
                ?? Bundle.module.url(forResource: "catalogue", withExtension: "json")
        else {
            throw RegimenError.catalogueUnreadable("the resource file is missing")
        }
        do {
            return try Catalogue(jsonData: try Data(contentsOf: url))
        } catch let error as RegimenError {
            throw error
        } catch {
            throw RegimenError.catalogueUnreadable("the resource file cannot be read")
        }
    }

    /// A catalogue from JSON in the bundled format. Throws `RegimenError.catalogueUnreadable`.
    public init(jsonData: Data) throws {
        let file: CatalogueFile
        do {
            file = try JSONDecoder().decode(CatalogueFile.self, from: jsonData)
        } catch let error as RegimenError {
            throw RegimenError.catalogueUnreadable("an amount in it is invalid (\(error.userMessage))")
        } catch let DecodingError.dataCorrupted(context) {
            throw RegimenError.catalogueUnreadable("it is not in the expected format at \(Catalogue.path(context.codingPath))")
        } catch let DecodingError.keyNotFound(key, context) {
            throw RegimenError.catalogueUnreadable("\(key.stringValue) is missing at \(Catalogue.path(context.codingPath))")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw RegimenError.catalogueUnreadable("a value has the wrong type at \(Catalogue.path(context.codingPath))")
        } catch {
            throw RegimenError.catalogueUnreadable("it is not in the expected format")
        }
        sources = file.sources
        ingredients = try file.ingredients.map { try $0.model() }
        byID = Dictionary(ingredients.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })

        var index: [String: [IndexEntry]] = [:]
        func add(_ text: String, _ id: String, _ form: String?, _ kind: CatalogueMatchKind) {
            let key = CatalogueText.normalised(text)
            guard !key.isEmpty else { return }
            let entry = IndexEntry(ingredientID: id, formName: form, kind: kind, text: text)
            // Within one entry the first (most specific) naming wins: name, synonyms, forms, members.
            if index[key]?.contains(where: { $0.ingredientID == id }) == true { return }
            index[key, default: []].append(entry)
        }
        for ing in ingredients {
            add(ing.name, ing.id, nil, .name)
            for s in ing.synonyms { add(s, ing.id, nil, .synonym) }
            for f in ing.forms { for t in [f.name] + f.synonyms { add(t, ing.id, f.name, .form) } }
            for m in ing.members { add(m, ing.id, nil, .member) }
        }
        self.index = index
        collisions = index.filter { $0.value.count > 1 }.mapValues { $0.map(\.ingredientID) }
        var stripped: [String: [IndexEntry]] = [:]
        for (key, entries) in index {
            let s = Catalogue.withoutFillerWords(key)
            if !s.isEmpty, s != key { stripped[s, default: []].append(contentsOf: entries) }
        }
        strippedIndex = stripped
        fuzzyKeys = index.filter { $0.key.count >= 4 }.sorted { $0.key < $1.key }
            .map { (key: $0.key, prepared: CatalogueText.Prepared($0.key), entries: $0.value) }
    }

    private static func path(_ keys: [CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }

    /// The entry with `id`.
    public func ingredient(id: String) -> CatalogueIngredient? { byID[id] }

    /// The number of entries per category.
    public var countsByCategory: [IngredientCategory: Int] {
        Dictionary(grouping: ingredients, by: \.category).mapValues(\.count)
    }

    /// The source with `id`.
    public func source(id: String) -> CatalogueSource? { sources.first { $0.id == id } }

    // MARK: lookup

    /// The entry a label text names exactly (after normalisation: case, diacritics and punctuation are
    /// ignored), including "Name (as Form)" and "Form" texts. Nil when nothing matches exactly or the
    /// text names more than one entry.
    public func lookup(_ text: String) -> CatalogueMatch? {
        if let m = exact(text) { return m }
        if let (head, inner) = Catalogue.splitForm(text) {
            let h = exact(head)
            let formFromInner = inner.flatMap { formMatch($0, within: h?.ingredient, fuzzy: false) }
            if let h {
                return combine(h, formFromInner)
            }
            return formFromInner
        }
        return nil
    }

    /// The best entry for a label text: an exact `lookup`, else the best fuzzy candidate scoring at
    /// least `minimumScore` (for OCR errors such as "Magnesiurn" or "cholecalciferoI").
    public func match(_ text: String, minimumScore: Double = 0.8) -> CatalogueMatch? {
        if let m = lookup(text) { return m }
        if let (head, inner) = Catalogue.splitForm(text) {
            let h = exact(head) ?? candidates(for: head, limit: 1, minimumScore: minimumScore).first
            if let h {
                let f = inner.flatMap { formMatch($0, within: h.ingredient, fuzzy: true, minimumScore: minimumScore) }
                return combine(h, f)
            }
            if let inner, let f = formMatch(inner, within: nil, fuzzy: true, minimumScore: minimumScore) { return f }
        }
        return candidates(for: text, limit: 1, minimumScore: minimumScore).first
    }

    /// Similar catalogue entries for `text`, best first, one per entry and form, with scores in 0...1.
    /// Texts shorter than four characters are only matched exactly (no fuzzy candidates).
    /// - Complexity: O(k * n * m) for k catalogue texts of length m and a query of length n.
    public func candidates(for text: String, limit: Int = 5, minimumScore: Double = 0.7) -> [CatalogueMatch] {
        let query = CatalogueText.normalised(text)
        guard limit > 0 else { return [] }
        guard query.count >= 4 else { return lookup(text).map { [$0] } ?? [] }
        let strippedQuery = Catalogue.withoutFillerWords(query)
        let queries = Set([query, strippedQuery].filter { !$0.isEmpty }).map { ($0, CatalogueText.Prepared($0)) }
        var best: [String: (IndexEntry, Double, Bool)] = [:]
        for (key, prepared, entries) in fuzzyKeys {
            var score = 0.0
            var isExact = false
            for (q, preparedQuery) in queries {
                if q == key {
                    score = 1
                    isExact = true
                    break
                }
                // Cheap bound: the length difference alone already limits the similarity.
                func bound(_ m: Int, _ n: Int) -> Double { 1 - Double(abs(m - n)) / Double(max(m, n, 1)) }
                guard
                    max(
                        bound(preparedQuery.plain.count, prepared.plain.count),
                        bound(preparedQuery.folded.count, prepared.folded.count)) >= minimumScore
                else { continue }
                // A text equal only after OCR folding scores just below an exact match.
                score = max(score, min(CatalogueText.similarity(preparedQuery, prepared, floor: minimumScore), 0.99))
            }
            guard score >= minimumScore else { continue }
            for e in entries {
                let slot = e.ingredientID + "|" + (e.formName ?? "")
                if (best[slot]?.1 ?? -1) < score { best[slot] = (e, score, isExact) }
            }
        }
        return best.values
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0.text < $1.0.text }
            .prefix(limit)
            .compactMap { entry, score, isExact in
                match(entry, kind: isExact ? entry.kind : .fuzzy, score: score)
            }
    }

    // MARK: private

    /// An exact match of the normalised text, else of the text without filler words ("organic",
    /// "root", "extract", ...) when that names exactly one entry.
    private func exact(_ text: String) -> CatalogueMatch? {
        let key = CatalogueText.normalised(text)
        if let entries = index[key] {
            return entries.count == 1 ? match(entries[0], kind: entries[0].kind, score: 1) : nil
        }
        let stripped = Catalogue.withoutFillerWords(key)
        let entries = index[stripped] ?? strippedIndex[stripped] ?? []
        guard let first = entries.first, Set(entries.map(\.ingredientID)).count == 1 else { return nil }
        let sameForm = Set(entries.map { $0.formName ?? "" }).count == 1
        return match(
            sameForm ? first : IndexEntry(ingredientID: first.ingredientID, formName: nil, kind: first.kind, text: first.text),
            kind: first.kind, score: 1)
    }

    private func match(_ e: IndexEntry, kind: CatalogueMatchKind, score: Double) -> CatalogueMatch? {
        guard let ing = byID[e.ingredientID] else { return nil }
        return CatalogueMatch(
            ingredient: ing, form: e.formName.flatMap { ing.form(named: $0) }, kind: kind,
            score: score, matchedText: e.text)
    }

    /// The form named in the parenthesis. Several different forms ("retinyl palmitate and beta-carotene")
    /// give nil, since the mixture fixes no single form.
    private func formMatch(
        _ inner: String, within ingredient: CatalogueIngredient?, fuzzy: Bool,
        minimumScore: Double = 1
    ) -> CatalogueMatch? {
        let parts = Catalogue.splitList(inner)
        var found: [CatalogueMatch] = []
        for part in parts {
            var m: CatalogueMatch?
            if let ingredient {
                if let f = ingredient.form(named: part) {
                    m = CatalogueMatch(ingredient: ingredient, form: f, kind: .form, score: 1, matchedText: f.name)
                } else if fuzzy {
                    let q = CatalogueText.normalised(part)
                    let scored = ingredient.forms.flatMap { f in
                        ([f.name] + f.synonyms).map { (f, CatalogueText.similarity(q, CatalogueText.normalised($0))) }
                    }
                    if let (f, s) = scored.max(by: { $0.1 < $1.1 }), s >= minimumScore, q.count >= 4 {
                        m = CatalogueMatch(ingredient: ingredient, form: f, kind: .fuzzy, score: s, matchedText: f.name)
                    }
                }
            } else {
                m = exact(part) ?? (fuzzy ? candidates(for: part, limit: 1, minimumScore: minimumScore).first : nil)
            }
            if let m { found.append(m) }
        }
        guard let first = found.first else { return nil }
        let distinctForms = Set(found.compactMap { $0.form?.name })
        if distinctForms.count > 1 || Set(found.map(\.ingredient.id)).count > 1 {
            return CatalogueMatch(ingredient: first.ingredient, form: nil, kind: first.kind, score: first.score, matchedText: first.matchedText)
        }
        return first
    }

    private func combine(_ head: CatalogueMatch, _ form: CatalogueMatch?) -> CatalogueMatch {
        guard let form, form.ingredient.id == head.ingredient.id else { return head }
        let isFuzzy = head.kind == .fuzzy || form.kind == .fuzzy
        return CatalogueMatch(
            ingredient: head.ingredient, form: form.form ?? head.form,
            kind: isFuzzy ? .fuzzy : (form.form != nil ? .form : head.kind),
            score: min(head.score, form.score), matchedText: form.matchedText)
    }

    /// Splits "Magnesium (as magnesium glycinate)" into ("Magnesium", "magnesium glycinate"); also
    /// "X as Y", "X from Y", "X (Form: as 100% Y)". Nil when the text has no such part.
    static func splitForm(_ text: String) -> (String, String?)? {
        var head = text
        var inner: String?
        if let open = text.firstIndex(of: "(") {
            head = String(text[..<open])
            let rest = text[text.index(after: open)...]
            inner = String(rest.prefix { $0 != ")" })
        } else {
            let lower = text.lowercased()
            for sep in [" as ", " from "] {
                if let r = lower.range(of: sep) {
                    head = String(text[..<r.lowerBound])
                    inner = String(text[r.upperBound...])
                    break
                }
            }
            if inner == nil { return nil }
        }
        if var i = inner {
            i = i.trimmingCharacters(in: .whitespaces)
            for prefix in ["form:", "as ", "from ", "100% ", "100 % "] where i.lowercased().hasPrefix(prefix) {
                i = String(i.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
            }
            if i.lowercased().hasPrefix("as ") { i = String(i.dropFirst(3)) }
            inner = i.isEmpty ? nil : i
        }
        head = head.trimmingCharacters(in: .whitespaces)
        return head.isEmpty && inner == nil ? nil : (head, inner)
    }

    private static func splitList(_ text: String) -> [String] {
        text.replacingOccurrences(of: " and ", with: ",").replacingOccurrences(of: "&", with: ",")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Words labels add around an ingredient name that do not change which ingredient it is.
    static let fillerWords: Set<String> = [
        "organic", "certified", "natural", "whole", "freeze", "dried", "powder", "ext", "extract", "standardized",
        "herb", "root", "leaf", "bark", "fruit", "rhizome", "aerial", "parts", "concentrate", "fermented", "raw",
        "proprietary", "essential",
    ]

    static func withoutFillerWords(_ normalised: String) -> String {
        normalised.split(separator: " ").filter { !fillerWords.contains(String($0)) }.joined(separator: " ")
    }
}

// MARK: file format

private struct CatalogueFile: Decodable {
    let sources: [CatalogueSource]
    let ingredients: [IngredientRecord]
}

private struct ReferenceRecord: Decodable {
    let amount: String
    let unit: DoseUnit
    let note: String?
    let form: String?

    func model() throws -> ReferenceAmount {
        ReferenceAmount(amount: try Amount(amount, unit), note: note, form: form)
    }
}

private struct FormRecord: Decodable {
    let name: String
    let synonyms: [String]
    let conversion: String?
}

private struct IngredientRecord: Decodable {
    let id: String
    let name: String
    let category: IngredientCategory
    let labelUnit: DoseUnit?
    let synonyms: [String]
    let forms: [FormRecord]
    let conversion: String?
    let dailyValue: ReferenceRecord?
    let upperLimit: ReferenceRecord?
    let members: [String]?
    let note: String?
    let sourceIDs: [String]

    func model() throws -> CatalogueIngredient {
        CatalogueIngredient(
            id: id, name: name, category: category, synonyms: synonyms,
            forms: try forms.map {
                IngredientForm(name: $0.name, synonyms: $0.synonyms, conversion: try ConversionContext(catalogueKey: $0.conversion))
            },
            labelUnit: labelUnit, dailyValue: try dailyValue?.model(), upperLimit: try upperLimit?.model(),
            members: members ?? [], sourceIDs: sourceIDs, note: note,
            conversion: try ConversionContext(catalogueKey: conversion) ?? .unspecified)
    }
}

extension ConversionContext {
    /// The context named by a catalogue key ("vitaminD", "vitaminA.retinol", "folicAcid", ...).
    init?(catalogueKey key: String?) throws {
        guard let key else { return nil }
        switch key {
        case "vitaminD": self = .vitaminD
        case "vitaminA": self = .vitaminA(form: nil)
        case "vitaminA.retinol": self = .vitaminA(form: .retinol)
        case "vitaminA.betaCarotene": self = .vitaminA(form: .betaCarotene)
        case "vitaminE": self = .vitaminE(form: nil)
        case "vitaminE.natural": self = .vitaminE(form: .natural)
        case "vitaminE.synthetic": self = .vitaminE(form: .synthetic)
        case "folicAcid": self = .folicAcid
        default: throw RegimenError.catalogueUnreadable("it names an unknown conversion")
        }
    }
}
