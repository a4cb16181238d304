import Foundation

/// The grid the change is measured on (revision 11): the baseline's whole frame, centred, at the step of the central
/// crop's grid of revisions 1 to 10 (`SkinComparator.gridShortSide` grid pixels across the shorter side, about one
/// working-copy pixel each), so that every term sees a mark at the resolution it was tuned at.
struct ComparisonGrid: Equatable {
    /// Columns and rows.
    let width: Int
    let height: Int
    /// Baseline (working copy) pixels per grid pixel.
    let step: Float
    /// Where the grid starts, in baseline pixel coordinates (pixel centres at integers): grid pixel (i, j) has its
    /// centre at `(x0 + (i + 0.5) * step, y0 + (j + 0.5) * step)`.
    let x0: Float
    let y0: Float

    init(baselineWidth bw: Int, baselineHeight bh: Int) {
        step = Float(min(bw, bh)) / Float(SkinComparator.gridShortSide)
        width = max(1, Int((Float(bw) / step).rounded(.down)))
        height = max(1, Int((Float(bh) / step).rounded(.down)))
        x0 = (Float(bw) - Float(width) * step) / 2 - 0.5
        y0 = (Float(bh) - Float(height) * step) / 2 - 0.5
    }

    /// A grid of `width` x `height` pixels, one baseline pixel each (for tests of the terms on their own planes).
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        step = 1
        x0 = -0.5
        y0 = -0.5
    }

    var count: Int { width * height }

    /// Grid pixels of the central crop of revisions 1 to 10, the area the percentiles of the change terms were tuned on.
    static let referenceCount = SkinComparator.mapSide * SkinComparator.mapSide

    /// The upper quantile of `count` values that keeps the same number of values above it as quantile `q` of the
    /// reference area would: a change covers a fixed area of skin, so over a whole frame (2.8 to 3.7 times the crop's
    /// area) its tail is the same grid pixels, not the same share. Up to the reference area, `q` itself.
    static func upperQuantile(_ q: Double, count: Int) -> Double {
        1 - (1 - q) * min(1, Double(referenceCount) / Double(max(1, count)))
    }

    /// The lower-tail counterpart of `upperQuantile`.
    static func lowerQuantile(_ q: Double, count: Int) -> Double {
        q * min(1, Double(referenceCount) / Double(max(1, count)))
    }
}

/// Alignment, colour fit and change map of one comparison (revision 4; over the whole frame from revision 11).
enum ChangeAnalysis {
    /// Rotation/scale pairs of the wide fallback search that are refined, best coarse scores first, after the normal
    /// grid's best pair.
    static let wideSeeds = 2

    struct Aligned {
        var warp: Warp
        var method: AlignmentMethod
        var matches: Int
        var inliers: Int
        var correlation: Float
    }

    static func align(_ base: PreparedPhoto, _ probe: PreparedPhoto) -> Aligned {
        let cx = Float(base.gray.width - 1) / 2
        let cy = Float(base.gray.height - 1) / 2
        let pcx = Float(probe.gray.width - 1) / 2
        let pcy = Float(probe.gray.height - 1) / 2
        let matches = Keypoints.match(base.keypoints, probe.keypoints)
        var candidates: [(Warp, AlignmentMethod, Int)] = []
        var inliers = 0
        if let (s, n) = Keypoints.ransacSimilarity(matches, cx: cx, cy: cy), n >= 8 {
            candidates.append((s, .keypoints, n))
            inliers = n
        }
        func refineAll(_ start: Warp, fromLevel top: Int) -> Warp {
            var w = start
            for level in stride(from: top, through: 0, by: -1) where level < base.pyramid.levels.count && level < probe.pyramid.levels.count {
                let s = Float(1 << level)
                let lw = w.atLevel(scale: s)
                let r = IntensityAlignment.refine(
                    base: base.pyramid.levels[level], probe: probe.pyramid.levels[level],
                    gx: probe.pyramid.gradX[level], gy: probe.pyramid.gradY[level], warp: lw,
                    fraction: SkinComparator.cropFraction, stride: level == 0 ? 2 : 1, iterations: level == 0 ? 6 : 12)
                w = r.fromLevel(scale: s)
            }
            return w
        }
        func score(_ w: Warp) -> Float {
            IntensityAlignment.correlation(
                base: base.band, probe: probe.band, warp: w,
                fraction: SkinComparator.cropFraction, stride: 2)
        }
        var best: Aligned?
        if let c = candidates.first {
            // Keep the refinement only if it improves the structure correlation.
            let raw = score(c.0)
            let w = refineAll(c.0, fromLevel: 1)
            let refined = score(w)
            best = Aligned(
                warp: refined >= raw ? w : c.0, method: .keypoints, matches: matches.count, inliers: inliers,
                correlation: max(raw, refined))
        }
        let top = min(base.pyramid.levels.count, probe.pyramid.levels.count) - 1
        let s = Float(1 << top)
        let b = base.pyramid.levels[top]
        let p = probe.pyramid.levels[top]
        // Intensity fallback when keypoints gave nothing or a poor fit.
        var normalSeed: Warp?
        if best == nil || best!.correlation < 0.5 {
            normalSeed =
                IntensityAlignment.coarseSearch(
                    base: b, probe: p, cx: Float(b.width - 1) / 2, cy: Float(b.height - 1) / 2,
                    probeCX: Float(p.width - 1) / 2, probeCY: Float(p.height - 1) / 2)[0]
            let w = refineAll(normalSeed!.fromLevel(scale: s), fromLevel: top)
            let c = score(w)
            if best == nil || c > best!.correlation {
                best = Aligned(warp: w, method: .intensity, matches: matches.count, inliers: inliers, correlation: c)
            }
        }
        // Wide fallback, only when everything above fails the gate (so the common path costs nothing): sloppy captures
        // are blurred and noisy (the finest band-pass detail is gone), unevenly lit (grey-level alignment follows the
        // shading) and turned or zoomed beyond the normal grid. Seeds: the normal grid's best pair again, plus the best
        // `wideSeeds` pairs of the wide grid searched on detrended coarse planes (shading removed). Each is refined on
        // the band-pass planes smoothed by two 3x3 box passes and scored on them; a result is taken only when it reaches
        // the correlation threshold and every quadrant of the crop agrees (`Calibration.minimumQuadrantCorrelation`):
        // a search this wide lines up one strong edge of an unrelated photo, but not the detail of all four quadrants.
        if best!.correlation < Calibration.minimumCorrelation {
            let bb = base.band.boxBlurred(radius: 1).boxBlurred(radius: 1)
            let pb = probe.band.boxBlurred(radius: 1).boxBlurred(radius: 1)
            let grid = IntensityAlignment.wideGrid
            let wide = IntensityAlignment.coarseSearch(
                base: Gate.detrended(b), probe: Gate.detrended(p),
                cx: Float(b.width - 1) / 2, cy: Float(b.height - 1) / 2,
                probeCX: Float(p.width - 1) / 2, probeCY: Float(p.height - 1) / 2,
                scales: grid.scales, degrees: grid.degrees, keep: wideSeeds)
            let bandBase = Pyramid(bb, count: 3)
            let bandProbe = Pyramid(pb, count: 3)
            for seed in (normalSeed.map { [$0] } ?? []) + wide {
                var w = seed.fromLevel(scale: s)
                for level in stride(from: top, through: 0, by: -1) where level < bandBase.levels.count && level < bandProbe.levels.count {
                    let ls = Float(1 << level)
                    w = IntensityAlignment.refine(
                        base: bandBase.levels[level], probe: bandProbe.levels[level],
                        gx: bandProbe.gradX[level], gy: bandProbe.gradY[level], warp: w.atLevel(scale: ls),
                        fraction: SkinComparator.cropFraction, stride: level == 0 ? 2 : 1,
                        iterations: level == 0 ? 6 : 12
                    ).fromLevel(scale: ls)
                }
                let c = IntensityAlignment.correlation(base: bb, probe: pb, warp: w, fraction: SkinComparator.cropFraction, stride: 2)
                guard c >= Calibration.minimumCorrelation, c > best!.correlation else { continue }
                let quadrants = Gate.tileCorrelations(base: bb, probe: pb, warp: w, fraction: SkinComparator.cropFraction, stride: 2, parts: 2)
                guard (quadrants.min() ?? -1) >= Calibration.minimumQuadrantCorrelation else { continue }
                best = Aligned(warp: w, method: .intensity, matches: matches.count, inliers: inliers, correlation: c)
                // A clear match: the remaining seeds cannot change the verdict.
                if c >= 0.5 { break }
            }
        }
        _ = pcx
        _ = pcy
        if best!.correlation >= Calibration.minimumCorrelation {
            let checked = RingSupport.check(base, probe, best!.warp)
            best!.warp = Perspective.fit(base, probe, checked.warp, agreement: checked.agreement, cropScore: score)
            // Revision 11 compares the whole frame, so the transform must hold out to its edges, not only where the
            // crop and the ring were refined: polished over the frame's tiles (those that do not agree weighted down,
            // as for the ring), and kept when the frame agrees better with it.
            let (frameBefore, frameWeights) = RingSupport.ringAgreement(base, probe, best!.warp, wholeFrame: true)
            if frameWeights.contains(where: { $0 > 0 }) {
                let polished = RingSupport.refine(base, probe, best!.warp, weights: frameWeights, levels: 0...1, perspective: true)
                if RingSupport.ringAgreement(base, probe, polished, wholeFrame: true).0 > frameBefore { best!.warp = polished }
            }
            best!.correlation = max(best!.correlation, score(best!.warp))
        }
        return best!
    }

