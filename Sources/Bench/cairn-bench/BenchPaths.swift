import Foundation

/// Where the benchmarks find the repository and the shared test data, from this file's own place
/// (`<repo>/Sources/Bench/cairn-bench/`), whatever the current directory.
enum BenchPaths {
    /// The repository root.
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    /// `../shared/data` beside the repository.
    static let sharedData = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/data")
}
