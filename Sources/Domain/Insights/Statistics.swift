import Foundation

/// Small numerical tools for the before/after analysis: Student's t distribution and Benjamini-Hochberg.
public enum InsightStatistics {
    /// The two-sided p-value of `t` under Student's t with `df` degrees of freedom.
    public static func twoSidedP(t: Double, df: Double) -> Double {
        guard t.isFinite, df > 0 else { return t.isNaN ? 1 : 0 }
        let x = df / (df + t * t)
        return min(1, max(0, regularizedIncompleteBeta(x, a: df / 2, b: 0.5)))
    }

    /// The `p` quantile (0 < p < 1) of Student's t with `df` degrees of freedom (bisection on the CDF).
    public static func tQuantile(_ p: Double, df: Double) -> Double {
        precondition(p > 0 && p < 1 && df > 0)
        if p == 0.5 { return 0 }
        let upper = p > 0.5
        let target = upper ? 2 * (1 - p) : 2 * p  // two-sided p of |t|
        var low = 0.0
        var high = 1.0
        while twoSidedP(t: high, df: df) > target { high *= 2 }
        for _ in 0..<80 {
            let mid = (low + high) / 2
            if twoSidedP(t: mid, df: df) > target { low = mid } else { high = mid }
        }
        return upper ? (low + high) / 2 : -(low + high) / 2
    }

    /// Benjamini-Hochberg adjusted p-values, in the order given (nil entries are not tested and stay nil).
    public static func benjaminiHochberg(_ pValues: [Double?]) -> [Double?] {
        let tested = pValues.enumerated().compactMap { i, p in p.map { (i, $0) } }.sorted { $0.1 < $1.1 }
        let m = Double(tested.count)
        var adjusted = [Double?](repeating: nil, count: pValues.count)
        var running = 1.0
        for (rank, (index, p)) in tested.enumerated().reversed() {
            running = min(running, p * m / Double(rank + 1))
            adjusted[index] = min(1, running)
        }
        return adjusted
    }

    /// I_x(a, b) by its continued fraction (Lentz), using the symmetry for fast convergence.
    static func regularizedIncompleteBeta(_ x: Double, a: Double, b: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        let logGammas: Double = lgamma(a + b) - lgamma(a) - lgamma(b)
        let logPowers: Double = a * log(x) + b * log(1 - x)
        let logFront = logGammas + logPowers
        if x < (a + 1) / (a + b + 2) {
            return exp(logFront) * continuedFraction(x, a: a, b: b) / a
        }
        return 1 - exp(logFront) * continuedFraction(1 - x, a: b, b: a) / b
    }

    private static func continuedFraction(_ x: Double, a: Double, b: Double) -> Double {
        let tiny = 1e-300
        var c = 1.0
        var d = 1 - (a + b) * x / (a + 1)
        if abs(d) < tiny { d = tiny }
        d = 1 / d
        var h = d
        for m in 1...300 {
            let m = Double(m)
            var aa = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
            d = 1 + aa * d
            if abs(d) < tiny { d = tiny }
            c = 1 + aa / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            h *= d * c
            aa = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
            d = 1 + aa * d
            if abs(d) < tiny { d = tiny }
            c = 1 + aa / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            h *= delta
            if abs(delta - 1) < 1e-12 { break }
        }
        return h
    }
}