    static func run(baseline: PreparedPhoto, probe: PreparedPhoto, inspection: Inspection? = nil) -> SkinComparisonResult {
        let emptyMap = ChangeMap(
            width: SkinComparator.changeMapSide, height: SkinComparator.changeMapSide,
            values: [Float](repeating: 0, count: SkinComparator.changeMapSide * SkinComparator.changeMapSide))
        if baseline.lumaStdDev < 0.004 || probe.lumaStdDev < 0.004 {
            let summary = AlignmentSummary(
                method: .failed, keypointMatches: 0, keypointInliers: 0, scale: 1, rotationDegrees: 0,
                shiftX: 0, shiftY: 0, correlation: 0)
            return SkinComparisonResult(
                revision: .current, rawScore: 0, similarityPercent: nil, comparable: false,
                reasonNotComparable: .tooLittleDetail, changeMap: emptyMap, alignment: summary,
                diagnostics: ComparisonDiagnostics(medianChange: 0, histogramDistance: 0))
        }
        let al = align(baseline, probe)
        let bw = baseline.color.width
        let bh = baseline.color.height
        let grid = ComparisonGrid(baselineWidth: bw, baselineHeight: bh)
        let gw = grid.width
        let gh = grid.height
        let x0 = grid.x0
        let y0 = grid.y0
        let step = grid.step
        // Sample both photos over the baseline's whole frame.
        let count = grid.count
        // B and P (BL and PL in linear light, below): the baseline's and the probe's three channels, named as in
        // the colour fit's equations, where the capitals keep the two apart at a glance.
        // swift-format-ignore: AlwaysUseLowerCamelCase
        var B = [[Float]](repeating: [Float](repeating: 0, count: count), count: 3)
        // swift-format-ignore: AlwaysUseLowerCamelCase
        var P = B
        var valid = [Bool](repeating: true, count: count)
        let bp = [baseline.color.r, baseline.color.g, baseline.color.b]
        let pp = [probe.color.r, probe.color.g, probe.color.b]
        let pw = probe.color.width
        let ph = probe.color.height
        let downscale = al.warp.scale * step
        // Pre-smooth source planes slightly when the grid is coarser than the pixels (anti-aliasing).
        let bSigma = max(0, (step * step - 0.25)).squareRoot() * 0.5
        let pSigma = max(0, (downscale * downscale - 0.25)).squareRoot() * 0.5
        let bSrc = bSigma < 0.5 ? bp : bp.map { $0.gaussianBlurred(sigma: bSigma) }
        let pSrc = pSigma < 0.5 ? pp : pp.map { $0.gaussianBlurred(sigma: pSigma) }
        withPlanes(bSrc) { b0, b1, b2 in
            for j in 0..<gh {
                for i in 0..<gw {
                    let k = j * gw + i
                    let bAt = Bilinear(bw, bh, x0 + (Float(i) + 0.5) * step, y0 + (Float(j) + 0.5) * step)
                    B[0][k] = bAt.value(b0)
                    B[1][k] = bAt.value(b1)
                    B[2][k] = bAt.value(b2)
                }
            }
        }
        // The probe through the transform and, once measured, the residual field (`ResidualField`).
        func sampleProbe(_ field: ResidualField.Field?) {
            withPlanes(pSrc) { p0, p1, p2 in
                for j in 0..<gh {
                    for i in 0..<gw {
                        let (du, dv) = field?.at(i, j) ?? (0, 0)
                        let (u, v) = al.warp.apply(x0 + (Float(i) + 0.5 + du) * step, y0 + (Float(j) + 0.5 + dv) * step)
                        let k = j * gw + i
                        valid[k] = !(u < -0.5 || v < -0.5 || u > Float(pw) - 0.5 || v > Float(ph) - 0.5)
                        let pAt = Bilinear(pw, ph, u, v)
                        P[0][k] = pAt.value(p0)
                        P[1][k] = pAt.value(p1)
                        P[2][k] = pAt.value(p2)
                    }
                }
            }
        }
        sampleProbe(nil)
        // Something else at the frame's edge (a background, clothing) is set aside before the colour fit and the map.
        let foreign = ForeignEdge.mask(base: baseline, probe: probe, warp: al.warp, grid: grid, valid: valid, inspection: inspection)
        func grey(_ x: [[Float]]) -> [Float] { (0..<count).map { 100 * (0.299 * x[0][$0] + 0.587 * x[1][$0] + 0.114 * x[2][$0]) } }
        if let field = ResidualField.fit(
            base: grey(B), probe: grey(P), valid: (0..<count).map { valid[$0] && !foreign[$0] }, grid: grid)
        {
            sampleProbe(field)
        }
        let validFraction = Float(valid.filter { $0 }.count) / Float(count)
        // Grid pixels within `edgeMargin` of the probe's edge are left out too: there the filters below (band-pass, the
        // 7x7 map, the blob averages) would read the probe's border, repeated beyond it by the sampling, as change.
        if validFraction < 1 {
            let outside = Plane(width: gw, height: gh, data: valid.map { $0 ? 0 : 1 }).boxBlurred(radius: Tuning.edgeMargin)
            for k in 0..<count where outside.data[k] > 1e-6 { valid[k] = false }
        }
        let insideCount = valid.filter { $0 }.count
        var foreignCount = 0
        for k in 0..<count where foreign[k] && valid[k] {
            valid[k] = false
            foreignCount += 1
        }
        inspection?.colour("baseline", B)
        inspection?.colour("probe", P)
        // Robust colour fit in linear light.
        // swift-format-ignore: AlwaysUseLowerCamelCase
        var BL = B.map { $0.map(ColorScience.linear) }
        // swift-format-ignore: AlwaysUseLowerCamelCase
        var PL = P.map { $0.map(ColorScience.linear) }
        var usable = [Bool](repeating: false, count: count)
        for k in 0..<count where valid[k] {
            var ok = true
            for c in 0..<3 where B[c][k] <= 0.012 || B[c][k] >= 0.985 || P[c][k] <= 0.012 || P[c][k] >= 0.985 { ok = false }
            usable[k] = ok
        }
        let probeLinear = PL
        let probeLogs = PL.map(ToneFit.logarithms)
        for c in 0..<3 {
            PL[c] = ToneFit.apply(
                ToneFit.fitParams(base: BL[c], probe: PL[c], usable: usable, grid: grid, probeLogs: probeLogs[c]),
                probe: PL[c], grid: grid, probeLogs: probeLogs[c])
        }
        // For the blob-sized colour term (revision 7) the same tone curve is fitted to the planes averaged over 5x5 grid
        // pixels and applied to the probe's own pixels: the curve is smooth, so averaging takes the pixel noise (sensor
        // noise, JPEG, a residual sub-pixel shift) out of the fit's residuals, and the trimming then sets aside a colour
        // change over a patch instead of bending the curve (a gain across the frame) to absorb part of it.
        var colourLab = [[Float]](repeating: [Float](repeating: 0, count: count), count: 3)
        do {
            var fitted = probeLinear
            for c in 0..<3 {
                let b = Plane(width: gw, height: gh, data: BL[c]).boxBlurred(radius: 2).data
                let p = Plane(width: gw, height: gh, data: probeLinear[c]).boxBlurred(radius: 2).data
                fitted[c] = ToneFit.apply(
                    ToneFit.fitParams(base: b, probe: p, usable: usable, grid: grid), probe: probeLinear[c], grid: grid,
                    probeLogs: probeLogs[c])
            }
            for k in 0..<count {
                let p = ColorScience.lab(linearR: max(0, fitted[0][k]), g: max(0, fitted[1][k]), b: max(0, fitted[2][k]))
                colourLab[0][k] = p.0
                colourLab[1][k] = p.1
                colourLab[2][k] = p.2
            }
        }
        inspection?.colour("probe, tone fitted", PL.map { $0.map(ColorScience.encoded) })
        _ = BL.count
        // Lab of both.
        var bLab = [[Float]](repeating: [Float](repeating: 0, count: count), count: 3)
        var pLab = bLab
        for k in 0..<count {
            let b = ColorScience.lab(linearR: BL[0][k], g: BL[1][k], b: BL[2][k])
            bLab[0][k] = b.0
            bLab[1][k] = b.1
            bLab[2][k] = b.2
            let p = ColorScience.lab(linearR: max(0, PL[0][k]), g: max(0, PL[1][k]), b: max(0, PL[2][k]))
            pLab[0][k] = p.0
            pLab[1][k] = p.1
            pLab[2][k] = p.2
        }
        BL = []
        let bL = Plane(width: gw, height: gh, data: bLab[0]).boxBlurred(radius: 1)
        let bA = Plane(width: gw, height: gh, data: bLab[1]).boxBlurred(radius: 1)
        let bB = Plane(width: gw, height: gh, data: bLab[2]).boxBlurred(radius: 1)
        let pL = Plane(width: gw, height: gh, data: pLab[0]).boxBlurred(radius: 1)
        let pA = Plane(width: gw, height: gh, data: pLab[1]).boxBlurred(radius: 1)
        let pB = Plane(width: gw, height: gh, data: pLab[2]).boxBlurred(radius: 1)
        // ΔE with the best match within one pixel.
        var dE = [Float](repeating: 0, count: count)
        withPlanes([bL, bA, bB]) { bl, ba, bb in
            withPlanes([pL, pA, pB]) { pl, pa, pb in
                dE.withUnsafeMutableBufferPointer { out in
                    for j in 0..<gh {
                        for i in 0..<gw {
                            let k = j * gw + i
                            var best = Float.greatestFiniteMagnitude
                            for dy in -1...1 {
                                let jj = min(max(j + dy, 0), gh - 1)
                                for dx in -1...1 {
                                    let ii = min(max(i + dx, 0), gw - 1)
                                    let q = jj * gw + ii
                                    let l = bl[k] - pl[q]
                                    let a = ba[k] - pa[q]
                                    let b = bb[k] - pb[q]
                                    let d = l * l + a * a + b * b
                                    if d < best { best = d }
                                }
                            }
                            out[k] = best.squareRoot()
                        }
                    }
                }
            }
        }
        // Texture term: local high-pass energy ratio, relative to its median.
        // Band-pass L of both (sigma ~2.3 high-pass), shared by the texture and the structure terms.
        let bBand = Plane(width: gw, height: gh, data: bLab[0]).highPassed(radius: 2, passes: 2)
        let pBand = Plane(width: gw, height: gh, data: pLab[0]).highPassed(radius: 2, passes: 2)
        let bHP = highPassEnergy(bBand)
        let pHP = highPassEnergy(pBand)
        var ratio = [Float](repeating: 0, count: count)
        var ratioValid: [Float] = []
        ratioValid.reserveCapacity(count)
        for k in 0..<count {
            ratio[k] = logf((pHP.data[k] + Tuning.textureFloor) / (bHP.data[k] + Tuning.textureFloor))
            if valid[k] { ratioValid.append(ratio[k]) }
        }
        let medRatio = Plane.quantile(ratioValid, 0.5)
        // Structure term: 1 - local correlation of band-pass L (7x7), relative to its median.
        let q = structureDissimilarity(bBand, pBand)
        var qValid: [Float] = []
        qValid.reserveCapacity(count)
        for k in 0..<count where valid[k] { qValid.append(q.data[k]) }
        let medQ = Plane.quantile(qValid, 0.5)
        // A pixel at white in some channel (either photo) carries no usable colour: its ΔE stays out of the map, while
        // the texture and structure terms (detail in L) still count. At white in every channel it carries no detail
        // either and leaves the map. (Bright skin photographed a little brighter clips its red channel first.)
        var colourValid = valid
        var detailCount = 0
        var colourCount = 0
        for k in 0..<count where valid[k] {
            var clipped = 0
            for c in 0..<3 where B[c][k] >= 0.985 || P[c][k] >= 0.985 { clipped += 1 }
            if clipped > 0 { colourValid[k] = false } else { colourCount += 1 }
            if clipped == 3 { valid[k] = false } else { detailCount += 1 }
        }
        // Shares of what was left to compare once the parts outside the probe and set aside are out.
        let comparedCount = max(1, insideCount - foreignCount)
        let unclippedFraction = Float(detailCount) / Float(comparedCount)
        var d = [Float](repeating: 0, count: count)
        for k in 0..<count where valid[k] {
            d[k] =
                (colourValid[k] ? dE[k] / Tuning.deltaEUnit : 0) + Tuning.textureWeight * textureTerm(ratio[k] - medRatio)
                + Tuning.structureWeight * max(0, q.data[k] - medQ)
        }
        let map = Plane(width: gw, height: gh, data: d).boxBlurred(radius: Tuning.mapRadius)
        inspection?.grey(
            "map", map.data, white: Float(Calibration.displayCeiling), red: foreign,
            blue: (0..<count).map { !valid[$0] && !foreign[$0] })
        var vals: [Float] = []
        vals.reserveCapacity(count)
        for k in 0..<count where valid[k] { vals.append(map.data[k]) }
        let levels = Plane.quantiles(
            vals, [0.5, ComparisonGrid.upperQuantile(Tuning.scorePercentile, count: vals.count), Tuning.noiseQuantile]
        ).map(Double.init)
        let median = levels[0]
        var raw = levels[1] - Tuning.subtractMedian * median
        let noiseFactor = Tuning.noiseFactor(spread: levels[2] - median)
        if Tuning.wideWeight > 0 {
            let wide = Plane(width: gw, height: gh, data: d).boxBlurred(radius: 7)
            var wv: [Float] = []
            wv.reserveCapacity(count)
            for k in 0..<count where valid[k] { wv.append(wide.data[k]) }
            let w = Plane.quantiles(wv, [ComparisonGrid.upperQuantile(0.99, count: wv.count), 0.5])
            raw += Tuning.wideWeight * (Double(w[0]) - Double(w[1]))
        }
        let blobs = BlobTerms.measure(
            bLab: bLab, pLab: colourLab, colourValid: colourValid, detailValid: valid,
            bBand: bBand, pBand: pBand, grid: grid, inspection: inspection)
        let displacement = BlockTerms.displacement(
            base: Plane(width: gw, height: gh, data: bLab[0]),
            probe: Plane(width: gw, height: gh, data: pLab[0]), valid: valid)
        let mapScore = raw * noiseFactor
        let spot = SpotTerm.measure(baseL: bLab[0], probeL: colourLab[0], valid: colourValid, width: gw)
        raw = Calibration.rawScore(map: mapScore, displacement: displacement, colour: blobs.colour, texture: blobs.texture, spot: spot)
        // Heat map at 64x64 over the whole frame: each cell the mean of the map over its compared grid pixels, or
        // `ChangeMap.notCompared` where under half of them were compared.
        let m = SkinComparator.changeMapSide
        var heat = [Float](repeating: 0, count: m * m)
        for y in 0..<m {
            let j0 = y * gh / m
            let j1 = max(j0 + 1, (y + 1) * gh / m)
            for x in 0..<m {
                let i0 = x * gw / m
                let i1 = max(i0 + 1, (x + 1) * gw / m)
                var s: Float = 0
                var used = 0
                for j in j0..<j1 {
                    for i in i0..<i1 where valid[j * gw + i] {
                        s += map.data[j * gw + i]
                        used += 1
                    }
                }
                heat[y * m + x] =
                    2 * used < (j1 - j0) * (i1 - i0)
                    ? ChangeMap.notCompared : min(1, s / Float(used) / Float(Calibration.displayCeiling))
            }
        }
        let hist = ColorGate.greyWorldHistogramDistance(B, P, valid: colourValid)
        let reason = Gate.reason(
            correlation: al.correlation, validFraction: validFraction, unclippedFraction: unclippedFraction,
            medianChange: median, histogramDistance: hist)
        let minSide = Double(min(bw, bh))
        let (sx, sy) = al.warp.apply(Float(bw - 1) / 2, Float(bh - 1) / 2)
        let summary = AlignmentSummary(
            method: reason == .alignmentFailed ? .failed : al.method, keypointMatches: al.matches,
            keypointInliers: al.inliers, scale: Double(al.warp.scale), rotationDegrees: Double(al.warp.rotationDegrees),
            shiftX: (Double(sx) - Double(pw - 1) / 2) / minSide, shiftY: (Double(sy) - Double(ph - 1) / 2) / minSide,
            correlation: Double(al.correlation), keystone: Double(al.warp.keystone(radius: Float(minSide) / 2)))
        return SkinComparisonResult(
            revision: .current, rawScore: raw,
            similarityPercent: reason == nil ? Calibration.similarityPercent(rawScore: raw) : nil,
            comparable: reason == nil, reasonNotComparable: reason,
            changeMap: ChangeMap(width: m, height: m, values: heat), alignment: summary,
            diagnostics: ComparisonDiagnostics(
                medianChange: median, histogramDistance: hist, mapScore: mapScore,
                displacement: displacement, unclippedFraction: Double(unclippedFraction),
                colourFraction: Double(colourCount) / Double(comparedCount),
                colourBlob: blobs.colour, textureBlob: blobs.texture,
                foreignFraction: Double(foreignCount) / Double(count),
                spotPeak: spot, outsideFraction: Double(count - insideCount) / Double(count)))
    }

