// libpq, PostgreSQL's client library. Debian puts the header in /usr/include/postgresql, which
// pkg-config (libpq.pc) adds to the search path; without pkg-config the prefixed path finds it.
#if __has_include(<postgresql/libpq-fe.h>)
#include <postgresql/libpq-fe.h>
#else
#include <libpq-fe.h>
#endif
