import CairnCore
import Foundation
import NativeLoader

/// libnotify and the desktop's notification service as `cairn doctor` reports them: reminders need both.
public enum NotificationLibraries {
    public static func statuses(environment: [String: String] = ProcessInfo.processInfo.environment) -> [ComponentStatus] {
        let library = cairn_notify_available() != 0
        var statuses = [ComponentStatus(name: "libnotify", role: "dose reminders as desktop notifications", present: library)]
        let service = try? DesktopNotifier(environment: environment).serverName()
        statuses.append(
            ComponentStatus(
                name: "Notification service", role: "shows the reminders", present: service != nil, version: service,
                note: service == nil ? "No desktop notification service answered: reminders cannot show. Today's page still lists what is due." : nil)
        )
        return statuses
    }
}
