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

/// Loads and runs the script at `path`, builds its domain. On any error (syntax, runtime,
/// unknown field, bad value, unknown param name given with --set) returns NULL and writes
/// "file:line: message" into err.
tpScript *tpLoadScript(const char *path, const tpScriptParam *params, int nparams, char *err, size_t errlen);
/// Frees the Lua state and the domain. NULL is allowed.
void tpDestroyScript(tpScript *script);
/// The domain built by the script (owned by the script).
tpDomain *tpScript_Domain(tpScript *script);
/// The script's file bytes hash, "fnv1a64:<16 hex>".
const char *tpScript_Hash(const tpScript *script);
/// The `--set` overrides actually used, as JSON object text ("{}" if none). Owned by the script.
const char *tpScript_ParamsJson(const tpScript *script);

#ifdef __cplusplus
}
#endif
#endif
