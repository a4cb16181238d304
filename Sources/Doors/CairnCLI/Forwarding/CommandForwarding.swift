import CairnApp
import CairnCore
import Foundation

/// How a `cairn` command runs inside a running `cairn serve` (issue 21 item 5): the client sends the command's
/// words over the vault's socket (`CommandSocket`), the server runs the very same command code in its own process
/// against its open vault with a `Console` whose lines come back over the socket, and the client prints them on
/// its stdout and stderr and exits with the server's exit code. So a script needs no passphrase while the vault
/// is unlocked in the server, and a command that changes data is no longer refused while the server runs.
///
/// Decisions:
/// - **When.** A command goes through when a server answers on the vault's socket with the vault unlocked; the
///   client then never opens the vault itself. A locked server answers "locked", and the command runs on its own as
///   it did before the socket: a locked vault asks for the passphrase (exit 1 without it), and a command that
///   changes data is refused while the server owns the vault. Without a server, or with a stale socket, it runs on
///   its own.
/// - **Never through the server** (`Command.goesThroughServer`): `serve`, `remind` (its own loop, on this desktop
///   session), `doctor` and `inspect` (they do not open the vault), `backup verify` and `backup restore` (they work
///   on a backup file or another folder), `settings lock` (it converts the vault in place and reads passphrases),
///   and a command given a file descriptor (`--passphrase-fd N` names a descriptor of the client's process).
///   `--help` and usage errors are answered by the client before anything is sent.
/// - **Files.** A relative file argument is taken from the client's current directory (sent with the words), by
///   `Arguments.filePath`, which every file argument goes through; the server never changes its own directory.
///   Files are read and written by the server, as the same user.
/// - **Questions.** A question or passphrase asked at a terminal is forwarded: the client shows it and sends back
///   the line typed (without echo for a passphrase). When the client's standard input is not a terminal, the
///   command runs as it would without one (no questions; what needs an answer says so).
/// - **Environment.** Only the clock travels: the time zone (`TZ`, else the client's local zone) and `CAIRN_NOW`.
///   The server's services run on its own clock, so when they differ the server declines and the command runs on
///   its own (the client says why). No other variable is sent.
/// - **Failures.** A server that stops or dies before the command's end leaves the client with a clear error and
///   exit 1 (the command may or may not have been done; nothing is half-written, each change being one
///   transaction). A client that goes away does not stop the command; its questions are then unanswered.
/// - **Sharing.** Commands run on their own threads beside the web requests, on the same services: the database
///   serialises writes (one writer connection behind a lock) and gives reads their own snapshots, as for pages. A
///   relock (Lock now, idle, the server stopping) or a lock change in Settings lets no new command in and waits
///   for those under way before it closes or converts the vault. Commands do not count as activity for the idle
///   lock: it is about the person at the browser.
enum CommandForwarding {
    /// The frames of the protocol. Client to server: `request` (JSON, `Request`), then `answer` / `noAnswer` when
    /// asked. Server to client: first `running`, `locked` or `declined` (a line of text); after `running`, `out` and
    /// `err` lines, `ask` / `askSecret` (the client answers), and last `exit` (the code as text).
    enum Frame: UInt8 {
        case request = 1
        case answer = 2
        case noAnswer = 3
        case running = 16
        case locked = 17
        case declined = 18
        case out = 19
        case err = 20
        case ask = 21
        case askSecret = 22
        case exit = 23
    }

    /// What the client sends first.
    struct Request: Codable {
        /// The command path and its arguments, without the global options (`--data-dir`, the vault passphrase).
        var words: [String]
        /// The client's current directory, for relative file arguments (`Arguments.filePath`).
        var workingDirectory: String
        /// The client's clock (`CommandContext.clockIdentity`).
        var clock: String
        /// Whether a person can answer questions, and type a passphrase, at the client.
        var canAsk: Bool
        var canAskSecret: Bool
    }

    /// The largest request a server reads, and the largest answer to a question.
    static let requestLimit = 1 << 20
    /// The largest frame a client reads (one printed line: a whole ledger export printed at once can be large).
    static let lineLimit = 1 << 30
    /// How long a server waits for a connection's request.
    static let requestTimeoutSeconds = 10

    // MARK: client

