/* tpJson_ExactNumbers (tp/json_text.h): JSON trees whose numbers print to the same bits. */
#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "tp/json_text.h"
#include "tp/plan.h"

bool tpJson_ExactNumbers(cJSON *root)
{
    if (!root) {
        return true;
    }
    if (cJSON_IsNumber(root)) {
        if (!isfinite(root->valuedouble)) {
            return true;
        }
        char buf[48];
        const int n = tpPlan_FormatDouble(root->valuedouble, buf);
        char *text = cJSON_malloc((size_t)n + 1);
        if (!text) {
            return false;
        }
        memcpy(text, buf, (size_t)n + 1);
        /* in place, keeping the member's name: cJSON_Delete frees valuestring with the same hooks */
        root->type = cJSON_Raw | (root->type & cJSON_StringIsConst);
        root->valuestring = text;
        return true;
    }
    bool ok = true;
    for (cJSON *c = root->child; c; c = c->next) {
        ok = tpJson_ExactNumbers(c) && ok;
    }
    return ok;
}
