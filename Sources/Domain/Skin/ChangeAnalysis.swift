import Foundation

/// Alignment, colour fit and change map of one comparison (revision 4).
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
            best!.correlation = max(best!.correlation, score(best!.warp))
        }
        return best!
    }

    static func run(baseline: PreparedPhoto, probe: PreparedPhoto, inspection: Inspection? = nil) -> SkinComparisonResult {
        let n = SkinComparator.mapSide
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
        let side = Float(min(bw, bh)) * SkinComparator.cropFraction
        let x0 = (Float(bw) - side) / 2 - 0.5
        let y0 = (Float(bh) - side) / 2 - 0.5
        let step = side / Float(n)
        // Sample both crops.
        let count = n * n
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
            withPlanes(pSrc) { p0, p1, p2 in
                for j in 0..<n {
                    for i in 0..<n {
                        let x = x0 + (Float(i) + 0.5) * step
                        let y = y0 + (Float(j) + 0.5) * step
                        let (u, v) = al.warp.apply(x, y)
                        let k = j * n + i
                        if u < -0.5 || v < -0.5 || u > Float(pw) - 0.5 || v > Float(ph) - 0.5 { valid[k] = false }
                        let bAt = Bilinear(bw, bh, x, y)
                        let pAt = Bilinear(pw, ph, u, v)
                        B[0][k] = bAt.value(b0)
                        B[1][k] = bAt.value(b1)
                        B[2][k] = bAt.value(b2)
                        P[0][k] = pAt.value(p0)
                        P[1][k] = pAt.value(p1)
                        P[2][k] = pAt.value(p2)
                    }
                }
            }
        }
        let validFraction = Float(valid.filter { $0 }.count) / Float(count)
        // Something else at the frame's edge (a background, clothing) is set aside before the colour fit and the map.
        var foreignCount = 0
        let foreign = ForeignEdge.mask(
            base: baseline, probe: probe, warp: al.warp, x0: x0, y0: y0, step: step, valid: valid, side: n, inspection: inspection)
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
                ToneFit.fitParams(base: BL[c], probe: PL[c], usable: usable, side: n, probeLogs: probeLogs[c]),
                probe: PL[c], side: n, probeLogs: probeLogs[c])
        }
        // For the blob-sized colour term (revision 7) the same tone curve is fitted to the planes averaged over 5x5 grid
        // pixels and applied to the probe's own pixels: the curve is smooth, so averaging takes the pixel noise (sensor
        // noise, JPEG, a residual sub-pixel shift) out of the fit's residuals, and the trimming then sets aside a colour
        // change over a patch instead of bending the curve (a gain across the frame) to absorb part of it.
        var colourLab = [[Float]](repeating: [Float](repeating: 0, count: count), count: 3)
        do {
            var fitted = probeLinear
            for c in 0..<3 {
                let b = Plane(width: n, height: n, data: BL[c]).boxBlurred(radius: 2).data
                let p = Plane(width: n, height: n, data: probeLinear[c]).boxBlurred(radius: 2).data
                fitted[c] = ToneFit.apply(
                    ToneFit.fitParams(base: b, probe: p, usable: usable, side: n), probe: probeLinear[c], side: n,
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
        let bL = Plane(width: n, height: n, data: bLab[0]).boxBlurred(radius: 1)
        let bA = Plane(width: n, height: n, data: bLab[1]).boxBlurred(radius: 1)
        let bB = Plane(width: n, height: n, data: bLab[2]).boxBlurred(radius: 1)
        let pL = Plane(width: n, height: n, data: pLab[0]).boxBlurred(radius: 1)
        let pA = Plane(width: n, height: n, data: pLab[1]).boxBlurred(radius: 1)
        let pB = Plane(width: n, height: n, data: pLab[2]).boxBlurred(radius: 1)
        // ΔE with the best match within one pixel.
        var dE = [Float](repeating: 0, count: count)
        withPlanes([bL, bA, bB]) { bl, ba, bb in
            withPlanes([pL, pA, pB]) { pl, pa, pb in
                dE.withUnsafeMutableBufferPointer { out in
                    for j in 0..<n {
                        for i in 0..<n {
                            let k = j * n + i
                            var best = Float.greatestFiniteMagnitude
                            for dy in -1...1 {
                                let jj = min(max(j + dy, 0), n - 1)
                                for dx in -1...1 {
                                    let ii = min(max(i + dx, 0), n - 1)
                                    let q = jj * n + ii
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
        let bBand = Plane(width: n, height: n, data: bLab[0]).highPassed(radius: 2, passes: 2)
        let pBand = Plane(width: n, height: n, data: pLab[0]).highPassed(radius: 2, passes: 2)
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
        let unclippedFraction = Float(detailCount) / Float(count)
        var d = [Float](repeating: 0, count: count)
        for k in 0..<count where valid[k] {
            d[k] =
                (colourValid[k] ? dE[k] / Tuning.deltaEUnit : 0) + Tuning.textureWeight * textureTerm(ratio[k] - medRatio)
                + Tuning.structureWeight * max(0, q.data[k] - medQ)
        }
        let map = Plane(width: n, height: n, data: d).boxBlurred(radius: Tuning.mapRadius)
        inspection?.grey(
            "map", map.data, white: Float(Calibration.displayCeiling), red: foreign,
            blue: (0..<count).map { !valid[$0] && !foreign[$0] })
        var vals: [Float] = []
        vals.reserveCapacity(count)
        for k in 0..<count where valid[k] { vals.append(map.data[k]) }
        let levels = Plane.quantiles(vals, [0.5, Tuning.scorePercentile, Tuning.noiseQuantile]).map(Double.init)
        let median = levels[0]
        var raw = levels[1] - Tuning.subtractMedian * median
        let noiseFactor = Tuning.noiseFactor(spread: levels[2] - median)
        if Tuning.wideWeight > 0 {
            let wide = Plane(width: n, height: n, data: d).boxBlurred(radius: 7)
            var wv: [Float] = []
            wv.reserveCapacity(count)
            for k in 0..<count where valid[k] { wv.append(wide.data[k]) }
            let w = Plane.quantiles(wv, [0.99, 0.5])
            raw += Tuning.wideWeight * (Double(w[0]) - Double(w[1]))
        }
        let blobs = BlobTerms.measure(
            bLab: bLab, pLab: colourLab, colourValid: colourValid, detailValid: valid,
            bBand: bBand, pBand: pBand, side: n, inspection: inspection)
        let displacement = BlockTerms.displacement(
            base: Plane(width: n, height: n, data: bLab[0]),
            probe: Plane(width: n, height: n, data: pLab[0]), valid: valid)
        let mapScore = raw * noiseFactor
        let spot = SpotTerm.measure(baseL: bLab[0], probeL: colourLab[0], valid: colourValid, side: n)
        raw = Calibration.rawScore(map: mapScore, displacement: displacement, colour: blobs.colour, texture: blobs.texture, spot: spot)
        // Heat map at 64x64.
        let m = SkinComparator.changeMapSide
        let f = n / m
        var heat = [Float](repeating: 0, count: m * m)
        for y in 0..<m {
            for x in 0..<m {
                var s: Float = 0
                for yy in 0..<f { for xx in 0..<f { s += map.data[(y * f + yy) * n + x * f + xx] } }
                heat[y * m + x] = min(1, s / Float(f * f) / Float(Calibration.displayCeiling))
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
                colourFraction: Double(colourCount) / Double(count),
                colourBlob: blobs.colour, textureBlob: blobs.texture,
                foreignFraction: Double(foreignCount) / Double(count),
                spotPeak: spot))
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

    /// 1 - local correlation (7x7 window) of the band-pass L planes `bb` and `pb`; flat windows tend to 1 via the
    /// constant.
    static func structureDissimilarity(_ bb: Plane, _ pb: Plane) -> Plane {
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
            out.data[i] = 1 - (cov + c) / ((vb * vp).squareRoot() + c)
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
    static func fit(base: [Float], probe: [Float], usable: [Bool], side n: Int) -> [Float] {
        let logs = logarithms(probe)
        return apply(fitParams(base: base, probe: probe, usable: usable, side: n, probeLogs: logs), probe: probe, side: n, probeLogs: logs)
    }

    /// log(max(v, 1e-4)) of every value: the fit's regressor, computed once per plane (the fit and `apply` read it
    /// many times).
    static func logarithms(_ v: [Float]) -> [Double] { v.map { log(Double(max($0, 1e-4))) } }

    /// The tone curve of `params` (`fitParams`) applied to every pixel of `probe`; `probeLogs`, when given, is
    /// `logarithms(probe)`.
    static func apply(_ params: [Double], probe: [Float], side n: Int, probeLogs: [Double]? = nil) -> [Float] {
        var out = probe
        let logs = probeLogs ?? logarithms(probe)
        for k in 0..<(n * n) where probe[k] > 0 {
            let x = Double(k % n) / Double(n - 1) * 2 - 1
            let y = Double(k / n) / Double(n - 1) * 2 - 1
            out[k] = Float(exp(params[0] + params[1] * x + params[2] * y + params[3] * logs[k]))
        }
        return out
    }

    /// The parameters (a0, ax, ay, gamma) of the fit, on every second pixel of every second row. `probeLogs`, when
    /// given, is `logarithms(probe)`.
    static func fitParams(base: [Float], probe: [Float], usable: [Bool], side n: Int, probeLogs: [Double]? = nil) -> [Double] {
        var keep = usable
        var params: [Double] = [0, 0, 0, 1]
        // The sampled pixels, with their regressors and the log of the baseline, each computed once.
        var index: [Int] = []
        var xs: [Double] = []
        var ys: [Double] = []
        var lp: [Double] = []
        var lb: [Double] = []
        var wt: [Double] = []
        for j in stride(from: 0, to: n, by: 2) {
            for i in stride(from: 0, to: n, by: 2) {
                let k = j * n + i
                index.append(k)
                xs.append(Double(i) / Double(n - 1) * 2 - 1)
                ys.append(Double(j) / Double(n - 1) * 2 - 1)
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

    static func displacement(base: Plane, probe: Plane, valid: [Bool]) -> Double {
        let n = base.width
        // Band-pass (sigma ~1.15 minus ~3.5): detail without shading, sensor noise smoothed away.
        func band(_ x: Plane) -> Plane { x.boxBlurred(radius: 1).highPassed(radius: 3, passes: 2) }
        let bm = band(base)
        let pm = band(probe)
        var disp: [Float] = []
        let bs = block
        let r = reach
        bm.data.withUnsafeBufferPointer { b in
            pm.data.withUnsafeBufferPointer { p in
                var y0 = r
                while y0 + bs + r <= n {
                    var x0 = r
                    while x0 + bs + r <= n {
                        var ok = true
                        for y in stride(from: y0, to: y0 + bs, by: 3) {
                            for x in stride(from: x0, to: x0 + bs, by: 3) where !valid[y * n + x] { ok = false }
                        }
                        if ok {
                            var ssd0: Float = 0
                            var best = Float.greatestFiniteMagnitude
                            var eb: Float = 0
                            for dy in -r...r {
                                for dx in -r...r {
                                    var acc: Float = 0
                                    for y in stride(from: y0, to: y0 + bs, by: 2) {
                                        let rb = y * n
                                        let rp = (y + dy) * n + dx
                                        for x in stride(from: x0, to: x0 + bs, by: 2) {
                                            let d = b[rb + x] - p[rp + x]
                                            acc += d * d
                                        }
                                    }
                                    if dx == 0 && dy == 0 { ssd0 = acc }
                                    if acc < best { best = acc }
                                }
                            }
                            for y in stride(from: y0, to: y0 + bs, by: 2) {
                                for x in stride(from: x0, to: x0 + bs, by: 2) { eb += b[y * n + x] * b[y * n + x] }
                            }
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
        let q = Plane.quantiles(disp, [0.97, 0.5])
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
        side n: Int, inspection: Inspection? = nil
    ) -> (colour: Double, texture: Double) {
        let count = n * n
        // Three box passes approximate a Gaussian (a tenth of the cost of the true kernel).
        var radius = colourRadius
        func blur(_ p: Plane) -> Plane { p.boxBlurred(radius: radius).boxBlurred(radius: radius).boxBlurred(radius: radius) }
        func smooth(_ v: [Float], _ valid: [Bool]) -> Plane {
            var x = v
            for k in 0..<count where !valid[k] { x[k] = 0 }
            return blur(Plane(width: n, height: n, data: x))
        }
        func weights(_ valid: [Bool]) -> Plane { blur(Plane(width: n, height: n, data: valid.map { $0 ? 1 : 0 })) }
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
            for j in stride(from: 0, to: n, by: 2) {
                for i in stride(from: 0, to: n, by: 2) {
                    let k = j * n + i
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
            let q = Plane.quantiles(v, [0.99, 0.5])
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
        return (spread(colour), texture.count >= 64 ? Double(med - Plane.quantile(texture, 0.01)) : 0)
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

    static func ringAgreement(_ base: PreparedPhoto, _ probe: PreparedPhoto, _ w: Warp) -> (Float, [Float]) {
        let c = Gate.tileCorrelations(base: base.band, probe: probe.band, warp: w, fraction: fraction, stride: 2, parts: tiles)
        var sum: Float = 0
        var n: Float = 0
        var weights = [Float](repeating: 0, count: tiles * tiles)
        for t in c.indices where isRing(t) {
            let v = c[t]
            if v > -1 {
                sum += max(0, v)
                n += 1
            }
            weights[t] = min(1, max(0, (v - 0.1) / 0.4))
        }
        return (n > 0 ? sum / n : 0, weights)
    }

    static func refine(_ base: PreparedPhoto, _ probe: PreparedPhoto, _ start: Warp, weights: [Float], levels: ClosedRange<Int>) -> Warp {
        var w = start
        let tw = TileWeights(fraction: fraction, tiles: tiles, values: weights)
        for level in stride(from: levels.upperBound, through: levels.lowerBound, by: -1)
        where level < base.pyramid.levels.count && level < probe.pyramid.levels.count {
            let s = Float(1 << level)
            w = IntensityAlignment.refine(
                base: base.pyramid.levels[level], probe: probe.pyramid.levels[level],
                gx: probe.pyramid.gradX[level], gy: probe.pyramid.gradY[level], warp: w.atLevel(scale: s),
                fraction: fraction, stride: level == 0 ? 2 : 1, iterations: level == 0 ? 5 : 10,
                weights: tw
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

/// Where the probe shows something else at the edge of the crop (a background or clothing that came into the frame):
/// the part of the crop connected, through the ring of the frame around it (out to `RingSupport.fraction` of the
/// frame), to the frame's border, where the photos disagree: their band-pass grey detail does not correlate (local
/// correlation over 7x7 windows, gain and offset invariant, averaged over about 15x15 crop-grid pixels, under
/// `maximumCorrelation`), or their colour differs far beyond what light explains (the Lab difference averaged over the
/// same windows, after a gain per channel fitted on the middle of the crop, over `maximumColourDifference`). A new spot
/// or a colour change inside the area would have to reach out through the ring to the frame's border to be set aside;
/// a region over `maximumShare` of the crop is not set aside at all (the gate decides whether the photos are
/// comparable).
///
/// Revision 6: the map covers the ring too (at half the crop grid's resolution), and colour counts. Looking at the
/// crop alone, a background that covers the ring and enters the crop only by a strip a few grid pixels wide (a turned
/// or shifted frame) was averaged away by the 15x15 window, and on smooth skin (little detail to correlate) the
/// structure alone did not tell skin from a background: such strips were the unchanged typical pairs of the shared set
/// that scored highest (colour and texture blob terms at 2-7 times their noise scales; `cairn-bench skin --inspect`).
/// Seen with the ring, the strip is the inner edge of a large region; its rim (`rim` crop-grid pixels, where the photos
/// blend) is set aside with it.
enum ForeignEdge {
    /// Below this local correlation of detail the photos show something else there (different subjects: about 0).
    static let maximumCorrelation: Float = 0.4
    /// Above this Lab difference (ΔE76 of the window means) the colours show something else: three times the strongest
    /// colour change of the shared set (13), beyond what a shading across the frame leaves after one gain per channel.
    static let maximumColourDifference: Float = 30
    static let maximumShare = 0.35
    /// Crop-grid pixels around the found region set aside with it: the soft edge where a background blends into the skin,
    /// and the half-resolution map's own step.
    static let rim = 3

    /// The crop grid's mask (`side` x `side`, true = set aside). `x0`, `y0`, `step`: the crop grid in baseline pixels, as
    /// sampled by `ChangeAnalysis.run`; `valid`: crop grid pixels inside the probe.
    static func mask(
        base: PreparedPhoto, probe: PreparedPhoto, warp: Warp, x0: Float, y0: Float, step: Float,
        valid: [Bool], side n: Int, inspection: Inspection? = nil
    ) -> [Bool] {
        guard base.pyramid.levels.count > 1, probe.pyramid.levels.count > 1 else { return [Bool](repeating: false, count: n * n) }
        let bw = base.color.width
        let bh = base.color.height
        let pw = probe.color.width
        let ph = probe.color.height
        // The wide grid: the crop's grid extended to `RingSupport.fraction` of the shorter side, every second pixel.
        let ringSide = Float(min(bw, bh)) * RingSupport.fraction
        let margin = 2 * max(1, Int(((ringSide / step - Float(n)) / 4).rounded()))
        let wn = (n + 2 * margin) / 2
        let count = wn * wn
        let step2 = 2 * step
        let ox = x0 - Float(margin) * step
        let oy = y0 - Float(margin) * step
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
                        for j in 0..<wn {
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
        let bb = Plane(width: wn, height: wn, data: lb).highPassed(radius: 1, passes: 2)
        let pb = Plane(width: wn, height: wn, data: lp).highPassed(radius: 1, passes: 2)
        let q = ChangeAnalysis.structureDissimilarity(bb, pb).boxBlurred(radius: 3)
        // Colour: one gain per channel in linear light from the middle of the crop (the area itself), then the Lab
        // difference of the window means.
        var gains = [Float](repeating: 1, count: 3)
        let lo = margin / 2 + n / 8
        let hi = margin / 2 + n / 2 - n / 8
        for c in 0..<3 {
            var rb: [Float] = []
            var rp: [Float] = []
            for j in lo..<hi {
                for i in lo..<hi {
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
        let sl = Plane(width: wn, height: wn, data: dl).boxBlurred(radius: 3)
        let sa = Plane(width: wn, height: wn, data: da).boxBlurred(radius: 3)
        let sb = Plane(width: wn, height: wn, data: db).boxBlurred(radius: 3)
        let structureLimit = 1 - maximumCorrelation
        let colourLimit = maximumColourDifference * maximumColourDifference
        var disagree = [Bool](repeating: false, count: count)
        for k in 0..<count {
            let e = sl.data[k] * sl.data[k] + sa.data[k] * sa.data[k] + sb.data[k] * sb.data[k]
            disagree[k] = !inside[k] || q.data[k] > structureLimit || e > colourLimit
        }
        // Flood from the wide grid's border through pixels that disagree (or lie outside the probe).
        var found = [Bool](repeating: false, count: count)
        var queue: [Int] = []
        func visit(_ m: Int) {
            if !found[m] && disagree[m] {
                found[m] = true
                queue.append(m)
            }
        }
        for k in 0..<count {
            let i = k % wn
            let j = k / wn
            if i == 0 || j == 0 || i == wn - 1 || j == wn - 1 { visit(k) }
        }
        var head = 0
        while head < queue.count {
            let k = queue[head]
            head += 1
            let i = k % wn
            if i > 0 { visit(k - 1) }
            if i < wn - 1 { visit(k + 1) }
            if k >= wn { visit(k - wn) }
            if k + wn < count { visit(k + wn) }
        }
        inspection?.grey("ring disagreement", q.data, white: 1, red: found, width: wn)
        // The crop's part of the region where the photos disagree (not where it only lies outside the probe, which the
        // crop's `valid` already sets aside), with its rim.
        var mask = [Bool](repeating: false, count: n * n)
        var setAside = 0
        for j in 0..<n {
            for i in 0..<n {
                let k = j * n + i
                guard valid[k] else { continue }
                var hit = false
                for dj in stride(from: -rim, through: rim, by: 2) where !hit {
                    for di in stride(from: -rim, through: rim, by: 2) {
                        let jj = min(max((j + margin + dj) / 2, 0), wn - 1)
                        let ii = min(max((i + margin + di) / 2, 0), wn - 1)
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
        let share = Double(setAside) / Double(n * n)
        return share > maximumShare ? [Bool](repeating: false, count: n * n) : mask
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
    static func band(_ plane: [Float], side n: Int) -> [Float] {
        let p = Plane(width: n, height: n, data: plane)
        var out = p.boxBlurred(radius: centreRadius).boxBlurred(radius: centreRadius).data
        let surround = p.boxBlurred(radius: surroundRadius).boxBlurred(radius: surroundRadius)
        for k in out.indices { out[k] -= surround.data[k] }
        return out
    }

    /// The figure (see above) of the baseline's and the probe's L* planes (`side` x `side`) over the pixels in `valid`;
    /// 0 with under 64 of them whose surround is whole.
    static func measure(baseL: [Float], probeL: [Float], valid: [Bool], side n: Int) -> Double {
        let rb = band(baseL, side: n)
        let rp = band(probeL, side: n)
        let cover = Plane(width: n, height: n, data: valid.map { $0 ? 1 : 0 })
            .boxBlurred(radius: surroundRadius).boxBlurred(radius: surroundRadius)
        var v: [Float] = []
        v.reserveCapacity(n * n)
        var peak: Float = 0
        for j in 0..<n {
            for i in 0..<n {
                let k = j * n + i
                guard valid[k] && cover.data[k] > 0.999 else { continue }
                var best = Float.greatestFiniteMagnitude
                for dy in -1...1 {
                    let jj = min(max(j + dy, 0), n - 1)
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