    /// Runs the command `words` through the server of the vault folder `directory`; nil when it is to run here (no
    /// server answers, or it is locked or declined: nothing was done). `clock` is the client's clock identity.
    static func run(
        _ words: [String], vaultDirectory directory: URL, workingDirectory: String, clock: String,
        console: Console
    ) -> Int32? {
        guard let connection = CommandSocket.connect(toVaultAt: directory) else { return nil }
        let request = Request(
            words: words, workingDirectory: workingDirectory, clock: clock,
            canAsk: console.canAsk, canAskSecret: console.canAskSecret)
        guard let body = try? JSONEncoder().encode(request), connection.send(Frame.request.rawValue, body),
            let first = connection.receive(limit: requestLimit), let kind = Frame(rawValue: first.kind)
        else { return nil }
        switch kind {
        case .running: break
        case .declined:
            console.error("cairn: " + String(decoding: first.payload, as: UTF8.self))
            return nil
        default: return nil  // locked, or anything else: run here, as without a server
        }
        while let frame = connection.receive(limit: lineLimit) {
            let text = String(decoding: frame.payload, as: UTF8.self)
            switch Frame(rawValue: frame.kind) {
            case .out: console.print(text)  // escaped by the server's Console already: escaping again changes nothing
            case .err: console.error(text)
            case .ask, .askSecret:
                let answer = frame.kind == Frame.ask.rawValue ? console.typedLine() : console.typedSecret()
                if let answer {
                    connection.send(Frame.answer.rawValue, Data(answer.utf8))
                } else {
                    connection.send(Frame.noAnswer.rawValue)
                }
            case .exit: return Int32(text) ?? 1
            default: break
            }
        }
        console.error(
            "cairn: cairn serve stopped before the command finished, so it may or may not have been done. Check, and run it again if needed.")
        return 1
    }

    // MARK: server

    /// Answers one connection of the server whose open vault `served` holds: reads the request, and runs its
    /// command with `environment` (the server's) unless the vault is locked or the clocks differ.
    static func answer(
        _ connection: FramedConnection, served: ServedApplication, environment: [String: String],
        clock: String
    ) {
        connection.setReceiveTimeout(seconds: requestTimeoutSeconds)
        guard let first = connection.receive(limit: requestLimit), first.kind == Frame.request.rawValue,
            let request = try? JSONDecoder().decode(Request.self, from: first.payload)
        else { return }
        connection.setReceiveTimeout(seconds: 0)
        guard request.clock == clock else {
            connection.send(
                Frame.declined.rawValue,
                Data(
                    """
                    cairn serve runs with another time zone (TZ) or CAIRN_NOW than this command, so the command runs \
                    on its own.
                    """.utf8))
            return
        }
        guard let application = served.begin() else {
            connection.send(Frame.locked.rawValue)
            return
        }
        defer { served.end() }
        connection.send(Frame.running.rawValue)
        func asking(_ kind: Frame) -> () -> String? {
            {
                guard connection.send(kind.rawValue), let reply = connection.receive(limit: requestLimit),
                    reply.kind == Frame.answer.rawValue
                else { return nil }
                return String(decoding: reply.payload, as: UTF8.self)
            }
        }
        let console = Console(
            out: { connection.send(Frame.out.rawValue, Data($0.utf8)) },
            err: { connection.send(Frame.err.rawValue, Data($0.utf8)) },
            input: request.canAsk ? asking(.ask) : nil,
            secret: request.canAskSecret ? asking(.askSecret) : nil)
        let code = CairnCommandLine.runInServer(
            request.words, console: console, environment: environment,
            application: application, workingDirectory: request.workingDirectory)
        connection.send(Frame.exit.rawValue, Data(String(code).utf8))
    }
}

/// The application `cairn serve` has open, as the command socket uses it: nil while the vault is locked. Commands
/// under way hold it (`begin` / `end`); `close` waits for them before the vault is closed.
final class ServedApplication: @unchecked Sendable {
    private let condition = NSCondition()
    private var application: CairnApplication?
    private var running = 0

    /// The vault was opened (at start, or at an unlock).
    func open(_ application: CairnApplication) {
        condition.withLock { self.application = application }
    }

    /// The open application for one command, or nil while locked; pair with `end`.
    func begin() -> CairnApplication? {
        condition.withLock {
            guard let application else { return nil }
            running += 1
            return application
        }
    }

    /// A command that `begin` let in is done.
    func end() {
        condition.withLock {
            running -= 1
            condition.broadcast()
        }
    }

    /// Lets no new command in and waits for those under way; then the vault may be closed. Idempotent.
    func close() {
        condition.withLock {
            application = nil
            while running > 0 { condition.wait() }
        }
    }
}
