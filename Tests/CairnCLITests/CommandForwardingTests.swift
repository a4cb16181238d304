import CairnApp
import CairnCore
import CairnTestSupport
import Foundation
import Imaging
import Testing

@testable import CairnCLI

#if canImport(Glibc)
    import Glibc
#endif

/// Commands through a running `cairn serve` (issue 21 item 5), with the real `cairn` binary in its own processes:
/// the server owns the vault, and a command given to another `cairn` process runs inside it.
@Suite(.serialized) struct CommandForwardingTests {
    @Test func aCommandThatChangesDataWhileServingGoesThroughTheServerAndItsRecordIsOnThePage() throws {
        try withServedVault { vault, server, scratch in
            let socket = scratch.file("vault/serve.sock").path
            var info = stat()
            #expect(stat(socket, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK && info.st_mode & 0o777 == 0o600)

            let added = try CairnRun(["--data-dir", vault, "skin", "add-area", "Left forearm"])
            #expect(added.status == 0 && added.out.hasPrefix("Added area "), "\(added.err)")
            #expect(try server.get("/skin").text.contains("Left forearm"))
            // Reads go through too, and a usage error is answered by the client (exit 2) before anything is sent.
            #expect(try CairnRun(["--data-dir", vault, "skin", "areas"]).out.contains("Left forearm"))
            let usage = try CairnRun(["--data-dir", vault, "skin", "areas", "--no-such-option"])
            #expect(usage.status == 2 && usage.err.contains("Unknown option --no-such-option"))
            let problem = try CairnRun(["--data-dir", vault, "skin", "timeline", "No such area"])
            #expect(problem.status == 1 && problem.err.hasPrefix("cairn: "), "the server's exit code and its message")

            server.stop()
            #expect(access(socket, F_OK) != 0, "a stopped server removes its socket")
        }
    }

    @Test func commandsAndPageFormsAtOnceAllLandInTheServersVault() throws {
        try withServedVault { vault, server, scratch in
            let token = try server.csrf(on: "/skin")
            let results = Capture()
            let lock = NSLock()
            DispatchQueue.concurrentPerform(iterations: 12) { i in
                let line: String
                if i % 2 == 0 {
                    let run = try? CairnRun(["--data-dir", vault, "skin", "add-area", "Command \(i)"])
                    line = run.map { "\($0.status) \($0.err)" } ?? "did not run"
                } else {
                    let posted = try? server.send("POST", "/skin/areas", form: ["csrf": token, "name": "Page \(i)"])
                    line = posted.map { $0.status == 303 ? "0 " : "\($0.status)" } ?? "no answer"
                }
                lock.withLock { results.out.append(line) }
            }
            #expect(results.out.sorted() == Array(repeating: "0 ", count: 12))
            let areas = try CairnRun(["--data-dir", vault, "skin", "areas"]).out
            #expect(areas.split(separator: "\n").count == 12, "\(areas)")
        }
    }

    @Test func aLockedServerLeavesCommandsToTheirOwnWayUntilItIsUnlocked() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let vault = scratch.file("vault").path
        let passphrase = scratch.file("pass.txt")
        try Data("a locked vault passphrase\n".utf8).write(to: passphrase)
        #expect(try CairnRun(["--data-dir", vault, "skin", "add-area", "Left forearm"]).status == 0)
        #expect(try CairnRun(["--data-dir", vault, "settings", "lock", "on", "--passphrase-file", passphrase.path]).status == 0)
        let server = try ServeProcess(vault: vault)
        defer { server.stop() }

        // Locked: without a passphrase a command exits 1; with one it reads on its own, and a change is refused
        // (the server owns the vault), as before the socket.
        let without = try CairnRun(["--data-dir", vault, "skin", "areas"])
        #expect(without.status == 1 && without.err.contains("This vault is locked"), "\(without.err)")
        let read = try CairnRun(["--data-dir", vault, "--vault-passphrase-file", passphrase.path, "skin", "areas"])
        #expect(read.status == 0 && read.out.contains("Left forearm"))
        let change = try CairnRun(["--data-dir", vault, "--vault-passphrase-file", passphrase.path, "skin", "add-area", "Knee"])
        #expect(change.status == 1 && change.err.contains("is using this vault"))

