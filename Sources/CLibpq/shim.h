#ifndef WORLDCUP_CLIBPQ_SHIM_H
#define WORLDCUP_CLIBPQ_SHIM_H

// libpq, PostgreSQL's reference client library (the one psql uses).
#include <libpq-fe.h>

#endif
