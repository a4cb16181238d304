import Foundation

/// Which kind of panel a label text shows.
public enum LabelPanelKind: String, Hashable, Sendable, Codable {
    /// A "Supplement Facts" panel (the one Cairn reads).
    case supplementFacts
    /// A food's nutrition panel, in any country's format (`FoodPanelFormat`): never read as a supplement's.
    case nutritionFacts
    /// No panel heading was found.
    case unknown
}

/// The format of a food's nutrition panel, as told by its heading or its columns. Cairn reads Supplement Facts
/// panels only: a food panel is declined, whatever its rows.
public enum FoodPanelFormat: String, Hashable, Sendable, Codable {
    /// "Nutrition Facts" (United States, Canada).
    case nutritionFacts
    /// "Nutrition Information" with per-serving and per-100 g columns (Australia, New Zealand, Singapore).
    case nutritionInformation
    /// "Nutrition", "Nutrition declaration" or "Typical values" per 100 g (United Kingdom, European Union).
    case per100
    /// 栄養成分表示 (Japan).
    case japanese
    /// No heading read, but a food's columns: energy in kJ or kcal, values per 100 g or 100 ml, or the
    /// macronutrients a food declares (protein, fat, carbohydrate, sugars, salt).
    case unnamed

    /// How the format is named to the person.
    public var title: String {
        switch self {
        case .nutritionFacts: "a Nutrition Facts panel from a food"
        case .nutritionInformation: "a food's Nutrition Information panel (as in Australia, New Zealand or Singapore)"
        case .per100: "a food's nutrition table per 100 g (as in the UK and the EU)"
        case .japanese: "a food's nutrition panel (栄養成分表示, as in Japan)"
        case .unnamed: "a food's nutrition panel (energy in kJ or kcal, or values per 100 g)"
        }
    }
}

/// The symbol a label prints in the %DV column instead of (or beside) a percentage.
public enum DailyValueMarker: String, Hashable, Sendable, Codable {
    /// "†" (or "Daily Value not established"): no Daily Value exists.
    case notEstablished
    /// "*": usually "Percent Daily Values are based on a 2,000 calorie diet" or the same as "†".
    case asterisk
    /// "**": a second footnote, usually "Daily Value not established".
    case doubleAsterisk
}

/// One ingredient row as printed, before any catalogue matching.
public struct ParsedLabelRow: Hashable, Sendable {
    /// The name as printed, without the "(as ...)" part.
    public var nameOnLabel: String
    /// The form from "(as ...)", "(from ...)" or "(Form: ...)", if any.
    public var form: String?
    /// The amount per serving, when one was printed and could be read.
    public var amount: Amount?
    /// The amount text when one was printed but could not be read (unknown unit, broken number).
    public var unreadableAmountText: String?
    /// A second amount printed in parentheses, e.g. "(1,000 IU)" after "25 mcg".
    public var alternateAmount: Amount?
    /// The printed percent of Daily Value.
    public var dailyValuePercent: Decimal?
    /// The marker in the %DV column.
    public var dailyValueMarker: DailyValueMarker?
    /// True for a proprietary blend (or any row with indented members below it).
    public var isBlend: Bool
    /// For a blend member: the blend's name.
    public var blendName: String?
    /// Indices of the `LabelLine`s the row was read from.
    public var lineIndices: [Int]

    /// A row; most fields default to empty.
    public init(
        nameOnLabel: String, form: String? = nil, amount: Amount? = nil, unreadableAmountText: String? = nil,
        alternateAmount: Amount? = nil, dailyValuePercent: Decimal? = nil,
        dailyValueMarker: DailyValueMarker? = nil, isBlend: Bool = false, blendName: String? = nil,
        lineIndices: [Int] = []
    ) {
        self.nameOnLabel = nameOnLabel
        self.form = form
        self.amount = amount
        self.unreadableAmountText = unreadableAmountText
        self.alternateAmount = alternateAmount
        self.dailyValuePercent = dailyValuePercent
        self.dailyValueMarker = dailyValueMarker
        self.isBlend = isBlend
        self.blendName = blendName
        self.lineIndices = lineIndices
    }
}

/// A label text, parsed: the panel kind, serving, rows and other ingredients.
public struct ParsedLabel: Hashable, Sendable {
    /// The panel heading found.
    public var panelKind: LabelPanelKind
    /// The serving size, when it could be read ("2 Lozenges" = 2 count, "5 g").
    public var servingSize: Amount?
    /// The serving size as printed (after "Serving Size").
    public var servingSizeText: String?
    /// Servings per container.
    public var servingsPerContainer: Decimal?
    /// The ingredient rows, in label order.
    public var rows: [ParsedLabelRow]
    /// The "Other ingredients" list.
    public var otherIngredients: [String]
    /// Lines of the panel seen but not read as anything (neither headings, rows, footnotes nor other ingredients),
    /// in order: lines that look like text (`looksLikeText`), and lines taken for statements with rows below them
    /// (a row misread into words such as "St", inside the panel). Specks and rules OCR read as a letter or two are
    /// left out.
    public var unusedLines: [String] = []
    /// Lines read that are not ingredients (below the panel's end, or statements such as warnings and
    /// addresses): never rows, listed so the person sees what was left out.
    public var notIngredients: [String] = []
    /// True when the panel's end (its footnote, or a section such as "Suggested use" after it) was read.
    public var panelEndFound = false
    /// For a food's panel (`panelKind == .nutritionFacts`): which format told it; its rows are never read.
    public var foodPanel: FoodPanelFormat?
}

