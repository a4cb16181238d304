import Testing

@testable import Skin

/// A plane of uneven values (no symmetry to hide an indexing mistake).
private func ramp(_ w: Int, _ h: Int) -> Plane {
    Plane(width: w, height: h, data: (0..<(w * h)).map { Float(($0 * 37) % 101) / 101 + Float($0 % w) * 0.01 })
}

/// The box mean computed the slow way: every window summed, clamp-to-edge.
private func naiveBox(_ p: Plane, _ r: Int) -> Plane {
    var out = Plane(width: p.width, height: p.height)
    for y in 0..<p.height {
        for x in 0..<p.width {
            var s: Float = 0
            for dy in -r...r {
                for dx in -r...r { s += p[min(max(x + dx, 0), p.width - 1), min(max(y + dy, 0), p.height - 1)] }
            }
            out[x, y] = s / Float((2 * r + 1) * (2 * r + 1))
        }
    }
    return out
}

@Test(arguments: [(9, 7, 1), (13, 5, 3), (3, 9, 2), (1, 6, 1), (16, 16, 7)])
func boxBlurMatchesTheWindowMeanAtEveryPixelWhateverTheRowCount(w: Int, h: Int, r: Int) {
    let p = ramp(w, h)
    let fast = p.boxBlurred(radius: r)
    let slow = naiveBox(p, r)
    for i in fast.data.indices { #expect(abs(fast.data[i] - slow.data[i]) < 1e-5) }
}

@Test func resizingGivesTheBilinearSampleAtEachPixelCentre() {
    let p = ramp(17, 11)
    let q = p.resized(width: 12, height: 8)
    let sx = Float(17) / 12
    let sy = Float(11) / 8
    for y in 0..<8 {
        for x in 0..<12 {
            #expect(q[x, y] == p.sample((Float(x) + 0.5) * sx - 0.5, (Float(y) + 0.5) * sy - 0.5))
        }
    }
}

@Test func bilinearSamplingInterpolatesAndClampsAtTheEdges() {
    let p = Plane(width: 2, height: 2, data: [0, 1, 2, 3])
    #expect(p.sample(0.5, 0.5) == 1.5)
    #expect(p.sample(-4, -4) == 0)
    #expect(p.sample(9, 9) == 3)
    #expect(p.sample(1, 0) == 1)
    let single = Plane(width: 1, height: 1, data: [0.25])
    #expect(single.sample(3, -2) == 0.25)
}

@Test func highPassingRemovesTheBlurredPlaneAndLeavesNothingOfAFlatOne() {
    let p = ramp(12, 9)
    let high = p.highPassed(radius: 2, passes: 2)
    let lo = p.boxBlurred(radius: 2).boxBlurred(radius: 2)
    for i in high.data.indices { #expect(high.data[i] == p.data[i] - lo.data[i]) }
    let flat = Plane(width: 7, height: 5, value: 0.4).highPassed(radius: 1, passes: 3)
    #expect(flat.data.allSatisfy { abs($0) < 1e-6 })
}
