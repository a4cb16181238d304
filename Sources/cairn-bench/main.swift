// cairn-bench [section ...]: prints measured figures; no arguments runs every section.
import Foundation

let sections: [(name: String, run: () throws -> Void)] = [("ingest", IngestBenchmark.run)]
let wanted = Array(CommandLine.arguments.dropFirst())
for name in wanted where !sections.contains(where: { $0.name == name }) {
    FileHandle.standardError.write(Data("unknown section \(name); sections: \(sections.map(\.name).joined(separator: ", "))\n".utf8))
    exit(2)
}
for section in sections where wanted.isEmpty || wanted.contains(section.name) {
    do { try section.run() } catch { FileHandle.standardError.write(Data("\(section.name) failed: \(error)\n".utf8)); exit(1) }
}
