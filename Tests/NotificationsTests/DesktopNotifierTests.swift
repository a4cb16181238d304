import CairnApp
import CairnCore
import Foundation
import Notifications
import Regimen
import Storage
import Testing

/// A private D-Bus session bus (dbus-daemon --session) with python3-dbusmock's notification_daemon template on
/// it, started once per test process (libnotify keeps its connection for the life of the process). Nil when
/// either cannot start; the suite is then skipped with that reason.
final class MockNotificationBus: @unchecked Sendable {
    static let shared: MockNotificationBus? = try? MockNotificationBus()

    let address: String
    let log: URL
    private let daemon: Process
    private let mock: Process

    private init() throws {
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--nopidfile", "--print-address=1"]
        let out = Pipe()
        daemon.standardOutput = out
        // Neither process may hold the test runner's output open, or it waits for them after the tests end.
        daemon.standardError = FileHandle.nullDevice
        daemon.standardInput = FileHandle.nullDevice
        try daemon.run()
        busProcesses.append(daemon.processIdentifier)
        atexit { for pid in busProcesses { kill(pid, SIGTERM) } }
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                daemon.terminate()
                throw CocoaError(.fileReadUnknown)
            }
            line.append(chunk)
        }
        address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        log = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-dbusmock-\(UUID().uuidString).log")
        let mock = Process()
        mock.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        mock.arguments = [
            "-m", "dbusmock", "--template", "notification_daemon", "-p", #"{"capabilities": "body actions"}"#,
            "-l", log.path,
        ]
        mock.environment = ["DBUS_SESSION_BUS_ADDRESS": address, "PATH": "/usr/bin:/bin"]
        mock.standardOutput = FileHandle.nullDevice
        mock.standardError = FileHandle.nullDevice
        mock.standardInput = FileHandle.nullDevice
        try mock.run()
        busProcesses.append(mock.processIdentifier)
        self.daemon = daemon
        self.mock = mock
        // Wait until the mock owns org.freedesktop.Notifications.
        for _ in 0..<100 {
            if (try? Self.gdbus(address, ["--method", "org.freedesktop.Notifications.GetServerInformation"])) != nil {
                setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)
                return
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        mock.terminate()
        daemon.terminate()
        throw CocoaError(.fileReadUnknown)
    }

    /// Every Notify call the mock received, as logged.
    func notifyCalls() -> [String] {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter { $0.contains(" Notify ") }
    }

    /// Makes the mock report that the person pressed `action` on notification `id`.
    func invoke(_ action: String, onNotification id: Int) throws {
        _ = try Self.gdbus(
            address,
            [
                "--method", "org.freedesktop.DBus.Mock.EmitSignal", "org.freedesktop.Notifications",
                "ActionInvoked", "us", "[<uint32 \(id)>, <'\(action)'>]",
            ])
    }

    private static func gdbus(_ address: String, _ arguments: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/gdbus")
        p.arguments =
            [
                "call", "--address", address, "--dest", "org.freedesktop.Notifications",
                "--object-path", "/org/freedesktop/Notifications",
            ] + arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw CocoaError(.fileReadUnknown) }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The bus's processes, ended when the test process exits.
nonisolated(unsafe) private var busProcesses: [pid_t] = []

/// A clock the test sets.
final class SetClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var instant: Date
    let timeZone: TimeZone
    init(_ text: String, zone: String) {
        instant = ISO8601DateFormatter().date(from: text)!
        timeZone = TimeZone(identifier: zone)!
    }
    func now() -> Date { lock.withLock { instant } }
}

/// A vault with one product taken daily at 08:00, and the reminder loop over the mock bus.
private struct Setup {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cairn-notify-\(UUID().uuidString)")
    let app: CairnApplication
    let loop: ReminderLoop
    let notifier: DesktopNotifier

