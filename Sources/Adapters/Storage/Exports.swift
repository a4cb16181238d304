// `Timestamp`, the stored text of instants, lives in CairnCore; whoever imports Storage sees it as before.
@_exported import CairnCore
