/* tplan worlds: many-worlds browsing of a plan's solutions: every world's summary,
 * filtered by a space-time query and ranked (tp/query.h, the evaluator libtplan and the service
 * use too), and --pick K -o OUT: the plan with world K as its selected solution. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tp/base.h"
#include "tp/query.h"

static void worlds_usage(FILE *f)
{
    fprintf(f, "usage: tplan worlds PLAN.json [--where QUERY] [--rank KEYS] [--json] [--pick K -o OUT]\n"
               "\n"
               "Lists the worlds (solutions) of a plan: 0 its selected one, k its alternative k (tplan plan\n"
               "--solutions K), each with its duration, cost, control and end state; filters them by a\n"
               "space-time query and ranks the ones that match.\n"
               "\n"
               "  --where QUERY   clauses joined by 'and', each optionally after 'not':\n"
               "                    BODY inside [x0,x1]x[y0,y1]x[z0,z1] [between T0 T1 | after T | before T | at T]\n"
               "                    BODY always inside BOX [window]     BODY ends inside BOX\n"
               "                    BODY touches BODY [window]          BODY never touches BODY [window]\n"
               "                    ends at rest | BODY ends at rest    FIGURE < | <= | > | >= | = VALUE\n"
               "  --rank KEYS     comma-separated figures, '-' first for largest first: duration, cost, steps,\n"
               "                  impulse, work, control_time, end_speed (default: the file's order)\n"
               "  --json          print the browser's JSON answer ({\"worlds\": [...], \"order\": [...]})\n"
               "  --pick K        with -o: write the plan with world K as its selected solution\n"
               "  -o, --out FILE  where --pick writes\n"
               "  -h, --help      this help\n"
               "\n"
               "exit status: 0 listed (or picked), 2 bad input (a bad query names its clause and field).\n");
}

static int print_table(const tpPlanRecord *rec, const char *text, const char *where, const char *rank)
{
    cJSON *root = cJSON_Parse(text);
    const cJSON *worlds = cJSON_GetObjectItemCaseSensitive(root, "worlds");
    const cJSON *order = cJSON_GetObjectItemCaseSensitive(root, "order");
    if (!cJSON_IsArray(worlds) || !cJSON_IsArray(order)) {
        cJSON_Delete(root);
        tpLog(TP_LOG_ERROR, "internal: the browser's answer does not parse");
        return TP_EXIT_FAILURE;
    }
    printf("%-6s %-5s %7s %10s %12s %12s %12s %9s %7s\n", "world", "match", "steps", "duration", "cost", "impulse",
           "work", "control", "at_rest");
    for (const cJSON *w = worlds->child; w; w = w->next) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(w, "control");
        printf("%-6d %-5s %7d %9.3fs %12.6g %11.4gNs %11.4gJ %8.3fs %7s\n",
               cJSON_GetObjectItemCaseSensitive(w, "world")->valueint,
               cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "match")) ? "yes" : "no",
               cJSON_GetObjectItemCaseSensitive(w, "steps")->valueint,
               cJSON_GetObjectItemCaseSensitive(w, "duration")->valuedouble,
               cJSON_GetObjectItemCaseSensitive(w, "cost")->valuedouble,
               cJSON_GetObjectItemCaseSensitive(c, "impulse")->valuedouble,
               cJSON_GetObjectItemCaseSensitive(c, "work")->valuedouble,
               cJSON_GetObjectItemCaseSensitive(c, "time")->valuedouble,
               cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "at_rest")) ? "yes" : "no");
    }
    printf("%d of %d worlds match%s%s%s", cJSON_GetArraySize(order), rec->nworlds, where && *where ? " '" : "",
           where && *where ? where : "", where && *where ? "'" : "");
    printf("; %s:", rank && *rank ? "ranked by" : "in file order");
    if (rank && *rank) {
        printf(" %s:", rank);
    }
    for (const cJSON *k = order->child; k; k = k->next) {
        printf(" %d", k->valueint);
    }
    printf("\n");
    cJSON_Delete(root);
    return TP_EXIT_OK;
}

/* Makes world k (file order) the selected one and writes rec to out. The overlays belong to the
 * selected world (they are not recorded for the others), so a picked alternative has none. */