/// Reads the text of a Supplement Facts panel (typed, or lines from OCR). Pure: no OCR, no catalogue.
///
/// Handles: "Serving Size" and "Servings Per Container"; rows of name, amount, unit and %DV with the
/// "†", "*" and "**" markers (and OCR's "t" for "†"), "Daily Value not established"; "(as ...)" forms;
/// blends (a row followed by more indented rows, or a name containing "blend"), with or without member
/// amounts; "Other ingredients"; units as `LabelUnitParser` reads them ("120mg", "1U", "µg", "1,5 mg").
public enum LabelParser {
    /// Parses lines in reading order.
    public static func parse(_ lines: [LabelLine]) -> ParsedLabel {
        var label = ParsedLabel(
            panelKind: .unknown, servingSize: nil, servingSizeText: nil, servingsPerContainer: nil,
            rows: [], otherIngredients: [])
        var rowLines: [(row: ParsedLabelRow, line: LabelLine, text: String)] = []
        /// Lines not read as a row: seen but not read (`statement` false), or taken for a statement (with the
        /// number of rows read before it).
        var unusedIndices: [Int] = []
        var statements: [(index: Int, rowsBefore: Int)] = []
        /// Lines below the panel's end and statements: not ingredients.
        var leftOut: [Int] = []
        var inOtherIngredients = false
        var otherText = ""
        /// The blend whose members are listed in running text ("Ashwagandha, Rhodiola, ..."), while the list goes on.
        var listedBlend: (name: String, open: Bool)?
        var texts: [Int: String] = [:]
        for (index, line) in lines.enumerated() {
            let text = cleanLine(line.text)
            texts[index] = text
            func unused() { unusedIndices.append(index) }
            let key = CatalogueText.normalised(text)
            if key.isEmpty { continue }
            if let (kind, food) = heading(key, raw: text) {
                // A Supplement Facts heading wins over a food's word read elsewhere ("Nutrition" in marketing).
                if label.panelKind == .unknown || kind == .supplementFacts && label.panelKind != .supplementFacts {
                    label.panelKind = kind
                    label.foodPanel = food
                }
                continue
            }
            if inOtherIngredients {
                if isSectionStart(key) {
                    inOtherIngredients = false
                } else {
                    otherText += " " + text
                    continue
                }
            }
            if let rest = after(prefixes: ["other ingredients", "other ingredient", "inactive ingredients", "0ther ingredients"], in: text) {
                inOtherIngredients = true
                otherText += " " + rest
                continue
            }
            // Below the panel's end (its footnote, or a section such as "Suggested use"), nothing is a row.
            if isSectionStart(key) || (label.panelEndFound && !rowLines.isEmpty) {
                label.panelEndFound = true
                leftOut.append(index)
                continue
            }
            if !rowLines.isEmpty, isPanelFootnote(key, raw: text) {
                label.panelEndFound = true
                continue
            }
            if let rest = after(prefixes: ["serving size"], in: text) {
                label.servingSizeText = rest.trimmingCharacters(in: CharacterSet(charactersIn: " :"))
                label.servingSize = servingAmount(label.servingSizeText ?? "")
                continue
            }
            if let rest = after(prefixes: ["servings per container", "servings per package", "servings per bottle"], in: text) {
                let digits = rest.filter { $0.isNumber || $0 == "," || $0 == "." }
                label.servingsPerContainer = try? LabelUnitParser.number(digits)
                continue
            }
            if isColumnHeadingOrFootnote(key, raw: text) { continue }
            // A row OCR split in two: the first part left a parenthesis open ("Vitamin D3 (as"). Not when the
            // first part ends with the %DV column (the whole row was there, its closing parenthesis misread)
            // unless this line closes the parenthesis: "Biotin 300 mcg 100%" under it is a row of its own.
            if let last = rowLines.last, last.row.amount == nil, last.row.unreadableAmountText == nil,
                isOpen(last.text), last.row.dailyValuePercent == nil && last.row.dailyValueMarker == nil || closes(text),
                var joined = parseRow(last.text + " " + text)
            {
                joined.lineIndices = last.row.lineIndices + [index]
                joined.blendName = last.row.blendName
                rowLines[rowLines.count - 1] = (joined, last.line, last.text + " " + text)
                continue
            }
            // A standardisation on its own line belongs to the row above ("standardized to 20% bacosides").
            if let last = rowLines.last, let form = standardisation(text) {
                rowLines[rowLines.count - 1].row.form = [last.row.form, form].compactMap { $0 }.joined(separator: ", ")
                rowLines[rowLines.count - 1].row.lineIndices.append(index)
                continue
            }
            // A line wholly in parentheses under a row is the row's sub-line: "(1,000 IU)" its second amount,
            // "(29% as beta-carotene)" or "(400 mcg folic acid)" what the amount is made of.
            if let last = rowLines.last, listedBlend == nil, let inner = subLine(text) {
                if last.row.alternateAmount == nil, inner.first?.isNumber == true, let amount = try? LabelUnitParser.amount(inner) {
                    rowLines[rowLines.count - 1].row.alternateAmount = amount
                } else {
                    rowLines[rowLines.count - 1].row.form = [last.row.form, inner].compactMap { $0 }.joined(separator: ", ")
                }
                rowLines[rowLines.count - 1].row.lineIndices.append(index)
                continue
            }
            // Blend members listed in running text after the blend's row, one comma-separated list over lines.
            let colonBlend = text.firstIndex(of: ":").map { LabelNormaliser.containsBlendWord(String(text[..<$0])) } ?? false
            if let blend = listedBlend, blend.open || text.contains(","), !colonBlend, parseRow(text)?.amount == nil {
                let names = splitIngredientList(text)
                for name in names {
                    let (head, form) = splitForm(name)
                    guard head.contains(where: \.isLetter) else { continue }
                    rowLines.append((ParsedLabelRow(nameOnLabel: head, form: form, blendName: blend.name, lineIndices: [index]), line, name))
                }
                listedBlend = (blend.name, text.hasSuffix(",") || text.hasSuffix(" and"))
                continue
            }
            listedBlend = nil
            // "Proprietary Blend 500 mg: Ashwagandha, Rhodiola": the blend's row, then its members.
            if colonBlend, let colon = text.firstIndex(of: ":"),
                var blendRow = parseRow(String(text[..<colon]))
            {
                blendRow.isBlend = true
                blendRow.lineIndices = [index]
                rowLines.append((blendRow, line, String(text[..<colon])))
                for name in splitIngredientList(String(text[text.index(after: colon)...])) {
                    let (head, form) = splitForm(name)
                    guard head.contains(where: \.isLetter) else { continue }
                    rowLines.append(
                        (ParsedLabelRow(nameOnLabel: head, form: form, blendName: blendRow.nameOnLabel, lineIndices: [index]), line, name))
                }
                listedBlend = (blendRow.nameOnLabel, text.hasSuffix(","))
                continue
            }
            guard var row = parseRow(text) else {
                unused()
                continue
            }
            row.lineIndices = [index]
            // Words that are not an ingredient at all (a warning, an address, directions) are never a row.
            if row.amount == nil, row.unreadableAmountText == nil, isStatement(text) {
                statements.append((index, rowLines.count))
                leftOut.append(index)
                continue
            }
            // A percentage without an amount under a row is the row's standardisation, not a %DV
            // ("Phosphatidylserine 20%" under "Sunflower Lecithin 100 mg").
            if row.amount == nil, row.unreadableAmountText == nil, let percent = row.dailyValuePercent,
                let last = rowLines.last, last.row.amount != nil,
                line.leftEdge > last.line.leftEdge + 0.8 * min(line.height, last.line.height)
                    || ["extract", "lecithin", "standardi"].contains(where: { CatalogueText.normalised(last.row.nameOnLabel).contains($0) })
            {
                let standard = "standardized to \(percent)% \(row.nameOnLabel)".trimmingCharacters(in: .whitespaces)
                rowLines[rowLines.count - 1].row.form = [last.row.form, standard].compactMap { $0 }.joined(separator: ", ")
                rowLines[rowLines.count - 1].row.lineIndices.append(index)
                continue
            }
            // An amount-only line completes the row above it (OCR sometimes splits a row into two lines).
            if row.nameOnLabel.isEmpty {
                if let last = rowLines.last, last.row.amount == nil, last.row.unreadableAmountText == nil {
                    var merged = last.row
                    merged.amount = row.amount
                    merged.unreadableAmountText = row.unreadableAmountText
                    merged.dailyValuePercent = merged.dailyValuePercent ?? row.dailyValuePercent
                    merged.dailyValueMarker = merged.dailyValueMarker ?? row.dailyValueMarker
                    merged.lineIndices.append(index)
                    rowLines[rowLines.count - 1].row = merged
                } else {
                    unused()
                }
                continue
            }
            // "Energy Blend (Green Tea, Guarana, Yerba Mate) 300 mg": the blend's row, then its members in order.
            if let (blendName, members) = blendWithMembersInParentheses(row.nameOnLabel) {
                row.nameOnLabel = blendName
                row.isBlend = true
                rowLines.append((row, line, text))
                for name in members {
                    let (head, form) = splitForm(name)
                    rowLines.append((ParsedLabelRow(nameOnLabel: head, form: form, blendName: blendName, lineIndices: [index]), line, name))
                }
                continue
            }
            rowLines.append((row, line, text))
            if LabelNormaliser.containsBlendWord(row.nameOnLabel) { listedBlend = (row.nameOnLabel, false) }
        }
        label.otherIngredients = splitIngredientList(otherText)
        label.rows = assignBlends(rowLines.map { ($0.row, $0.line) })
        // A food's panel, told by its heading or its columns, is never read as a supplement's: no rows at all.
        if label.panelKind != .supplementFacts, let food = label.foodPanel ?? foodColumns(lines.map(\.text)) {
            label.panelKind = .nutritionFacts
            label.foodPanel = food
            label.rows = []
            return label
        }
        // A "statement" with rows read above and below it sits among the rows: a row misread (an "St" in a
        // garbled amount reads as a street), so it is a line of the panel not read, not a line left out.
        let inPanel = statements.filter { $0.rowsBefore > 0 && $0.rowsBefore < rowLines.count }.map(\.index)
        label.notIngredients = leftOut.filter { !inPanel.contains($0) }.compactMap { texts[$0] }
        let heights = rowLines.map(\.line.height).sorted()
        let typicalHeight = heights.isEmpty ? nil : heights[heights.count / 2]
        label.unusedLines =
            (unusedIndices.filter { looksLikeText(texts[$0] ?? "", height: lines[$0].height, typicalHeight: typicalHeight) }
            + inPanel).sorted().compactMap { texts[$0] }
        return label
    }