    /// Calls `body` with read access to the data of three planes.
    static func withPlanes<R>(_ planes: [Plane], _ body: (UnsafeBufferPointer<Float>, UnsafeBufferPointer<Float>, UnsafeBufferPointer<Float>) -> R)
        -> R
    {
        planes[0].data.withUnsafeBufferPointer { a in
            planes[1].data.withUnsafeBufferPointer { b in planes[2].data.withUnsafeBufferPointer { c in body(a, b, c) } }
        }
    }

    /// Texture-ratio contribution: symmetric (a one-sided "loss of texture only" variant scored lower:
    /// typical AUC 0.894 against 0.915 on the quick bench).
    @inline(__always) static func textureTerm(_ x: Float) -> Float { abs(x) }

    /// sqrt of the local mean of the squared band-pass L (`band`: L minus its blur) over a 5x5 window.
    static func highPassEnergy(_ band: Plane) -> Plane {
        var sq = band.data
        for k in sq.indices { sq[k] = band.data[k] * band.data[k] }
        var e = Plane(width: band.width, height: band.height, data: sq).boxBlurred(radius: 2)
        // The running-sum box mean can dip a hair below 0 on flat areas (a large uniform spot): clamp before the
        // root, or NaN would reach the score.
        for k in e.data.indices { e.data[k] = max(0, e.data[k]).squareRoot() }
        return e
    }

    /// 1 - local correlation (7x7 window) of the band-pass L planes `bb` and `pb`; flat windows tend to 0 via the
    /// constant. `energies`: the covariance is taken against the larger of the two variances instead of their geometric
    /// mean, so that detail in one photo against a flat patch in the other (skin against a smooth background) reads as
    /// disagreement, not as two flat windows agreeing.
    static func structureDissimilarity(_ bb: Plane, _ pb: Plane, energies: Bool = false) -> Plane {
        let n = bb.data.count
        var bp = [Float](repeating: 0, count: n)
        var b2 = bp
        var p2 = bp
        for i in 0..<n {
            bp[i] = bb.data[i] * pb.data[i]
            b2[i] = bb.data[i] * bb.data[i]
            p2[i] = pb.data[i] * pb.data[i]
        }
        let r = 3
        let mb = bb.boxBlurred(radius: r)
        let mp = pb.boxBlurred(radius: r)
        let mbp = Plane(width: bb.width, height: bb.height, data: bp).boxBlurred(radius: r)
        let mb2 = Plane(width: bb.width, height: bb.height, data: b2).boxBlurred(radius: r)
        let mp2 = Plane(width: bb.width, height: bb.height, data: p2).boxBlurred(radius: r)
        var out = Plane(width: bb.width, height: bb.height)
        let c = Tuning.structureConstant
        for i in 0..<n {
            let vb = max(0, mb2.data[i] - mb.data[i] * mb.data[i])
            let vp = max(0, mp2.data[i] - mp.data[i] * mp.data[i])
            let cov = mbp.data[i] - mb.data[i] * mp.data[i]
            out.data[i] = 1 - (cov + c) / ((energies ? max(vb, vp) : (vb * vp).squareRoot()) + c)
        }
        return out
    }

    /// Internal weights of the change map, chosen on the bench replay (`cairn-bench skin --replay`, AUC of no-change
    /// against visible change, careful / typical). Revision 1: texture-ratio weight 1 -> 0.5 and structure weight 1 -> 2
    /// raised typical AUC 0.866 -> 0.896; subtracting the map's median and adding the wide-window term raised it to ~0.91
    /// each. Revision 2 with the displacement term: 0.967 / 0.927. Then (issue 5, same revision number until the merge)
    /// dividing the raw score by the square root of the photo pair's own noise level (`noiseFactor`) gave
    /// 0.975 / 0.930; with it, a 7x7 instead of 5x5 map smoothing, the wide term's weight 1 -> 2 and the ΔE term 1.5x
    /// heavier against texture, structure and displacement (their weights 0.5 / 2 / 2 -> 1/3 / 4/3 / 4/3, so that
    /// the map keeps its ΔE/6 units for the median gate) gave 0.981 / 0.936 (each alone without the division:
    /// 0.971 / 0.929, 0.969 / 0.929, 0.970 / 0.928).
    enum Tuning {
        /// ΔE units per change-map unit.
        static let deltaEUnit: Float = 6
        /// Weight of the texture (high-pass energy ratio) term.
        static let textureWeight: Float = 1.0 / 3
        /// Weight of the structure (1 - local band-pass correlation) term.
        static let structureWeight: Float = 4.0 / 3
        /// Radius of the box smoothing of the change map (7x7): the smallest region changes of the bench cover about
        /// 15 grid pixels; 5x5 / 7x7 / 9x9 gave careful AUC 0.979 / 0.981 / 0.982, typical 0.934 / 0.936 / 0.936 and
        /// typical caught at 5% false alarms 83.6% / 84.5% / 83.3%.
        static let mapRadius = 3
        /// Grid pixels next to the probe's edge left out of the comparison (revision 11), a little over the reach of the
        /// map's smoothing and band-pass filters.
        static let edgeMargin = 4
        /// Stabilising constant of the local correlation (L units squared).
        static let structureConstant: Float = 0.5
        /// Added to texture energies (L units) before the ratio, so flat areas do not explode.
        static let textureFloor: Float = 0.6
        /// The map's median is subtracted from its high percentile: change is local, session noise is global.
        static let subtractMedian = 1.0
        /// Weight of the blob-sized term: 99th minus 50th percentile of the map averaged over 15x15 windows
        /// (1 / 2 / 3 with the other settings here: careful AUC 0.979 / 0.981 / 0.981, typical 0.933 / 0.936 / 0.937).
        static let wideWeight = 2.0
        /// Percentile of the smoothed map used as the raw score.
        static let scorePercentile = 0.995
        /// The pair's noise level: this percentile of the smoothed map minus its median. A change covers a few percent
        /// of the crop, so it lifts the 99.5th percentile and leaves the 90th mostly to session noise (sensor noise,
        /// residual misalignment, fine texture that a 1-pixel shift already changes).
        static let noiseQuantile = 0.9
        /// Typical noise level: median of the 90th-minus-50th percentile spread on careful and typical no-change
        /// pairs of the bench replay (0.029).
        static let noiseReference = 0.029
        /// Added to the relative noise level before the root, so that a nearly noiseless pair (an identical photo)
        /// cannot blow a small difference up.
        static let noiseConstant = 0.1

