#ifndef WORLDCUP_CLIBPQ_H
#define WORLDCUP_CLIBPQ_H

// libpq, PostgreSQL's reference client library (the one psql uses), loaded when a program
// first connects rather than when it starts: linking it pulls some twenty libraries (TLS,
// Kerberos, LDAP) into every start of every command, PostgreSQL or not. The declarations are
// libpq's own; loader.c defines the functions this package calls, each forwarding to libpq.
#include <postgresql/libpq-fe.h>

/// Loads libpq (libpq.so.5) once; NULL when it is loaded, else why it could not be.
const char *clibpq_load(void);

#endif
