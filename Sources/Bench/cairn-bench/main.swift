// cairn-bench [SECTION [ARGS...]]: prints measured figures against their targets and baselines.
// No arguments runs every section with its defaults. A missed target is reported, not an error: the exit code
// is 0 when every section ran, 1 when a section could not run, 2 for an unknown section.
import CairnApp
import Foundation

/// A benchmark section: runs with its own arguments and says whether every target was met.
struct BenchSection {
    let name: String
    let run: ([String]) throws -> Bool
}

let sections: [BenchSection] = [
    BenchSection(name: "ingest") { _ in try IngestBenchmark.run() },
    BenchSection(name: "smile") { SmileBenchmark.run(arguments: $0) },
    BenchSection(name: "skin") { try SkinBenchmark.run(arguments: $0) },
    BenchSection(name: "regimen") { try RegimenBenchmark.run(arguments: $0) },
    BenchSection(name: "labels") { try LabelBenchmark.run(arguments: $0) },
    BenchSection(name: "label-database") { try LabelDatabaseBenchmark.run(arguments: $0) },
    BenchSection(name: "insights") { try InsightsBenchmark.run(arguments: $0) },
    BenchSection(name: "health") { try HealthBenchmark.run(arguments: $0) },
    BenchSection(name: "health-connect") { try HealthConnectBenchmark.run(arguments: $0) },
    BenchSection(name: "fhir") { try FHIRBenchmark.run(arguments: $0) },
    BenchSection(name: "skin-scale") { try SkinScaleBenchmark.run(arguments: $0) },
    BenchSection(name: "reports") { try ReportsBenchmark.run(arguments: $0) },
    BenchSection(name: "memory") { try InputMemoryBenchmark.run(arguments: $0) },
    BenchSection(name: "reliability") { try ReliabilityBenchmark.run(arguments: $0) },
    BenchSection(name: "import") { try ImportBenchmark.run(arguments: $0) },
    BenchSection(name: "process") { try ProcessBenchmark.run(arguments: $0) },
    BenchSection(name: "backup") { try BackupBenchmark.run(arguments: $0) },
    BenchSection(name: "vault") { try VaultBenchmark.run(arguments: $0) },
    BenchSection(name: "phone") { try PhoneBenchmark.run(arguments: $0) },
]

let words = Array(CommandLine.arguments.dropFirst())
let chosen: [(BenchSection, [String])]
if let first = words.first {
    guard let section = sections.first(where: { $0.name == first }) else {
        FileHandle.standardError.write(Data("unknown section \(first); sections: \(sections.map(\.name).joined(separator: ", "))\n".utf8))
        exit(2)
    }
    chosen = [(section, Array(words.dropFirst()))]
} else {
    chosen = sections.map { ($0, []) }
}

var summary: [String] = []
for (section, arguments) in chosen {
    do {
        let met = try section.run(arguments)
        summary.append("\(section.name): \(met ? "all targets met" : "a target was NOT met")")
    } catch {
        FileHandle.standardError.write(Data("\(section.name) could not run: \(error)\n".utf8))
        exit(1)
    }
}
print("\nsummary")
for line in summary { print("  " + line) }