        /// Multiplier of the raw score for a pair whose noise level is `spread`: 1 at `noiseReference`, 1 / sqrt of
        /// the relative noise level otherwise. A change stands out against the pair's own noise, not the bench's:
        /// smooth skin under careful capture (little noise) shows a small smoothing or shift that the same score on a
        /// busy, noisy pair would not. The square root (power 0.5) kept the gain on typical capture; the full division
        /// gave careful AUC 0.981 but typical 0.919 (caught 80.2%), since a large change lifts the 90th percentile too.
        static func noiseFactor(spread: Double) -> Double {
            let relative = max(0, spread) / noiseReference
            return ((1 + noiseConstant) / (noiseConstant + relative)).squareRoot()
        }
    }
}

/// Robust tone curve of one channel in linear light: base ≈ exp(a0 + ax*x + ay*y) * probe^gamma, fitted by trimmed
/// least squares on logarithms (x, y in -1...1 across the crop). An exposure or white-balance gain, a tone-curve
/// change (gamma) and shading that varies across the frame are all multiplicative in linear light and become linear
/// in this fit; a local change (a new spot, a colour shift over part of the crop) is trimmed away and stays in the
/// residual. Pixels are weighted by their level (log noise grows as the level falls).
enum ToneFit {
    static func fit(base: [Float], probe: [Float], usable: [Bool], grid: ComparisonGrid) -> [Float] {
        let logs = logarithms(probe)
        return apply(fitParams(base: base, probe: probe, usable: usable, grid: grid, probeLogs: logs), probe: probe, grid: grid, probeLogs: logs)
    }

    /// The fit's regressors of grid pixel `k`: its position, -1...1 across the shorter side (so that a gain across
    /// the frame means the same on a square and an oblong photo), 0 at the centre.
    @inline(__always) static func position(_ k: Int, _ grid: ComparisonGrid) -> (Double, Double) {
        let half = Double(min(grid.width, grid.height) - 1) / 2
        return ((Double(k % grid.width) - Double(grid.width - 1) / 2) / half, (Double(k / grid.width) - Double(grid.height - 1) / 2) / half)
    }

    /// log(max(v, 1e-4)) of every value: the fit's regressor, computed once per plane (the fit and `apply` read it
    /// many times).
    static func logarithms(_ v: [Float]) -> [Double] { v.map { log(Double(max($0, 1e-4))) } }

    /// The tone curve of `params` (`fitParams`) applied to every pixel of `probe`; `probeLogs`, when given, is
    /// `logarithms(probe)`.
    static func apply(_ params: [Double], probe: [Float], grid: ComparisonGrid, probeLogs: [Double]? = nil) -> [Float] {
        var out = probe
        let logs = probeLogs ?? logarithms(probe)
        for k in 0..<grid.count where probe[k] > 0 {
            let (x, y) = position(k, grid)
            out[k] = Float(exp(params[0] + params[1] * x + params[2] * y + params[3] * logs[k]))
        }
        return out
    }

    /// The parameters (a0, ax, ay, gamma) of the fit, on every second pixel of every second row. `probeLogs`, when
    /// given, is `logarithms(probe)`.
    static func fitParams(base: [Float], probe: [Float], usable: [Bool], grid: ComparisonGrid, probeLogs: [Double]? = nil) -> [Double] {
        var keep = usable
        var params: [Double] = [0, 0, 0, 1]
        // The sampled pixels, with their regressors and the log of the baseline, each computed once.
        var index: [Int] = []
        var xs: [Double] = []
        var ys: [Double] = []
        var lp: [Double] = []
        var lb: [Double] = []
        var wt: [Double] = []
        for j in stride(from: 0, to: grid.height, by: 2) {
            for i in stride(from: 0, to: grid.width, by: 2) {
                let k = j * grid.width + i
                let (x, y) = position(k, grid)
                index.append(k)
                xs.append(x)
                ys.append(y)
                lp.append(probeLogs?[k] ?? log(Double(max(probe[k], 1e-4))))
                lb.append(log(Double(max(base[k], 1e-4))))
                wt.append(min(1, Double(min(base[k], probe[k])) / 0.05))
            }
        }
        for round in 0..<3 {
            var ata = [Double](repeating: 0, count: 16)
            var atb = [Double](repeating: 0, count: 4)
            var cnt = 0
            for t in index.indices where keep[index[t]] {
                let v = lb[t]
                let w = wt[t]
                let r0 = 1.0
                let r1 = xs[t]
                let r2 = ys[t]
                let r3 = lp[t]
                atb[0] += w * r0 * v
                atb[1] += w * r1 * v
                atb[2] += w * r2 * v
                atb[3] += w * r3 * v
                ata[0] += w * r0 * r0
                ata[1] += w * r0 * r1
                ata[2] += w * r0 * r2
                ata[3] += w * r0 * r3
                ata[5] += w * r1 * r1
                ata[6] += w * r1 * r2
                ata[7] += w * r1 * r3
                ata[10] += w * r2 * r2
                ata[11] += w * r2 * r3
                ata[15] += w * r3 * r3
                cnt += 1
            }
            if cnt < 32 { break }
            for a in 0..<4 { for b in 0..<a { ata[a * 4 + b] = ata[b * 4 + a] } }
            for a in 0..<4 { ata[a * 4 + a] += 1e-6 }
            guard let sol = solveLinear(ata, atb, n: 4), sol[3] > 0.5, sol[3] < 2 else { break }
            params = sol
            if round == 2 { break }
            // The residual of each sampled pixel, computed once for the trimming (same arithmetic as the fit's prediction).
            let (p0, p1, p2, p3) = (params[0], params[1], params[2], params[3])
            var residual = [Float](repeating: 0, count: index.count)
            var res: [Float] = []
            res.reserveCapacity(index.count)
            for t in index.indices where usable[index[t]] {
                residual[t] = Float(abs(lb[t] - (p0 + p1 * xs[t] + p2 * ys[t] + p3 * lp[t])))
                res.append(residual[t])
            }
            let lim = max(2.5 * Plane.quantile(res, 0.5) * 1.4826, 1e-3)
            for t in index.indices where usable[index[t]] { keep[index[t]] = residual[t] <= lim }
        }
        return params
    }
}

/// Grey-world chromaticity histogram distance: each crop is divided by its channel means (removing
/// white balance and exposure), then 12x12 histograms of (r, g) chromaticity are compared (1 - Bhattacharyya).
enum ColorGate {
    static func greyWorldHistogramDistance(_ b: [[Float]], _ p: [[Float]], valid: [Bool]) -> Double {
        func hist(_ img: [[Float]]) -> [Double] {
            var mean = [Double](repeating: 0, count: 3)
            var cnt = 0
            for k in valid.indices where valid[k] {
                for c in 0..<3 { mean[c] += Double(img[c][k]) }
                cnt += 1
            }
            guard cnt > 0 else { return [] }
            for c in 0..<3 { mean[c] = max(mean[c] / Double(cnt), 1e-4) }
            let bins = 12
            var h = [Double](repeating: 0, count: bins * bins)
            for k in valid.indices where valid[k] {
                let r = Double(img[0][k]) / mean[0]
                let g = Double(img[1][k]) / mean[1]
                let bl = Double(img[2][k]) / mean[2]
                let s = r + g + bl
                if s < 1e-6 { continue }
                // Chromaticity around 1/3, spread over +-0.12.
                let cr = (r / s - 1.0 / 3) / 0.24 + 0.5
                let cg = (g / s - 1.0 / 3) / 0.24 + 0.5
                let ix = min(bins - 1, max(0, Int(cr * Double(bins))))
                let iy = min(bins - 1, max(0, Int(cg * Double(bins))))
                h[iy * bins + ix] += 1
            }
            let total = h.reduce(0, +)
            return total > 0 ? h.map { $0 / total } : h
        }
        let hb = hist(b)
        let hp = hist(p)
        guard hb.count == hp.count, !hb.isEmpty else { return 1 }
        var bc: Double = 0
        for i in hb.indices { bc += (hb[i] * hp[i]).squareRoot() }
        return max(0, 1 - bc)
    }
}

/// Local displacement evidence on 16x16 blocks (stride 8) of the aligned, colour-fitted L crops: how much
/// better each block's band-pass detail matches after its own shift of up to 3 grid pixels than in place,
/// log((SSD in place + c) / (best SSD + c)). Session noise leaves a global level; the score is the 97th
/// percentile minus the median over the crop, since change is local. (A fine-texture energy ratio measured on
/// the same blocks was tried as a smoothing term and lowered AUC: on these crops it follows sensor noise.)
enum BlockTerms {
    static let block = 16
    static let step = 8
    static let reach = 3

    /// Band-pass (sigma ~1.15 minus ~3.5): detail without shading, sensor noise smoothed away.
    static func band(_ x: Plane) -> Plane { x.boxBlurred(radius: 1).highPassed(radius: 3, passes: 2) }

    /// The sums of squared differences of the block at (`x0`, `y0`) of `b` against `p` shifted by each (dx, dy) within
    /// `reach`, row by row ((dy + reach) * (2 * reach + 1) + dx + reach), over every second row and column.
    static func shiftedSums(_ b: UnsafeBufferPointer<Float>, _ p: UnsafeBufferPointer<Float>, width n: Int, x0: Int, y0: Int) -> [Float] {
        let r = reach
        var sums = [Float](repeating: 0, count: (2 * r + 1) * (2 * r + 1))
        for dy in -r...r {
            for dx in -r...r {
                var acc: Float = 0
                for y in stride(from: y0, to: y0 + block, by: 2) {
                    let rb = y * n
                    let rp = (y + dy) * n + dx
                    for x in stride(from: x0, to: x0 + block, by: 2) {
                        let d = b[rb + x] - p[rp + x]
                        acc += d * d
                    }
                }
                sums[(dy + r) * (2 * r + 1) + dx + r] = acc
            }
        }
        return sums
    }

    /// The block's own band-pass energy over the same samples.
    static func energy(_ b: UnsafeBufferPointer<Float>, width n: Int, x0: Int, y0: Int) -> Float {
        var e: Float = 0
        for y in stride(from: y0, to: y0 + block, by: 2) {
            for x in stride(from: x0, to: x0 + block, by: 2) { e += b[y * n + x] * b[y * n + x] }
        }
        return e
    }

