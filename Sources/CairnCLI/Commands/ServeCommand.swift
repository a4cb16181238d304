import CairnApp
import CairnCore
import Dispatch
import Foundation
import WebApp

/// `cairn serve`: the local web app, on 127.0.0.1 only, until Ctrl+C.
struct ServeCommand: Command {
    static let name = "serve"
    static let abstract = "Start the local web app on this computer (127.0.0.1 only) and print its address."
    static let usage = "[--port N] [--host 127.0.0.1]"
    static let discussion = """
    Options:
      --port N     The port to listen on (default \(WebConfiguration.defaultPort); 0 picks a free one).
      --host HOST  127.0.0.1 or localhost. Cairn never listens on any other address.

    The printed address carries a secret for this launch: open it in a browser on this computer.
    Stop with Ctrl+C.
    """
    static let valueOptions: Set<String> = ["--port", "--host"]

    let port: UInt16
    let host: String

    init(arguments: Arguments) throws {
        _ = try arguments.positionals(exactly: [])
        port = UInt16(try arguments.integer("--port", in: 0...65535, default: Int(WebConfiguration.defaultPort)))
        host = arguments.value("--host") ?? "127.0.0.1"
        guard WebConfiguration.isAcceptedHost(host) else {
            throw UsageError("Cairn only serves to this computer: --host must be 127.0.0.1 or localhost.")
        }
    }

    func run(in context: CommandContext) throws {
        let application = try context.openApplication()
        // Without Tesseract the label page says so; the rest of the app works.
        let services = WebServices(application, labelScanner: try? LabelScanService.makeDefault())
        let server = try WebServer(configuration: WebConfiguration(host: host, port: port), services: services)
        try server.start()
        context.console.print(server.startupLine)
        context.console.print("Open that address in a browser on this computer. Press Ctrl+C to stop.")
        waitForTerminationSignal()
        server.stop()
        context.console.print("Cairn stopped.")
    }
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
