import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Deterministic crash points for the fault tests (issue 36): `CAIRN_CRASH_AT=<name>` in the environment makes the
/// process kill itself with SIGKILL (exactly what `kill -9` does: no clean-up, no flush) the first time it passes
/// the point of that name, so a test can stop a real `cairn` at every step of a backup, a restore or a lock change
/// and check what the next command finds. `CAIRN_CRASH_AT=<name>#N` stops at the N-th pass (a photo converted,
/// say). Unset, a point costs one comparison.
///
/// Decision: the points are in release builds too. Arming one needs the environment of the person's own process,
/// which can already be killed at any moment; a point adds no power, and it lets the tests run the binary people run.
public enum CrashPoint {
    private static let armed: (name: String, count: Int)? = {
        guard let value = ProcessInfo.processInfo.environment["CAIRN_CRASH_AT"], !value.isEmpty else { return nil }
        let parts = value.split(separator: "#", maxSplits: 1).map(String.init)
        return (parts[0], parts.count == 2 ? max(1, Int(parts[1]) ?? 1) : 1)
    }()
    nonisolated(unsafe) private static var passes = 0
    private static let lock = NSLock()

    /// Stops the process here when `CAIRN_CRASH_AT` names `name` (see the type's description).
    public static func reached(_ name: String) {
        guard let armed, armed.name == name else { return }
        let stop = lock.withLock { () -> Bool in
            passes += 1
            return passes == armed.count
        }
        if stop { kill(getpid(), SIGKILL) }
    }
}