    static func displacement(base: Plane, probe: Plane, valid: [Bool]) -> Double {
        let n = base.width
        let rows = base.height
        let bm = band(base)
        let pm = band(probe)
        var disp: [Float] = []
        let bs = block
        let r = reach
        bm.data.withUnsafeBufferPointer { b in
            pm.data.withUnsafeBufferPointer { p in
                var y0 = r
                while y0 + bs + r <= rows {
                    var x0 = r
                    while x0 + bs + r <= n {
                        var ok = true
                        for y in stride(from: y0, to: y0 + bs, by: 3) {
                            for x in stride(from: x0, to: x0 + bs, by: 3) where !valid[y * n + x] { ok = false }
                        }
                        if ok {
                            let sums = shiftedSums(b, p, width: n, x0: x0, y0: y0)
                            let ssd0 = sums[r * (2 * r + 1) + r]
                            let best = sums.min()!
                            let eb = energy(b, width: n, x0: x0, y0: y0)
                            // Noise constant: 0.25 L units squared per sample (every second row and column), plus 5% of
                            // the block's own energy.
                            let c: Float = 0.25 * Float(bs * bs / 4) + 0.05 * eb
                            disp.append(logf((ssd0 + c) / (best + c)))
                        }
                        x0 += step
                    }
                    y0 += step
                }
            }
        }
        guard disp.count >= 8 else { return 0 }
        // The blocks' tail over the reference area (a block stands for `step` x `step` grid pixels).
        let q = Plane.quantiles(disp, [ComparisonGrid.upperQuantile(0.97, count: disp.count * step * step), 0.5])
        return Double(max(0, q[0] - q[1]))
    }
}

/// Change over regions of blob size (a colour shift or a smoothing over part of the crop), where session noise, which
/// varies from pixel to pixel, averages away: the signed Lab difference of the aligned, tone-fitted crops averaged over
/// about a Gaussian of 9.5 grid pixels, and the log ratio of their band-pass energy averaged over about a Gaussian of
/// 5.5 (each normalised by the share of valid pixels under it). The colour term is its 99th percentile over the crop
/// minus its median; the texture term is the median minus the 1st percentile, a loss of texture only (a global
/// residual, such as an overall blur, is not local change).
///
/// Revision 7: the colour average is wider (radius 9 instead of 5: a colour shift covers a patch, and the noise of the
/// average falls as its width grows), and the texture term is one-sided. Sensor noise, JPEG blocking and sharpening
/// make a patch of a retake rougher, rarely smoother; smoothing is the change of the two this term is for, and a
/// rougher patch still shows in the change map's own (two-sided) texture and structure terms. On the shared set
/// (leave-bases-out: scales and thresholds fitted on 12 bases, scored on the other 4) the two together, with the tone
/// fit of the colour term on averaged planes (`ChangeAnalysis.run`), raised typical changes caught from 69.8% to 73.9%
/// (smoothing 48% -> 64%, with the scales re-measured), at 6.2% false alarms against 5.9%.
enum BlobTerms {
    /// Radius of the three box passes of the colour term (about a Gaussian of sigma 9.5 grid pixels, 14 photo pixels).
    static let colourRadius = 9
    /// Radius of the three box passes of the texture term (about a Gaussian of sigma 5.5 grid pixels, 8 photo pixels).
    static let textureRadius = 5

    static func measure(
        bLab: [[Float]], pLab: [[Float]], colourValid: [Bool], detailValid: [Bool], bBand: Plane, pBand: Plane,
        grid: ComparisonGrid, inspection: Inspection? = nil
    ) -> (colour: Double, texture: Double) {
        let count = grid.count
        let gw = grid.width
        let gh = grid.height
        // Three box passes approximate a Gaussian (a tenth of the cost of the true kernel).
        var radius = colourRadius
        func blur(_ p: Plane) -> Plane { p.boxBlurred(radius: radius).boxBlurred(radius: radius).boxBlurred(radius: radius) }
        func smooth(_ v: [Float], _ valid: [Bool]) -> Plane {
            var x = v
            for k in 0..<count where !valid[k] { x[k] = 0 }
            return blur(Plane(width: gw, height: gh, data: x))
        }
        func weights(_ valid: [Bool]) -> Plane { blur(Plane(width: gw, height: gh, data: valid.map { $0 ? 1 : 0 })) }
        var dl = [Float](repeating: 0, count: count)
        var da = dl
        var db = dl
        for k in 0..<count {
            dl[k] = pLab[0][k] - bLab[0][k]
            da[k] = pLab[1][k] - bLab[1][k]
            db[k] = pLab[2][k] - bLab[2][k]
        }
        let sl = smooth(dl, colourValid)
        let sa = smooth(da, colourValid)
        let sb = smooth(db, colourValid)
        let wc = weights(colourValid)
        var colour: [Float] = []
        colour.reserveCapacity(count)
        for k in 0..<count where colourValid[k] && wc.data[k] > 0.5 {
            let w = wc.data[k]
            let l = sl.data[k] / w
            let a = sa.data[k] / w
            let b = sb.data[k] / w
            colour.append((l * l + a * a + b * b).squareRoot())
        }
        var eb = [Float](repeating: 0, count: count)
        var ep = eb
        for k in 0..<count {
            eb[k] = bBand.data[k] * bBand.data[k]
            ep[k] = pBand.data[k] * pBand.data[k]
        }
        radius = textureRadius
        let seb = smooth(eb, detailValid)
        let sep = smooth(ep, detailValid)
        let wd = weights(detailValid)
        var texture: [Float] = []
        texture.reserveCapacity(count)
        let floor = ChangeAnalysis.Tuning.textureFloor * ChangeAnalysis.Tuning.textureFloor
        // Revision 8: the probe's blob-averaged texture energy against the baseline's, fitted over the crop as a gain (an
        // overall blur or sharpening: focus, JPEG) and an offset (the difference of the photos' sensor-noise energy),
        // by least squares trimmed at 2.5 robust sigmas of the log residual, 3 rounds, on every second grid pixel. The
        // term is then the local loss of texture against that relation. Without it a probe with more noise than the
        // baseline lifted the energy of smooth regions more than of textured ones (the noise adds the same energy
        // everywhere, the log ratio weighs it by the region's own energy), so the median-minus-1st-percentile read the
        // spread of texture strength over the crop as smoothing: on the procedural bench's finely grained skin the
        // unchanged typical pairs' texture term reached 0.32 at its 95th percentile (0.18 on the shared set), above
        // revision 7's re-measured scale, and the term alone set their raw score.
        var fitA: Float = 1
        var fitC: Float = 0
        do {
            var xs: [Float] = []
            var ys: [Float] = []
            for j in stride(from: 0, to: gh, by: 2) {
                for i in stride(from: 0, to: gw, by: 2) {
                    let k = j * gw + i
                    guard detailValid[k] && wd.data[k] > 0.5 else { continue }
                    xs.append(seb.data[k] / wd.data[k])
                    ys.append(sep.data[k] / wd.data[k])
                }
            }
            var keep = [Bool](repeating: true, count: xs.count)
            for _ in 0..<3 {
                var sx: Double = 0
                var sy: Double = 0
                var sxx: Double = 0
                var sxy: Double = 0
                var m: Double = 0
                for t in xs.indices where keep[t] {
                    let x = Double(xs[t])
                    let y = Double(ys[t])
                    sx += x
                    sy += y
                    sxx += x * x
                    sxy += x * y
                    m += 1
                }
                guard m >= 32 else { break }
                let den = m * sxx - sx * sx
                guard den > 1e-9 else { break }
                let a = (m * sxy - sx * sy) / den
                let c = (sy - a * sx) / m
                guard a > 0.05 else { break }
                fitA = Float(a)
                fitC = Float(c)
                let res = xs.indices.map { 0.5 * logf((ys[$0] + floor) / max(floor, fitA * xs[$0] + fitC + floor)) }
                let med = Plane.quantile(res, 0.5)
                let mad = Plane.quantile(res.map { abs($0 - med) }, 0.5) * 1.4826
                for t in xs.indices { keep[t] = abs(res[t] - med) <= max(2.5 * mad, 1e-3) }
            }
        }
        for k in 0..<count where detailValid[k] && wd.data[k] > 0.5 {
            let w = wd.data[k]
            texture.append(0.5 * logf((sep.data[k] / w + floor) / max(floor, fitA * seb.data[k] / w + fitC + floor)))
        }
        func spread(_ v: [Float]) -> Double {
            guard v.count >= 64 else { return 0 }
            let q = Plane.quantiles(v, [ComparisonGrid.upperQuantile(0.99, count: v.count), 0.5])
            return Double(max(0, q[0] - q[1]))
        }
        let med = texture.isEmpty ? 0 : Plane.quantile(texture, 0.5)
        if let inspection {
            let cMed = colour.isEmpty ? 0 : Plane.quantile(colour, 0.5)
            var cm = [Float](repeating: 0, count: count)
            var tm = cm
            for k in 0..<count {
                if colourValid[k] && wc.data[k] > 0.5 {
                    let w = wc.data[k]
                    let l = sl.data[k] / w
                    let a = sa.data[k] / w
                    let b = sb.data[k] / w
                    cm[k] = max(0, (l * l + a * a + b * b).squareRoot() - cMed)
                }
                if detailValid[k] && wd.data[k] > 0.5 {
                    tm[k] = max(0, med - 0.5 * logf((sep.data[k] / wd.data[k] + floor) / (seb.data[k] / wd.data[k] + floor)))
                }
            }
            inspection.grey("colour blob", cm, white: 2 * Float(Calibration.termScales.colour))
            inspection.grey("texture blob", tm, white: 2 * Float(Calibration.termScales.texture))
        }
        return (
            spread(colour),
            texture.count >= 64 ? Double(med - Plane.quantile(texture, ComparisonGrid.lowerQuantile(0.01, count: texture.count))) : 0
        )
    }
}

/// The outer ring decides the transform: a grown spot or any change inside the crop must not be explained away by a
/// scale or turn that only the changed region supports. The transform is re-estimated from the ring of the frame
/// around the crop (tiles of a 10 x 10 grid over the central 90% of the frame, the crop's tiles left out, and ring
/// tiles that do not agree, such as a background at the edge, weighted down), starting from the found transform and
/// from the same shift at scale 1 without turn. The ring's choice wins when it agrees better with the ring.
enum RingSupport {
    static let fraction: Float = 0.9
    static let tiles = 10
    /// How much better (mean ring-tile correlation) the ring's own transform must fit the ring to replace the found
    /// one. At 0.01 it replaced the found transform in 7 of 256 unchanged typical pairs of the shared set, mostly where
    /// a background covers the ring, and doubled their displacement term's 95th percentile; at 0.04 unchanged pairs
    /// keep their transform while grown and displaced centres still switch.
    static let margin: Float = 0.04

