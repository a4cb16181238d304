import Foundation
import NativeLoader

/// Keeps Tesseract's OpenMP on the thread that asks for a recognition.
///
/// libgomp reads `OMP_THREAD_LIMIT` only when it loads, with libtesseract, before any of our code runs, so a
/// `setenv` inside the process is too late; and Tesseract's parallel loops name their own thread counts, so
/// `omp_set_num_threads(1)` changes nothing. What works is the calling thread's max-active-levels ICV: at 0, no
/// parallel region started from this thread becomes active, and each runs on this thread alone. Measured on a
/// rendered label on the 2-core machine: 4 threads and 0.91 s of wall time (1.32 s CPU) per label without a limit,
/// 1 thread and 0.33 s with this call, 1 thread and 0.40 s with `OMP_THREAD_LIMIT=1` set at process start.
enum OpenMP {
    private typealias SetInt = @convention(c) (Int32) -> Void

    /// libgomp's `omp_set_max_active_levels`, found among Tesseract's libraries (nil when Tesseract uses no OpenMP
    /// runtime: then nothing runs in parallel anyway).
    private static let setMaxActiveLevels: SetInt? = {
        guard let symbol = cairn_tesseract_symbol("omp_set_max_active_levels") else { return nil }
        return unsafeBitCast(symbol, to: SetInt.self)
    }()

    /// Makes every OpenMP parallel region started from the calling thread run on it alone. The setting belongs to
    /// the calling thread, so it is made before each recognition, on the thread that runs it.
    static func runParallelRegionsOnThisThread() {
        setMaxActiveLevels?(0)
    }
}
