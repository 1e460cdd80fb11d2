/* Host-safe calls (call.h). A host may have set a locale whose decimal point is a comma
 * (setlocale(LC_ALL, "") in a GTK or Qt program): printf, strtod, Lua's number conversions
 * (lua_getlocaledecpoint reads localeconv) and cJSON all follow the thread's locale, and a plan
 * written there has "0,5" where its reader expects "0.5". uselocale() changes the calling
 * thread's locale only (not the process's, so other host threads are untouched); glibc's
 * localeconv follows it. */
#define _GNU_SOURCE /* uselocale, newlocale (POSIX 2008) */
#include "call.h"

#include <pthread.h>
#include <string.h>

#include "tp/base.h"

static locale_t g_c_locale; /* the C locale object, made once (never freed: it lives for the process) */
static pthread_once_t g_c_once = PTHREAD_ONCE_INIT;
static _Thread_local tpCall *g_current; /* the innermost call of this thread */

static void make_c_locale(void)
{
    g_c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

static void emit(tpCall *c, tplan_output_kind kind, const char *text, size_t len)
{
    if (c && c->output) {
        tpCall_ToHost(c);
        c->output(c->output_user, kind, text, len);
        tpCall_FromHost(c);
    }
}

static void call_sink(void *user, tpLogLevel level, const char *msg)
{
    tpCall *c = user;
    if (level >= TP_LOG_INFO) {
        tplan_output_kind kind = level >= TP_LOG_ERROR  ? TPLAN_OUTPUT_ERROR
                                 : level >= TP_LOG_WARN ? TPLAN_OUTPUT_WARNING
                                                        : TPLAN_OUTPUT_INFO;
        emit(c, kind, msg, strlen(msg));
    }
}

void tpCall_Begin(tpCall *c, tplan_output_fn output, void *output_user)
{
    memset(c, 0, sizeof *c);
    c->output = output;
    c->output_user = output_user;
    c->outer = g_current;
    pthread_once(&g_c_once, make_c_locale);
    if (g_c_locale) {
        c->host_locale = uselocale(g_c_locale);
        c->switched = c->host_locale != (locale_t)0;
    }
    g_current = c;
    tpLog_GetThreadSink(&c->prev_sink, &c->prev_sink_user);
    tpLog_SetThreadSink(call_sink, c);
}

void tpCall_End(tpCall *c)
{
    if (c->switched) {
        uselocale(c->host_locale);
    }
    g_current = c->outer;
    tpLog_SetThreadSink(c->prev_sink, c->prev_sink_user);
}

void tpCall_ToHost(tpCall *c)
{
    if (c->switched) {
        uselocale(c->host_locale);
    }
}

void tpCall_FromHost(tpCall *c)
{
    if (c->switched) {
        uselocale(g_c_locale);
    }
}

void tpCall_Print(void *user, const char *text, size_t len)
{
    (void)user;
    emit(g_current, TPLAN_OUTPUT_PRINT, text, len);
}

void tpCall_RoutePrint(tpScriptDef *sd)
{
    sd->print_fn = tpCall_Print;
    sd->print_user = NULL;
}
