import Foundation

/// The paper a report is laid out on.
public enum PaperSize: String, CaseIterable, Sendable {
    /// ISO A4, 210 x 297 mm.
    case a4
    /// US Letter, 8.5 x 11 in.
    case letter

    /// Width and height in PostScript points (1/72 in).
    public var points: (width: Double, height: Double) {
        switch self {
        case .a4: return (595.276, 841.89)
        case .letter: return (612, 792)
        }
    }

    /// "A4", "US Letter".
    public var label: String { self == .a4 ? "A4" : "US Letter" }

    /// "a4" or "letter" (any case); nil for anything else.
    public init?(parsing text: String) {
        self.init(rawValue: text.lowercased())
    }
}

/// A photo for a report: the stored JPEG bytes, embedded as they are (never decoded or re-encoded), read only
/// when its page is drawn so a long log never holds every photo in memory.
public struct ReportPhoto: Sendable {
    /// Pixel size of the JPEG (for the layout; the PDF takes the size from the JPEG itself).
    public let width: Int
    /// Pixel height.
    public let height: Int
    /// Lines under the photo: the first in bold, the others as they are.
    public let caption: [String]
    /// Reads the JPEG bytes.
    public let load: @Sendable () throws -> Data

    /// A photo of `width` x `height` pixels whose bytes `load` returns.
    public init(width: Int, height: Int, caption: [String] = [], load: @escaping @Sendable () throws -> Data) {
        self.width = max(1, width)
        self.height = max(1, height)
        self.caption = caption
        self.load = load
    }
}

/// A table: a header row and rows of cells, columns sized by share of the text width.
public struct ReportTable: Sendable {
    /// One column: its heading, share of the width and alignment.
    public struct Column: Sendable {
        public let title: String
        public let share: Double
        public let alignRight: Bool
        public init(_ title: String, share: Double, alignRight: Bool = false) {
            self.title = title
            self.share = share
            self.alignRight = alignRight
        }
    }
    public let columns: [Column]
    public let rows: [[String]]
    /// A table; rows shorter than the columns are padded with empty cells.
    public init(columns: [Column], rows: [[String]]) {
        self.columns = columns
        self.rows = rows
    }
}

/// A line chart over time: points at 0...1 on both axes, optional vertical marks (dated changes), axis words.
public struct ReportChart: Sendable {
    /// One vertical mark: where (0...1 across) and its short label ("1", "2", ...).
    public struct Mark: Sendable {
        public let x: Double
        public let label: String
        public init(x: Double, label: String) {
            self.x = x
            self.label = label
        }
    }
    /// Points (x 0...1 across, y 0...1 from the top axis word to the bottom one); a nil y breaks the line.
    public let points: [(x: Double, y: Double?)]
    /// The words at the top and bottom of the vertical axis ("Similar", "Different"; "8.2", "5.1").
    public let topLabel: String, bottomLabel: String
    /// The words under the left and right ends of the time axis.
    public let startLabel: String, endLabel: String
    public let marks: [Mark]
    /// Height in points.
    public let height: Double

    public init(
        points: [(x: Double, y: Double?)], topLabel: String, bottomLabel: String, startLabel: String, endLabel: String,
        marks: [Mark] = [], height: Double = 150
    ) {
        self.points = points
        self.topLabel = topLabel
        self.bottomLabel = bottomLabel
        self.startLabel = startLabel
        self.endLabel = endLabel
        self.marks = marks
        self.height = height
    }
}

/// A calendar grid: one row per month, one cell per day (1-31), each cell showing a one-letter state; the
/// letter carries the meaning, the fill only repeats it.
public struct ReportDayGrid: Sendable {
    /// What one day shows.
    public enum Cell: Sendable, Equatable {
        /// Not in the period, or nothing was scheduled.
        case none
        /// Every scheduled dose logged as taken.
        case taken
        /// Every scheduled dose logged as skipped.
        case skipped
        /// Some logged, some not, or a mix of taken and skipped.
        case partly
        /// Nothing logged.
        case notLogged

        /// The letter printed in the cell.
        public var letter: String {
            switch self {
            case .none: return ""
            case .taken: return "T"
            case .skipped: return "S"
            case .partly: return "P"
            case .notLogged: return "–"
            }
        }
    }
    /// One row: its label ("2026-03") and 31 cells.
    public struct Row: Sendable {
        public let label: String
        public let cells: [Cell]
        public init(label: String, cells: [Cell]) {
            self.label = label
            self.cells = cells
        }
    }
    public let rows: [Row]
    public init(rows: [Row]) { self.rows = rows }
}

/// What a report is made of, top to bottom; the renderer flows it onto pages.
public enum ReportBlock: Sendable {
    /// The big title of the first page.
    case title(String)
    /// A section heading; it never ends a page alone.
    case heading(String)
    /// A paragraph of body text.
    case paragraph(String)
    /// A bold line of body text (a product's name, an insight's title) kept with what follows.
    case strong(String)
    /// Small secondary text.
    case small(String)
    /// A disclaimer: set apart, in full.
    case disclaimer(String)
    /// Label and value rows.
    case facts([(label: String, value: String)])
    case table(ReportTable)
    /// One photo, as large as `maxHeightShare` of the text area allows, with its caption; never split.
    case photo(ReportPhoto, maxHeightShare: Double)
    /// Photos in a grid of `columns`, each scaled to fit its cell, captions under them.
    case photoGrid([ReportPhoto], columns: Int)
    case chart(ReportChart)
    case dayGrid(ReportDayGrid)
    /// Vertical space in points.
    case space(Double)
    /// Starts a new page.
    case pageBreak
    /// Blocks kept on one page when they fit on one (a heading with its chart, one finding): a new page starts
    /// before them rather than splitting them.
    indirect case keep([ReportBlock])
}

/// A whole report: paper, the PDF's own metadata, the footer every page carries, and the blocks.
public struct ReportDocument: Sendable {
    public let paper: PaperSize
    /// The PDF's title (no names of people or places: it travels with the file).
    public let title: String
    /// The instant written as the PDF's creation date (in UTC, so no time zone is revealed).
    public let createdAt: Date
    /// The line in the page header beside the mark ("Cairn · Skin photo log").
    public let header: String
    /// The text every page's footer carries (a disclaimer, for the Skin log), beside "Page i of n".
    public let footer: String
    public let blocks: [ReportBlock]

    public init(paper: PaperSize, title: String, createdAt: Date, header: String, footer: String, blocks: [ReportBlock]) {
        self.paper = paper
        self.title = title
        self.createdAt = createdAt
        self.header = header
        self.footer = footer
        self.blocks = blocks
    }
}
