import CairnCore
import Foundation
import Regimen

/// A realistic sleep diary, NOT drawn from the model the analysis assumes (AR(1) with a weekly rhythm): a 1-5
/// rating typed in once a day, whole points only, from
/// - a baseline of 3.3 with a weekly rhythm (Friday and Saturday nights +0.3, Sunday night −0.3);
/// - stressed spells: a two-state switch (calm spells last about 25 days, stressed ones about 10) that lowers
///   the night by 0.5 while it lasts (carry-over that is neither AR(1) nor constant);
/// - a slow seasonal wave (±0.2 over a year);
/// - night-to-night noise (SD 0.6) and a bad night now and then (7% of nights, −1.5);
/// - gaps: 6% of days not logged at random, and a 9-day trip with nothing logged;
/// - from `changeIndex` on, a shift of `effect` points (the planted effect; 0 for none).
/// Doses: Vitamin D3 every morning from day 0 (5% forgotten), Magnesium glycinate every evening from the change
/// on (8% forgotten), and three single as-needed Ibuprofen tablets (never a change).
struct SleepDiary {
    /// Days of the diary.
    static let days = 160
    /// The day Magnesium glycinate is started (the change).
    static let changeIndex = 120
    /// The first day (a Monday).
    static let firstDay = LocalDay(year: 2026, month: 6, day: 1)!

    /// One value per logged day (index from `firstDay`; nil when not logged).
    let ratings: [Double?]
    /// Dose lines for `cairn regimen import`: (day index, "HH:MM", product, amount, unit).
    let doses: [(day: Int, time: String, product: String, amount: String, unit: String)]

    init(seed: UInt64, effect: Double) {
        var g = SeededGenerator(seed: seed)
        var stressed = false
        let trip = Int(g.uniform(30, 80))
        var ratings: [Double?] = []
        for i in 0..<Self.days {
            if g.unit() < (stressed ? 1.0 / 10 : 1.0 / 25) { stressed.toggle() }
            let weekday = SleepDiary.firstDay.adding(days: i).weekday.rawValue  // 1 = Monday ... 7 = Sunday
            let rhythm = weekday == 5 || weekday == 6 ? 0.3 : (weekday == 7 ? -0.3 : 0)
            var night = 3.3 + rhythm + 0.2 * sin(2 * .pi * Double(i) / 365) - (stressed ? 0.5 : 0) + 0.6 * InsightsBenchmark.normal(&g)
            if g.unit() < 0.07 { night -= 1.5 }
            if i >= Self.changeIndex { night += effect }
            let logged = !(trip..<(trip + 9)).contains(i) && g.unit() >= 0.06
            ratings.append(logged ? min(5, max(1, night.rounded())) : nil)
        }
        var doses: [(Int, String, String, String, String)] = []
        for i in 0..<Self.days {
            if g.unit() < 0.95 { doses.append((i, String(format: "08:%02d", Int(g.uniform(0, 40))), "Vitamin D3", "1", "softgel")) }
            if i >= Self.changeIndex, g.unit() < 0.92 {
                doses.append((i, String(format: "21:%02d", Int(g.uniform(0, 50))), "Magnesium glycinate", "1", "capsule"))
            }
        }
        for i in [15, 70, 133] { doses.append((i, "13:10", "Ibuprofen", "1", "tablet")) }
        self.ratings = ratings
        self.doses = doses.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map { (day: $0.0, time: $0.1, product: $0.2, amount: $0.3, unit: $0.4) }
    }

    /// The logged ratings up to and including day index `last`.
    func values(through last: Int) -> [LocalDay: Double] {
        var out: [LocalDay: Double] = [:]
        for (i, v) in ratings.enumerated() where i <= last { if let v { out[Self.firstDay.adding(days: i)] = v } }
        return out
    }

    /// `sleep.csv` for `cairn regimen outcomes import` and `doses.csv` for `cairn regimen import`.
    func write(to directory: URL) throws {
        var sleep = "date,metric,value\n"
        for (i, v) in ratings.enumerated() { if let v { sleep += "\(Self.firstDay.adding(days: i)),sleep_quality,\(Int(v))\n" } }
        var doseText = "date,time,time zone,product,amount,unit,status\n"
        for d in doses { doseText += "\(Self.firstDay.adding(days: d.day)),\(d.time),Europe/Berlin,\(d.product),\(d.amount),\(d.unit),taken\n" }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(sleep.utf8).write(to: directory.appendingPathComponent("sleep.csv"))
        try Data(doseText.utf8).write(to: directory.appendingPathComponent("doses.csv"))
    }
}
