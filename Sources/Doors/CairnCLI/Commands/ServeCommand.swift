import CairnApp
import CairnCore
import Dispatch
import Encryption
import Foundation
import Notifications
import PhoneLink
import WebApp

/// `cairn serve`: the local web app, on 127.0.0.1 only, until Ctrl+C.
struct ServeCommand: Command {
    static let name = "serve"
    static let notesMissingLock = false
    static let abstract = "Start the local web app on this computer (127.0.0.1 only) and print its address."
    static let discussion = """
        The printed address carries a secret for this launch: open it in a browser on this computer.
        A vault with a lock opens on a page that asks for its passphrase (or give --vault-passphrase-file FILE
        before 'serve' to unlock it at start); it locks again on Lock now, after the idle time set in Settings,
        and when the server stops. The Lock section of Settings turns the lock on or off and changes the
        passphrase while it runs. While it has the vault unlocked, other cairn commands run inside it,
        through serve.sock in the vault folder (a unix socket only you can use). Stop with Ctrl+C.
        --phone (or Settings > Use your phone) opens a phone session: for --phone-minutes, Cairn also listens
        over TLS, with a certificate it makes for this vault, on one private address of this computer (by
        default the default route's, if it is private), for phones on that network only. It prints the
        phone's address, and a QR code to pair with when its output is a terminal; a phone joins only after
        you allow it on the computer. The session ends on End, when the time is up, when the vault locks and
        when the server stops; then nothing listens there. Never forward the phone port from a router.
        """

    static let port = Option("--port", "N", help: "The port to listen on (default \(WebConfiguration.defaultPort); 0 picks a free one).")
    static let host = Option(
        "--host", "HOST", help: "127.0.0.1 or localhost. The web app never listens on any other address (phones: --phone).")
    static let open = Option("--open", help: "Also open the address in your default browser (what the desktop entry does).")
    static let phone = Option("--phone", help: "Open a phone session at start (once the vault is unlocked).")
    static let phoneAddress = Option(
        "--phone-address", "ADDR",
        help:
            "The phone session's address: a private (192.168.x.x, 10.x.x.x, 172.16-31.x.x, fc00::/7),\ncarrier-grade NAT (100.64-127.x.x, e.g. Tailscale) or loopback address of this computer;\na public one is refused. Default: the default route's, if private."
    )
    static let phonePort = Option("--phone-port", "N", help: "The phone session's port (default \(PhoneOptions.defaultPort); 0 picks a free one).")
    static let phoneMinutes = Option(
        "--phone-minutes", "N", help: "How long a phone session stays open, 1 to 60 (default \(PhoneOptions.defaultMinutes)); renewable.")
    static let options: [Option] = [port, host, open, phone, phoneAddress, phonePort, phoneMinutes]

    /// It never runs inside `cairn serve` (CommandForwarding): it is the server.
    var goesThroughServer: Bool { false }

