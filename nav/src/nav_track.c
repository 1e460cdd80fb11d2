/* Track data files for the vehicle planner (JSON, read with cJSON). Track files come with
 * domain scripts, possibly other people's: every count and number is bounded before use. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/json_text.h"
#include "tp/base.h"
#include "tp/nav.h"

/* Reads a numeric array of exactly n finite entries within +-max[i] (max may hold one bound). */
static bool readVec(const cJSON *obj, const char *key, double *out, int n, bool required, const double *max,
                    const char *path, const char *where, char *err, size_t errlen)
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
    int i = 0;
    for (const cJSON *v = a->child; v; v = v->next, ++i) {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
            tpErrorf(err, errlen, "%s: %s'%s'[%d] must be a finite number", path, where, key, i);
            return false;
        }
        if (!(fabs(v->valuedouble) <= max[i])) {
            tpErrorf(err, errlen, "%s: %s'%s'[%d]: %.17g is outside +-%g", path, where, key, i, v->valuedouble, max[i]);
            return false;
        }
        out[i] = v->valuedouble;
    }
    return true;
}

static bool readNum(const cJSON *obj, const char *key, double *out, double max, const char *path, const char *where,
                    char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        return true; /* keep the default */
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
        tpErrorf(err, errlen, "%s: %s'%s' must be a finite number", path, where, key);
        return false;
    }
    if (!(fabs(v->valuedouble) <= max)) {
        tpErrorf(err, errlen, "%s: %s'%s': %.17g is outside +-%g", path, where, key, v->valuedouble, max);
        return false;
    }
    *out = v->valuedouble;
    return true;
}

static const double k_coords[4] = {TP_MAX_COORD, TP_MAX_COORD, TP_MAX_COORD, TP_MAX_COORD};
static const double k_speeds[2] = {TP_MAX_SPEED, TP_MAX_SPEED};
static const double k_pose[3] = {TP_MAX_COORD, TP_MAX_COORD, TP_NAV_TRACK_MAX_ANGLE};

/* Parses len bytes of JSON text (need not be NUL-terminated) into a root object. */
static cJSON *parseRoot(const char *text, size_t len, const char *path, char *err, size_t errlen)
{
    char why[256];
    if (!tpJson_CheckText(text, len, why, sizeof why)) {
        tpErrorf(err, errlen, "%s: %s", path, why);
        return NULL;
    }
    size_t off = 0;
    cJSON *root = tpJson_ParseDocument(text, len, &off);
    if (!root && off == TP_JSON_NO_MEMORY) {
        tpErrorf(err, errlen, "%s: out of memory reading the JSON", path);
        return NULL;
    }
    if (!root || !cJSON_IsObject(root)) {
        /* cJSON reports where it stopped: turn that into a line number */
        size_t line, col;
        tpJson_LineColumn(text, len, off, &line, &col);
        tpErrorf(err, errlen, "%s:%zu: not a JSON object", path, line);
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

tpNavTrackFile *tpNavTrack_Parse(const char *text, size_t len, const char *path, char *err, size_t errlen)
{
    cJSON *root = parseRoot(text, len, path, err, errlen);
    if (!root) {
        return NULL;
    }
    tpNavTrackFile *t = calloc(1, sizeof *t);
    const cJSON *walls = cJSON_GetObjectItemCaseSensitive(root, "walls");
    const cJSON *cars = cJSON_GetObjectItemCaseSensitive(root, "cars");
    int nw = cJSON_IsArray(walls) ? cJSON_GetArraySize(walls) : 0,
        nc = cJSON_IsArray(cars) ? cJSON_GetArraySize(cars) : 0;
    bool ok = t != NULL;
    if (!ok) {
        tpErrorf(err, errlen, "%s: out of memory", path);
    }
    if (ok && (!walls || !cJSON_IsArray(walls) || (cars && !cJSON_IsArray(cars)))) {
        tpErrorf(err, errlen, "%s: 'walls' (required) and 'cars' must be arrays", path);
        ok = false;
    }
    if (ok && (nw > TP_NAV_TRACK_MAX_WALLS || nc > TP_NAV_TRACK_MAX_CARS)) {
        tpErrorf(err, errlen, "%s: %d walls and %d cars (at most %d and %d)", path, nw, nc, TP_NAV_TRACK_MAX_WALLS,
                 TP_NAV_TRACK_MAX_CARS);
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
        if (!cJSON_IsString(name) || !name->valuestring) {
            tpErrorf(err, errlen, "%s: 'name' must be a string", path);
            ok = false;
        } else if (strlen(name->valuestring) >= sizeof t->name) {
            tpErrorf(err, errlen, "%s: 'name' is longer than %zu bytes", path, sizeof t->name - 1);
            ok = false;
        } else {
            tpStrCopy(t->name, sizeof t->name, name->valuestring);
        }
    }
    /* Elements are walked as a list: cJSON_GetArrayItem(i) would make this quadratic. */
    const cJSON *w = ok ? walls->child : NULL;
    for (int i = 0; ok && i < nw; ++i, w = w->next) {
        int n = cJSON_IsArray(w) ? cJSON_GetArraySize(w) : -1;
        const cJSON *v = n == 4 ? w->child : NULL;
        for (int k = 0; k < 4 && n == 4; ++k, v = v->next) {
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
                n = -1;
            } else if (!(fabs(v->valuedouble) <= TP_MAX_COORD)) {
                n = -2;
            } else {
                t->walls[i][k] = v->valuedouble;
            }
        }
        if (n == -2) {
            tpErrorf(err, errlen, "%s: walls[%d]: a coordinate is outside +-%g", path, i, TP_MAX_COORD);
            ok = false;
        } else if (n != 4) {
            tpErrorf(err, errlen, "%s: walls[%d] must be [x0, y0, x1, y1] (finite numbers)", path, i);
            ok = false;
        }
    }
    const cJSON *c = ok && cars ? cars->child : NULL;
    for (int i = 0; ok && i < nc; ++i, c = c->next) {
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
        ok = readVec(c, "pos", o->pos, 2, true, k_coords, path, where, err, errlen) &&
             readVec(c, "vel", o->vel, 2, false, k_speeds, path, where, err, errlen) &&
             readNum(c, "heading", &o->heading, TP_NAV_TRACK_MAX_ANGLE, path, where, err, errlen) &&
             readNum(c, "length", &o->length, TP_MAX_COORD, path, where, err, errlen) &&
             readNum(c, "width", &o->width, TP_MAX_COORD, path, where, err, errlen);
        if (ok && !(o->length > 0 && o->width > 0)) {
            tpErrorf(err, errlen, "%s: %s'length' and 'width' must be > 0", path, where);
            ok = false;
        }
    }
    ok = ok && readVec(root, "start", t->start, 3, true, k_pose, path, "", err, errlen) &&
         readVec(root, "goal", t->track.goal, 2, true, k_coords, path, "", err, errlen) &&
         readVec(root, "finish", t->track.finish, 4, true, k_coords, path, "", err, errlen);
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

tpNavTrackFile *tpNavTrack_Load(const char *path, char *err, size_t errlen)
{
    size_t len = 0;
    char *text = tpFile_Read(path, TP_MAX_DATA_BYTES, &len, err, errlen);
    if (!text) {
        return NULL;
    }
    tpNavTrackFile *t = tpNavTrack_Parse(text, len, path, err, errlen);
    free(text);
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
