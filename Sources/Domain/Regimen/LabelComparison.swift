import Foundation

/// The rows of a label as read from a photo beside the same product's rows in the label database (a reformulated
/// label, a misread amount): each database row is paired with the read row of the same name, and every pair whose
/// amount or %DV differ is shown to the person, who chooses per row. Cairn never chooses for them.
public struct LabelComparison: Hashable, Sendable {
    /// One read row and its database counterpart.
    public struct Pair: Hashable, Sendable {
        /// The index of the read row (from 0).
        public let readIndex: Int
        /// The database's row.
        public let database: LabelRecordRow
        /// True when the amount or the %DV differ.
        public let differs: Bool
    }

    /// Read rows with a database counterpart, in the read rows' order.
    public let pairs: [Pair]
    /// Database rows no read row names (a row the photo missed, or one the new label added or dropped).
    public let onlyInDatabase: [LabelRecordRow]
    /// Indices of read rows the database does not have.
    public let onlyRead: [Int]

    /// Pairs `read` (name, amount, %DV of each row as read) with `database`. Names are compared without case,
    /// spaces or punctuation; each database row pairs with one read row at most.
    public init(read: [(name: String, amount: Amount?, dailyValuePercent: Decimal?)], database: [LabelRecordRow]) {
        var unused = Array(database.indices)
        var pairs: [Pair] = []
        var onlyRead: [Int] = []
        for (index, row) in read.enumerated() {
            let key = Self.key(row.name)
            guard let position = unused.firstIndex(where: { Self.key(database[$0].name) == key }) else {
                onlyRead.append(index)
                continue
            }
            let counterpart = database[unused.remove(at: position)]
            let differs = row.amount != counterpart.amount || row.dailyValuePercent != counterpart.dailyValuePercent
            pairs.append(Pair(readIndex: index, database: counterpart, differs: differs))
        }
        self.pairs = pairs
        self.onlyRead = onlyRead
        onlyInDatabase = unused.map { database[$0] }
    }

    /// True when some row differs or is only on one side.
    public var disagrees: Bool { pairs.contains(where: \.differs) || !onlyInDatabase.isEmpty || !onlyRead.isEmpty }

    /// A name as compared: lowercased letters and digits only.
    static func key(_ name: String) -> String { String(name.lowercased().filter { $0.isLetter || $0.isNumber }) }
}
