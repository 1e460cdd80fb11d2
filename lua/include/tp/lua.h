/* tplan lua: domain scripts. The only module that includes lua.h.
 *
 * A domain is one Lua 5.4 script that builds the scene, the tactics, the goal and validity
 * conditions, the sampling space and the metrics, and returns `tp.domain { ... }`
 * (docs/lua-api.md). Loading it yields a tpDomain whose host callbacks (dynamic Π rows,
 * Lua conditions and metrics, custom skills) call back into the script's lua_State, so the
 * tpScript must outlive every planner run on its domain. */
#ifndef TP_LUA_H
#define TP_LUA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tp/tactics.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A `--set name=value` override, visible to the script as tp.param("name", default).
typedef struct tpScriptParam {
    const char *name;
    const char *value; /* converted to a number by tp.param when the default is a number */
} tpScriptParam;

typedef struct tpScript tpScript;

/// A file a script read, named relative to the script's folder: the script itself, a module
/// (`require "walls"`: "lib/walls.lua"), a track ("tracks/final.json") or an image.
typedef struct tpScriptFile {
    const char *path;          /* relative to the script's folder, '/' between names */
    const unsigned char *data; /* len bytes */
    size_t len;
} tpScriptFile;

#define TP_SCRIPT_DEFAULT_MEMORY ((size_t)2 << 30) /* bytes: 2 GiB */
#define TP_SCRIPT_DEFAULT_LOAD_TIME 10.0           /* s */
#define TP_SCRIPT_DEFAULT_CALL_TIME 10.0           /* s */

/// How to load a domain script. Get defaults from tpDefaultScriptDef(); tpCreateScript copies
/// what it needs and keeps no pointer into the definition.
typedef struct tpScriptDef {
    const char *path;   /* the script file; with `source`, only its name in messages ("job.lua") */
    const char *source; /* NULL: read `path`. Else the script text (source_len bytes): the script
                           has no folder, so it can require only "tp" and name no data files */
    size_t source_len;
    const char *name;          /* how messages name the script read from `path` (its chunk name; modules
                                  and data files are named relative to its folder): "maze.lua" for a
                                  built-in domain, so messages show no install path. NULL: `path` */
    const tpScriptFile *files; /* a script and the files it read, recorded in a plan (replay):
                                  files[0] is the script and `path` its name; require, tracks and
                                  images read these (by path) and never the disk. NULL: the disk */
    int nfiles;
    const tpScriptParam *params; /* --set overrides (nparams entries; may be NULL if 0) */
    int nparams;
    size_t memory_limit;    /* bytes the Lua state may hold; 0 = TP_SCRIPT_DEFAULT_MEMORY */
    double load_time_limit; /* s of wall time for the script's top level (and the modules it
                               requires); 0 = TP_SCRIPT_DEFAULT_LOAD_TIME */
    double call_time_limit; /* s of wall time for one Lua callback while planning (a condition, a
                               metric, a custom skill...); 0 = TP_SCRIPT_DEFAULT_CALL_TIME */
    FILE *print_to;         /* where the script's print() writes (not owned; must outlive the
                               script); NULL = stderr. `tplan worker`: the job's own log */
    /* When not NULL, print()'s bytes go here instead of print_to: one call per print() with its
       whole line (values tab-separated, the '\n' included; text is not NUL-terminated), from the
       thread running the script. libtplan: the host's output callback */
    void (*print_fn)(void *user, const char *text, size_t len);
    void *print_user;
    /* Called (when not NULL) each time the script's time limit is armed — `deadline` is the
       tpClock_Now() time at which it trips, `armed` the time it was armed — and with deadline 0
       when it is disarmed. The limit is checked by Lua code and by our bounded library functions;
       a host that must end whatever happens (tplan's hard deadline) can stop a script still
       running well past `deadline` inside some C call nobody checks. Called from the thread
       running the script; it must be cheap (once per callback while planning). */
    void (*on_deadline)(void *user, double armed, double deadline);
    void *on_deadline_user;
} tpScriptDef;

/// Defaults: no path, no source, no params, the TP_SCRIPT_DEFAULT_* limits.
tpScriptDef tpDefaultScriptDef(void);
/// Loads and runs the script, builds its domain. On any error (syntax, runtime, unknown field,
/// bad value, unknown param name given with --set, a limit exceeded) returns NULL and writes
/// "file:line: message" into err (one line).
tpScript *tpCreateScript(const tpScriptDef *def, char *err, size_t errlen);
/// tpCreateScript of the file at path with the default limits.
tpScript *tpLoadScript(const char *path, const tpScriptParam *params, int nparams, char *err, size_t errlen);
/// The run's time limit as an absolute tpClock_Now() time (0 = none): a Lua callback still
/// running then raises "file:line: time limit exceeded (WHAT)", where `what` (copied) names the
/// limit in the run's field words (api/src/run.c: "time_limit S s, plus 1 s of grace").
void tpScript_SetDeadline(tpScript *script, double deadline, const char *what);
/// Frees the Lua state and the domain. NULL is allowed.
void tpDestroyScript(tpScript *script);
/// The domain built by the script (owned by the script).
tpDomain *tpScript_Domain(tpScript *script);
/// The script's file bytes hash, "fnv1a64:<16 hex>".
const char *tpScript_Hash(const tpScript *script);
/// The name messages give the script (tpScriptDef.name, else its path). Owned by the script.
const char *tpScript_Name(const tpScript *script);
/// The files the script read so far: the script itself first (named by its file name), then every
/// module, track and image, in the order first read, each once. Owned by the script (valid until
/// it is destroyed; the array may move when the script reads more); *n = the count.
const tpScriptFile *tpScript_Files(const tpScript *script, int *n);
/// The `--set` overrides actually used, as JSON object text ("{}" if none). Owned by the script.
const char *tpScript_ParamsJson(const tpScript *script);
/// The parameters the script declared with tp.param, in the order it read them, as a JSON array of
/// {"name", "type" ("number" | "string" | "boolean"), "default"[, "min", "max", "integer"]} (min, max
/// and integer only with a declared range; an infinite bound is left out). "[]" if none. Owned by
/// the script. A parameter read only on some branch of the script is listed only when read.
const char *tpScript_ParamsInfoJson(const tpScript *script);

#ifdef __cplusplus
}
#endif
#endif