        try server.unlock("a locked vault passphrase")
        let added = try CairnRun(["--data-dir", vault, "skin", "add-area", "Right knee"])
        #expect(added.status == 0, "no passphrase needed while the server has the vault open: \(added.err)")
        #expect(try server.get("/skin").text.contains("Right knee"))

        try server.lockNow()
        let locked = try CairnRun(["--data-dir", vault, "skin", "add-area", "Left knee"])
        #expect(locked.status == 1 && locked.err.contains("This vault is locked"))
    }

    @Test func afterTheLockIsTurnedOnInSettingsCommandsGoThroughTheReopenedVault() throws {
        try withServedVault { vault, server, scratch in
            #expect(try CairnRun(["--data-dir", vault, "skin", "add-area", "Left forearm"]).status == 0)
            let token = try server.csrf(on: "/settings")
            let turned = try server.send(
                "POST", "/settings/lock/on",
                form: [
                    "csrf": token, "passphrase": "a new vault passphrase",
                    "passphrase_again": "a new vault passphrase",
                ])
            #expect(turned.status == 303, "\(turned.status)")
            let added = try CairnRun(["--data-dir", vault, "skin", "add-area", "Right knee"])
            #expect(added.status == 0, "the server holds the vault open with its new key: \(added.err)")
            server.stop()
            let alone = try CairnRun(["--data-dir", vault, "skin", "areas"])
            #expect(alone.status == 1 && alone.err.contains("This vault is locked"), "the lock is on: \(alone.err)")
        }
    }

    @Test func aStaleSocketOfAKilledServerIsReplacedAndMeanwhileCommandsRunOnTheirOwn() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let vault = scratch.file("vault").path
        let killed = try ServeProcess(vault: vault)
        kill(killed.process.processIdentifier, SIGKILL)
        killed.process.waitUntilExit()
        #expect(access(scratch.file("vault/serve.sock").path, F_OK) == 0, "a killed server leaves its socket")
        let alone = try CairnRun(["--data-dir", vault, "skin", "add-area", "Left forearm"])
        #expect(alone.status == 0, "nobody answers the stale socket: the command runs on its own: \(alone.err)")

        let server = try ServeProcess(vault: vault)
        defer { server.stop() }
        let through = try CairnRun(["--data-dir", vault, "skin", "add-area", "Right knee"])
        #expect(through.status == 0, "only the new server can have let this change in: \(through.err)")
        #expect(try server.get("/skin").text.contains("Right knee"))
    }

    @Test func relativeFileArgumentsAreTakenFromTheClientsDirectoryNotTheServers() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let vault = scratch.file("vault").path
        let work = scratch.file("work")
        try FileManager.default.createDirectory(at: work.appendingPathComponent("photos"), withIntermediateDirectories: true)
        try ImagePipeline().encodeJPEG(RGBImage(width: 320, height: 240, red: 180, green: 140, blue: 120))
            .write(to: work.appendingPathComponent("photos/arm.jpg"))
        let server = try ServeProcess(vault: vault, directory: URL(fileURLWithPath: "/"))
        defer { server.stop() }
        #expect(try CairnRun(["--data-dir", vault, "skin", "add-area", "Left forearm"]).status == 0)

        let logged = try CairnRun(["--data-dir", vault, "skin", "log", "Left forearm", "photos/arm.jpg"], directory: work)
        #expect(logged.status == 0, "\(logged.err)")
        let exported = try CairnRun(["--data-dir", vault, "regimen", "export", "--format", "csv", "--out", "log.csv"], directory: work)
        #expect(exported.status == 0, "\(exported.err)")
        #expect(FileManager.default.fileExists(atPath: work.appendingPathComponent("log.csv").path))
        #expect(!FileManager.default.fileExists(atPath: "/log.csv"))
        #expect(try CairnRun(["--data-dir", vault, "skin", "areas"]).out.contains("(1 photo)"))
    }

    @Test func deletingAllDataFromTheCommandLineWhileServingEmptiesTheServedVaultAtOnce() throws {
        try withServedVault { vault, server, scratch in
            #expect(try CairnRun(["--data-dir", vault, "skin", "add-area", "Left forearm"]).status == 0)
            #expect(try server.get("/skin").text.contains("Left forearm"))

            let deleted = try CairnRun(["--data-dir", vault, "settings", "delete-all-data", "--yes"])
            #expect(deleted.status == 0 && deleted.out.contains("All data in the vault was removed."), "\(deleted.err)")
            #expect(!(try server.get("/skin").text.contains("Left forearm")), "the server shows the empty vault at once")
            for suffix in ["", "-wal"] {
                let bytes = (try? Data(contentsOf: scratch.file("vault/cairn.sqlite" + suffix))) ?? Data()
                #expect(bytes.range(of: Data("Left forearm".utf8)) == nil, "nothing readable in cairn.sqlite\(suffix)")
            }
            #expect(try CairnRun(["--data-dir", vault, "skin", "add-area", "Right knee"]).status == 0)
            server.stop()
            #expect(try CairnRun(["--data-dir", vault, "skin", "areas"]).out.contains("Right knee"), "kept in the file a restart opens")
        }
    }

    // MARK: in process: the protocol's edges

    @Test func aPassphraseAskedByACommandInTheServerIsTypedAtTheClient() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let served = try InProcessServer(vault: scratch.file("vault"))
        defer { served.stop() }
        var prompts: [String] = []
        var err: [String] = []
        let console = Console(
            out: { _ in }, err: { err.append($0) },
            secret: {
                prompts.append(err.last ?? "")
                return "a long enough backup passphrase"
            })
        let backup = scratch.file("one.cairnbackup").path
        let code = CairnCommandLine.run(["--data-dir", served.directory, "backup", "create", backup], console: console, environment: [:])
        #expect(code == 0, "\(err)")
        #expect(prompts == ["Backup passphrase: ", "Type it again: "])
        #expect(served.commandsRun == 1, "it ran in the server")
        #expect(FileManager.default.fileExists(atPath: backup))
    }

    @Test func aCommandOnAnotherClockThanTheServersRunsOnItsOwnAndSaysWhy() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let served = try InProcessServer(vault: scratch.file("vault"))
        defer { served.stop() }
        let zone = TimeZone.current.identifier == "Pacific/Chatham" ? "Asia/Tokyo" : "Pacific/Chatham"
        var err: [String] = []
        let code = CairnCommandLine.run(
            ["--data-dir", served.directory, "skin", "add-area", "Left forearm"],
            console: Console(out: { _ in }, err: { err.append($0) }), environment: ["TZ": zone])
        #expect(code == 1)
        #expect(err.first?.contains("another time zone (TZ) or CAIRN_NOW") == true, "\(err)")
        #expect(err.joined().contains("is using this vault"), "on its own, a change is refused while the server owns the vault")
        #expect(try served.app.skin.areas().isEmpty)
    }

    @Test func aServerThatStopsBeforeTheCommandEndsLeavesTheClientWithAClearErrorAndExit1() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let directory = scratch.file("vault")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let listener = try CommandListener(directory: directory)
        listener.start { connection in
            _ = connection.receive(limit: CommandForwarding.requestLimit)
            connection.send(CommandForwarding.Frame.running.rawValue)
            connection.send(CommandForwarding.Frame.out.rawValue, Data("first line".utf8))
        }  // and the connection closes: the server "died"
        defer { listener.stop() }
        var out: [String] = []
        var err: [String] = []
        let code = CairnCommandLine.run(
            ["--data-dir", directory.path, "skin", "add-area", "Left forearm"],
            console: Console(out: { out.append($0) }, err: { err.append($0) }), environment: [:])
        #expect(code == 1)
        #expect(out == ["first line"])
        #expect(err.joined().contains("cairn serve stopped before the command finished"))
    }

    @Test func commandsThatDoNotOpenTheVaultOrNameADescriptorNeverGoThrough() throws {
        func command(_ words: [String]) throws -> any Command {
            var entries = CairnCommandLine.commands
            var rest = words
            while case .group(let group)? = entries.first(where: { $0.name == rest.first }) {
                entries = group.children
                rest.removeFirst()
            }
            guard case .command(let type)? = entries.first(where: { $0.name == rest.first }) else { throw UsageError("none") }
            return try type.init(arguments: Arguments(Array(rest.dropFirst()), options: type.options))
        }
        for words in [
            ["serve"], ["remind"], ["doctor"], ["inspect", "a.jpg"], ["backup", "verify", "b"], ["backup", "restore", "b"],
            ["settings", "lock", "on"], ["backup", "create", "b", "--passphrase-fd", "3"],
        ] {
            #expect(try !command(words).goesThroughServer, "\(words)")
        }
        for words in [
            ["skin", "areas"], ["settings", "delete-all-data", "--yes"], ["backup", "create", "b"],
            ["regimen", "today"],
        ] {
            #expect(try command(words).goesThroughServer, "\(words)")
        }
    }
}

