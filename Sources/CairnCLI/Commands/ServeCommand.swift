import CairnApp
import CairnCore
import Dispatch
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
    static let options: [Option] = [port, host]

    let port: UInt16
    let host: String

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        port = UInt16(try arguments.integer(Self.port, in: 0...65535, default: Int(WebConfiguration.defaultPort)))
        host = arguments.value(Self.host) ?? "127.0.0.1"
        guard WebConfiguration.isAcceptedHost(host) else {
            throw UsageError("Cairn only serves to this computer: --host must be 127.0.0.1 or localhost.")
        }
    }

    func run(in context: CommandContext) throws {
        let application = try context.openApplication()
        // While it runs, only this process changes the vault; other commands refuse to (and say why).
        try application.claimVaultForServing()
        defer { application.releaseVault() }
        // Without Tesseract the label page says so; the rest of the app works.
        let services = WebServices(application, labelScanner: try? LabelScanService.makeDefault())
        application.insights.recomputesInBackground = true
        let server = try WebServer(configuration: WebConfiguration(host: host, port: port), services: services)
        try server.start()
        context.console.print(server.startupLine)
        context.console.print("Open that address in a browser on this computer. Press Ctrl+C to stop.")
        let reminders = startReminders(application, environment: context.environment, console: context.console)
        waitForTerminationSignal()
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
        ReminderLoop(reminders: reminders, notifier: notifier) { console.error($0) }.run(shouldStop: { stop.isSet })
    }
    thread.name = "cairn-reminders"
    thread.start()
    started.wait()
    console.print(available.isSet ? "Dose reminders are on while this runs." : "Dose reminders are off: no desktop notification service answered.")
    return available.isSet ? stop : nil
}

/// Blocks until SIGINT or SIGTERM arrives.
private func waitForTerminationSignal() {
    let stop = DispatchSemaphore(value: 0)
    var sources: [DispatchSourceSignal] = []
    for signalNumber in [SIGINT, SIGTERM] {
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
        source.setEventHandler { stop.signal() }
        source.resume()
        sources.append(source)
    }
    stop.wait()
    sources.forEach { $0.cancel() }
}
