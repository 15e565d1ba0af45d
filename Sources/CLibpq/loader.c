#include "clibpq.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

// Every libpq function the package calls. Adding a call to another one means adding it here
// and a forwarding definition below (the compiler checks each against libpq-fe.h).
#define LIBPQ_FUNCTIONS(X) \
    X(PQbackendPID) X(PQclear) X(PQcmdTuples) X(PQconnectPoll) X(PQconnectStartParams) \
    X(PQconnectdbParams) X(PQconninfo) X(PQconninfoFree) X(PQconninfoParse) X(PQconsumeInput) \
    X(PQerrorMessage) X(PQexecParams) X(PQexecPrepared) X(PQfinish) X(PQfname) X(PQfreemem) \
    X(PQgetResult) X(PQgetisnull) X(PQgetlength) X(PQgetvalue) X(PQisBusy) X(PQnfields) X(PQnotifies) X(PQntuples) \
    X(PQprepare) X(PQresultErrorField) X(PQresultStatus) X(PQsendQueryParams) X(PQsendQueryPrepared) \
    X(PQsetNoticeProcessor) X(PQsocket) \
    X(PQstatus) X(PQtransactionStatus)

static struct {
#define FIELD(name) __typeof__(name) *name;
    LIBPQ_FUNCTIONS(FIELD)
#undef FIELD
} libpq;

static pthread_once_t loadOnce = PTHREAD_ONCE_INIT;
static char failure[512];

static void load(void) {
    void *handle = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(failure, sizeof failure, "%s", dlerror());
        return;
    }
#define RESOLVE(name)                                                                  \
    libpq.name = (__typeof__(name) *)dlsym(handle, #name);                             \
    if (libpq.name == NULL) {                                                          \
        snprintf(failure, sizeof failure, "libpq.so.5 has no function %s", #name);     \
        return;                                                                        \
    }
    LIBPQ_FUNCTIONS(RESOLVE)
#undef RESOLVE
}

const char *clibpq_load(void) {
    pthread_once(&loadOnce, load);
    return failure[0] ? failure : NULL;
}

// The Swift side calls clibpq_load() and reports its failure before it first uses libpq; a
// call that comes anyway cannot go on.
static void loaded(void) {
    if (clibpq_load() != NULL) {
        fprintf(stderr, "libpq could not be loaded: %s\n", failure);
        abort();
    }
}

int PQbackendPID(const PGconn *conn) { loaded(); return libpq.PQbackendPID(conn); }
void PQclear(PGresult *res) { loaded(); libpq.PQclear(res); }
char *PQcmdTuples(PGresult *res) { loaded(); return libpq.PQcmdTuples(res); }
PostgresPollingStatusType PQconnectPoll(PGconn *conn) { loaded(); return libpq.PQconnectPoll(conn); }
PGconn *PQconnectStartParams(const char *const *keywords, const char *const *values, int expand_dbname) {
    loaded();
    return libpq.PQconnectStartParams(keywords, values, expand_dbname);
}
PGconn *PQconnectdbParams(const char *const *keywords, const char *const *values, int expand_dbname) {
    loaded();
    return libpq.PQconnectdbParams(keywords, values, expand_dbname);
}
PQconninfoOption *PQconninfo(PGconn *conn) { loaded(); return libpq.PQconninfo(conn); }
void PQconninfoFree(PQconninfoOption *connOptions) { loaded(); libpq.PQconninfoFree(connOptions); }
PQconninfoOption *PQconninfoParse(const char *conninfo, char **errmsg) { loaded(); return libpq.PQconninfoParse(conninfo, errmsg); }
int PQconsumeInput(PGconn *conn) { loaded(); return libpq.PQconsumeInput(conn); }
char *PQerrorMessage(const PGconn *conn) { loaded(); return libpq.PQerrorMessage(conn); }
PGresult *PQexecParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                       const char *const *paramValues, const int *paramLengths, const int *paramFormats,
                       int resultFormat) {
    loaded();
    return libpq.PQexecParams(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat);
}
PGresult *PQexecPrepared(PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues,
                         const int *paramLengths, const int *paramFormats, int resultFormat) {
    loaded();
    return libpq.PQexecPrepared(conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat);
}
void PQfinish(PGconn *conn) { loaded(); libpq.PQfinish(conn); }
char *PQfname(const PGresult *res, int field_num) { loaded(); return libpq.PQfname(res, field_num); }
void PQfreemem(void *ptr) { loaded(); libpq.PQfreemem(ptr); }
PGresult *PQgetResult(PGconn *conn) { loaded(); return libpq.PQgetResult(conn); }
int PQgetisnull(const PGresult *res, int tup_num, int field_num) { loaded(); return libpq.PQgetisnull(res, tup_num, field_num); }
int PQgetlength(const PGresult *res, int tup_num, int field_num) { loaded(); return libpq.PQgetlength(res, tup_num, field_num); }
char *PQgetvalue(const PGresult *res, int tup_num, int field_num) { loaded(); return libpq.PQgetvalue(res, tup_num, field_num); }
int PQisBusy(PGconn *conn) { loaded(); return libpq.PQisBusy(conn); }
int PQnfields(const PGresult *res) { loaded(); return libpq.PQnfields(res); }
PGnotify *PQnotifies(PGconn *conn) { loaded(); return libpq.PQnotifies(conn); }
int PQntuples(const PGresult *res) { loaded(); return libpq.PQntuples(res); }
PGresult *PQprepare(PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes) {
    loaded();
    return libpq.PQprepare(conn, stmtName, query, nParams, paramTypes);
}
char *PQresultErrorField(const PGresult *res, int fieldcode) { loaded(); return libpq.PQresultErrorField(res, fieldcode); }
ExecStatusType PQresultStatus(const PGresult *res) { loaded(); return libpq.PQresultStatus(res); }
int PQsendQueryParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                      const char *const *paramValues, const int *paramLengths, const int *paramFormats,
                      int resultFormat) {
    loaded();
    return libpq.PQsendQueryParams(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats,
                                   resultFormat);
}
int PQsendQueryPrepared(PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues,
                        const int *paramLengths, const int *paramFormats, int resultFormat) {
    loaded();
    return libpq.PQsendQueryPrepared(conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat);
}
PQnoticeProcessor PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg) {
    loaded();
    return libpq.PQsetNoticeProcessor(conn, proc, arg);
}
int PQsocket(const PGconn *conn) { loaded(); return libpq.PQsocket(conn); }
ConnStatusType PQstatus(const PGconn *conn) { loaded(); return libpq.PQstatus(conn); }
PGTransactionStatusType PQtransactionStatus(const PGconn *conn) { loaded(); return libpq.PQtransactionStatus(conn); }
