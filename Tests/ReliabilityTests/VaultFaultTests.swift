import CairnApp
import CairnCore
import CairnTestSupport
import Encryption
import Foundation
import Storage
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 36: no single fault loses data or leaves it readable. Each file-level fault, and the real `cairn` stopped
/// by SIGKILL at the crash points of a backup, a restore and a lock change (`CAIRN_CRASH_AT`, `CrashPoint`), ends
/// with every photo kept and nothing of a locked vault readable. The long kill loops are in `cairn-bench reliability`.
@Suite(.serialized) struct VaultFaultTests {
    /// A vault of `photos` photo rows and files (plain random bytes: the store does not decode them), closed.
    final class Faulty {
        let scratch: Scratch
        let directory: String
        let photos: [StoredPhoto]

        init(photos count: Int = 5) throws {
            scratch = try Scratch()
            directory = scratch.file("vault").path
            let app = try CairnApplication.open(dataDirectory: directory, environment: [:])
            var made: [StoredPhoto] = []
            for i in 0..<count {
                let bytes = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* (i + 3) &+ $0 >> 7) })
                made.append(try app.photoStore.write(bytes, purpose: "skin", mediaType: .jpeg, width: 10, height: 10) { _ in })
            }
            photos = made
            app.database.close()
        }

        deinit { scratch.remove() }

        var passphraseFile: String {
            let url = scratch.file("vault-passphrase.txt")
            if !FileManager.default.fileExists(atPath: url.path) { try? Data("a vault passphrase for faults\n".utf8).write(to: url) }
            return url.path
        }

        /// `cairn --data-dir VAULT ARGS` (with the vault's passphrase file when `locked`), `crash` arming a point.
        @discardableResult
        func cairn(_ arguments: String..., locked: Bool = false, crash: String? = nil) throws -> Run {
            let globals = ["--data-dir", directory] + (locked ? ["--vault-passphrase-file", passphraseFile] : [])
            let (process, out, err) = try CairnProcess.start(
                globals + arguments,
                environment: crash.map { ["CAIRN_CRASH_AT": $0] } ?? [:])
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Run(
                status: process.terminationStatus, killed: process.terminationReason == .uncaughtSignal,
                stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
        }

        func file(_ relative: String) -> String { (directory as NSString).appendingPathComponent(relative) }

        /// Every regular file of the vault, relative to it.
        var files: [String] {
            var found: [String] = []
            let walker = FileManager.default.enumerator(atPath: directory)
            while let entry = walker?.nextObject() as? String {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: file(entry), isDirectory: &isDirectory), !isDirectory.boolValue {
                    found.append(entry)
                }
            }
            return found.sorted()
        }

        /// The vault's files whose bytes read as a plain database or a plain photo (the test photos start as the
        /// bytes written, so a plain one starts with 0x00 0x03 ...: any file under photos/ that is not sealed).
        var readableFiles: [String] {
            files.filter { name in
                guard let data = FileManager.default.contents(atPath: file(name)) else { return false }
                if data.starts(with: Array("SQLite format 3".utf8)) { return true }
                let underPhotos = name.hasPrefix("photos/") || name.hasPrefix("lost+found/")
                return underPhotos && !EncryptedPhoto.isEncrypted(data)
            }
        }

        func photoFilesAreWhole() -> Bool {
            photos.allSatisfy { FileManager.default.fileExists(atPath: file($0.relativePath)) }
        }
    }

    struct Run {
        let status: Int32
        let killed: Bool
        let stdout: String
        let stderr: String
    }

    // MARK: file-level faults

    @Test func aMissingOrEmptyDatabaseBesidePhotosIsRefusedByNameAndNothingIsCreated() throws {
        let v = try Faulty()
        for suffix in ["", "-wal", "-shm"] { unlink(v.file("cairn.sqlite" + suffix)) }
        let missing = try v.cairn("skin", "add-area", "Left arm")
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("The vault's database (cairn.sqlite) is missing, but the vault still holds photo files"))
        #expect(missing.stderr.contains("cairn backup restore FILE --data-dir NEW-FOLDER"))
        #expect(!FileManager.default.fileExists(atPath: v.file("cairn.sqlite")), "nothing was created")
        #expect(v.photoFilesAreWhole())

        FileManager.default.createFile(atPath: v.file("cairn.sqlite"), contents: Data())
        let empty = try v.cairn("skin", "areas")
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("(cairn.sqlite) is empty"))
        #expect(v.photoFilesAreWhole())
        #expect(try v.cairn("doctor").status == 1)
    }

    @Test func aDatabaseFromAnotherVaultKeepsEveryPhotoAsideAndDeletesNone() throws {
        let v = try Faulty(photos: 4)
        let other = try Faulty(photos: 0)
        for suffix in ["", "-wal", "-shm"] { unlink(v.file("cairn.sqlite" + suffix)) }
        try FileManager.default.copyItem(atPath: other.file("cairn.sqlite"), toPath: v.file("cairn.sqlite"))
        let doctor = try v.cairn("doctor")
        #expect(doctor.status == 1, "photo files no record names are a problem of the vault")
        #expect(doctor.stdout.contains("4 photo files in the data folder are named by no record"))
        let write = try v.cairn("skin", "add-area", "Left arm")
        #expect(write.status == 0)
        #expect(write.stderr.contains("4 photo files that no record names were moved to the lost+found folder"))
        let kept = v.files.filter { $0.hasPrefix("lost+found/") }
        #expect(kept.count == 4)
        for photo in v.photos {
            #expect(kept.contains { $0.hasSuffix(photo.relativePath) }, "\(photo.relativePath) kept aside whole")
        }
        let after = try v.cairn("doctor")
        #expect(after.status == 0)
        #expect(after.stdout.contains("4 files kept aside in the lost+found folder"))
    }

    @Test func aDamagedPhotoIsNamedByDoctorAndByTheBackup() throws {
        let v = try Faulty(photos: 3)
        let path = v.file(v.photos[1].relativePath)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[100] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        let doctor = try v.cairn("doctor")
        #expect(doctor.status == 1)
        #expect(doctor.stdout.contains("Photo \(v.photos[1].id.rawValue) (skin) is damaged"))
        let backup = try v.cairn("backup", "create", v.scratch.file("b.cairnbackup").path, "--passphrase-file", v.passphraseFile)
        #expect(backup.status == 1)
        #expect(backup.stderr.contains("A photo file in the data folder is damaged"))
        unlink(path)
        #expect(try v.cairn("doctor").stdout.contains("Photo \(v.photos[1].id.rawValue) (skin) is missing"))
    }

    // MARK: crash points

    @Test func aBackupKilledWithItsSnapshotWrittenLeavesNoPlainCopyOnceTheLockIsOn() throws {
        let v = try Faulty(photos: 2)
        let killed = try v.cairn(
            "backup", "create", v.scratch.file("b.cairnbackup").path, "--passphrase-file", v.passphraseFile,
            crash: "backup-snapshot-written")
        #expect(killed.killed)
        #expect(v.files.contains { $0.hasPrefix(".backup-") }, "the kill left the plain snapshot")
        let on = try v.cairn("settings", "lock", "on", "--passphrase-file", v.passphraseFile)
        #expect(on.status == 0, "\(on.stderr)")
        #expect(!v.files.contains { $0.hasPrefix(".backup-") || $0.hasPrefix(".artefacts/") })
        #expect(v.readableFiles.isEmpty, "readable under the lock: \(v.readableFiles)")
        #expect(try v.cairn("doctor", locked: true).status == 0)
    }

    @Test func aBackupKilledBeforeItsRenameLeavesAPartialFileTheNextCommandRemoves() throws {
        let v = try Faulty(photos: 2)
        let folder = v.scratch.file("backups")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let killed = try v.cairn("backup", "create", folder.path, "--passphrase-file", v.passphraseFile, crash: "backup-written")
        #expect(killed.killed)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).contains { $0.hasSuffix(".partial") })
        #expect(try v.cairn("skin", "areas").status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "the partial backup is gone")
        #expect(!v.files.contains { $0.hasPrefix(".artefacts/") && $0.hasSuffix(".entry") })
        // Two backups into one folder within a second: the second is named -2, never refused.
        #expect(try v.cairn("backup", "create", folder.path, "--passphrase-file", v.passphraseFile).status == 0)
        #expect(try v.cairn("backup", "create", folder.path, "--passphrase-file", v.passphraseFile).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 2)
    }

    @Test(arguments: ["restore-staging-made", "restore-file-written", "restore-before-rename"])
    func aRestoreKilledAtAnyStepLeavesNothingOnceRunAgain(point: String) throws {
        let v = try Faulty(photos: 3)
        let backup = v.scratch.file("b.cairnbackup").path
        #expect(try v.cairn("backup", "create", backup, "--passphrase-file", v.passphraseFile).status == 0)
        let parent = v.scratch.file("restores")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let target = parent.appendingPathComponent("restored").path
        let restore = ["--data-dir", target, "backup", "restore", backup, "--passphrase-file", v.passphraseFile]
        let (process, _, _) = try CairnProcess.start(restore, environment: ["CAIRN_CRASH_AT": point])
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path).contains { $0.hasPrefix(".cairn-restore-") })
        let (again, _, err) = try CairnProcess.start(restore)
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        again.waitUntilExit()
        #expect(again.terminationStatus == 0, "\(message)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["restored"])
        #expect(FileManager.default.fileExists(atPath: (target as NSString).appendingPathComponent(v.photos[2].relativePath)))
    }

    @Test func aRestoreIntoASharedFolderLeavesItsModeAsItWas() throws {
        let v = try Faulty(photos: 1)
        let backup = v.scratch.file("b.cairnbackup").path
        #expect(try v.cairn("backup", "create", backup, "--passphrase-file", v.passphraseFile).status == 0)
        let shared = v.scratch.file("shared").path
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        chmod(shared, 0o1777)
        let target = (shared as NSString).appendingPathComponent("x")
        let (process, _, _) = try CairnProcess.start(["--data-dir", target, "backup", "restore", backup, "--passphrase-file", v.passphraseFile])
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        var info = stat()
        stat(shared, &info)
        #expect(info.st_mode & 0o7777 == 0o1777, "the shared folder keeps its sticky bit and everyone's access")
        stat(target, &info)
        #expect(info.st_mode & 0o777 == 0o700)
    }

    @Test func aLockChangeKilledHalfWayThroughThePhotosIsFinishedByTheNextReadingCommand() throws {
        let v = try Faulty(photos: 5)
        let killed = try v.cairn("settings", "lock", "on", "--passphrase-file", v.passphraseFile, crash: "lock-photoConverted#2")
        #expect(killed.killed)
        #expect(!v.readableFiles.isEmpty, "the kill left plain photos under a lock that says on")
        let read = try v.cairn("skin", "areas", locked: true)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(v.readableFiles.isEmpty, "readable under the lock: \(v.readableFiles)")
        #expect(!v.files.contains(".photos-converting"))
        #expect(try v.cairn("doctor", locked: true).status == 0)
    }

    @Test func aLockOffKilledHalfWayIsEncryptedAgainBySettingsLockOn() throws {
        let v = try Faulty(photos: 5)
        #expect(try v.cairn("settings", "lock", "on", "--passphrase-file", v.passphraseFile).status == 0)
        let killed = try v.cairn("settings", "lock", "off", "--passphrase-file", v.passphraseFile, crash: "lock-photoConverted#3")
        #expect(killed.killed)
        #expect(!v.readableFiles.isEmpty)
        let on = try v.cairn("settings", "lock", "on", "--passphrase-file", v.passphraseFile)
        #expect(on.status == 0, "\(on.stderr)")
        #expect(on.stdout.contains("The lock is on"))
        #expect(v.readableFiles.isEmpty, "readable under the lock: \(v.readableFiles)")
    }

    @Test func aLockChangeRefusedWhileAServerRunsSaysNothingFirstAndLeavesNoMarker() throws {
        let v = try Faulty(photos: 1)
        let app = try CairnApplication.open(dataDirectory: v.directory, environment: [:])
        try app.claimVaultForServing()
        defer {
            app.releaseVault()
            app.database.close()
        }
        let refused = try v.cairn("settings", "lock", "on", "--passphrase-file", v.passphraseFile)
        #expect(refused.status == 1)
        #expect(!refused.stderr.contains("Encrypting"))
        #expect(!v.files.contains(".photos-converting"))
    }
}
