/* Track data files for the vehicle planner (JSON, read with cJSON). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"
#include "tp/nav.h"

/* Reads a numeric array of exactly n finite entries. */
static bool readVec(const cJSON *obj, const char *key, double *out, int n, bool required, const char *path,
                    const char *where, char *err, size_t errlen)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!a) {
        if (required) {
            tpErrorf(err, errlen, "%s: %s'%s' is required", path, where, key);
        }
        return !required;
    }
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n) {
        tpErrorf(err, errlen, "%s: %s'%s' must be an array of %d numbers", path, where, key, n);
        return false;
    }
    for (int i = 0; i < n; ++i) {
        const cJSON *v = cJSON_GetArrayItem(a, i);
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
            tpErrorf(err, errlen, "%s: %s'%s'[%d] must be a finite number", path, where, key, i);
            return false;
        }
        out[i] = v->valuedouble;
    }
    return true;
}

static bool readNum(const cJSON *obj, const char *key, double *out, const char *path, const char *where, char *err,
                    size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        return true; /* keep the default */
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
        tpErrorf(err, errlen, "%s: %s'%s' must be a finite number", path, where, key);
        return false;
    }
    *out = v->valuedouble;
    return true;
}

tpNavTrackFile *tpNavTrack_Load(const char *path, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        tpErrorf(err, errlen, "%s: cannot open", path);
        return NULL;
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 8192;
            char *t = realloc(text, cap);
            if (!t) {
                free(text);
                fclose(fp);
                tpErrorf(err, errlen, "%s: out of memory", path);
                return NULL;
            }
            text = t;
        }
        size_t n = fread(text + len, 1, 4096, fp);
        len += n;
        if (n < 4096) {
            break;
        }
    }
    fclose(fp);
    text[len] = '\0';
    cJSON *root = cJSON_Parse(text);
    if (!root || !cJSON_IsObject(root)) {
        /* cJSON reports where it stopped: turn that into a line number */
        const char *at = cJSON_GetErrorPtr();
        int line = 1;
        for (const char *c = text; at && c < at && *c; ++c) {
            line += *c == '\n';
        }
        tpErrorf(err, errlen, "%s:%d: not a JSON object", path, line);
        cJSON_Delete(root);
        free(text);
        return NULL;
    }
    free(text);
    tpNavTrackFile *t = calloc(1, sizeof *t);
    const cJSON *walls = cJSON_GetObjectItemCaseSensitive(root, "walls");
    const cJSON *cars = cJSON_GetObjectItemCaseSensitive(root, "cars");
    int nw = cJSON_IsArray(walls) ? cJSON_GetArraySize(walls) : 0,
        nc = cJSON_IsArray(cars) ? cJSON_GetArraySize(cars) : 0;
    bool ok = t != NULL;
    if (ok && (!walls || !cJSON_IsArray(walls) || (cars && !cJSON_IsArray(cars)))) {
        tpErrorf(err, errlen, "%s: 'walls' (required) and 'cars' must be arrays", path);
        ok = false;
    }
    if (ok) {
        t->walls = calloc((size_t)nw + 1, sizeof *t->walls);
        t->cars = calloc((size_t)nc + 1, sizeof *t->cars);
        ok = t->walls && t->cars;
        if (!ok) {
            tpErrorf(err, errlen, "%s: out of memory", path);
        }
    }
    const cJSON *name = ok ? cJSON_GetObjectItemCaseSensitive(root, "name") : NULL;
    if (ok && name) {
        if (!cJSON_IsString(name)) {
            tpErrorf(err, errlen, "%s: 'name' must be a string", path);
            ok = false;
        } else {
            tpStrCopy(t->name, sizeof t->name, name->valuestring);
        }
    }
    for (int i = 0; ok && i < nw; ++i) {
        const cJSON *w = cJSON_GetArrayItem(walls, i);
        int n = cJSON_IsArray(w) ? cJSON_GetArraySize(w) : -1;
        for (int k = 0; k < 4 && n == 4; ++k) {
            const cJSON *v = cJSON_GetArrayItem(w, k);
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
                n = -1;
            } else {
                t->walls[i][k] = v->valuedouble;
            }
        }
        if (n != 4) {
            tpErrorf(err, errlen, "%s: walls[%d] must be [x0, y0, x1, y1] (finite numbers)", path, i);
            ok = false;
        }
    }
    for (int i = 0; ok && i < nc; ++i) {
        const cJSON *c = cJSON_GetArrayItem(cars, i);
        char where[32];
        snprintf(where, sizeof where, "cars[%d].", i);
        tpNavTrafficCar *o = &t->cars[i];
        o->length = 4.0;
        o->width = 1.8;
        if (!cJSON_IsObject(c)) {
            tpErrorf(err, errlen, "%s: cars[%d] must be an object", path, i);
            ok = false;
            break;
        }
        ok = readVec(c, "pos", o->pos, 2, true, path, where, err, errlen) &&
             readVec(c, "vel", o->vel, 2, false, path, where, err, errlen) &&
             readNum(c, "heading", &o->heading, path, where, err, errlen) &&
             readNum(c, "length", &o->length, path, where, err, errlen) &&
             readNum(c, "width", &o->width, path, where, err, errlen);
        if (ok && !(o->length > 0 && o->width > 0)) {
            tpErrorf(err, errlen, "%s: %s'length' and 'width' must be > 0", path, where);
            ok = false;
        }
    }
    ok = ok && readVec(root, "start", t->start, 3, true, path, "", err, errlen) &&
         readVec(root, "goal", t->track.goal, 2, true, path, "", err, errlen) &&
         readVec(root, "finish", t->track.finish, 4, true, path, "", err, errlen);
    cJSON_Delete(root);
    if (!ok) {
        tpNavTrack_Free(t);
        return NULL;
    }
    t->track.nwalls = nw;
    t->track.walls = (const double(*)[4])t->walls;
    t->track.ncars = nc;
    t->track.cars = t->cars;
    return t;
}

void tpNavTrack_Free(tpNavTrackFile *t)
{
    if (!t) {
        return;
    }
    free(t->walls);
    free(t->cars);
    free(t);
}
