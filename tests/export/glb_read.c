/* Test helper: an independent reader of tplan's glTF output (see glb_read.h). */
#include "glb_read.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/base.h"

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool tpTestGltf_Load(tpTestGltf *g, const char *path, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    size_t len = 0;
    unsigned char *data = (unsigned char *)tpFile_Read(path, TP_MAX_PLAN_BYTES, &len, err, errlen);
    if (!data) {
        return false;
    }
    if (len >= 20 && memcmp(data, "glTF", 4) == 0) {
        uint32_t total = le32(data + 8), jlen = le32(data + 12);
        if (le32(data + 4) != 2 || total != len || le32(data + 16) != 0x4E4F534Au || 20 + (size_t)jlen > len) {
            snprintf(err, errlen, "%s: bad GLB header", path);
            free(data);
            return false;
        }
        g->json = cJSON_ParseWithLength((const char *)data + 20, jlen);
        size_t off = 20 + jlen;
        if (off + 8 <= len) {
            uint32_t blen = le32(data + off);
            if (le32(data + off + 4) != 0x004E4942u || off + 8 + blen > len) {
                snprintf(err, errlen, "%s: bad BIN chunk", path);
                free(data);
                cJSON_Delete(g->json);
                return false;
            }
            g->bin = malloc(blen ? blen : 1);
            memcpy(g->bin, data + off + 8, blen);
            g->binlen = blen;
        }
        free(data);
    } else {
        g->json = cJSON_Parse((const char *)data);
        free(data);
        const cJSON *buf = cJSON_GetArrayItem(cJSON_GetObjectItem(g->json, "buffers"), 0);
        const cJSON *uri = cJSON_GetObjectItem(buf, "uri");
        if (cJSON_IsString(uri)) {
            char bp[4096];
            const char *slash = strrchr(path, '/');
            snprintf(bp, sizeof bp, "%.*s%s", slash ? (int)(slash - path + 1) : 0, path, uri->valuestring);
            g->bin = (unsigned char *)tpFile_Read(bp, TP_MAX_PLAN_BYTES, &g->binlen, err, errlen);
            if (!g->bin) {
                cJSON_Delete(g->json);
                return false;
            }
        }
    }
    if (!g->json) {
        snprintf(err, errlen, "%s: bad JSON", path);
        free(g->bin);
        return false;
    }
    return true;
}

void tpTestGltf_Free(tpTestGltf *g)
{
    cJSON_Delete(g->json);
    free(g->bin);
    memset(g, 0, sizeof *g);
}

static int geti(const cJSON *o, const char *k, int def)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsNumber(v) ? v->valueint : def;
}

double *tpTestGltf_Accessor(const tpTestGltf *g, int index, int *count, int *ncomp)
{
    const cJSON *acc = cJSON_GetArrayItem(cJSON_GetObjectItem(g->json, "accessors"), index);
    if (!acc) {
        return NULL;
    }
    const cJSON *view = cJSON_GetArrayItem(cJSON_GetObjectItem(g->json, "bufferViews"), geti(acc, "bufferView", -1));
    const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(acc, "type"));
    int n = geti(acc, "count", 0), nc = !type ? 0 : strcmp(type, "SCALAR") == 0 ? 1 : strcmp(type, "VEC3") == 0 ? 3 : 4;
    int ct = geti(acc, "componentType", 0), cs = ct == 5126 || ct == 5125 ? 4 : 2;
    size_t off = (size_t)geti(view, "byteOffset", 0) + (size_t)geti(acc, "byteOffset", 0);
    if (!view || !nc || off + (size_t)n * nc * cs > g->binlen) {
        return NULL;
    }
    double *out = malloc(sizeof(double) * (size_t)n * nc + 1);
    for (size_t i = 0; i < (size_t)n * nc; ++i) {
        const unsigned char *p = g->bin + off + i * cs;
        if (ct == 5126) {
            uint32_t u = le32(p);
            float f;
            memcpy(&f, &u, 4);
            out[i] = f;
        } else if (ct == 5125) {
            out[i] = le32(p);
        } else {
            out[i] = (uint16_t)(p[0] | p[1] << 8);
        }
    }
    *count = n;
    *ncomp = nc;
    return out;
}

