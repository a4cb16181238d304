import Foundation

/// SHA-256 (FIPS 180-4), for the content hash recorded with every photo file. Foundation on Linux has no
/// digest API and no crypto library is linked into Storage, so this small implementation lives here.
enum SHA256 {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    /// The digest of `data` as 64 lowercase hex characters.
    /// - Complexity: O(n). Written over raw pointers so that debug builds stay usable (about 10x faster
    ///   than array code without optimisation).
    @_optimize(speed) static func hexDigest(_ data: Data) -> String {
        let state = UnsafeMutablePointer<UInt32>.allocate(capacity: 8)
        let w = UnsafeMutablePointer<UInt32>.allocate(capacity: 64)
        let kp = UnsafeMutablePointer<UInt32>.allocate(capacity: 64)
        defer { state.deallocate(); w.deallocate(); kp.deallocate() }
        for (i, v) in [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
                       0x5be0cd19].enumerated() { state[i] = UInt32(v) }
        for i in 0..<64 { kp[i] = k[i] }

        let fullBlocks = data.count / 64
        data.withUnsafeBytes { raw in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return }
            for block in 0..<fullBlocks { compress(base + block * 64, state, w, kp) }
        }
        // The tail: remaining bytes, 0x80, zeros, and the 64-bit big-endian bit length (one or two blocks).
        var tail = [UInt8](data[(data.startIndex + fullBlocks * 64)...])
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        let bitLength = UInt64(data.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        tail.withUnsafeBufferPointer { buffer in
            for offset in stride(from: 0, to: buffer.count, by: 64) { compress(buffer.baseAddress! + offset, state, w, kp) }
        }
        return (0..<8).map { i in
            let hex = String(state[i], radix: 16)
            return String(repeating: "0", count: 8 - hex.count) + hex
        }.joined()
    }

    @_optimize(speed) private static func compress(_ block: UnsafePointer<UInt8>, _ h: UnsafeMutablePointer<UInt32>,
                                 _ w: UnsafeMutablePointer<UInt32>, _ k: UnsafeMutablePointer<UInt32>) {
        var i = 0
        while i < 16 {
            let b = block + i &* 4
            w[i] = UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])
            i &+= 1
        }
        while i < 64 {
            let x = w[i &- 15], y = w[i &- 2]
            let s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3)
            let s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >> 10)
            w[i] = w[i &- 16] &+ s0 &+ w[i &- 7] &+ s1
            i &+= 1
        }
        var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7]
        i = 0
        while i < 64 {
            let t1 = hh &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
            let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
            hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
            i &+= 1
        }
        h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e; h[5] &+= f; h[6] &+= g; h[7] &+= hh
    }

    @inline(__always) private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 &- n)) }
}
