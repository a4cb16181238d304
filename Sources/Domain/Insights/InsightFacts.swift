import Foundation

/// How an insight's numbers read wherever it is shown (the Insights page, the Regimen summary PDF).
public enum InsightNumbers {
    /// Two decimals under 10, one under 100, none above ("0.95", "12.3", "8200").
    public static func plain(_ v: Double) -> String {
        let digits = abs(v) >= 100 ? 0 : (abs(v) >= 10 ? 1 : 2)
        return String(format: "%.\(digits)f", v)
    }

    /// With its sign: "+0.68", "−0.32" (a true minus sign), "0.00".
    public static func signed(_ v: Double) -> String { (v < 0 ? "−" : (v > 0 ? "+" : "")) + plain(abs(v)) }
}

extension Insight {
    /// The labelled facts shown beside an insight: its windows, the days with a value, the difference with its
    /// interval and the effect size (when known).
    public var facts: [(label: String, value: String)] {
        var facts = [
            ("Window", "\(windowDays) days each side: \(before.lowerBound) to \(before.upperBound), then \(after.lowerBound) to \(after.upperBound)"),
            ("Days with a value", "\(beforeCount) before, \(afterCount) after (\(minimumCount) needed on each side)"),
        ]
        if let difference, let interval {
            let unit = InsightWording.unitText(self.unit)
            facts.append(
                (
                    "Difference",
                    "\(InsightNumbers.signed(difference))\(unit), 95% interval \(InsightNumbers.signed(interval.lowerBound)) to \(InsightNumbers.signed(interval.upperBound))"
                ))
        }
        if let hedgesG, hedgesG.isFinite { facts.append(("Effect size", "g = \(InsightNumbers.plain(hedgesG))")) }
        return facts
    }
}
