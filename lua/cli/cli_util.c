/* Helpers shared by the tplan subcommands. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "tp/base.h"

bool tpCli_AddParam(tpCliParams *params, char *arg)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        tpLog(TP_LOG_ERROR, "--set expects name=value (got '%s')", arg);
        return false;
    }
    if (params->n >= TP_MAX_PARAMS) {
        tpLog(TP_LOG_ERROR, "too many --set options (at most %d)", TP_MAX_PARAMS);
        return false;
    }
    *eq = '\0';
    for (int i = 0; i < params->n; ++i) {
        if (strcmp(params->items[i].name, arg) == 0) {
            tpLog(TP_LOG_ERROR, "--set %s given twice", arg);
            return false;
        }
    }
    params->items[params->n].name = arg;
    params->items[params->n].value = eq + 1;
    params->n++;
    return true;
}

const char *tpCli_DomainsDir(void)
{
    const char *env = getenv("TPLAN_DOMAINS");
    return (env && *env) ? env : TP_SOURCE_DOMAINS;
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool tpCli_ResolveDomain(const char *arg, char *out, size_t cap)
{
    if (is_file(arg)) {
        tpStrCopy(out, cap, arg);
        return true;
    }
    if (!strchr(arg, '/')) {
        size_t n = strlen(arg);
        bool has_ext = n > 4 && strcmp(arg + n - 4, ".lua") == 0;
        int w = snprintf(out, cap, "%s/%s%s", tpCli_DomainsDir(), arg, has_ext ? "" : ".lua");
        if (w > 0 && (size_t)w < cap && is_file(out)) {
            return true;
        }
    }
    return false;
}

bool tpCli_ParseInt(const char *opt, const char *s, long long min, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s ? s : "", &end, 10);
    if (!s || !*s || *end || errno || v < min) {
        tpLog(TP_LOG_ERROR, "%s expects an integer >= %lld (got '%s')", opt, min, s ? s : "");
        return false;
    }
    *out = v;
    return true;
}

bool tpCli_ParseDouble(const char *opt, const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s ? s : "", &end);
    if (!s || !*s || *end || errno || !isfinite(v)) {
        tpLog(TP_LOG_ERROR, "%s expects a number (got '%s')", opt, s ? s : "");
        return false;
    }
    *out = v;
    return true;
}
