// The shared kernel's time types (`LocalDay`, `Timestamp`) live in CairnCore; whoever imports Regimen sees them as before.
@_exported import CairnCore
