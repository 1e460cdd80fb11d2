/* Fuzz target: the plan reader (tpPlanRecord_Parse). Every input must be refused with a message
 * naming the file, or accepted; an accepted record must be written by tpPlanRecord_Write, read
 * back, and written again to the same bytes (the writer and reader apply the same rules). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "tp/base.h"
#include "tp/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool quiet;
    if (!quiet) {
        tpLog_SetLevel(TP_LOG_QUIET);
        quiet = true;
    }
    char err[1024] = "";
    tpPlanRecord rec;
    if (!tpPlanRecord_Parse(&rec, (const char *)data, size, "fuzz.json", err, sizeof err)) {
        if (strncmp(err, "fuzz.json: ", 11) != 0 || strlen(err) < 13) {
            tpFuzz_Fail("refusal without a proper message: \"%s\"", err);
        }
        return 0;
    }
    const char *a = tpFuzz_Path("a.json"), *b = tpFuzz_Path("b.json");
    char pa[1024];
    snprintf(pa, sizeof pa, "%s", a);
    if (!tpPlanRecord_Write(&rec, pa, err, sizeof err)) {
        tpFuzz_Fail("the reader accepted a record the writer refuses: %s", err);
    }
    tpPlanRecord back;
    if (!tpPlanRecord_Read(&back, pa, err, sizeof err)) {
        tpFuzz_Fail("the reader refuses what the writer wrote: %s", err);
    }
    if (!tpPlanRecord_Write(&back, b, err, sizeof err)) {
        tpFuzz_Fail("second write refused: %s", err);
    }
    size_t la, lb;
    char *fa = tpFuzz_ReadFile(pa, &la), *fb = tpFuzz_ReadFile(b, &lb);
    /* stats.timing closes the file and is written the same way: the whole files must agree. */
    if (la != lb || memcmp(fa, fb, la) != 0) {
        tpFuzz_Fail("a plan written, read and written again changed (%zu -> %zu bytes)", la, lb);
    }
    free(fa);
    free(fb);
    tpPlanRecord_Free(&back);
    tpPlanRecord_Free(&rec);
    return 0;
}
