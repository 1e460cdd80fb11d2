/* Fuzz target: loading a Lua domain script (tpLoadScript: the tp module, the scene, tactics,
 * conditions and the domain checks). The input is the script text, written to a scratch file.
 * Every input must load or be refused with a message; nothing may crash. */
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
    char path[1024], err[2048] = "";
    strcpy(path, tpFuzz_Path("domain.lua"));
    tpFuzz_WriteFile(path, data, size);
    tpScript *s = tpLoadScript(path, NULL, 0, err, sizeof err);
    if (!s) {
        if (!err[0]) {
            tpFuzz_Fail("a script was refused without a message");
        }
        return 0;
    }
    tpDestroyScript(s);
    return 0;
}
