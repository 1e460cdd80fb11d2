/* tplan export: the definition defaults and the dispatcher to the writers (temporary output files:
 * temp_file.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export_internal.h"
#include "tp/base.h"

tpExportDef tpDefaultExportDef(void)
{
    tpExportDef d;
    memset(&d, 0, sizeof d);
    d.format = TP_EXPORT_GLB;
    d.world = 0;
    d.tolerance = 0;
    d.angle_tolerance = -1;
    return d;
}

bool tpExport_Write(const tpPlanRecord *rec, const char *path, const tpExportDef *def, tpExportStats *stats, char *err,
                    size_t errlen)
{
    tpExportStats local;
    tpExportStats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    if (!rec || !path || !def || rec->nworlds < 1) {
        tpErrorf(err, errlen, "export: no plan or no output path");
        return false;
    }
    if (def->world < 0 || def->world >= rec->nworlds) {
        tpErrorf(err, errlen, "--world %d: the plan has %d solution(s)", def->world + 1, rec->nworlds);
        return false;
    }
    if (!(def->tolerance >= 0) || !(def->angle_tolerance < 0 || def->angle_tolerance >= 0)) {
        tpErrorf(err, errlen, "--tolerance must be a number >= 0");
        return false;
    }
    if (def->tree) {
        for (int k = 0; k < def->tree->nbodies; ++k) {
            bool found = false;
            for (int b = 0; b < rec->nbodies && !found; ++b) {
                found = rec->bodies[b].moving && strcmp(rec->bodies[b].name, def->tree->body_names[k]) == 0;
            }
            if (!found) {
                tpErrorf(err, errlen,
                         "the tree's body \"%s\" is not a moving body of the plan (a tree of another plan?)",
                         def->tree->body_names[k]);
                return false;
            }
        }
    }
    switch (def->format) {
    case TP_EXPORT_GLB:
    case TP_EXPORT_GLTF:
        return tpX_WriteGltf(rec, path, def, st, err, errlen);
    case TP_EXPORT_CSV:
        return tpX_WriteCsv(rec, path, def, st, err, errlen);
    }
    tpErrorf(err, errlen, "unknown export format");
    return false;
}
