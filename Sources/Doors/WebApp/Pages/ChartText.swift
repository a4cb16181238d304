/// Text inside the SVG charts (Outcomes, Insights). It is sized in the chart's own units, so its size on screen
/// follows the chart's width; at phone width the stylesheet gives it more units ("chart text" in cairn.css) so that
/// it stays about 12 px there. The room the charts leave for their labels is worked out here, for that largest size.
enum ChartText {
    /// The largest font size, in chart units, cairn.css gives chart text (at phone width).
    static let largestFontUnits = 16.5

    /// The width, in chart units, of a column of right-aligned `labels` at the largest size plus `gap`, and never
    /// less than `minimum` (tabular figures are about 0.62 em wide).
    static func margin(for labels: [String], gap: Double, minimum: Double) -> Double {
        let longest = labels.map(\.count).max() ?? 0
        return max(minimum, (Double(longest) * 0.62 * largestFontUnits + gap).rounded(.up))
    }
}