    init(bus: MockNotificationBus, now: String = "2026-06-10T06:00:30Z") throws {
        app = try CairnApplication.open(dataDirectory: directory.path, environment: [:], clock: SetClock(now, zone: "Europe/Berlin"))
        let typed = try Product(
            name: "Vitamin D3", form: .capsule, servingSize: try Amount(1, .count),
            ingredients: [try ProductIngredient(catalogueID: nil, nameOnLabel: "Vitamin D3", amount: try Amount(25, .mcg))])
        let product = try app.regimen.addProduct(typed, decisions: .acceptingEveryRow(of: typed))
        try app.regimen.addSchedule(
            try SchedulePlan(
                productID: product.product.id, times: [TimeSlot(parsing: "08:00")!],
                recurrence: .daily, startDay: LocalDay(parsing: "2026-06-10")!))
        notifier = try DesktopNotifier(environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        loop = ReminderLoop(reminders: app.reminders, notifier: notifier)
    }

    func records() throws -> [LedgerEntry] { try app.regimen.ledger(LedgerQuery(limit: 100)).entries }

    /// Pumps button presses until `done` or five seconds pass.
    func pump(until done: () throws -> Bool) rethrows {
        for _ in 0..<100 {
            notifier.pumpEvents()
            if try done() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

@Suite(
    .serialized,
    .enabled(
        if: MockNotificationBus.shared != nil,
        "skipped: dbus-daemon or python3-dbusmock could not start a session bus (scripts/install-deps.sh --with-test-tools)"))
struct DesktopNotifierTests {
    let bus = MockNotificationBus.shared!

    @Test func aDueDoseIsSentWithDiscreetTextAndTakenSkipSnooze() throws {
        let setup = try Setup(bus: bus)
        defer { setup.remove() }
        let before = bus.notifyCalls().count
        #expect(setup.loop.tick().count == 1)
        let calls = bus.notifyCalls()
        #expect(calls.count == before + 1)
        let call = try #require(calls.last)
        #expect(call.contains("A dose is due at 08:00."))
        #expect(!call.contains("Vitamin"), "discreet by default")
        #expect(call.contains("\"taken\"") && call.contains("\"Taken\"") && call.contains("\"Skip\"") && call.contains("\"Snooze\""))
        #expect(setup.loop.tick().isEmpty, "once")
    }

    @Test func takenOnTheNotificationLogsTheDoseOnceEvenAfterThePage() throws {
        let setup = try Setup(bus: bus)
        defer { setup.remove() }
        setup.loop.tick()
        let id = bus.notifyCalls().count  // the mock numbers notifications 1, 2, 3, ...
        try bus.invoke("taken", onNotification: id)
        try setup.pump { try setup.records().count == 1 }
        let records = try setup.records()
        #expect(records.count == 1 && records.first?.status == .taken && records.first?.kind == .scheduled)
        // A second "Taken" (the page first, then the notification) keeps one record.
        try bus.invoke("taken", onNotification: id)
        setup.pump { false }
        #expect(try setup.records().count == 1)
    }

    @Test func aDoseLoggedOnThePageIsNeverReminded() throws {
        let setup = try Setup(bus: bus)
        defer { setup.remove() }
        let dose = try #require(try setup.app.regimen.todayView().doses.first)
        try setup.app.regimen.checkIn(dose.doseID, status: .taken)
        let before = bus.notifyCalls().count
        #expect(setup.loop.tick().isEmpty)
        #expect(bus.notifyCalls().count == before)
    }

    @Test func quietHoursHoldTheReminderBack() throws {
        let setup = try Setup(bus: bus)
        defer { setup.remove() }
        try setup.app.reminders.setPreferences(try ReminderPreferences(quietStart: TimeSlot(parsing: "07:30"), quietEnd: TimeSlot(parsing: "09:00")))
        let before = bus.notifyCalls().count
        #expect(setup.loop.tick().isEmpty)
        #expect(bus.notifyCalls().count == before, "nothing reached the notification service")
    }

    @Test func snoozeRemindsAgainLater() throws {
        let setup = try Setup(bus: bus)
        defer { setup.remove() }
        setup.loop.tick()
        try bus.invoke("snooze", onNotification: bus.notifyCalls().count)
        try setup.pump {
            try setup.app.database.read { try $0.scalar("SELECT count(*) FROM reminder_deliveries WHERE kind = 'snooze'", as: Int.self) } == 1
        }
        #expect(try setup.records().isEmpty, "a snooze logs nothing")
    }
}