/// A fresh vault folder served by `cairn serve` in its own process, for `body`; both go when it returns.
private func withServedVault(_ body: (_ vault: String, _ server: ServeProcess, _ scratch: Scratch) throws -> Void) throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let vault = scratch.file("vault").path
    let server = try ServeProcess(vault: vault)
    defer { server.stop() }
    try body(vault, server, scratch)
}

/// Only a process of the same user may use the socket, at either end.
@Test func theSocketAdmitsOnlyItsOwnUser() {
    #expect(CommandSocket.admits(peer: 1000, own: 1000))
    #expect(!CommandSocket.admits(peer: 1001, own: 1000))
    #expect(!CommandSocket.admits(peer: 0, own: 1000), "not even root")
    #expect(!CommandSocket.admits(peer: 1000, own: 0), "a root server takes no other user's command")
}

/// A `cairn` run to its end in its own process.
private struct CairnRun {
    let status: Int32, out: String, err: String

    init(_ arguments: [String], directory: URL? = nil) throws {
        let process = Process()
        process.executableURL = ServeProcess.executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let err = Capture()
        let reading = DispatchGroup()
        DispatchQueue.global().async(group: reading) {
            err.err = [String(decoding: errPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)]
        }
        let out = outPipe.fileHandleForReading.readDataToEndOfFile()
        reading.wait()
        process.waitUntilExit()
        status = process.terminationStatus
        self.out = String(decoding: out, as: UTF8.self)
        self.err = err.err.joined()
    }
}

