import CNotify
import Foundation
import NativeLoader
import Regimen

/// Why the desktop notification service could not be used.
public enum NotificationError: Error, CustomStringConvertible, Sendable {
    /// `notify_init` failed (no session bus).
    case unavailable
    /// The service refused or could not be reached; GLib's message, which never holds user content.
    case notShown(String)

    public var description: String {
        switch self {
        case .unavailable: "NotificationError.unavailable"
        case .notShown(let message): "NotificationError.notShown(\(message))"
        }
    }
}

/// Freedesktop notifications over D-Bus through libnotify: the only module that imports it. Each notice is
/// shown with its action buttons; a pressed button arrives through GLib's default main context, which
/// `pumpEvents` iterates (so the caller's loop, not a GLib main loop, decides when callbacks run). Use from one
/// thread.
public final class DesktopNotifier: ReminderPosting {
    /// Notifications kept alive so their buttons still report (libnotify drops the callback with the object).
    private var live: [OpaquePointer] = []
    private static let keep = 32

    /// Connects to the session bus's notification service as `appName`. Throws `NotificationError.unavailable`.
    public init(appName: String = "Cairn", environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        // No session bus at all (a server, a CI shell): say so now rather than at the first reminder.
        let runtimeBus = environment["XDG_RUNTIME_DIR"].map { $0 + "/bus" }
        guard environment["DBUS_SESSION_BUS_ADDRESS"] != nil || runtimeBus.map(FileManager.default.fileExists(atPath:)) == true else {
            throw NotificationError.unavailable
        }
        // libnotify is opened on first use (NativeLoader): without it there is no service to reach.
        guard cairn_notify_available() != 0 else { throw NotificationError.unavailable }
        if notify_is_initted() == 0 {
            guard notify_init(appName) != 0 else { throw NotificationError.unavailable }
        }
    }

    /// The name and version of the notification service on the session bus ("gnome-shell 43.9"); throws
    /// `NotificationError.notShown` when none answers.
    public func serverName() throws -> String {
        var name: UnsafeMutablePointer<CChar>?
        var vendor: UnsafeMutablePointer<CChar>?
        var version: UnsafeMutablePointer<CChar>?
        var spec: UnsafeMutablePointer<CChar>?
        guard notify_get_server_info(&name, &vendor, &version, &spec) != 0 else { throw NotificationError.notShown("no service answered") }
        defer { for text in [name, vendor, version, spec] { g_free(UnsafeMutableRawPointer(text)) } }
        return [name, version].compactMap { $0.map { String(cString: $0) } }.joined(separator: " ")
    }

    deinit {
        for n in live { g_object_unref(UnsafeMutableRawPointer(n)) }
    }

    public func post(_ notice: ReminderNotice, onAction: @escaping (ReminderAction) -> Void) throws {
        guard let n = notify_notification_new(notice.title, notice.body, "dialog-information") else {
            throw NotificationError.notShown("notify_notification_new returned nothing")
        }
        let pointer = OpaquePointer(n)
        notify_notification_set_category(n, "x-cairn.reminder")
        notify_notification_set_timeout(n, Int32(NOTIFY_EXPIRES_NEVER))
        for action in notice.actions {
            let box = Unmanaged.passRetained(ActionBox { onAction(action) }).toOpaque()
            notify_notification_add_action(
                n, action.rawValue, action.label,
                { _, _, data in
                    guard let data else { return }
                    Unmanaged<ActionBox>.fromOpaque(data).takeUnretainedValue().run()
                }, box,
                { data in
                    guard let data else { return }
                    Unmanaged<ActionBox>.fromOpaque(data).release()
                })
        }
        var error: UnsafeMutablePointer<GError>?
        guard notify_notification_show(n, &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown"
            if let error { g_error_free(error) }
            g_object_unref(UnsafeMutableRawPointer(pointer))
            throw NotificationError.notShown(message)
        }
        live.append(pointer)
        while live.count > Self.keep { g_object_unref(UnsafeMutableRawPointer(live.removeFirst())) }
    }

    public func pumpEvents() {
        while g_main_context_iteration(nil, 0) != 0 {}
    }
}

/// A Swift closure carried through libnotify's `gpointer`.
private final class ActionBox {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