    let port: UInt16
    let host: String
    let opensBrowser: Bool
    let phoneOptions: PhoneOptions
    let opensPhoneSession: Bool

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        opensPhoneSession = arguments.has(Self.phone)
        let phoneAddress = arguments.value(Self.phoneAddress)
        if let phoneAddress {
            // The address rules in one place (PhoneNetwork): a public or malformed address is a usage error at once.
            guard let address = IPAddress(phoneAddress) else { throw UsageError(PhoneLinkError.notAnAddress(phoneAddress).userMessage) }
            guard address.mayServePhone else { throw UsageError(PhoneLinkError.notPrivate(address.description).userMessage) }
        }
        phoneOptions = PhoneOptions(
            address: phoneAddress,
            port: UInt16(try arguments.integer(Self.phonePort, in: 0...65535, default: Int(PhoneOptions.defaultPort))),
            minutes: try arguments.integer(Self.phoneMinutes, in: PhoneOptions.minuteRange, default: PhoneOptions.defaultMinutes))
        port = UInt16(try arguments.integer(Self.port, in: 0...65535, default: Int(WebConfiguration.defaultPort)))
        host = arguments.value(Self.host) ?? "127.0.0.1"
        opensBrowser = arguments.has(Self.open)
        guard WebConfiguration.isAcceptedHost(host) else {
            throw UsageError("Cairn only serves to this computer: --host must be 127.0.0.1 or localhost.")
        }
    }

    func run(in context: CommandContext) throws {
        // Nothing slow stands before the first answer: housekeeping (the orphan sweep, re-comparisons) runs on a
        // background thread once the vault is open, Tesseract and the catalogue load on their own threads (a scan
        // waits for them; without Tesseract it says so), and dlib's model loads on the first Smile photo.
        let vault = try VaultFolder(dataDirectory: context.dataDirectory, environment: context.environment)
        let clock = context.clock
        let labelScanner = LabelScanService.startDefault()
        // While it runs, only this process changes the vault; other commands refuse to (and say why). While the
        // vault is locked the claim is held by `placeholder`; the opened vault takes it over.
        let placeholder = try vault.servingHold()
        // What CLI commands sent over the vault's socket run against: the open application, nil while locked.
        let served = ServedApplication()
        // Set once the reminder loop knows whether a notification service answers; the pages read it.
        let reminderStatus = ReminderStatus(.off)
        let open: @Sendable (Passphrase?) throws -> OpenedVault = { passphrase in
            placeholder.release()
            do {
                let application = try vault.open(clock: clock, housekeeping: .none, passphrase: passphrase.map { given in { given } })
                do { try application.claimVaultForServing() } catch {
                    application.database.close()
                    throw error
                }
                application.insights.recomputesInBackground = true
                // What was imported or logged since the last run (from the CLI too) is caught up at once, in the background.
                _ = try? application.insights.recomputeInBackgroundIfNeeded()
                Thread.detachNewThread { application.tidyUp() }
                served.open(application)
                return OpenedVault(services: WebServices(application, labelScanner: labelScanner, reminderStatus: reminderStatus)) {
                    application.releaseVault()
                    application.database.close()
                    try? placeholder.claim()
                }
            } catch {
                try? placeholder.claim()
                throw error
            }
        }
        // A locked vault opens on the unlock page; `--vault-passphrase-file` or `-fd` unlocks it at once. Settings may
        // turn the lock on or off while this runs (`VaultGate.changeLock`), reopening the vault through `open`.
        try placeholder.claim()
        let gate = try VaultGate(
            lockIsOn: vault.lockIsOn,
            passphrase: context.vaultPassphrase.isGiven ? context.askVaultPassphrase : nil,
            opening: open, clock: clock)
        defer { gate.lock() }  // the vault is locked when the server stops, however it stops
        // Commands sent over the socket stop being let in, and those under way finish, before the vault is locked
        // or its lock changes (the gate tells its followers before it closes or converts anything).
        gate.onChange { opened in if opened == nil { served.close() } }
        var configuration = try WebConfiguration(host: host, port: port)
        configuration.phone = phoneOptions
        let server = try WebServer(configuration: configuration, gate: gate)
        let console = context.console
        server.phone?.onOpen { status in printPhoneSession(status, console: console) }
        // Ctrl+C and SIGTERM are caught before the address is printed: one sent the moment it appears is not lost.
        let termination = TerminationSignal()
        try server.start()
        let commands = startCommandSocket(vault: vault, served: served, context: context)
        context.console.print(server.startupLine)
        context.console.print(
            gate.isLocked
                ? "Open that address in a browser on this computer and type the vault's passphrase there. Press Ctrl+C to stop."
                : "Open that address in a browser on this computer. Press Ctrl+C to stop.")
        if opensBrowser { openInBrowser(server.loginURL, console: context.console) }
        if opensPhoneSession, let phone = server.phone { openPhoneSession(phone, gate: gate, console: context.console) }
        let stopIdleTimer = gate.startIdleTimer()
        let reminders = startReminders(
            gate: gate, vault: vault, clock: clock, environment: context.environment, status: reminderStatus, console: context.console)
        termination.wait()
        reminders?.raise()
        stopIdleTimer()
        server.stop()
        commands?.stop()
        served.close()
        gate.lock()
        placeholder.release()
        context.console.print("Cairn stopped.")
    }
}

