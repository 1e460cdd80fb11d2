/* The embedding API's shared pieces (api.h), under tplan.c, state.c and search.c: a call's output
 * callback and its success, the script definition of a domain and its fresh load, the code of a
 * plan file that does not fit. They call nothing of the API's own entry points. */
#include <stddef.h>
#include <string.h>

#include "api.h"
#include "call.h"
#include "tp/base.h"
#include "tp/run.h"

/* def's output callback when it has one (NULL for no def, or a def too old to have the field). */
tplan_output_fn tpApi_DefOutput(const tplan_run_def *def, void **user)
{
    const size_t need = offsetof(tplan_run_def, output_user) + sizeof def->output_user;
    const bool has = def && def->size >= need && def->size <= sizeof *def && def->output;
    *user = has ? def->output_user : NULL;
    return has ? def->output : NULL;
}

void tpApi_SetOk(tplan_error *err)
{
    if (err) {
        err->code = TPLAN_OK;
        err->field[0] = err->message[0] = '\0';
    }
}

tpScriptDef tpApi_ScriptDef(const tplan_domain *d, const tplan_run_def *limits)
{
    tpScriptDef sd = tpRun_ScriptDef(limits, d->path, d->source, d->source_len, d->params, d->nparams);
    tpCall_RoutePrint(&sd);
    return sd;
}

/* Loads d's script fresh into *out (a replay and every plan start from the script's own state). */
tplan_code tpApi_DomainLoad(const tplan_domain *d, tpScript **out, tplan_error *err)
{
    tpScriptDef sdef = tpApi_ScriptDef(d, &d->limits);
    char msg[sizeof err->message];
    *out = tpCreateScript(&sdef, msg, sizeof msg);
    if (!*out) {
        tplan_code code = tpRun_ScriptCode(msg);
        tpRun_Fail(err, code, NULL, "%s", msg);
        return code;
    }
    return TPLAN_OK;
}

tplan_code tpApi_MisfitCode(const char *msg)
{
    return strstr(msg, "out of memory") ? TPLAN_ERR_NOMEM : TPLAN_ERR_PLAN_FILE;
}