/* Sample of a LINEAR channel at time t: lerp, or slerp for rotations (x, y, z, w). */
static void sample(const double *times, const double *vals, int n, int nc, double t, double *out)
{
    int lo = 0, hi = n - 1;
    if (t <= times[0] || n == 1) {
        memcpy(out, vals, sizeof(double) * nc);
        return;
    }
    if (t >= times[n - 1]) {
        memcpy(out, vals + (size_t)(n - 1) * nc, sizeof(double) * nc);
        return;
    }
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (times[mid] <= t) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    double u = (t - times[lo]) / (times[hi] - times[lo]);
    const double *a = vals + (size_t)lo * nc, *b = vals + (size_t)hi * nc;
    if (nc == 3) {
        for (int k = 0; k < 3; ++k) {
            out[k] = a[k] + u * (b[k] - a[k]);
        }
        return;
    }
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3], s = dot < 0 ? -1 : 1;
    double th = acos(fmin(1, fabs(dot)));
    double wa = 1 - u, wb = u;
    if (th > 1e-9) {
        wa = sin((1 - u) * th) / sin(th), wb = sin(u * th) / sin(th);
    }
    double l = 0;
    for (int k = 0; k < 4; ++k) {
        out[k] = wa * a[k] + s * wb * b[k];
        l += out[k] * out[k];
    }
    for (int k = 0; k < 4; ++k) {
        out[k] /= sqrt(l);
    }
}

bool tpTestGltf_AnimError(const tpTestGltf *g, int anim, const tpPlanRecord *rec, int world, const double *scale,
                          double *pos_err, double *ang_err, char *err, size_t errlen)
{
    const cJSON *a = cJSON_GetArrayItem(cJSON_GetObjectItem(g->json, "animations"), anim);
    const cJSON *nodes = cJSON_GetObjectItem(g->json, "nodes");
    if (!a) {
        snprintf(err, errlen, "no animation %d", anim);
        return false;
    }
    const tpPlanWorld *w = &rec->worlds[world];
    *pos_err = *ang_err = 0;
    int found = 0, moving = 0;
    for (int b = 0; b < rec->nbodies; ++b) {
        moving += rec->bodies[b].moving ? 2 : 0;
    }
    const cJSON *ch;
    cJSON_ArrayForEach(ch, cJSON_GetObjectItem(a, "channels"))
    {
        const cJSON *tg = cJSON_GetObjectItem(ch, "target");
        const char *name =
            cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, geti(tg, "node", -1)), "name"));
        const char *pth = cJSON_GetStringValue(cJSON_GetObjectItem(tg, "path"));
        const cJSON *smp = cJSON_GetArrayItem(cJSON_GetObjectItem(a, "samplers"), geti(ch, "sampler", -1));
        int b = -1;
        for (int k = 0; name && k < rec->nbodies; ++k) {
            if (strcmp(rec->bodies[k].name, name) == 0) {
                b = k;
            }
        }
        if (b < 0 || !rec->bodies[b].moving || !pth || !smp) {
            snprintf(err, errlen, "channel of an unknown or static node");
            return false;
        }
        int nt, nct, nv, ncv;
        double *times = tpTestGltf_Accessor(g, geti(smp, "input", -1), &nt, &nct);
        double *vals = tpTestGltf_Accessor(g, geti(smp, "output", -1), &nv, &ncv);
        bool rot = strcmp(pth, "rotation") == 0;
        if (!times || !vals || nt != nv || ncv != (rot ? 4 : 3)) {
            free(times), free(vals);
            snprintf(err, errlen, "%s: bad sampler", name);
            return false;
        }
        ++found;
        for (int i = 0; i <= w->nsteps; ++i) {
            double t = (float)(i * rec->dt), v[4];
            sample(times, vals, nt, ncv, t, v);
            const double *s = w->traj[b] + (size_t)i * TP_STATE_DOUBLES;
            if (!rot) { /* glTF (x, y, z) is tplan (x, -z, y) */
                double dx = v[0] - s[0], dy = -v[2] - s[1], dz = v[1] - s[2];
                *pos_err = fmax(*pos_err, sqrt(dx * dx + dy * dy + dz * dz));
            } else {
                double q[4] = {v[3], v[0], -v[2], v[1]}; /* back to (w, x, y, z), z-up */
                double n = sqrt(s[3] * s[3] + s[4] * s[4] + s[5] * s[5] + s[6] * s[6]);
                double dot = (q[0] * s[3] + q[1] * s[4] + q[2] * s[5] + q[3] * s[6]) / n;
                double dm = 0, dp = 0;
                for (int k = 0; k < 4; ++k) {
                    dm += (q[k] - s[3 + k] / n) * (q[k] - s[3 + k] / n);
                    dp += (q[k] + s[3 + k] / n) * (q[k] + s[3 + k] / n);
                }
                (void)dot;
                double ang = 4 * atan2(sqrt(fmin(dm, dp)), sqrt(fmax(dm, dp)));
                *ang_err = fmax(*ang_err, scale ? ang * scale[b] : ang);
            }
        }
        free(times), free(vals);
    }
    if (found != moving) {
        snprintf(err, errlen, "%d channels for %d expected", found, moving);
        return false;
    }
    return true;
}
