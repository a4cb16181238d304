import Foundation
import Testing

@testable import CairnCLI

@Test func theReminderUnitRunsCairnRemindOnTheVaultInTheGraphicalSession() {
    let text = RemindCommand.unitText(executable: "/home/ana/.local/bin/cairn", dataDirectory: "/home/ana/My 100% data")
    #expect(
        text == """
            [Unit]
            Description=Cairn dose reminders
            PartOf=graphical-session.target
            After=graphical-session.target

            [Service]
            ExecStart="/home/ana/.local/bin/cairn" --data-dir "/home/ana/My 100%% data" remind
            Restart=on-failure
            RestartSec=30

            [Install]
            WantedBy=graphical-session.target

            """)
}

@Test func installWritesTheUnitUnderXDGConfigHomeAndUninstallRemovesIt() throws {
    try withTemporaryDirectory { dir throws in
        let environment = ["XDG_CONFIG_HOME": dir.appendingPathComponent("config").path, "CAIRN_NOW": "2026-03-10T12:00:00Z"]
        let vault = dir.appendingPathComponent("vault").path
        let install = cairn(["--data-dir", vault, "remind", "--install"], environment: environment)
        #expect(install.status == 0, "\(install.stderr)")
        let unit = dir.appendingPathComponent("config/systemd/user/cairn-remind.service")
        let text = try String(contentsOf: unit, encoding: .utf8)
        #expect(text.contains("/vault\" remind") && text.contains("ExecStart=\""))
        #expect(install.stdout.contains("systemctl --user enable --now cairn-remind.service"))
        let uninstall = cairn(["--data-dir", vault, "remind", "--uninstall"], environment: environment)
        #expect(uninstall.status == 0 && !FileManager.default.fileExists(atPath: unit.path))
        #expect(
            cairn(["--data-dir", vault, "remind", "--uninstall"], environment: environment).stdout.hasPrefix("No reminder service is installed."))
        #expect(cairn(["remind", "--install", "--uninstall"], environment: environment).status == 2)
    }
}

@Test func remindWithoutASessionBusSaysWhy() throws {
    try withTemporaryDirectory { dir throws in
        let run = cairn(
            ["--data-dir", dir.appendingPathComponent("vault").path, "remind", "--once"],
            environment: ["CAIRN_NOW": "2026-03-10T12:00:00Z", "XDG_RUNTIME_DIR": dir.path])
        #expect(run.status == 1 && run.stderr.contains("No desktop notification service answered"))
    }
}
