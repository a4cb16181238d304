import CairnApp
import CairnCore
import Dispatch
import Encryption
import Foundation
import Notifications
import WebApp

/// `cairn serve`: the local web app, on 127.0.0.1 only, until Ctrl+C.
struct ServeCommand: Command {
    static let name = "serve"
    static let abstract = "Start the local web app on this computer (127.0.0.1 only) and print its address."
    static let discussion = """
    The printed address carries a secret for this launch: open it in a browser on this computer.
    Stop with Ctrl+C.
    """

    static let port = Option("--port", "N", help: "The port to listen on (default \(WebConfiguration.defaultPort); 0 picks a free one).")
    static let host = Option("--host", "HOST", help: "127.0.0.1 or localhost. Cairn never listens on any other address.")
    static let open = Option("--open", help: "Also open the address in your default browser (what the desktop entry does).")
    static let options: [Option] = [port, host, open]

    let port: UInt16
    let host: String
    let opensBrowser: Bool

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        port = UInt16(try arguments.integer(Self.port, in: 0...65535, default: Int(WebConfiguration.defaultPort)))
        host = arguments.value(Self.host) ?? "127.0.0.1"
        opensBrowser = arguments.has(Self.open)
        guard WebConfiguration.isAcceptedHost(host) else {
            throw UsageError("Cairn only serves to this computer: --host must be 127.0.0.1 or localhost.")
        }
    }

    func run(in context: CommandContext) throws {
        // Nothing slow stands before the first answer: housekeeping (the orphan sweep, re-comparisons) runs on a
        // background thread once the server listens, Tesseract and the catalogue load on their own threads (a scan
        // waits for them; without Tesseract it says so), and dlib's model loads on the first Smile photo.
        // A locked vault is unlocked at the terminal (or with --vault-passphrase-file): no unlock page yet.
        let application = try CairnApplication.open(dataDirectory: context.dataDirectory, environment: context.environment,
                                                    clock: context.clock, housekeeping: .none,
                                                    passphrase: context.askVaultPassphrase)
        // While it runs, only this process changes the vault; other commands refuse to (and say why).
        try application.claimVaultForServing()
        defer { application.releaseVault() }
        let services = WebServices(application, labelScanner: LabelScanService.startDefault())
        application.insights.recomputesInBackground = true
        let server = try WebServer(configuration: WebConfiguration(host: host, port: port), services: services)
        // Ctrl+C and SIGTERM are caught before the address is printed: one sent the moment it appears is not lost.
        let termination = TerminationSignal()
        try server.start()
        context.console.print(server.startupLine)
        context.console.print("Open that address in a browser on this computer. Press Ctrl+C to stop.")
        if opensBrowser { openInBrowser(server.loginURL, console: context.console) }
        Thread.detachNewThread { application.tidyUp() }
        let reminders = startReminders(application, environment: context.environment, console: context.console)
        termination.wait()
        reminders?.raise()
        server.stop()
        context.console.print("Cairn stopped.")
    }
}

/// Runs the reminder loop (`cairn remind`) on its own thread, so the person running the app gets reminders with
/// nothing else to start; nil (and a line saying so) without a desktop notification service.
private func startReminders(_ application: CairnApplication, environment: [String: String], console: Console) -> StopFlag? {
    let stop = StopFlag()
    let reminders = application.reminders
    let started = DispatchSemaphore(value: 0)
    let available = StopFlag()  // raised when the notification service is there
    let thread = Thread {
        // libnotify is used from this thread only (its button presses arrive through GLib's default context).
        guard let notifier = try? DesktopNotifier(environment: environment) else { started.signal(); return }
        available.raise()
        started.signal()
        ReminderLoop(reminders: reminders, notifier: notifier, report: { console.error($0) }).run(shouldStop: { stop.isSet })
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