static int pick(tpPlanRecord *rec, long long k, const char *out, const char *q)
{
    if (k >= rec->nworlds) {
        tpLog(TP_LOG_ERROR, "%s: --pick %lld: the plan has worlds 0..%d", q, k, rec->nworlds - 1);
        return TP_EXIT_BAD_INPUT;
    }
    int *order = malloc((size_t)rec->nworlds * sizeof *order);
    if (!order) {
        return TP_EXIT_FAILURE;
    }
    tpQuery_FileOrder(rec, order);
    int w = order[k];
    free(order);
    tpQuery_Select(rec, w);
    char err[1024] = "";
    if (!tpPlanRecord_Write(rec, out, err, sizeof err)) {
        tpLog(TP_LOG_ERROR, "%s", err);
        return TP_EXIT_FAILURE;
    }
    return TP_EXIT_OK;
}

int tpCmd_Worlds(int argc, char **argv)
{
    enum { OPT_WHERE = TP_OPT_FIRST_FREE, OPT_RANK, OPT_JSON, OPT_PICK };
    static const struct option longopts[] = {
        {"where", required_argument, NULL, OPT_WHERE},
        {"rank", required_argument, NULL, OPT_RANK},
        {"json", no_argument, NULL, OPT_JSON},
        {"pick", required_argument, NULL, OPT_PICK},
        {"out", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    tpCliArgs args = {.argc = argc, .argv = argv, .cmd = "worlds", .shortopts = "ho:", .longopts = longopts};
    const char *plan_path = NULL, *where = NULL, *rank = NULL, *out = NULL;
    bool json = false;
    long long picked = -1;
    int c;
    char q[512];
    while ((c = tpCli_NextOption(&args)) != -1) {
        switch (c) {
        case 'h':
            worlds_usage(stdout);
            return TP_EXIT_OK;
        case 'o':
            out = args.value;
            break;
        case OPT_WHERE:
            where = args.value;
            break;
        case OPT_RANK:
            rank = args.value;
            break;
        case OPT_JSON:
            json = true;
            break;
        case OPT_PICK:
            if (!tpCli_ParseInt("--pick", args.value, 0, 1000000000, &picked)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        case 1:
            if (!tpCli_OneArgument(args.value, &plan_path)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        default:
            return TP_EXIT_BAD_INPUT;
        }
    }
    if (!plan_path) {
        worlds_usage(stderr);
        return TP_EXIT_BAD_INPUT;
    }
    if ((picked >= 0) != (out != NULL)) {
        tpLog(TP_LOG_ERROR, picked >= 0 ? "--pick K needs -o OUT" : "-o OUT is for --pick K");
        return TP_EXIT_BAD_INPUT;
    }
    char err[2048] = "";
    tpPlanRecord rec;
    memset(&rec, 0, sizeof rec);
    if (!tpPlanRecord_Read(&rec, plan_path, err, sizeof err)) {
        tpLog(TP_LOG_ERROR, "%s", err);
        return TP_EXIT_BAD_INPUT;
    }
    tpCli_Escape(plan_path, q, sizeof q);
    char *text = NULL;
    size_t len = 0;
    int code;
    if (!tpQuery_Browse(&rec, where, rank, &text, &len, err, sizeof err)) {
        tpLog(TP_LOG_ERROR, "%s: %s", where && strncmp(err, "query", 5) == 0 ? "--where" : rank ? "--rank" : q, err);
        code = TP_EXIT_BAD_INPUT;
    } else if (picked >= 0) {
        code = pick(&rec, picked, out, q);
    } else if (json) {
        fwrite(text, 1, len, stdout);
        code = TP_EXIT_OK;
    } else {
        code = print_table(&rec, text, where, rank);
    }
    free(text);
    tpPlanRecord_Free(&rec);
    return code;
}
