/// Every refusal of a form's fields at once, each with the field it is about, so a page can show each one beside
/// its field and a command can list them all, instead of stopping at the first.
public struct FieldProblems<Field: Hashable & Sendable>: CairnError {
    /// One refusal: the field, the row of a multi-row field (from 1; nil for a single field) and the message.
    public struct Problem: Sendable {
        public let field: Field
        public let row: Int?
        public let message: String

        public init(_ field: Field, row: Int? = nil, _ error: any CairnError) {
            self.field = field
            self.row = row
            message = error.userMessage
        }

        /// The message, with "Row N: " when it is about one row of its field.
        public var text: String { row.map { "Row \($0): " + message } ?? message }
    }

    /// The refusals, in the order of the fields.
    public let problems: [Problem]

    public init(_ problems: [Problem]) { self.problems = problems }

    /// The messages about `field`, each with "Row N: " when it is about one row of it: at most the first 20, then
    /// how many more (`ProblemList`).
    public func messages(for field: Field) -> [String] {
        ProblemList.entries(problems.filter { $0.field == field }, \.text)
    }

    /// Every message, one after the other (the fields are named by the door that shows them): at most the first
    /// 20, then how many more (`ProblemList`).
    public var userMessage: String { ProblemList.entries(problems, \.text).joined(separator: " ") }

    /// Collects refusals while parsing: `field` runs one field's parser and keeps its typed refusal.
    public struct Collector {
        public private(set) var problems: [Problem] = []
        public init() {}

        /// The value `parse` gives, or nil after keeping its refusal for `field`.
        public mutating func field<T>(_ field: Field, row: Int? = nil, _ parse: () throws -> T) -> T? {
            do { return try parse() } catch {
                problems.append(Problem(field, row: row, (error as? any CairnError) ?? Unreadable()))
                return nil
            }
        }

        /// A parser's refusal that is not a `CairnError` (parsers throw their domain's typed refusals).
        struct Unreadable: CairnError {
            var userMessage: String { "This value cannot be read." }
        }

        /// Keeps a refusal found without a parser.
        public mutating func add(_ field: Field, row: Int? = nil, _ error: any CairnError) {
            problems.append(Problem(field, row: row, error))
        }

        /// Throws every refusal kept so far, if any.
        public func check() throws {
            if !problems.isEmpty { throw FieldProblems(problems) }
        }
    }
}
