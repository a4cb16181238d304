import CairnCore
import NativeLoader

/// libxml2 and libarchive as `cairn doctor` reports them (the health imports).
public enum HealthExportLibraries {
    public static func statuses() -> [ComponentStatus] {
        [
            ComponentStatus(name: "libxml2", role: "reading Apple Health exports", present: cairn_libxml2_available() != 0),
            ComponentStatus(name: "libarchive", role: "reading zipped health exports", present: cairn_libarchive_available() != 0),
        ]
    }
}