    /// Tiles outside the crop (which spans 0.2...0.8 of the frame: tiles 2...7 of the 10 over 0.05...0.95).
    static func isRing(_ t: Int) -> Bool {
        let tx = t % tiles
        let ty = t / tiles
        return tx < 2 || ty < 2 || tx >= tiles - 2 || ty >= tiles - 2
    }

    /// The mean correlation of the ring's tiles (every tile's with `wholeFrame`) and each tile's weight for a refinement.
    static func ringAgreement(_ base: PreparedPhoto, _ probe: PreparedPhoto, _ w: Warp, wholeFrame: Bool = false) -> (Float, [Float]) {
        let c = Gate.tileCorrelations(base: base.band, probe: probe.band, warp: w, fraction: fraction, stride: 2, parts: tiles)
        var sum: Float = 0
        var n: Float = 0
        var weights = [Float](repeating: 0, count: tiles * tiles)
        for t in c.indices where wholeFrame || isRing(t) {
            let v = c[t]
            if v > -1 {
                sum += max(0, v)
                n += 1
            }
            weights[t] = min(1, max(0, (v - 0.1) / 0.4))
        }
        return (n > 0 ? sum / n : 0, weights)
    }

    /// `perspective`: all eight parameters of a homography, held back by `Perspective.prior`, instead of a similarity.
    static func refine(
        _ base: PreparedPhoto, _ probe: PreparedPhoto, _ start: Warp, weights: [Float], levels: ClosedRange<Int>, perspective: Bool = false
    ) -> Warp {
        var w = start
        let tw = TileWeights(fraction: fraction, tiles: tiles, values: weights)
        let radius = Float(min(base.gray.width, base.gray.height)) / 2
        for level in stride(from: levels.upperBound, through: levels.lowerBound, by: -1)
        where level < base.pyramid.levels.count && level < probe.pyramid.levels.count {
            let s = Float(1 << level)
            let prior =
                perspective
                ? IntensityAlignment.PerspectivePrior(
                    affineSD: Perspective.prior.affine, perspectiveSD: Perspective.prior.perspective, radius: radius / s) : nil
            w = IntensityAlignment.refine(
                base: base.pyramid.levels[level], probe: probe.pyramid.levels[level],
                gx: probe.pyramid.gradX[level], gy: probe.pyramid.gradY[level], warp: w.atLevel(scale: s),
                fraction: fraction, stride: level == 0 ? 2 : 1, iterations: level == 0 ? 5 : 10,
                weights: tw, perspective: prior
            ).fromLevel(scale: s)
        }
        return w
    }

    /// The transform the ring supports, with its ring agreement (`ringAgreement`) when that is already known (the
    /// transform found kept), so that the perspective step does not measure it again.
    static func check(_ base: PreparedPhoto, _ probe: PreparedPhoto, _ found: Warp) -> (warp: Warp, agreement: (Float, [Float])?) {
        let (agreeFound, weightsFound) = ringAgreement(base, probe, found)
        var plain = found
        plain.a = 1
        plain.b = 0
        let (_, weightsPlain) = ringAgreement(base, probe, plain)
        var best = found
        var bestAgree = agreeFound
        var bestWeights: [Float]?
        for (seed, wts) in [(found, weightsFound), (plain, weightsPlain)] {
            // Without agreeing ring tiles at the seed, every ring tile takes part.
            let use = wts.contains { $0 > 0 } ? wts : (0..<(tiles * tiles)).map { isRing($0) ? Float(1) : 0 }
            // Candidates are refined at half resolution; only the one that wins is polished at full resolution. (Until
            // the perspective step below existed this let perspective-only pairs switch to a worse similarity.)
            let r = refine(base, probe, seed, weights: use, levels: 1...1)
            let (agree, _) = ringAgreement(base, probe, r)
            if agree > bestAgree + margin {
                best = r
                bestAgree = agree
                bestWeights = use
            }
        }
        guard let bestWeights else { return (found, (agreeFound, weightsFound)) }
        return (refine(base, probe, best, weights: bestWeights, levels: 0...0), nil)
    }
}

/// A slanted phone (revision 5): the probe's magnification changes across the frame (a keystone), which no similarity
/// transform follows, so that its residual read as change (perspective-only pairs of the shared set at keystone 0.04
/// scored above the typical threshold in 100% of cases). An 8-parameter homography is fitted at half resolution to the
/// ring of the frame around the crop only (the ring tiles of `RingSupport`, those that do not agree weighted down, as
/// there), starting from the transform found, with the stretch, shear and perspective held back by a prior
/// (`IntensityAlignment.PerspectivePrior`). It is taken only where the evidence supports it: agreeing ring tiles on all
/// four sides, a better fit of the ring by `margin`, a keystone under `maximumKeystone`, and the crop's own detail not
/// lining up worse (without the side and crop checks it raised the displacement term of 3 unchanged typical pairs of
/// the shared set 5 to 25 fold). A change inside the crop has no say in it (the crop's tiles are left out), and a
/// homography cannot follow a local growth or displacement anyway: it is one smooth map of the whole frame. (Taking
/// only its perspective part, keeping the found transform's scale, turn and shift, left 62% of the perspective-only
/// pairs at keystone 0.04 above the typical threshold.)
enum Perspective {
    /// Prior standard deviations: stretch and shear 0.02, perspective 0.04 of magnification at the frame's half side.
    static let prior = (affine: Float(0.02), perspective: Float(0.04))
    /// How much better (mean ring-tile correlation) the homography must fit the ring than the similarity.
    static let margin: Float = 0.01
    /// The largest keystone (relative magnification change at the frame's half side) taken.
    static let maximumKeystone: Float = 0.15

    /// Agreeing ring tiles (summed weights) needed on each of the ring's four sides (20 tiles each, corners shared): a
    /// perspective is read from how the magnification changes from one side to the other, so a ring covered on one side
    /// by something else (a background band) does not support one.
    static let minimumSideSupport: Float = 4

    static func supportsPerspective(_ weights: [Float]) -> Bool {
        var sides = [Float](repeating: 0, count: 4)
        let n = RingSupport.tiles
        for t in weights.indices where RingSupport.isRing(t) {
            let tx = t % n
            let ty = t / n
            if tx < 2 { sides[0] += weights[t] }
            if tx >= n - 2 { sides[1] += weights[t] }
            if ty < 2 { sides[2] += weights[t] }
            if ty >= n - 2 { sides[3] += weights[t] }
        }
        return sides.allSatisfy { $0 >= minimumSideSupport }
    }

    static func fit(
        _ base: PreparedPhoto, _ probe: PreparedPhoto, _ found: Warp, agreement: (Float, [Float])? = nil,
        cropScore: (Warp) -> Float
    ) -> Warp {
        let (agreeFound, weights) = agreement ?? RingSupport.ringAgreement(base, probe, found)
        guard supportsPerspective(weights), base.pyramid.levels.count > 1, probe.pyramid.levels.count > 1 else { return found }
        let radius = Float(min(base.gray.width, base.gray.height)) / 2
        let tw = TileWeights(fraction: RingSupport.fraction, tiles: RingSupport.tiles, values: weights)
        // Fitted at half resolution: the perspective is a slow change of magnification across the frame.
        let prior = IntensityAlignment.PerspectivePrior(affineSD: prior.affine, perspectiveSD: prior.perspective, radius: radius / 2)
        let fitted = IntensityAlignment.refine(
            base: base.pyramid.levels[1], probe: probe.pyramid.levels[1],
            gx: probe.pyramid.gradX[1], gy: probe.pyramid.gradY[1], warp: found.atLevel(scale: 2),
            fraction: RingSupport.fraction, stride: 1, iterations: 10, weights: tw,
            perspective: prior
        ).fromLevel(scale: 2)
        let candidate = fitted
        guard candidate.keystone(radius: radius) <= maximumKeystone, abs(candidate.e) <= maximumKeystone,
            abs(candidate.f) <= maximumKeystone
        else { return found }
        let (agree, _) = RingSupport.ringAgreement(base, probe, candidate)
        guard agree > agreeFound + margin else { return found }
        // Nor may the crop's own detail line up worse with it.
        return cropScore(candidate) >= cropScore(found) - cropTolerance ? candidate : found
    }

    /// How much lower the crop's band-pass correlation may be with the perspective than without it.
    static let cropTolerance: Float = 0.005
}

/// Where the probe shows something else at the edge of the frame (a background or clothing that came into it): the
/// part of the compared area connected to the frame's border through grid pixels where the photos disagree: their
/// band-pass grey detail does not correlate (local correlation over 7x7 windows, gain and offset invariant, averaged over
/// about 15x15 grid pixels, under `maximumCorrelation`), or their colour differs far beyond what light explains (the Lab
/// difference averaged over the same windows, after a gain per channel fitted on the middle of the frame, over
/// `maximumColourDifference`). A new spot or a colour change inside the area would have to reach the frame's border to
/// be set aside; a region over `maximumShare` of the frame is not set aside at all (the gate decides whether the photos
/// are comparable). What is set aside is counted and said beside the figure (`ComparisonDiagnostics`), never read as
/// "similar".
///
/// Revision 6: the map covers the ring of the frame around the crop too (at half the grid's resolution), and colour
/// counts. Looking at the crop alone, a background that covers the ring and enters the crop only by a strip a few grid
/// pixels wide (a turned or shifted frame) was averaged away by the 15x15 window, and on smooth skin (little detail to
/// correlate) the structure alone did not tell skin from a background. Seen whole, the strip is the inner edge of a large
/// region; its rim (`rim` grid pixels, where the photos blend) is set aside with it. Revision 11: the map covers the
/// whole frame, as the comparison does, and floods from the frame's own border.
enum ForeignEdge {
    /// Below this local correlation of detail the photos show something else there (different subjects: about 0).
    static let maximumCorrelation: Float = 0.4
    /// Above this Lab difference (ΔE76 of the window means) the colours show something else: three times the strongest
    /// colour change of the shared set (13), beyond what a shading across the frame leaves after one gain per channel.
    static let maximumColourDifference: Float = 12
    /// The largest share of the frame set aside (revision 11; 0.35 of the central crop before): a background band round
    /// a central square of 66% of the photo, the widest of the shared set, covers 56% of the frame.
    static let maximumShare = 0.8
    /// Below this local correlation of detail, or above this colour difference (ΔE76 of the window means), a pixel next
    /// to a region found to show something else belongs to it (revision 11).
    static let weakCorrelation: Float = 0.7
    static let weakColourDifference: Float = 8
    /// The smallest region (share of the frame, inside the probe) set aside as something else (revision 11). A grown
    /// spot of 8% of the photo's side in radius covers 2% of the frame, the disagreement around it about 4%; a
    /// background band of the shared set covers 19% or more.
    static let minimumRegion = 0.1
    /// Grid pixels around the found region set aside with it: the soft edge where a background blends into the skin,
    /// and the half-resolution map's own step.
    static let rim = 6

