import CairnCore
import Foundation
import Insights
import Testing

struct SimulationTests {
    private let input = MetricSeriesInput(id: "m", name: "M", unit: "", values: [:])
    private let first = LocalDay(parsing: "2026-01-05")!.dayNumber

    /// An AR(1) series of `length` days (φ `phi`), 10% of days missing, plus `steps` (day index, shift from then on).
    private func series(length: Int, phi: Double, seed: UInt64, steps: [(Int, Double)] = []) -> [Double] {
        var g = SeededGenerator(seed: seed)
        var x = Fixture.normal(&g)
        return (0..<length).map { i in
            if i > 0 { x = phi * x + (1 - phi * phi).squareRoot() * Fixture.normal(&g) }
            let missing = g.unit() < 0.1
            return missing ? .nan : x + steps.filter { i >= $0.0 }.map(\.1).reduce(0, +)
        }
    }

    @Test func anEarlierChangesOwnShiftDoesNotPassForCarryOver() {
        // Day noise only, with a product started on day 40 that shifted the level by 1.5 SD; the change compared is on day 180.
        let values = series(length: 208, phi: 0, seed: 5, steps: [(40, 1.5)])
        let change = LocalDay(dayNumber: first + 180)
        let earlier = LocalDay(dayNumber: first + 40)
        let profile = InsightEngine.PreparedSeries(input, dense: DenseSeries(firstDay: first, values: values), changeDays: [earlier, change])
            .profile(around: change)
        #expect(profile.correlation(lag: 7) < 0.1)
        // Demeaned in one block across the earlier change, the shift reads as a carry-over that lasts for weeks.
        let across = InsightEngine.PreparedSeries(input, dense: DenseSeries(firstDay: first, values: values), changeDays: [change])
            .profile(around: change)
        #expect(across.correlation(lag: 7) > 0.2)
    }

    @Test func theSimulatedCalibrationGivesTheSameFigureEveryTimeAndStaysNearOneWhereTheModelHolds() {
        let values = series(length: 148, phi: 0.3, seed: 9)
        let prepared = InsightEngine.PreparedSeries(input, dense: DenseSeries(firstDay: first, values: values))
        let change = LocalDay(dayNumber: first + 120)
        let engine = InsightEngine()
        let short = engine.simulatedFactor(prepared, changeDay: change, asOf: LocalDay(dayNumber: first + 133), windowDays: 14)
        #expect(short == engine.simulatedFactor(prepared, changeDay: change, asOf: LocalDay(dayNumber: first + 133), windowDays: 14))
        #expect(short > 0.7 && short < 1.4)
        // The 28-day look is only ever widened by it.
        #expect(engine.simulatedFactor(prepared, changeDay: change, asOf: LocalDay(dayNumber: first + 147), windowDays: 28) >= 1)
        // Other records, another draw.
        var other = values
        other[3] = 0.5
        #expect(
            engine.simulatedFactor(
                InsightEngine.PreparedSeries(input, dense: DenseSeries(firstDay: first, values: other)), changeDay: change,
                asOf: LocalDay(dayNumber: first + 133), windowDays: 14) != short)
    }

    @Test func theSimulatedT2AllowsForAStepThatMovesWithItsAssumedVariance() {
        // Steps of their expected size: the mean of the variance ratios.
        #expect(abs(InsightEngine.meanSquaredT([(r: 1.2, x: 1), (r: 0.8, x: 1)]) - 1) < 1e-12)
        // The large step came where the method assumed a larger variance (r small): its t² was smaller than the
        // ratios' mean says, and the draws' steps spread as expected overall (mean x = 1): 0.84, not 1.
        #expect(abs(InsightEngine.meanSquaredT([(r: 1.2, x: 0.2), (r: 0.8, x: 1.8)]) - 0.84) < 1e-12)
        // The other way round, it is larger.
        #expect(abs(InsightEngine.meanSquaredT([(r: 1.2, x: 1.8), (r: 0.8, x: 0.2)]) - 1.16) < 1e-12)
        // Steps that all came out small say nothing about the ratios: the control variate gives their mean back.
        #expect(abs(InsightEngine.meanSquaredT([(r: 1, x: 0), (r: 1, x: 0)]) - 1) < 1e-12)
        // A freak draw never narrows the comparison below half the ratios' mean.
        #expect(abs(InsightEngine.meanSquaredT([(r: 0.2, x: 9), (r: 2, x: 0)]) - 0.55) < 1e-12)
    }

    @Test func thePlaceboDatesAreMeasuredAgainstTheSimulatedCalibration() {
        // 20 placebo dates whose t² average 0.8 of what the plain model expects.
        let check = PlaceboCheck(
            dates: 20, flagged: 0, varianceFactor: InsightEngine.calibration(16, dates: 20, windowDays: 14),
            longVarianceFactor: nil, squares: 16, longSquares: 8, longDates: 10)
        #expect(check.varianceFactor(windowDays: 14, simulated: 1) == check.varianceFactor(windowDays: 14))
        #expect(check.varianceFactor(windowDays: 14) == 1, "never narrowed by the placebo dates alone")
        // A simulation that says the method is 20% too careful, and dates that agree with it: narrowed by 20%.
        #expect(abs(check.varianceFactor(windowDays: 14, simulated: 0.8) - 0.8) < 1e-9)
        // A simulation that says it is too sure: at least as wide as the simulation says.
        #expect(check.varianceFactor(windowDays: 14, simulated: 1.3) >= 1.3)
        // The 28-day look takes the wider of its own dates' calibration and the 14-day one.
        #expect(check.varianceFactor(windowDays: 28, simulated: 1.1) >= check.varianceFactor(windowDays: 14, simulated: 1.1))
    }
}
