/* tplan export: the definition defaults, the dispatcher and temporary output files. */
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

bool tpXTemp_Open(tpXTemp *t, const char *path, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    if (!*base || strlen(path) + 16 >= sizeof t->tmp_path) {
        tpErrorf(err, errlen, "cannot write %s: not a file name", path);
        return false;
    }
    snprintf(t->final_path, sizeof t->final_path, "%s", path);
    snprintf(t->tmp_path, sizeof t->tmp_path, "%.*s.%s.XXXXXX", dirlen, path, base);
    int fd = mkstemp(t->tmp_path);
    if (fd < 0) {
        tpErrorf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        t->tmp_path[0] = '\0';
        return false;
    }
    mode_t mask = umask(022); /* mkstemp creates 0600; the result gets the usual 0666 & ~umask */
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        /* not fatal: the file stays private */
    }
    t->f = fdopen(fd, "wb");
    if (!t->f) {
        tpErrorf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        remove(t->tmp_path);
        t->tmp_path[0] = '\0';
        return false;
    }
    return true;
}

bool tpXTemp_Commit(tpXTemp *t, char *err, size_t errlen)
{
    int bad = ferror(t->f);
    int rc = fclose(t->f);
    t->f = NULL;
    if (bad || rc != 0) {
        tpErrorf(err, errlen, "cannot write %s: %s", t->final_path, bad ? "write error" : strerror(errno));
        remove(t->tmp_path);
        t->tmp_path[0] = '\0';
        return false;
    }
    if (rename(t->tmp_path, t->final_path) != 0) {
        tpErrorf(err, errlen, "cannot write %s: %s", t->final_path, strerror(errno));
        remove(t->tmp_path);
        t->tmp_path[0] = '\0';
        return false;
    }
    t->tmp_path[0] = '\0';
    return true;
}

void tpXTemp_Abort(tpXTemp *t)
{
    if (t->f) {
        fclose(t->f);
        t->f = NULL;
    }
    if (t->tmp_path[0]) {
        remove(t->tmp_path);
        t->tmp_path[0] = '\0';
    }
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