    /// True when an unread line looks like text rather than a speck or a rule OCR read as letters: a word of three
    /// letters or more that is not one letter repeated ("SS", "eee" are not), or two letters or digits or more on a
    /// line as tall as the rows' text (a row garbled beyond its words, "[eh i").
    static func looksLikeText(_ text: String, height: Double, typicalHeight: Double?) -> Bool {
        if text.split(whereSeparator: { !$0.isLetter }).contains(where: { $0.count >= 3 && Set($0.lowercased()).count > 1 }) {
            return true
        }
        guard let typicalHeight else { return false }
        return text.filter { $0.isLetter || $0.isNumber }.count >= 2 && height >= 0.6 * typicalHeight
    }

    /// Parses a typed multi-line text.
    public static func parse(text: String) -> ParsedLabel { parse(LabelLine.lines(from: text)) }

    // MARK: line kinds

    /// The panel a heading line names: Supplement Facts, or a food's panel and its format.
    private static func heading(_ key: String, raw: String) -> (LabelPanelKind, FoodPanelFormat?)? {
        if raw.contains("栄養成分") { return (.nutritionFacts, .japanese) }
        if key.hasPrefix("nutrition information") || key.hasPrefix("nutritional information") { return (.nutritionFacts, .nutritionInformation) }
        if key.count > 40 { return nil }
        let folded = CatalogueText.ocrFolded(key)
        let headings: [(String, LabelPanelKind, FoodPanelFormat?)] = [
            ("supplement facts", .supplementFacts, nil), ("nutrition facts", .nutritionFacts, .nutritionFacts),
            ("nutrition information", .nutritionFacts, .nutritionInformation),
        ]
        for (words, kind, food) in headings {
            let target = CatalogueText.ocrFolded(words)
            if folded.contains(target) { return (kind, food) }
            if CatalogueText.similarity(key, words) >= 0.8 { return (kind, food) }
        }
        // The UK's and the EU's tables: "Nutrition", "Nutrition declaration", "Typical values (per 100g)".
        if key == "nutrition" || key.hasPrefix("nutrition declaration") || key.hasPrefix("typical values")
            || key.hasPrefix("average nutritional") || key.hasPrefix("nutritional values")
        {
            return (.nutritionFacts, .per100)
        }
        return nil
    }

