/* tplan api: the run definition's encoding (tplan_run_def of tplan/tplan.h): its defaults,
 * ranges, checks and JSON reader and writer, in their own small library (tp_rundef: api/src/
 * run_fields.c, on core and cJSON; no Lua, no ODE) that the api and the service both link. In-project
 * interface; not installed. */
#ifndef TP_RUN_DEF_H
#define TP_RUN_DEF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tplan/tplan.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

/* Ranges of the run definition's fields (tplan_run_def_check; the command line names them too). */
#define TP_RUN_SEED_MAX 4294967295LL
#define TP_RUN_MAX_SOLUTIONS 1000000
#define TP_RUN_MAX_JOBS 256
#define TP_RUN_MIN_MEMORY_MB 16
#define TP_RUN_MAX_MEMORY_MB (1LL << 30)
#define TP_RUN_MAX_SCRIPT_TIME 1e6 /* s: load_time_limit, call_time_limit */

/// def (NULL: the defaults) checked (tplan_run_def_check) and copied into full, this library's
/// whole struct: the fields an older caller's smaller struct lacks stay at their defaults. False
/// with err set (TPLAN_ERR_ARGUMENT naming the field).
bool tpRun_FullDef(const tplan_run_def *def, tplan_run_def *full, tplan_error *err);
/// Reads one member of a JSON object (item->string is its name) into def: 1 taken, 0 not a
/// field of the run definition (the caller's own, or unknown), -1 a bad value (err names the
/// field). For readers of larger objects (the service's requests) that hold run fields among
/// their own.
int tpRun_ReadJsonField(tplan_run_def *def, const struct cJSON *item, tplan_error *err);
/// The run's fields that differ from the defaults, added to the JSON object o (false when out
/// of memory).
bool tpRun_WriteJsonFields(const tplan_run_def *def, struct cJSON *o);
/// Sets err (may be NULL) to code with a printf-style message (one line) and field (may be NULL).
void tpRun_Fail(tplan_error *err, tplan_code code, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/// tplan_run_def_check, tplan_run_def_from_json and tplan_run_def_to_json without the API's call
/// frame (call.h: the C locale for the call): the caller is inside one, or a program in the C locale.
tplan_code tpRun_CheckDef(const tplan_run_def *def, tplan_error *err);
tplan_code tpRun_DefFromJson(tplan_run_def *def, const char *json, size_t len, tplan_error *err);
char *tpRun_DefToJson(const tplan_run_def *def);

#ifdef __cplusplus
}
#endif

#endif
