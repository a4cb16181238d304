#include <sqlite3.h>

/* sqlite3_config is variadic, which Swift cannot call. Turns off SQLite's memory statistics, which take a
   global mutex on every allocation SQLite makes (Cairn never reads them). Only works before SQLite is first
   initialised: see `SQLiteLibrary` in Storage. */
static inline int cairn_sqlite_config_no_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
