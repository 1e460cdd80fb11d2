/* tplan command-line program: shared helpers of the subcommands. */
#ifndef TP_CLI_H
#define TP_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "tp/lua.h"

#define TP_MAX_PARAMS 64

/// Parsed `--set name=value` options (pointers into argv).
typedef struct tpCliParams {
    int n;
    tpScriptParam items[TP_MAX_PARAMS];
} tpCliParams;

/// Parses "name=value" into params; false with a message on a malformed or excess option.
bool tpCli_AddParam(tpCliParams *params, char *arg);
/// Resolves a domain argument: an existing path is used as is; a bare name ("minigolf") is looked
/// up as <domains dir>/<name>.lua. Writes into out; false if nothing exists.
bool tpCli_ResolveDomain(const char *arg, char *out, size_t cap);
/// The built-in domains directory ($TPLAN_DOMAINS, else the source tree's domains/).
const char *tpCli_DomainsDir(void);
/// Parses a non-negative integer / a finite double option value; false with a message naming opt.
bool tpCli_ParseInt(const char *opt, const char *s, long long min, long long *out);
bool tpCli_ParseDouble(const char *opt, const char *s, double *out);

int tpCmd_Plan(int argc, char **argv);
int tpCmd_Replay(int argc, char **argv);
int tpCmd_Domains(int argc, char **argv);

#endif
