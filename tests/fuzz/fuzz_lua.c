/* Fuzz target: loading a Lua domain script from memory (tpCreateScript with `source`: the tp
 * module, the scene, tactics, conditions and the domain checks, under the sandbox and its memory
 * and time limits). Every input must load or be refused with a one-line message; nothing may
 * crash, and the limits must stop runaway scripts before libFuzzer's own -timeout and
 * -rss_limit_mb do (a script that hits them is a finding). */
#include <string.h>

#include "fuzz_util.h"
#include "tp/base.h"
#include "tp/lua.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool quiet;
    if (!quiet) {
        tpLog_SetLevel(TP_LOG_QUIET);
        quiet = true;
    }
    tpScriptDef def = tpDefaultScriptDef();
    def.path = "fuzz.lua";
    def.source = (const char *)data;
    def.source_len = size;
    def.memory_limit = (size_t)256 << 20; /* well under run.sh's -rss_limit_mb */
    def.load_time_limit = 2.0;            /* well under run.sh's -timeout */
    def.call_time_limit = 2.0;
    char err[2048] = "";
    tpScript *s = tpCreateScript(&def, err, sizeof err);
    if (!s) {
        if (!err[0] || strchr(err, '\n')) {
            tpFuzz_Fail("a script was refused without a one-line message: \"%s\"", err);
        }
        return 0;
    }
    tpDestroyScript(s);
    return 0;
}
