import CairnApp
import CairnCore
import Encryption
import Foundation
import Regimen
import Storage

/// `cairn-bench backup [--photos N] [--photo-kb K] [--days N]`: issue 21's backup target. A vault with N photo files
/// (default 1,000 of 600 KB, incompressible like JPEG data) and ten years of doses (`RegimenBenchmark.fill`);
/// `cairn backup create` (snapshot, encrypt, write, then the full read-back check) and `cairn backup verify`, each in
/// MB/s of vault content, target ≥ 50 MB/s, with the peak memory above the process's size before (flat: it must not
/// grow with the vault). Baseline in the same run: `tar` of the vault folder piped into `sha256sum`, which reads
/// and hashes the same bytes without encrypting.
enum BackupBenchmark {
    static func run(arguments: [String]) throws -> Bool {
        var photos = 1000
        var photoKB = 600
        var days = 3650
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? Int(arguments[index + 1]) : nil
            switch arguments[index] {
            case "--photos":
                photos = max(0, value ?? photos)
                index += 2
            case "--photo-kb":
                photoKB = max(1, value ?? photoKB)
                index += 2
            case "--days":
                days = max(1, value ?? days)
                index += 2
            default: index += 1
            }
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-bench-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let clock = FixedClock(Date(timeIntervalSince1970: 1_796_040_000), timeZone: zone)
        let vaultPath = scratch.appendingPathComponent("vault").path
        let app = try CairnApplication.open(dataDirectory: vaultPath, environment: [:], clock: clock)

        let fillStart = ContinuousClock.now
        try RegimenBenchmark.fill(app.regimen, days: days, firstDay: LocalDay(year: 2016, month: 12, day: 1)!, zone: zone)
        var generator = SeededGenerator(seed: 21)
        for _ in 0..<photos {
            let bytes = Data((0..<(photoKB * 1024 / 8)).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } })
            try app.photoStore.write(bytes, purpose: "skin", mediaType: .jpeg, width: 4032, height: 3024) { _ in }
        }
        let doses = try app.database.read { try $0.scalar("SELECT count(*) FROM regimen_intake", as: Int.self) ?? 0 }
        print(
            "backup: \(photos) photos of \(photoKB) KB and \(doses) dose records (\(days) days), made in \(seconds(since: fillStart)) s; load average \(InputMemoryBenchmark.loadAverage())"
        )

        let baselineSeconds = try ProcessBench.time(
            "/bin/sh", ["-c", "tar cf - -C '\(vaultPath)' . | sha256sum"],
            environment: ProcessInfo.processInfo.environment
        ).wall.rounded(toPlaces: 2)

        let passphrase = try Passphrase("benchmark passphrase, long enough")
        let kdfStart = ContinuousClock.now
        _ = try KeyDerivation.standard().deriveKey(from: passphrase)
        let kdfSeconds = seconds(since: kdfStart)

        let before = currentRSSMB()
        IngestBenchmark.resetPeakRSS()
        let createStart = ContinuousClock.now
        let result = try app.backups.create(at: scratch.appendingPathComponent("b.cairnbackup").path, passphrase: passphrase)
        let createSeconds = seconds(since: createStart)
        let createPeak = IngestBenchmark.peakRSSMB() - before

        IngestBenchmark.resetPeakRSS()
        let verifyStart = ContinuousClock.now
        _ = try BackupService.verify(at: result.path, passphrase: passphrase)
        let verifySeconds = seconds(since: verifyStart)
        let verifyPeak = IngestBenchmark.peakRSSMB() - before

        let megabytes = Double(result.summary.contentBytes) / 1_000_000
        let fileMB = Double((try FileManager.default.attributesOfItem(atPath: result.path)[.size] as? Int) ?? 0) / 1_000_000
        func rate(_ s: Double) -> Double { (megabytes / s * 10).rounded() / 10 }
        let createRate = rate(createSeconds)
        let verifyRate = rate(verifySeconds)
        print(String(format: "  content %.1f MB (file %.1f MB); Argon2id (128 MiB, 3 passes) alone: %.2f s", megabytes, fileMB, kdfSeconds))
        print("  baseline tar | sha256sum of the vault folder: \(baselineSeconds) s, \(rate(baselineSeconds)) MB/s")
        print(
            "  backup create (snapshot, encrypt, write, then read all back and check): \(createSeconds) s, \(createRate) MB/s (target >= 50), peak memory +\(Int(createPeak)) MB"
        )
        print(
            "  backup verify (derive, decrypt, check every digest): \(verifySeconds) s, \(verifyRate) MB/s (target >= 50), peak memory +\(Int(verifyPeak)) MB"
        )
        print("  load average \(InputMemoryBenchmark.loadAverage())")
        // Flat memory: well under one photo's worth of chunks per MB of vault; the KDF alone takes 128 MiB.
        let flat = createPeak < 128 + 64 && verifyPeak < 128 + 64
        print("  memory flat (peak below the KDF's 128 MiB + 64 MB, whatever the vault's size): \(flat ? "yes" : "NO")")
        return createRate >= 50 && verifyRate >= 50 && flat
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return (Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 * 1).rounded(toPlaces: 2)
    }

    private static func currentRSSMB() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kb = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kb / 1024
    }
}

extension Double {
    fileprivate func rounded(toPlaces places: Int) -> Double {
        let factor = pow(10, Double(places))
        return (self * factor).rounded() / factor
    }
}
