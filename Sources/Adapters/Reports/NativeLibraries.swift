internal import CPangoCairo
import CairnCore
import NativeLoader

/// pango and cairo as `cairn doctor` reports them (PDF reports).
public enum ReportLibraries {
    public static func statuses() -> [ComponentStatus] {
        let present = cairn_pangocairo_available() != 0
        return [
            ComponentStatus(
                name: "cairo + pango", role: "PDF reports", present: present,
                version: present ? "\(String(cString: cairo_version_string())) + \(String(cString: pango_version_string()))" : nil)
        ]
    }
}
