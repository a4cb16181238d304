import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The heap setting of a process that reads one photo and ends (`cairn regimen scan`, `cairn skin log` on their own).
/// Never for a running `cairn serve`, whose heap serves pages for hours: a command sent to it runs in its process and
/// leaves this alone (`CommandContext.ownsProcess`).
public enum OnePhotoProcess {
    /// The block size from which a one-photo process maps memory on its own (glibc's largest dynamic threshold).
    static let mmapThreshold: Int32 = 32 << 20

    /// Blocks of up to 32 MiB (the photo, its planes and copies, Tesseract's data and networks) come from the heap and
    /// are reused there. glibc maps each block of 128 KiB or more on its own, and unmaps it when freed: the next one is
    /// faulted in again page by page, and every unmapping interrupts the other core running a thread of this process.
    /// Its threshold rises by itself, but only after the first such block of each size is freed. Measured: scan 12 ms
    /// of wall less (20 rounds); skin log of a 12 MP photo 2,100 page faults and about 4 ms of CPU less (30 rounds).
    public static func keepLargeBlocksOnTheHeap() {
        // glibc's `mallopt(M_MMAP_THRESHOLD, bytes)`, found in the process as OpenMP's setting is (`OpenMP.swift`):
        // Swift's Glibc module does not import <malloc.h>. -3 is M_MMAP_THRESHOLD there (part of glibc's ABI).
        typealias SetOption = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: SetOption.self)(-3, mmapThreshold)
    }
}