    /// The grid's mask (true = set aside). `valid`: grid pixels inside the probe.
    static func mask(
        base: PreparedPhoto, probe: PreparedPhoto, warp: Warp, grid: ComparisonGrid,
        valid: [Bool], inspection: Inspection? = nil
    ) -> [Bool] {
        guard base.pyramid.levels.count > 1, probe.pyramid.levels.count > 1 else { return [Bool](repeating: false, count: grid.count) }
        let bw = base.color.width
        let bh = base.color.height
        let pw = probe.color.width
        let ph = probe.color.height
        // The half-resolution grid: every second grid pixel over the whole frame.
        let wn = (grid.width + 1) / 2
        let hn = (grid.height + 1) / 2
        let count = wn * hn
        let step2 = 2 * grid.step
        let ox = grid.x0
        let oy = grid.y0
        let bg = base.pyramid.levels[1]
        let pg = probe.pyramid.levels[1]
        var lb = [Float](repeating: 0, count: count)
        var lp = lb
        var cb = [[Float]](repeating: lb, count: 3)
        var cp = cb
        var inside = [Bool](repeating: true, count: count)
        let bPlanes = [base.color.r, base.color.g, base.color.b]
        let pPlanes = [probe.color.r, probe.color.g, probe.color.b]
        ChangeAnalysis.withPlanes(bPlanes) { b0, b1, b2 in
            ChangeAnalysis.withPlanes(pPlanes) { p0, p1, p2 in
                bg.data.withUnsafeBufferPointer { b in
                    pg.data.withUnsafeBufferPointer { p in
                        for j in 0..<hn {
                            for i in 0..<wn {
                                let x = ox + (Float(i) + 0.5) * step2
                                let y = oy + (Float(j) + 0.5) * step2
                                let (u, v) = warp.apply(x, y)
                                let k = j * wn + i
                                if u < -0.5 || v < -0.5 || u > Float(pw) - 0.5 || v > Float(ph) - 0.5 { inside[k] = false }
                                lb[k] = Bilinear(bg.width, bg.height, (x + 0.5) / 2 - 0.5, (y + 0.5) / 2 - 0.5).value(b) * 100
                                lp[k] = Bilinear(pg.width, pg.height, (u + 0.5) / 2 - 0.5, (v + 0.5) / 2 - 0.5).value(p) * 100
                                let bAt = Bilinear(bw, bh, x, y)
                                let pAt = Bilinear(pw, ph, u, v)
                                cb[0][k] = bAt.value(b0)
                                cb[1][k] = bAt.value(b1)
                                cb[2][k] = bAt.value(b2)
                                cp[0][k] = pAt.value(p0)
                                cp[1][k] = pAt.value(p1)
                                cp[2][k] = pAt.value(p2)
                            }
                        }
                    }
                }
            }
        }
        // Detail: 1 - local correlation of band-pass grey, averaged (half resolution: 7x7 here is 15x15 crop-grid pixels).
        let bb = Plane(width: wn, height: hn, data: lb).highPassed(radius: 1, passes: 2)
        let pb = Plane(width: wn, height: hn, data: lp).highPassed(radius: 1, passes: 2)
        let q = ChangeAnalysis.structureDissimilarity(bb, pb, energies: true).boxBlurred(radius: 3)
        // Colour: one gain per channel in linear light from the middle of the frame (the central square of half its
        // shorter side, where the area is), then the Lab difference of the window means.
        var gains = [Float](repeating: 1, count: 3)
        let quarter = min(wn, hn) / 4
        for c in 0..<3 {
            var rb: [Float] = []
            var rp: [Float] = []
            for j in (hn / 2 - quarter)..<(hn / 2 + quarter) {
                for i in (wn / 2 - quarter)..<(wn / 2 + quarter) {
                    rb.append(cb[c][j * wn + i])
                    rp.append(cp[c][j * wn + i])
                }
            }
            let mb = ColorScience.linear(Plane.quantile(rb, 0.5))
            let mp = ColorScience.linear(Plane.quantile(rp, 0.5))
            gains[c] = mp > 1e-4 ? mb / mp : 1
        }
        var dl = [Float](repeating: 0, count: count)
        var da = dl
        var db = dl
        for k in 0..<count {
            let b = ColorScience.lab(linearR: ColorScience.linear(cb[0][k]), g: ColorScience.linear(cb[1][k]), b: ColorScience.linear(cb[2][k]))
            let p = ColorScience.lab(
                linearR: ColorScience.linear(cp[0][k]) * gains[0], g: ColorScience.linear(cp[1][k]) * gains[1],
                b: ColorScience.linear(cp[2][k]) * gains[2])
            dl[k] = p.0 - b.0
            da[k] = p.1 - b.1
            db[k] = p.2 - b.2
        }
        let sl = Plane(width: wn, height: hn, data: dl).boxBlurred(radius: 3)
        let sa = Plane(width: wn, height: hn, data: da).boxBlurred(radius: 3)
        let sb = Plane(width: wn, height: hn, data: db).boxBlurred(radius: 3)
        let structureLimit = 1 - maximumCorrelation
        let colourLimit = maximumColourDifference * maximumColourDifference
        let weakStructureLimit = 1 - weakCorrelation
        let weakColourLimit = weakColourDifference * weakColourDifference
        // Pixels next to the probe's edge count as outside it: the probe's border, repeated beyond it by the sampling,
        // disagrees with anything, and would join every region near the edge into one.
        let nearEdge = Plane(width: wn, height: hn, data: inside.map { $0 ? 0 : 1 }).boxBlurred(radius: 3)
        for k in 0..<count where nearEdge.data[k] > 1e-6 { inside[k] = false }
        var disagree = [Bool](repeating: false, count: count)
        var weak = [Bool](repeating: false, count: count)
        for k in 0..<count {
            let e = sl.data[k] * sl.data[k] + sa.data[k] * sa.data[k] + sb.data[k] * sb.data[k]
            disagree[k] = !inside[k] || q.data[k] > structureLimit || e > colourLimit
            weak[k] = disagree[k] || q.data[k] > weakStructureLimit || e > weakColourLimit
        }
        // Flood from the grid's border through pixels that disagree (or lie outside the probe); then (revision 11) on
        // from the region found through pixels that disagree weakly (`weakCorrelation`, `weakColourDifference`): the
        // patches of a background that differ less from the skin, inside or along the region, which would otherwise
        // be read as change. A weak disagreement not connected to the region found first (a change inside the area)
        // is not reached.
        var found = [Bool](repeating: false, count: count)
        var queue: [Int] = []
        // Grows `found` from the pixels in `queue` into their neighbours in `through`.
        func grow(_ through: [Bool]) {
            var head = 0
            while head < queue.count {
                let k = queue[head]
                head += 1
                let i = k % wn
                for m in [i > 0 ? k - 1 : -1, i < wn - 1 ? k + 1 : -1, k - wn, k + wn] where m >= 0 && m < count && !found[m] && through[m] {
                    found[m] = true
                    queue.append(m)
                }
            }
        }
        for k in 0..<count where disagree[k] && (k % wn == 0 || k % wn == wn - 1 || k < wn || k / wn == hn - 1) {
            found[k] = true
            queue.append(k)
        }
        grow(disagree)
        // Only from where the photos really disagree (not from the strip outside the probe, which a step to the side
        // leaves along the border): a mark near the edge is not swallowed.
        queue = (0..<count).filter { found[$0] && inside[$0] }
        grow(weak)
        // A region inside the probe, with what it grew into, smaller than `minimumRegion` of the frame is no background
        // but a mark near the edge (a grown spot that a step to the side brought next to the other photo's edge): it
        // stays compared. Erring this way a small intrusion at the edge reads as a difference, never a change as
        // "similar".
        var label = [Bool](repeating: false, count: count)
        for start in 0..<count where found[start] && inside[start] && !label[start] {
            var members = [start]
            label[start] = true
            var head = 0
            while head < members.count {
                let k = members[head]
                head += 1
                let i = k % wn
                for m in [i > 0 ? k - 1 : -1, i < wn - 1 ? k + 1 : -1, k - wn, k + wn]
                where m >= 0 && m < count && found[m] && inside[m] && !label[m] {
                    label[m] = true
                    members.append(m)
                }
            }
            if Double(members.count) < minimumRegion * Double(count) { for m in members { found[m] = false } }
        }
        inspection?.grey("disagreement", q.data, white: 1, red: found, width: wn)
        // The grid's part of the region where the photos disagree (not where it only lies outside the probe, which
        // `valid` already sets aside), with its rim.
        let gw = grid.width
        var mask = [Bool](repeating: false, count: grid.count)
        var setAside = 0
        for j in 0..<grid.height {
            for i in 0..<gw {
                let k = j * gw + i
                guard valid[k] else { continue }
                var hit = false
                for dj in stride(from: -rim, through: rim, by: 2) where !hit {
                    for di in stride(from: -rim, through: rim, by: 2) {
                        let jj = min(max((j + dj) / 2, 0), hn - 1)
                        let ii = min(max((i + di) / 2, 0), wn - 1)
                        let m = jj * wn + ii
                        if found[m] && inside[m] {
                            hit = true
                            break
                        }
                    }
                }
                if hit {
                    mask[k] = true
                    setAside += 1
                }
            }
        }
        let share = Double(setAside) / Double(grid.count)
        return share > maximumShare ? [Bool](repeating: false, count: grid.count) : mask
    }
}
/// A new mark too small for the change map's high percentile (revision 9; measured anew in revision 10). The map's score is
/// its 99.5th percentile (of the 7x7-averaged map) minus its median, and the 0.5% of the crop above that percentile is about
/// 80 grid pixels: a new spot of a few photo pixels' radius (30 grid pixels or so) does not lift it, however dark it is.
///
/// Revision 10: the figure is the change of a blob detector's response between the photos. Each photo's lightness (L*, the
/// probe on its tone curve fitted to averaged planes) is band-passed as a centre minus its surround (two box passes of
/// radius `centreRadius`, about a Gaussian of sigma 2 grid pixels, minus two of radius `surroundRadius`, about 5): the
/// matched filter of a mark of 2-4 grid pixels' radius (the smallest marks the grid resolves; a grid pixel is 1/128 of the
/// crop's side, 1.5 pixels of a 320-pixel photo), which leaves out shading and a colour fit's residual across the frame.
/// Per grid pixel the figure takes the smallest difference of the two responses within one grid pixel's shift, so a
/// residual misalignment of up to a pixel (a dipole at every edge) cancels, while a new mark, whose response is a
/// broad peak, keeps nearly all of it. The figure is the peak of that over the pixels whose whole surround lies inside the
/// compared area (colour compared there too), minus its median.
///
/// Revision 9 took the peak of the change map (ΔE with the best match within a pixel, texture and structure) averaged
/// over 3x3 grid pixels. The best match within a pixel of the unsmoothed ΔE eats a pixel of a small mark's rim on every
/// side, and the structure and texture parts add a retake's sensor noise and blur to the peak: under typical capture it
/// caught 72% of the smallest new spots of the shared set (radius 1.5% of the photo's width) at 5% false alarms, and
/// this figure 91%.
enum SpotTerm {
    /// Radius of the centre's two box passes (about a Gaussian of sigma 2 grid pixels).
    static let centreRadius = 2
    /// Radius of the surround's two box passes (about a Gaussian of sigma 5 grid pixels).
    static let surroundRadius = 6

