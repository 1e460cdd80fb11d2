/* tplan domains: list the built-in domain scripts with their one-line descriptions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tp/base.h"

int tpCmd_Domains(int argc, char **argv)
{
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    tpCliArgs args = {.argc = argc, .argv = argv, .cmd = "domains", .shortopts = "h", .longopts = longopts};
    int c;
    while ((c = tpCli_NextOption(&args)) != -1) {
        if (c == 'h') {
            printf("usage: tplan domains\n\nLists the built-in domains with their descriptions: the *.lua scripts in\n"
                   "$TPLAN_DOMAINS if set, else in PREFIX/share/tplan/domains of an installed tplan, else in\n"
                   "the source tree's domains/. Plan one with 'tplan plan NAME'.\n");
            return TP_EXIT_OK;
        }
        if (c == 1) {
            char q[512];
            tpLog(TP_LOG_ERROR, "unexpected argument '%s'", tpCli_Escape(args.value, q, sizeof q));
        }
        return TP_EXIT_BAD_INPUT;
    }
    const char *dir = tpCli_DomainsDir();
    char *names[256];
    int n = tpCli_DomainFiles(dir, names, 256);
    if (n < 0) {
        return TP_EXIT_FAILURE;
    }
    int code = TP_EXIT_OK;
    int width = 12; /* the longest name, so descriptions line up */
    for (int i = 0; i < n; ++i) {
        int len = (int)strlen(names[i]);
        width = len > width ? len : width;
    }
    for (int i = 0; i < n; ++i) {
        char path[4096], err[1024];
        snprintf(path, sizeof path, "%s/%s.lua", dir, names[i]);
        tpScript *s = tpLoadScript(path, NULL, 0, err, sizeof err);
        if (s) {
            printf("  %-*s %s\n", width, names[i], tpDomain_Def(tpScript_Domain(s))->description);
            tpDestroyScript(s);
        } else {
            printf("  %-*s (fails to load: %s)\n", width, names[i], err);
            code = TP_EXIT_FAILURE;
        }
        free(names[i]);
    }
    return code;
}
