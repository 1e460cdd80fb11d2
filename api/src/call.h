/* One call of the embedding API as the host sees it (api/src/call.c): for its length the calling
 * thread reads and writes numbers in the C locale, and the library's messages and the script's
 * print() go to the run definition's output callback, never to the host's stdio. */
#ifndef TP_API_CALL_H
#define TP_API_CALL_H

#include <locale.h>

#include "tp/base.h"
#include "tp/lua.h"
#include "tplan/tplan.h"

typedef struct tpCall {
    locale_t host_locale;   /* the thread's locale before the call (uselocale), put back at the end */
    bool switched;          /* the C locale was installed (false: no locale object, nothing changed) */
    tplan_output_fn output; /* the host's callback (NULL: output dropped) */
    void *output_user;
    struct tpCall *outer; /* the call this one runs inside (a callback calling the library), or NULL */
    tpLogSink prev_sink;  /* the thread's log sink before the call (the outer call's, or the program's
                             own: the service worker names its job in every message), put back */
    void *prev_sink_user;
} tpCall;

/// Starts a call on this thread: the C locale, messages to output (NULL: dropped). Calls nest.
void tpCall_Begin(tpCall *c, tplan_output_fn output, void *output_user);
/// Ends it: the host's locale and the thread's message routing before the call come back.
void tpCall_End(tpCall *c);
/// Around a callback into the host (progress): its own locale while it runs.
void tpCall_ToHost(tpCall *c);
void tpCall_FromHost(tpCall *c);
/// A script definition's print_fn (user ignored): the current call's output, as TPLAN_OUTPUT_PRINT.
void tpCall_Print(void *user, const char *text, size_t len);
/// Sets sd's print to the current call's output.
void tpCall_RoutePrint(tpScriptDef *sd);

#endif
