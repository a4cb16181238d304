import Foundation

/// Tesseract's OpenMP only honours `OMP_THREAD_LIMIT` when it is set before the process starts (PLATFORM.md):
/// without it a label takes 3-4 times the CPU on two cores. An entry point (`cairn`, `cairn-bench`) calls
/// `ensureThreadLimit` first thing; when the variable is missing, the process replaces itself (execv of
/// /proc/self/exe with the same arguments) with it set to 1. If that fails, work continues, only slower.
public enum ThreadLimit {
    /// Re-executes this process with `OMP_THREAD_LIMIT=1` when the environment lacks it. Returns when it is
    /// already set, when the program is not one of `programs` (test runners call commands in process), or when
    /// execv failed.
    public static func ensureThreadLimit(programs: Set<String>) {
        guard ProcessInfo.processInfo.environment["OMP_THREAD_LIMIT"] == nil,
              let program = CommandLine.arguments.first,
              programs.contains((program as NSString).lastPathComponent) else { return }
        setenv("OMP_THREAD_LIMIT", "1", 1)
        var argv: [UnsafeMutablePointer<CChar>?] = CommandLine.arguments.map { strdup($0) }
        argv.append(nil)
        execv("/proc/self/exe", &argv)
        // Only reached when execv failed: carry on in this process.
        for pointer in argv { free(pointer) }
    }
}
