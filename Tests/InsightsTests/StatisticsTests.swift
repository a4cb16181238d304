import Insights
import Testing

struct StatisticsTests {
    @Test func studentTQuantilesMatchTables() {
        #expect(abs(InsightStatistics.tQuantile(0.975, df: 10) - 2.228) < 0.001)
        #expect(abs(InsightStatistics.tQuantile(0.975, df: 1000) - 1.962) < 0.001)
        #expect(abs(InsightStatistics.tQuantile(0.025, df: 5) + 2.571) < 0.001)
        #expect(InsightStatistics.tQuantile(0.5, df: 3) == 0)
    }

    @Test func twoSidedPValuesMatchTables() {
        #expect(abs(InsightStatistics.twoSidedP(t: 2.228, df: 10) - 0.05) < 0.001)
        #expect(InsightStatistics.twoSidedP(t: 0, df: 4) == 1)
        #expect(InsightStatistics.twoSidedP(t: .infinity, df: 4) == 0)
        #expect(InsightStatistics.twoSidedP(t: .nan, df: 4) == 1)
    }

    @Test func benjaminiHochbergAdjustsAndKeepsUntestedEntriesNil() {
        let adjusted = InsightStatistics.benjaminiHochberg([0.01, nil, 0.04, 0.03])
        #expect(adjusted[1] == nil)
        #expect(abs(adjusted[0]! - 0.03) < 1e-12)
        #expect(abs(adjusted[2]! - 0.04) < 1e-12)
        #expect(abs(adjusted[3]! - 0.04) < 1e-12)
        #expect(InsightStatistics.benjaminiHochberg([]).isEmpty)
        #expect(InsightStatistics.benjaminiHochberg([0.9, 0.95]).allSatisfy { $0! <= 1 })
    }
}