/// `cairn serve --port 0` in its own process, logged in through its address.
private final class ServeProcess: @unchecked Sendable {
    static var executable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("cairn")
    }

    let process = Process()
    let port: UInt16
    let key: String
    private var csrf: String?

    init(vault: String, directory: URL? = nil) throws {
        process.executableURL = Self.executable
        process.arguments = ["--data-dir", vault, "serve", "--port", "0"]
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        guard let login = LoopbackHTTP.login(readingFirstLineOf: out) else {
            process.terminate()
            throw UsageError("cairn serve printed no address")
        }
        (port, key) = login  // the socket is listening before the address is printed
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    func send(_ method: String, _ target: String, form: [String: String]? = nil) throws -> RawResponse {
        try LoopbackHTTP.send(method, target, port: port, session: key, form: form)
    }

    func get(_ target: String) throws -> RawResponse { try send("GET", target) }

    /// The CSRF token of the forms on `page`.
    func csrf(on page: String) throws -> String {
        String(try #require(try get(page).text.firstMatch(of: /name="csrf" value="([^"]+)"/)).1)
    }

    /// Types `passphrase` on the unlock page.
    func unlock(_ passphrase: String) throws {
        let token = try csrf(on: "/unlock")
        csrf = token
        #expect(try send("POST", "/unlock", form: ["csrf": token, "passphrase": passphrase]).status == 303)
    }

    /// Presses Lock now.
    func lockNow() throws {
        let token = try #require(csrf)
        #expect(try send("POST", "/lock", form: ["csrf": token]).status == 303)
    }
}

/// A vault opened and served over its socket in this process (no web server): the server side of
/// `CommandForwarding` as `cairn serve` wires it.
final class InProcessServer: @unchecked Sendable {
    let app: CairnApplication
    let listener: CommandListener
    private let served = ServedApplication()
    private let counter = NSLock()
    private var count = 0
    var directory: String { app.vault.directory.path }
    var commandsRun: Int { counter.withLock { count } }

    init(vault: URL) throws {
        app = try CairnApplication.open(dataDirectory: vault.path, environment: [:])
        try app.claimVaultForServing()
        served.open(app)
        listener = try CommandListener(directory: app.vault.directory)
        let identity = CommandContext(
            console: Console(out: { _ in }, err: { _ in }), environment: [:], dataDirectory: nil,
            vaultPassphrase: try PassphraseInput(path: nil, descriptor: nil), readsOnly: true
        ).clockIdentity
        listener.start { [served, self] connection in
            self.counter.withLock { self.count += 1 }
            CommandForwarding.answer(connection, served: served, environment: [:], clock: identity)
        }
    }

    func stop() {
        listener.stop()
        served.close()
        app.releaseVault()
    }
}
