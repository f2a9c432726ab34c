#include <sqlite3.h>

// sqlite3_config is variadic, which Swift cannot call: one fixed-argument call per option used.

/// Turns off SQLite's memory statistics (SQLITE_CONFIG_MEMSTATUS): with them on, every
/// allocation and free of every connection takes one process-wide mutex. Must run before the
/// first connection opens (it fails harmlessly, SQLITE_MISUSE, after).
static inline int autotrack_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// Leaves the write-ahead log as it is when this connection, the last, closes
/// (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE): a damaged log is kept for an operator to look at, not
/// checkpointed and deleted. sqlite3_db_config is variadic too.
static inline int autotrack_sqlite3_keep_wal_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
