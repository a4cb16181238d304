import CairnApp
import CairnCore
import Dispatch
import Foundation
import Notifications
import Regimen

/// `cairn remind`: the reminder loop, or its systemd user service.
struct RemindCommand: Command {
    static let name = "remind"
    static let notesMissingLock = false
    static let abstract = "Show dose reminders as desktop notifications, with Taken, Skip and Snooze."
    static let usage = "[--once] | --install | --uninstall"
    static let discussion = """
        Runs until stopped (Ctrl+C), checking every 30 seconds. 'cairn serve' runs the same reminders, so
        you need this only to get reminders without the app open. A dose logged anywhere (page, CLI or a
        notification) is not reminded again. The text is discreet unless product names are turned on
        ('cairn regimen reminders set --names on'). On a locked vault it needs no passphrase: it reminds from
        the timetable, without names, and what is pressed is logged at the next unlock.
        """
    static let once = Option("--once", help: "Check once, show what is due, and exit.")
    static let install = Option("--install", help: "Write a systemd user service that runs 'cairn remind' at login.")
    static let uninstall = Option("--uninstall", help: "Remove that service.")
    static let options: [Option] = [once, install, uninstall]

    /// The unit's file name.
    static let unitName = "cairn-remind.service"

    /// It never runs inside `cairn serve` (CommandForwarding): its loop and notifications belong to this session.
    var goesThroughServer: Bool { false }

    enum Mode { case loop, once, install, uninstall }
    let mode: Mode

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        let chosen = [
            (arguments.has(Self.once), Mode.once), (arguments.has(Self.install), .install),
            (arguments.has(Self.uninstall), .uninstall),
        ].filter(\.0)
        guard chosen.count <= 1 else { throw UsageError("Give one of --once, --install and --uninstall.") }
        mode = chosen.first?.1 ?? .loop
    }

    /// The systemd user unit that runs `executable remind` on `dataDirectory` in the graphical session.
    static func unitText(executable: String, dataDirectory: String) -> String {
        """
        [Unit]
        Description=Cairn dose reminders
        PartOf=graphical-session.target
        After=graphical-session.target

        [Service]
        ExecStart=\(systemdQuoted(executable)) --data-dir \(systemdQuoted(dataDirectory)) remind
        Restart=on-failure
        RestartSec=30

        [Install]
        WantedBy=graphical-session.target

        """
    }

    /// A word for ExecStart: quoted, with backslashes, quotes, `%` and `$` escaped as systemd reads them.
    static func systemdQuoted(_ text: String) -> String {
        "\""
            + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "%", with: "%%").replacingOccurrences(of: "$", with: "$$") + "\""
    }

    /// `$XDG_CONFIG_HOME/systemd/user/cairn-remind.service` (else under `~/.config`).
    static func unitPath(_ environment: [String: String]) -> String {
        let config =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return config + "/systemd/user/" + unitName
    }

    func run(in context: CommandContext) throws {
        let console = context.console
        switch mode {
        case .install:
            let application = try context.openApplication()
            let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.resolvingSymlinksInPath().path
            let path = Self.unitPath(context.environment)
            do {
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(Self.unitText(executable: executable, dataDirectory: application.vault.directory.path).utf8)
                    .write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw RemindError.cannotWriteUnit
            }
            console.print("Wrote the reminder service to \(path).")
            console.print("Start it now and at every login with: systemctl --user daemon-reload && systemctl --user enable --now \(Self.unitName)")
        case .uninstall:
            let path = Self.unitPath(context.environment)
            guard FileManager.default.fileExists(atPath: path) else {
                console.print("No reminder service is installed. Nothing was changed.")
                return
            }
            do { try FileManager.default.removeItem(atPath: path) } catch { throw RemindError.cannotWriteUnit }
            console.print("Removed \(path).")
            console.print("If it was running, stop it with: systemctl --user disable --now \(Self.unitName)")
        case .once, .loop:
            // A locked vault without a passphrase file reminds from the timetable alone (docs/REMINDERS.md): no
            // passphrase is asked for, and what it shows and what is pressed wait in the queue for the next unlock.
            let vault = try VaultFolder(dataDirectory: context.dataDirectory, environment: context.environment)
            let fromTimetable = try vault.lockIsOn && !context.vaultPassphrase.isGiven
            let application = fromTimetable ? nil : try context.openApplication()
            let notifier: DesktopNotifier
            do { notifier = try DesktopNotifier(environment: context.environment) } catch { throw RemindError.noNotificationService }
            // Between checks the loop lets go of its writer's hold on the vault, so `cairn serve` can start while this
            // runs (a reminder service installed at login runs all the time); while a server runs, it reminds.
            let reminders = application?.reminders
            let loop = ReminderLoop(
                current: { reminders }, locked: vault.lockedReminders(clock: context.clock),
                notifier: notifier, report: { console.error($0) },
                afterEachCheck: { application?.releaseWriterHold() })
            if fromTimetable { console.print("The vault is locked: reminders come from its timetable, without names, until it is unlocked.") }
            if mode == .once {
                let posted = loop.tick()
                console.print(posted.isEmpty ? "Nothing to remind of now." : "Showed \(posted.count) reminder\(posted.count == 1 ? "" : "s").")
                return
            }
            let termination = TerminationSignal()
            console.print("Reminders are on. Leave this running; press Ctrl+C to stop.")
            loop.run(shouldStop: { termination.hasArrived })
            console.print("Reminders stopped.")
        }
    }
}

/// Why `cairn remind` could not do its work.
enum RemindError: CairnError {
    case noNotificationService
    case cannotWriteUnit

    var userMessage: String {
        switch self {
        case .noNotificationService:
            "No desktop notification service answered (no session bus). Reminders need a desktop session."
        case .cannotWriteUnit:
            "The reminder service file could not be written or removed. Check that you can write to ~/.config/systemd/user."
        }
    }
}

/// A flag raised once, read from another thread (a loop asked to stop).
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var set = false

    var isSet: Bool { lock.withLock { set } }

    func raise() { lock.withLock { set = true } }
}

extension RemindError {
    var errorKind: ErrorKind { self == .noNotificationService ? .unavailable : .failure }
}
