/* tplan service: the job store's operations, one table per backend (store_sqlite.c, the embedded
 * default; store_pg.c, PostgreSQL shared by a cluster of nodes). The svcStore_* functions of
 * service_internal.h dispatch through svc->store (store.c). Every operation is called with svc->mu
 * held, except open and close. */
#ifndef TP_SERVICE_STORE_H
#define TP_SERVICE_STORE_H

#include "service_internal.h"

/* The cluster's operations of a store shared by several nodes (PostgreSQL); the svcCluster_*
 * functions of service_internal.h (store.c) dispatch to them, so the scheduler, the handlers and the
 * metrics never call a backend directly. */
typedef struct svcClusterOps {
    svcJob *(*claim)(tpService *svc, bool batch, int max_parallel);
    void (*progress)(tpService *svc, svcJob *job);
    bool (*finish)(tpService *svc, svcJob *job);
    double (*tick)(tpService *svc);
    bool (*request_end)(tpService *svc, int64_t id, char what, const char *code, const char *message);
    bool (*drop_queued)(tpService *svc, int64_t id);
    bool (*count_queued)(tpService *svc, const char *client, int *total, int *mine);
    bool (*fetch_file)(tpService *svc, int64_t id, const char *name);
    bool (*start_listener)(tpService *svc, char *err, size_t errlen);
    void (*stop_listener)(tpService *svc);
    bool (*ping)(tpService *svc);
    char *(*metrics_text)(tpService *svc);
    char *(*cluster_json)(tpService *svc);
} svcClusterOps;

typedef struct svcStoreOps {
    const char *name; /* "sqlite", "postgresql" */
    bool (*open)(tpService *svc, char *err, size_t errlen);
    void (*close)(tpService *svc);
    bool (*insert)(tpService *svc, svcJob *job, const char *idem_key, const char *idem_hash);
    bool (*update)(tpService *svc, const svcJob *job);
    bool (*handback)(tpService *svc, const svcJob *job, const char *interim, const char *file); /* svcStore_Handback */
    svcJob *(*get)(tpService *svc, int64_t id, bool with_script);
    svcJob *(*get_run)(tpService *svc, int64_t id); /* the whole request and the script */
    int64_t (*find_idem)(tpService *svc, const char *key, char *hash, size_t hashcap);
    int64_t *(*list)(tpService *svc, const svcListFilter *f, int *n);
    bool (*load_script)(tpService *svc, svcJob *job);
    bool (*del)(tpService *svc, int64_t id);
    bool (*delete_many)(tpService *svc, const int64_t *ids, int n);
    void (*compact)(tpService *svc); /* NULL: the backend needs none (PostgreSQL's autovacuum) */
    int64_t *(*expired)(tpService *svc, double now, int *n);
    int64_t *(*all_ids)(tpService *svc, int *n);
    void (*counts)(tpService *svc, int64_t counts[SVC_NSTATUS]);
    svcJob **(*recover)(tpService *svc, int *n);
    const svcClusterOps *cluster; /* NULL: a store of one node (SQLite) */
} svcStoreOps;

/* store_pg_schema.c: the PostgreSQL schema's version and its migrations */
#define SVC_PG_SCHEMA_VERSION 5
struct pg_conn;
/// Creates or upgrades the schema on connection c under an advisory lock (nodes starting together
/// migrate once); refuses a database of another application and a schema newer than this tplan's.
/// False with the reason in err.
bool svcPgSchema_Migrate(tpService *svc, struct pg_conn *c, char *err, size_t errlen);

extern const svcStoreOps svcStoreSqlite;
extern const svcStoreOps svcStorePg; /* built when TP_HAVE_POSTGRESQL (store_pg.c) */

#endif