    /// A food's columns in lines that named no panel: energy in kJ or kcal, values per 100 g or 100 ml
    /// (the UK's, the EU's, Australia's and Japan's panels, whatever OCR made of their headings), or four of the
    /// macronutrients a food declares. nil for anything else (a supplement's panel without its heading read).
    static func foodColumns(_ lines: [String]) -> FoodPanelFormat? {
        let text = lines.joined(separator: "\n")
        if text.range(of: #"(?i)(\d|\b)\s?(kj|kcal)\b"#, options: .regularExpression) != nil { return .unnamed }
        if text.range(of: #"(?i)(per|/)\s?100\s?(g|ml)\b"#, options: .regularExpression) != nil { return .unnamed }
        let words = Set(CatalogueText.normalised(text).split(separator: " ").map(String.init))
        let macronutrients = ["energy", "protein", "fat", "carbohydrate", "carbohydrates", "sugars", "salt", "saturated", "cholesterol"]
        return macronutrients.filter(words.contains).count >= 4 ? .unnamed : nil
    }

    private static func isSectionStart(_ key: String) -> Bool {
        [
            "suggested use", "directions", "warning", "caution", "contains", "keep out of reach", "store ", "distributed",
            "manufactured", "these statements", "this product is not intended", "recommended use", "suggested dose",
            "allergen", "do not ", "if you are pregnant", "consult ",
        ].contains { key.hasPrefix($0) }
    }

    /// The footnote that closes the panel: "† Daily Value not established", "* Percent Daily Values are based
    /// on a 2,000 calorie diet" (with its OCR misreadings), not the "% Daily Value" column heading.
    private static func isPanelFootnote(_ key: String, raw: String) -> Bool {
        if key.hasPrefix("percent daily value") { return true }
        guard isColumnHeadingOrFootnote(key, raw: raw), !key.hasPrefix("amount per"), !key.hasPrefix("each") else { return false }
        let words = key.split(separator: " ").map(String.init)
        let fuzzy = { (target: String) in words.contains { CatalogueText.similarity($0, target) >= 0.6 } }
        return fuzzy("established") || fuzzy("based") || key.contains("calorie")
    }

    /// True when the words are a statement rather than an ingredient: a warning, directions, an address, a
    /// web or phone contact, or a sentence (six words or more without an amount and without parentheses).
    static func isStatement(_ text: String) -> Bool {
        let key = CatalogueText.normalised(text)
        let words = key.split(separator: " ").map(String.init)
        let statementWords: Set<String> = [
            "children", "child", "physician", "doctor", "pregnant", "nursing", "consult",
            "reach", "keep", "store", "take", "taking", "daily", "serving", "servings",
            "capsules", "tablets", "softgels", "meal", "meals", "water", "dry", "cool",
            "place", "sealed", "missing", "evaluated", "fda", "intended", "diagnose",
            "prevent", "cure", "treat", "disease", "inc", "llc", "ltd", "street", "st",
            "ave", "avenue", "road", "rd", "suite", "blvd", "usa", "made", "www", "com",
            "distributed", "manufactured", "questions", "call", "visit", "allergy",
            "contains", "warning",
            "caution", "directions", "adults", "use", "medication", "medical", "condition",
        ]
        let hits = words.filter { statementWords.contains($0) }.count
        if text.contains("@") || key.contains("www ") || words.contains("com") { return true }
        // A US address: a five-digit ZIP code, or a phone number.
        if text.range(of: #"\b\d{5}(-\d{4})?\b"#, options: .regularExpression) != nil && hits >= 1 { return true }
        if text.range(of: #"\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}"#, options: .regularExpression) != nil { return true }
        if hits >= 2 { return true }
        return words.count >= 6 && !text.contains("(") && hits >= 1
    }

    /// True when the text leaves a parenthesis open ("Vitamin D3 (as").
    private static func isOpen(_ text: String) -> Bool {
        text.filter { $0 == "(" || $0 == "[" }.count > text.filter { $0 == ")" || $0 == "]" }.count
    }

    /// True when the text closes a parenthesis opened before it ("cholecalciferol) 25 mcg").
    private static func closes(_ text: String) -> Bool {
        text.filter { $0 == ")" || $0 == "]" }.count > text.filter { $0 == "(" || $0 == "[" }.count
    }

    /// "standardized to 20% bacosides", "(Standardised to contain 95% curcuminoids)", "providing 95%
    /// curcuminoids", "(50% EGCG)": the standardisation as a form; nil for any other line. A line wholly in
    /// parentheses is one only when it holds a percentage and no amount.
    private static func standardisation(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: "() "))
        let lower = trimmed.lowercased()
        if ["standardized", "standardised", "std. to", "std to"].contains(where: { lower.hasPrefix($0) }) { return trimmed }
        let percent = trimmed.range(of: #"\d\s?%"#, options: .regularExpression) != nil
        if percent, ["providing", "containing", "yielding"].contains(where: { lower.hasPrefix($0 + " ") }) { return trimmed }
        if percent, text.hasPrefix("("), text.hasSuffix(")"), !trimmed.contains("("), parseRow(trimmed)?.amount == nil { return trimmed }
        return nil
    }

    /// The inside of a line wholly in parentheses ("(400 mcg folic acid)", "(29% as beta-carotene)*"), without a
    /// leading "as "; nil for any other line, and for one that names a row of its own ("(Vitamin C 60 mg)" never
    /// is a sub-line: a name then an amount).
    static func subLine(_ text: String) -> String? {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        while let last = trimmed.last, "*†‡".contains(last) { trimmed.removeLast() }
        guard trimmed.hasPrefix("("), trimmed.hasSuffix(")") || trimmed.hasSuffix("]"), trimmed.count > 2 else { return nil }
        var inner = String(trimmed.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
        guard !inner.contains("("), !inner.isEmpty else { return nil }
        if let row = parseRow(inner), row.amount != nil, !row.nameOnLabel.isEmpty, inner.first?.isNumber != true { return nil }
        if inner.lowercased().hasPrefix("as ") { inner = String(inner.dropFirst(3)) }
        return inner
    }

    /// "Energy Blend (Green Tea, Guarana, Yerba Mate)": the blend's name and its members in order, when a name
    /// holding a blend word (`LabelNormaliser.blendWords`) ends with a parenthesised list of two or more names;
    /// nil otherwise ("Ginger (Zingiber officinale)" is a name).
    static func blendWithMembersInParentheses(_ name: String) -> (String, [String])? {
        guard name.hasSuffix(")") || name.hasSuffix("]"), let open = name.firstIndex(where: { $0 == "(" || $0 == "[" }) else { return nil }
        let head = name[..<open].trimmingCharacters(in: .whitespaces)
        guard LabelNormaliser.containsBlendWord(head) else { return nil }
        let inner = String(name[name.index(after: open)..<name.index(before: name.endIndex)])
        let members = splitIngredientList(inner).filter { $0.contains(where: \.isLetter) }
        return members.count >= 2 ? (head, members) : nil
    }

    private static func isColumnHeadingOrFootnote(_ key: String, raw: String) -> Bool {
        if key.hasPrefix("amount per") || key.hasPrefix("each") && key.contains("contains") { return true }
        if key == "daily value" || key == "dv" || key.hasPrefix("daily value") && !startsWithMarker(raw) && raw.contains("%") { return true }
        if raw.hasPrefix("%") && key.contains("daily value") { return true }
        if key.contains("daily value") && (key.contains("not established") || key.contains("based on")) { return true }
        // "† DV not established." (not a row ending in it: "Melatonin 3 mg DV not established").
        if key == "dv not established" { return true }
        if key.hasPrefix("percent daily values") { return true }
        // The footnote as OCR misreads it ("Daily Vaiue not estabished").
        let words = key.split(separator: " ").map(String.init)
        let fuzzy = { (target: String) in words.contains { CatalogueText.similarity($0, target) >= 0.6 } }
        if fuzzy("daily") && fuzzy("value") && (fuzzy("established") || fuzzy("not") || words.count <= 4) { return true }
        return false
    }

    private static func startsWithMarker(_ raw: String) -> Bool {
        guard let first = raw.first else { return false }
        return "†‡*".contains(first)
    }

    /// The text after a case-insensitive prefix (and any ":"), nil when the line does not start with it.
    private static func after(prefixes: [String], in text: String) -> String? {
        let lower = text.lowercased()
        for prefix in prefixes where lower.hasPrefix(prefix) {
            var rest = String(text.dropFirst(prefix.count))
            rest = rest.trimmingCharacters(in: CharacterSet(charactersIn: " :;.").union(.whitespaces))
            return rest
        }
        return nil
    }

    private static func servingAmount(_ text: String) -> Amount? {
        // "2 Lozenges", "1 Tablet", "5 g", "2 Vegetarian Lozenges": the number and the last unit word.
        let words = text.split(separator: " ").map(String.init)
        guard let first = words.first, let value = try? LabelUnitParser.number(first) else { return nil }
        for word in words.dropFirst().reversed() {
            let cleaned = word.trimmingCharacters(in: CharacterSet(charactersIn: "().,;"))
            if let unit = try? LabelUnitParser.unit(cleaned) { return try? Amount(value * unit.multiplier, unit.unit) }
        }
        if words.count >= 2 { return try? Amount(value, .count) }
        return nil
    }

    // MARK: rows

    /// True for a word that is only a dot leader (the dots between a row's amount and its %DV, as OCR reads them:
    /// "........", "·····", "_____", ". . ." read as one word, "—––").
    public static func isLeader(_ word: String) -> Bool {
        word.count >= 3 && word.allSatisfy { ".·…•_-–—,:".contains($0) }
    }

    /// Removes OCR noise at the ends of a line (bars, pipes, underscores) and dot leaders inside it ("1050
    /// mcg........ 117%", "mcg.......117%": the leader parts words as a space does).
    static func cleanLine(_ text: String) -> String {
        let noise = CharacterSet(charactersIn: "|_=~—–-»«“”\"'`")
        var cleaned = text.replacingOccurrences(of: "\u{00A0}", with: " ")
        cleaned = cleaned.replacingOccurrences(of: #"\s?(?:[.·…•_]\s?){4,}|[-–—]{3,}"#, with: " ", options: .regularExpression)
        cleaned = cleaned.replacingOccurrences(of: #" {2,}"#, with: " ", options: .regularExpression)
        cleaned = cleaned.trimmingCharacters(in: noise.union(.whitespaces))
        // OCR reads ")" as "]" and drops the space before the amount: "(as magnesium glycinate]20mg".
        if cleaned.contains("("), cleaned.contains("]"), !cleaned.contains("[") {
            cleaned = cleaned.replacingOccurrences(of: "]", with: ")")
        }
        return cleaned.replacingOccurrences(of: #"\)(?=[0-9])"#, with: ") ", options: .regularExpression)
    }

    /// One row from one line; nil when the line holds nothing that looks like a row.
    static func parseRow(_ line: String) -> ParsedLabelRow? {
        var tokens = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard !tokens.isEmpty else { return nil }
        var row = ParsedLabelRow(nameOnLabel: "")

        // "Daily Value not established" written in the row.
        let lower = tokens.joined(separator: " ").lowercased()
        for phrase in ["daily value not established", "dv not established", "not established"] where lower.hasSuffix(phrase) {
            tokens.removeLast(phrase.split(separator: " ").count)
            row.dailyValueMarker = .notEstablished
            break
        }
        // The %DV column, right to left: percentages and markers.
        while let last = tokens.last {
            if let (percent, marker) = dailyValueToken(last) {
                if let percent, row.dailyValuePercent == nil { row.dailyValuePercent = percent }
                if let marker, row.dailyValueMarker == nil { row.dailyValueMarker = marker }
                tokens.removeLast()
                continue
            }
            if last == "%", tokens.count >= 2, let value = try? LabelUnitParser.number(tokens[tokens.count - 2]) {
                row.dailyValuePercent = value
                tokens.removeLast(2)
                continue
            }
            if ["t", "+", "T", "Tt", "tt", "TT", "tT", "t+", "+t", "f"].contains(last), tokens.count >= 2 {
                row.dailyValueMarker = row.dailyValueMarker ?? .notEstablished
                tokens.removeLast()
                continue
            }
            break
        }
        // A markers stuck to the amount: "50mg†", "50 mg*".
        if var last = tokens.last {
            var marker: DailyValueMarker?
            while let c = last.last, "†‡*".contains(c) {
                marker = c == "*" ? (marker == .asterisk ? .doubleAsterisk : .asterisk) : .notEstablished
                last.removeLast()
            }
            if marker != nil {
                row.dailyValueMarker = row.dailyValueMarker ?? marker
                if last.isEmpty { tokens.removeLast() } else { tokens[tokens.count - 1] = last }
            }
        }
        // A second amount in parentheses: "25 mcg (1,000 IU)".
        if let last = tokens.last, last.hasSuffix(")"), let open = tokens.lastIndex(where: { $0.hasPrefix("(") }),
            open > 0
        {
            let inner = tokens[open...].joined(separator: " ").trimmingCharacters(in: CharacterSet(charactersIn: "()"))
            if let amount = try? LabelUnitParser.amount(inner), inner.first?.isNumber == true {
                row.alternateAmount = amount
                tokens.removeSubrange(open...)
            }
        }
        // Nothing left once the %DV column is taken away (a stray "Daily Value not established" line).
        guard !tokens.isEmpty else { return nil }
        // OCR's "1 mg" in some fonts: "lmg", "Img", "1lmg".
        tokens = tokens.map(repairOne)
        // The amount: the shortest tail starting with a digit that reads as an amount. A short token after it
        // without digits is a %DV marker OCR misread ("**" as "aie"): it is dropped when that makes an amount.
        var amountStart: Int?
        if tokens.count >= 3, let last = tokens.last, last.count <= 4,
            LabelUnitParser.isUnitWord(tokens[tokens.count - 2]) || (try? LabelUnitParser.amount(tokens[tokens.count - 2])) != nil,
            (try? LabelUnitParser.unit(last)) == nil, (try? LabelUnitParser.unit(tokens[tokens.count - 2] + " " + last)) == nil
        {
            tokens.removeLast()
        }
        for k in 1...min(5, tokens.count) {
            let start = tokens.count - k
            guard tokens[start].first?.isNumber == true || tokens[start].first == "<" else { continue }
            let candidate = tokens[start...].joined(separator: " ").trimmingCharacters(in: CharacterSet(charactersIn: "<"))
            if candidate.contains(" "), isSpaceGroupedThousands(Array(tokens[start...])) { continue }
            if let amount = try? LabelUnitParser.amount(candidate) {
                row.amount = amount
                amountStart = start
                break
            }
        }
        if amountStart == nil, let start = tokens.lastIndex(where: { $0.first?.isNumber == true }),
            start > 0 || tokens.count == 1, tokens.count - start <= 3, looksLikeAmount(tokens[start]),
            !isPartOfName(tokens, start)
        {
            row.unreadableAmountText = tokens[start...].joined(separator: " ")
            amountStart = start
        }
        var nameTokens = amountStart.map { Array(tokens[..<$0]) } ?? tokens
        // A row without an amount ending in a misread marker ("Royal Jelly k", "Iron m", "Melatonin *k").
        if amountStart == nil, nameTokens.count >= 2, let last = nameTokens.last, isMisreadMarker(last) {
            nameTokens.removeLast()
            row.dailyValueMarker = row.dailyValueMarker ?? .notEstablished
        }
        var name = nameTokens.joined(separator: " ")
        name = name.trimmingCharacters(in: CharacterSet(charactersIn: " ,;:.†‡*"))
        // A marker stuck to the name: "Melatonin†", or OCR's "Melatonint" is left alone (cannot tell).
        let (head, form) = splitForm(name)
        row.nameOnLabel = head
        row.form = form
        if row.nameOnLabel.isEmpty && row.amount == nil && row.unreadableAmountText == nil { return nil }
        // Without an amount, a row needs a word of three letters or more that is not one letter repeated
        // (OCR reads rules and specks as "SS", "a LL", "eee").
        if row.amount == nil && row.unreadableAmountText == nil {
            let words = row.nameOnLabel.split(whereSeparator: { !$0.isLetter })
            if !words.contains(where: { $0.count >= 3 && Set($0.lowercased()).count > 1 }) { return nil }
        }
        if !row.nameOnLabel.isEmpty && !row.nameOnLabel.contains(where: { $0.isLetter }) { return nil }
        return row
    }

    /// True when the tail's first two tokens would only read as one number through space grouping
    /// ("10 100 mg" after "CoQ"): US labels never group with spaces, so the shorter reading wins.
    private static func isSpaceGroupedThousands(_ tail: [String]) -> Bool {
        tail.count >= 2 && tail[0].allSatisfy(\.isNumber) && tail[1].count == 3 && tail[1].allSatisfy(\.isNumber)
    }

    /// A short token that can only be a %DV marker OCR misread: lowercase letters or symbols, no digits, never a
    /// lone capital (which ends names such as "Vitamin K").
    private static func isMisreadMarker(_ token: String) -> Bool {
        // "**" is often read as "7".
        if token == "7" || token == "77" { return true }
        guard token.count <= 3, !token.contains(where: \.isNumber) else { return false }
        if token.count == 1, token.first!.isUppercase { return false }
        if token.contains(where: { "*†‡#+%&^~".contains($0) }) { return true }
        return token.allSatisfy { $0.isLowercase }
    }

    /// "lmg", "Img" and "1lmg" as OCR reads "1 mg" (the digit one drawn like a lowercase L).
    private static func repairOne(_ token: String) -> String {
        for unit in ["mg", "mcg", "g", "IU"] {
            for head in ["l", "I", "|", "1l", "1I", "1|"] where token == head + unit { return "1" + unit }
        }
        return token
    }

    /// "20", "1,5", "20rng": digits, then at most four letters (a misread unit); not "5-Phosphate".
    private static func looksLikeAmount(_ token: String) -> Bool {
        let digits = token.prefix { $0.isNumber || $0 == "," || $0 == "." }
        let rest = token.dropFirst(digits.count)
        return !digits.isEmpty && rest.count <= 4 && rest.allSatisfy { $0.isLetter }
    }

    /// A number that ends a name rather than starting an amount ("Coenzyme Q 10", "LB-3").
    private static func isPartOfName(_ tokens: [String], _ start: Int) -> Bool {
        start == tokens.count - 1 && tokens[start].count <= 2 && tokens[start].allSatisfy(\.isNumber) && start > 0
    }

    /// A %DV token: "100%", "<1%", "333%*", "†", "*", "**", "%DV".
    private static func dailyValueToken(_ token: String) -> (Decimal?, DailyValueMarker?)? {
        if token == "**" { return (nil, .doubleAsterisk) }
        if token == "*" { return (nil, .asterisk) }
        if token == "†" || token == "‡" || token == "††" { return (nil, .notEstablished) }
        var t = token
        var marker: DailyValueMarker?
        while let c = t.last, "†‡*".contains(c) {
            marker = c == "*" ? (marker == .asterisk ? .doubleAsterisk : .asterisk) : .notEstablished
            t.removeLast()
        }
        guard t.hasSuffix("%") else { return nil }
        t.removeLast()
        t = t.trimmingCharacters(in: CharacterSet(charactersIn: "<"))
        guard let value = try? LabelUnitParser.number(t) else { return nil }
        return (value, marker)
    }

    /// Splits "Vitamin A (as beta-carotene)" into ("Vitamin A", "beta-carotene"). Parentheses that do not
    /// name a form ("Ginger (Zingiber officinale)") stay in the name.
    static func splitForm(_ name: String) -> (String, String?) {
        let lower = name.lowercased()
        for opener in ["(as ", "(form: as ", "(form:", "(from ", "(as:", "(standardized ", "(standardised ", "(std. ", "[as "] {
            guard let r = lower.range(of: opener) else { continue }
            let startOffset = lower.distance(from: lower.startIndex, to: r.lowerBound)
            let innerStart = name.index(name.startIndex, offsetBy: lower.distance(from: lower.startIndex, to: r.upperBound))
            let head = String(name.prefix(startOffset)).trimmingCharacters(in: .whitespaces)
            var inner = String(name[innerStart...])
            var tail = ""
            if let close = inner.firstIndex(where: { $0 == ")" || $0 == "]" }) {
                tail = String(inner[inner.index(after: close)...])
                inner = String(inner[..<close])
            }
            inner = inner.trimmingCharacters(in: .whitespaces)
            for prefix in ["as ", "100% ", "100 % "] where inner.lowercased().hasPrefix(prefix) {
                inner = String(inner.dropFirst(prefix.count))
            }
            if opener.hasPrefix("(standard") || opener.hasPrefix("(std") {
                inner = String(name[name.index(after: name.index(name.startIndex, offsetBy: startOffset))...])
                    .prefix { $0 != ")" }.trimmingCharacters(in: .whitespaces)
            }
            let fullHead = (head + " " + tail).trimmingCharacters(in: CharacterSet(charactersIn: " ,"))
            return (fullHead, inner.isEmpty ? nil : inner.trimmingCharacters(in: .whitespaces))
        }
        return (name, nil)
    }

    /// Blend membership: a row followed by more indented rows is their blend; so is a row whose name says
    /// "blend" and whose next rows have no amounts of their own and are indented.
    private static func assignBlends(_ items: [(row: ParsedLabelRow, line: LabelLine)]) -> [ParsedLabelRow] {
        var rows = items.map(\.row)
        var parent: (index: Int, edge: Double, height: Double)?
        for (i, item) in items.enumerated() {
            if let p = parent, item.line.leftEdge > p.edge + 0.8 * min(p.height, item.line.height) {
                rows[i].blendName = rows[p.index].nameOnLabel
                rows[p.index].isBlend = true
                continue
            }
            parent = (i, item.line.leftEdge, item.line.height)
            if CatalogueText.normalised(rows[i].nameOnLabel).contains("blend") { rows[i].isBlend = true }
        }
        // A row whose members were listed after it ("Focus Matrix 250 mg" over "Bacopa, Ginkgo") is their blend.
        let blendNames = Set(rows.compactMap(\.blendName))
        for i in rows.indices where rows[i].blendName == nil && blendNames.contains(rows[i].nameOnLabel) { rows[i].isBlend = true }
        return rows
    }

    /// "A, B (C, D), E." -> ["A", "B (C, D)", "E"]: commas inside parentheses do not split.
    static func splitIngredientList(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        for c in text {
            if c == "(" || c == "[" { depth += 1 }
            if c == ")" || c == "]" { depth = max(0, depth - 1) }
            if (c == "," || c == ";") && depth == 0 {
                parts.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        parts.append(current)
        return parts.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " .")) }.filter { !$0.isEmpty }
    }
}