/// `--phone`: opens the phone session now, or at the first unlock of a locked vault (its key is needed for the
/// certificate's). A session that cannot open says why and the server runs on.
private func openPhoneSession(_ phone: PhoneSessions, gate: VaultGate, console: Console) {
    @Sendable func open() {
        do { try phone.open() } catch { console.error("No phone session: \((error as? CairnError)?.userMessage ?? "it could not open.")") }
    }
    guard gate.isLocked else { return open() }
    console.print("The phone session opens once the vault is unlocked.")
    let once = StopFlag()
    gate.onChange { opened in
        guard opened != nil, !once.isSet else { return }
        once.raise()
        Thread.detachNewThread { open() }
    }
}

/// What the terminal says when a phone session opens: the phone's address always; the QR code of the pairing address
/// (which carries the single-use secret) only when a person reads the output (a terminal), never into a log.
private func printPhoneSession(_ status: PhoneSessions.Status, console: Console) {
    console.print("Phone: \(status.address)")
    console.print("Certificate SHA-256 fingerprint: \(status.fingerprint)")
    if console.outputIsTerminal, let pairing = status.pairingURL, let code = try? QRCode(encoding: pairing) {
        console.print(code.terminalText())
        console.print("Scan it with your phone, then allow the phone in the browser on this computer (Settings > Use your phone).")
    } else {
        console.print("Pair a phone from Settings > Use your phone in the browser on this computer.")
    }
}

/// Listens on the vault's socket for CLI commands (`CommandForwarding`), while this process owns the vault; nil
/// (and a line saying so) when the socket cannot be made: commands then run on their own, as without a server.
private func startCommandSocket(vault: VaultFolder, served: ServedApplication, context: CommandContext) -> CommandListener? {
    do {
        let listener = try CommandListener(directory: vault.directory)
        let (environment, clock) = (context.environment, context.clockIdentity)
        listener.start { CommandForwarding.answer($0, served: served, environment: environment, clock: clock) }
        return listener
    } catch {
        context.console.error("cairn commands cannot go through this server (\(error)): they run on their own.")
        return nil
    }
}

/// Runs the reminder loop (`cairn remind`) on its own thread, so the person running the app gets reminders with
/// nothing else to start; nil (and a line saying so) without a desktop notification service. While the vault is
/// locked it reminds from the timetable, as `cairn remind` does.
private func startReminders(
    gate: VaultGate, vault: VaultFolder, clock: any Clock, environment: [String: String], status: ReminderStatus,
    console: Console
) -> StopFlag? {
    let stop = StopFlag()
    let started = DispatchSemaphore(value: 0)
    let available = StopFlag()  // raised when the notification service is there
    let thread = Thread {
        // libnotify is used from this thread only (its button presses arrive through GLib's default context).
        guard let notifier = try? DesktopNotifier(environment: environment) else {
            started.signal()
            return
        }
        let service = try? notifier.serverName()
        if service != nil {
            status.set(.on(service: service))
            available.raise()
        }
        started.signal()
        // Without a service that answers, nothing could show: the pages say reminders are off.
        guard service != nil else { return }
        ReminderLoop(
            current: { gate.services?.reminders }, locked: vault.lockedReminders(clock: clock),
            notifier: notifier, report: { console.error($0) }
        ).run(status: status, shouldStop: { stop.isSet })
    }
    thread.name = "cairn-reminders"
    thread.start()
    started.wait()
    console.print(available.isSet ? "Dose reminders are on while this runs." : "Dose reminders are off: no desktop notification service answered.")
    return available.isSet ? stop : nil
}

/// Hands the address to the desktop's default browser (`xdg-open`, a local program; nothing is fetched). Without one,
/// the printed address is still there to open by hand.
private func openInBrowser(_ address: String, console: Console) {
    let opener = Process()
    opener.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    opener.arguments = ["xdg-open", address]
    opener.standardOutput = FileHandle.nullDevice
    opener.standardError = FileHandle.nullDevice
    do { try opener.run() } catch { console.error("No browser could be opened (xdg-open is missing): open the address above by hand.") }
}