    /// The centre-minus-surround band of `plane` (`side` x `side`).
    static func band(_ plane: [Float], width: Int) -> [Float] {
        let p = Plane(width: width, height: plane.count / width, data: plane)
        var out = p.boxBlurred(radius: centreRadius).boxBlurred(radius: centreRadius).data
        let surround = p.boxBlurred(radius: surroundRadius).boxBlurred(radius: surroundRadius)
        for k in out.indices { out[k] -= surround.data[k] }
        return out
    }

    /// The figure (see above) of the baseline's and the probe's L* planes (`side` x `side`) over the pixels in `valid`;
    /// 0 with under 64 of them whose surround is whole.
    static func measure(baseL: [Float], probeL: [Float], valid: [Bool], width n: Int) -> Double {
        let rows = baseL.count / n
        let rb = band(baseL, width: n)
        let rp = band(probeL, width: n)
        let cover = Plane(width: n, height: rows, data: valid.map { $0 ? 1 : 0 })
            .boxBlurred(radius: surroundRadius).boxBlurred(radius: surroundRadius)
        var v: [Float] = []
        v.reserveCapacity(n * rows)
        var peak: Float = 0
        for j in 0..<rows {
            for i in 0..<n {
                let k = j * n + i
                guard valid[k] && cover.data[k] > 0.999 else { continue }
                var best = Float.greatestFiniteMagnitude
                for dy in -1...1 {
                    let jj = min(max(j + dy, 0), rows - 1)
                    for dx in -1...1 {
                        let ii = min(max(i + dx, 0), n - 1)
                        best = min(best, abs(rp[jj * n + ii] - rb[k]))
                    }
                }
                v.append(best)
                peak = max(peak, best)
            }
        }
        guard v.count >= 64 else { return 0 }
        return Double(max(0, peak - Plane.quantile(v, 0.5)))
    }
}

/// What a single transform leaves: a slow, smooth misfit across the frame (revision 11). A homography lines two photos up
/// exactly only when the skin is flat and the lens has no distortion; near the middle of the frame the rest is under a
/// pixel, but at the edges of the whole frame it reaches two or three, and every change term reads that as change (on the
/// shared set's unchanged typical pairs the local-displacement term's 95th percentile rose from 0.13 over the central
/// crop to 0.7 over the frame, blocks in opposite corners shifted opposite ways). The misfit is measured as the best
/// shift of each 16 x 16 block of band-pass grey detail (within 3 grid pixels, refined to a fraction of a pixel by a
/// parabola through the neighbouring sums), and a quadratic field in x and y is fitted to the shifts by least squares,
/// weighted by each block's detail and trimmed three times at 2.5 robust sigmas (at least a quarter of a grid pixel).
/// A local change (a grown spot, a shifted region) moves a few blocks far from the field: the trimming sets them aside,
/// so the field follows the frame, not the change. The probe is then sampled again through the field.
enum ResidualField {
    /// Coefficients of u and v (grid pixels) in 1, x, y, x², xy, y², with x and y in units of half the grid's shorter
    /// side, 0 at its centre.
    struct Field {
        var u: [Double]
        var v: [Double]
        let centreX: Double
        let centreY: Double
        let half: Double

        /// The shift at grid pixel (i, j), at most `largest` long.
        func at(_ i: Int, _ j: Int) -> (Float, Float) {
            let x = (Double(i) - centreX) / half
            let y = (Double(j) - centreY) / half
            let du = u[0] + u[1] * x + u[2] * y + u[3] * x * x + u[4] * x * y + u[5] * y * y
            let dv = v[0] + v[1] * x + v[2] * y + v[3] * x * x + v[4] * x * y + v[5] * y * y
            let length = (du * du + dv * dv).squareRoot()
            let k = length > Double(largest) ? Double(largest) / length : 1
            return (Float(du * k), Float(dv * k))
        }
    }

    static let step = 8
    /// Below this largest shift over the frame (grid pixels) the field is not applied: nothing to correct.
    static let smallest: Float = 0.25
    /// Largest shift the field may apply anywhere (grid pixels): the block search's own reach.
    static let largest: Float = 3
    /// Blocks with a mean square of band-pass detail under this (L units squared) carry no measurement: four times the
    /// displacement term's noise constant.
    static let minimumEnergy: Float = 1
    /// Blocks with a measurement needed in each quadrant of the frame for a field.
    static let minimumPerQuadrant = 6

    /// The field of the grey planes `base` and `probe` (the grid's, `valid` where both photos were compared), or nil
    /// when too few blocks carry detail or there is nothing to correct.
    static func fit(base: [Float], probe: [Float], valid: [Bool], grid: ComparisonGrid) -> Field? {
        let n = grid.width
        let rows = grid.height
        let bm = BlockTerms.band(Plane(width: n, height: rows, data: base))
        let pm = BlockTerms.band(Plane(width: n, height: rows, data: probe))
        var xs: [Double] = []
        var ys: [Double] = []
        var us: [Double] = []
        var vs: [Double] = []
        var ws: [Double] = []
        let bs = BlockTerms.block
        let r = BlockTerms.reach
        bm.data.withUnsafeBufferPointer { b in
            pm.data.withUnsafeBufferPointer { p in
                var y0 = r
                while y0 + bs + r <= rows {
                    var x0 = r
                    while x0 + bs + r <= n {
                        defer { x0 += step }
                        var ok = true
                        for y in stride(from: y0 - r, to: y0 + bs + r, by: 3) where ok {
                            for x in stride(from: x0 - r, to: x0 + bs + r, by: 3) where !valid[y * n + x] { ok = false }
                        }
                        guard ok else { continue }
                        let ssd = BlockTerms.shiftedSums(b, p, width: n, x0: x0, y0: y0)
                        let energy = BlockTerms.energy(b, width: n, x0: x0, y0: y0)
                        var bestIndex = 0
                        for t in ssd.indices where ssd[t] < ssd[bestIndex] { bestIndex = t }
                        let bx = bestIndex % (2 * r + 1) - r
                        let by = bestIndex / (2 * r + 1) - r
                        // A minimum at the search's edge is no measurement; nor is a block without detail: a mean square
                        // under `minimumEnergy` (L units squared a sample).
                        let samples = Float(bs * bs / 4)
                        guard abs(bx) < r, abs(by) < r, energy > minimumEnergy * samples else { continue }
                        func at(_ dx: Int, _ dy: Int) -> Double { Double(ssd[(dy + r) * (2 * r + 1) + dx + r]) }
                        func vertex(_ m: Double, _ c: Double, _ p: Double) -> Double {
                            let den = m - 2 * c + p
                            return den > 1e-9 ? min(0.5, max(-0.5, 0.5 * (m - p) / den)) : 0
                        }
                        xs.append(Double(x0) + Double(bs) / 2 - 0.5)
                        ys.append(Double(y0) + Double(bs) / 2 - 0.5)
                        us.append(Double(bx) + vertex(at(bx - 1, by), at(bx, by), at(bx + 1, by)))
                        vs.append(Double(by) + vertex(at(bx, by - 1), at(bx, by), at(bx, by + 1)))
                        ws.append(Double(min(1, energy / (4 * minimumEnergy * samples))))
                    }
                    y0 += step
                }
            }
        }
        let centreX = Double(n - 1) / 2
        let centreY = Double(rows - 1) / 2
        // The field is a fit over the frame: blocks in one place (the rim of a single mark on smooth skin) would bend it
        // everywhere else. Each quadrant must hold `minimumPerQuadrant` of them.
        var quadrants = [Int](repeating: 0, count: 4)
        for t in xs.indices { quadrants[(xs[t] < centreX ? 0 : 1) + (ys[t] < centreY ? 0 : 2)] += 1 }
        guard xs.count >= 24, quadrants.allSatisfy({ $0 >= minimumPerQuadrant }) else { return nil }
        let half = Double(min(n, rows)) / 2
        let basis = xs.indices.map { t -> [Double] in
            let x = (xs[t] - centreX) / half
            let y = (ys[t] - centreY) / half
            return [1, x, y, x * x, x * y, y * y]
        }
        var keep = [Bool](repeating: true, count: xs.count)
        var field = Field(u: [Double](repeating: 0, count: 6), v: [Double](repeating: 0, count: 6), centreX: centreX, centreY: centreY, half: half)
        for round in 0..<3 {
            var ata = [Double](repeating: 0, count: 36)
            var atu = [Double](repeating: 0, count: 6)
            var atv = [Double](repeating: 0, count: 6)
            var used = 0
            for t in xs.indices where keep[t] {
                let w = ws[t]
                for a in 0..<6 {
                    atu[a] += w * basis[t][a] * us[t]
                    atv[a] += w * basis[t][a] * vs[t]
                    for c in a..<6 { ata[a * 6 + c] += w * basis[t][a] * basis[t][c] }
                }
                used += 1
            }
            guard used >= 24 else { return round == 0 ? nil : field }
            for a in 0..<6 {
                for c in 0..<a { ata[a * 6 + c] = ata[c * 6 + a] }
                ata[a * 6 + a] += 1e-6
            }
            guard let su = solveLinear(ata, atu, n: 6), let sv = solveLinear(ata, atv, n: 6) else { return round == 0 ? nil : field }
            field.u = su
            field.v = sv
            var residual = [Double](repeating: 0, count: xs.count)
            for t in xs.indices {
                var pu = 0.0
                var pv = 0.0
                for a in 0..<6 {
                    pu += su[a] * basis[t][a]
                    pv += sv[a] * basis[t][a]
                }
                residual[t] = ((us[t] - pu) * (us[t] - pu) + (vs[t] - pv) * (vs[t] - pv)).squareRoot()
            }
            let sorted = residual.sorted()
            let limit = max(0.25, 2.5 * 1.4826 * sorted[sorted.count / 2])
            for t in xs.indices { keep[t] = residual[t] <= limit }
        }
        var largest: Float = 0
        for (i, j) in [
            (0, 0), (n - 1, 0), (0, rows - 1), (n - 1, rows - 1), (n / 2, rows / 2), (n / 2, 0), (0, rows / 2), (n - 1, rows / 2), (n / 2, rows - 1),
        ] {
            let (du, dv) = field.at(i, j)
            largest = max(largest, (du * du + dv * dv).squareRoot())
        }
        return largest >= smallest ? field : nil
    }
}
