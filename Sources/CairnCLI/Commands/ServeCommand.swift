import CairnApp
import CairnCore
import Dispatch
import Foundation
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
        // Nothing slow stands before the first answer: housekeeping (the orphan sweep, re-comparisons) runs on a
        // background thread once the server listens, Tesseract and the catalogue load on their own threads (a scan
        // waits for them; without Tesseract it says so), and dlib's model loads on the first Smile photo.
        let application = try CairnApplication.open(dataDirectory: context.dataDirectory, environment: context.environment,
                                                    clock: context.clock, housekeeping: .none)
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
        Thread.detachNewThread { application.tidyUp() }
        termination.wait()
        server.stop()
        context.console.print("Cairn stopped.")
    }
}

/// SIGINT and SIGTERM, caught from its creation on; `wait()` blocks until one has arrived.
private final class TerminationSignal {
    private let stop = DispatchSemaphore(value: 0)
    private var sources: [DispatchSourceSignal] = []

    init() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [stop] in stop.signal() }
            source.resume()
            sources.append(source)
        }
    }

    func wait() {
        stop.wait()
        sources.forEach { $0.cancel() }
    }
}
