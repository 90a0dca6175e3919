// SQLCipher's own sqlite3.h (not the system SQLite's), with the codec API declared.
#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>
