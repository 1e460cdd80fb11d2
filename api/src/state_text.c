/* The state file and the value behind tplan_state that needs no domain (issue 37): a state made,
 * copied, freed, read strictly from its JSON text and written exactly. Part of tp_rundef (core and
 * cJSON alone), so that the service checks a request's "state" without linking Lua or ODE; what
 * needs a domain (binding, planning from it, stepping it) is state.c's. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp/plan.h"
#include "tp/run_def.h"
#include "tp/base.h"

/* ------------------------------------------------------------------------------------------ */
/* The value                                                                                   */

tplan_state *tpState_New(const char *domain, int n)
{
    tplan_state *s = calloc(1, sizeof *s);
    if (!s) {
        return NULL;
    }
    const size_t cap = (size_t)(n > 0 ? n : 1);
    s->names = calloc(cap, sizeof *s->names);
    s->x = calloc(cap, sizeof *s->x);
    s->rest = calloc(cap, 1);
    if (!s->names || !s->x || !s->rest) {
        tplan_state_free(s);
        return NULL;
    }
    s->n = n;
    tpStrCopy(s->domain, sizeof s->domain, domain);
    return s;
}

void tplan_state_free(tplan_state *s)
{
    if (s) {
        free(s->names);
        free(s->x);
        free(s->rest);
        free(s);
    }
}

tplan_state *tplan_state_copy(const tplan_state *s)
{
    tplan_state *c = s ? tpState_New(s->domain, s->n) : NULL;
    if (c) {
        memcpy(c->names, s->names, sizeof *s->names * (size_t)s->n);
        memcpy(c->x, s->x, sizeof *s->x * (size_t)s->n);
        memcpy(c->rest, s->rest, (size_t)s->n);
        c->t = s->t;
    }
    return c;
}

int tpState_FindBody(const tplan_state *s, const char *name)
{
    for (int k = 0; s && name && k < s->n; ++k) {
        if (strcmp(s->names[k], name) == 0) {
            return k;
        }
    }
    return -1;
}

/* ------------------------------------------------------------------------------------------ */
/* JSON                                                                                        */

const char *const tpState_VectorNames[4] = {"position", "quaternion", "velocity", "angular_velocity"};
const int tpState_VectorLengths[4] = {3, 4, 3, 3};

double *tpState_Vector(tpBodyState *x, int v)
{
    return v == 0 ? x->pos : v == 1 ? x->quat : v == 2 ? x->vel : x->angvel;
}

/* One body's member: its four vectors (required) and its rest count (optional, 0). */
static bool parse_body(const cJSON *o, const char *name, tpBodyState *x, uint8_t *rest, tplan_error *err)
{
    char field[TP_NAME_MAX + 48];
    snprintf(field, sizeof field, "bodies.%s", name);
    if (!cJSON_IsObject(o)) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: expected an object", field);
        return false;
    }
    unsigned seen = 0;
    for (const cJSON *m = o->child; m; m = m->next) {
        int v = 0;
        while (v < 5 && strcmp(m->string, v < 4 ? tpState_VectorNames[v] : "rest") != 0) {
            ++v;
        }
        snprintf(field, sizeof field, "bodies.%s.%.40s", name, m->string);
        if (v == 5 || (seen & (1u << v))) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: %s", field,
                       v == 5 ? "unknown field (expected position, quaternion, velocity, angular_velocity, rest)"
                              : "given twice");
            return false;
        }
        seen |= 1u << v;
        if (v == 4) {
            const double r = cJSON_IsNumber(m) ? m->valuedouble : -1;
            if (!(r >= 0 && r <= 255 && r == floor(r))) {
                tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: expected an integer in 0..255 (steps at rest)",
                           field);
                return false;
            }
            *rest = (uint8_t)r;
            continue;
        }
        if (!cJSON_IsArray(m) || cJSON_GetArraySize(m) != tpState_VectorLengths[v]) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: expected an array of %d numbers", field,
                       tpState_VectorLengths[v]);
            return false;
        }
        int i = 0;
        for (const cJSON *e = m->child; e; e = e->next, ++i) {
            if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
                tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s[%d]: %s", field, i,
                           cJSON_IsNumber(e) ? "not a finite number" : "expected a number");
                return false;
            }
            tpState_Vector(x, v)[i] = e->valuedouble;
        }
    }
    for (int v = 0; v < 4; ++v) {
        if (!(seen & (1u << v))) {
            snprintf(field, sizeof field, "bodies.%s.%s", name, tpState_VectorNames[v]);
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: missing", field);
            return false;
        }
    }
    const double *q = x->quat;
    const double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(fabs(norm - 1.0) <= TP_PLAN_START_QUAT_TOL)) {
        snprintf(field, sizeof field, "bodies.%s.quaternion", name);
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: norm %.17g is not 1 (within %g)", field, norm,
                   TP_PLAN_START_QUAT_TOL);
        return false;
    }
    return true;
}

static tplan_state *parse_root(const cJSON *root, tplan_error *err)
{
    static const char *const top[5] = {"format", "version", "domain", "time", "bodies"};
    const cJSON *item[5] = {NULL};
    for (const cJSON *m = root->child; m; m = m->next) {
        int k = 0;
        while (k < 5 && strcmp(m->string, top[k]) != 0) {
            ++k;
        }
        char field[72];
        snprintf(field, sizeof field, "%.60s", m->string);
        if (k == 5 || item[k]) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: %s", field,
                       k == 5 ? "unknown field (expected format, version, domain, time, bodies)" : "given twice");
            return NULL;
        }
        item[k] = m;
    }
    for (int k = 0; k < 5; ++k) {
        if (!item[k]) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, top[k], "state: %s: missing", top[k]);
            return NULL;
        }
    }
    if (!cJSON_IsString(item[0]) || strcmp(item[0]->valuestring, TPLAN_STATE_FORMAT) != 0) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "format", "state: format: expected \"%s\"", TPLAN_STATE_FORMAT);
        return NULL;
    }
    if (!cJSON_IsNumber(item[1]) || item[1]->valuedouble != TPLAN_STATE_VERSION) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "version", "state: version: expected %d (this tplan reads version %d)",
                   TPLAN_STATE_VERSION, TPLAN_STATE_VERSION);
        return NULL;
    }
    if (!cJSON_IsString(item[2]) || !item[2]->valuestring[0] || strlen(item[2]->valuestring) >= TP_NAME_MAX) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "domain", "state: domain: expected the domain's name (a string)");
        return NULL;
    }
    const double t = cJSON_IsNumber(item[3]) ? item[3]->valuedouble : NAN;
    if (!(t >= 0 && t <= TP_PLAN_MAX_START_TIME)) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "time", "state: time: expected a number of seconds in [0, %g]",
                   TP_PLAN_MAX_START_TIME);
        return NULL;
    }
    if (!cJSON_IsObject(item[4])) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "bodies", "state: bodies: expected an object (body name -> state)");
        return NULL;
    }
    tplan_state *s = tpState_New(item[2]->valuestring, cJSON_GetArraySize(item[4]));
    if (!s) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        return NULL;
    }
    s->t = t;
    int k = 0;
    for (const cJSON *b = item[4]->child; b; b = b->next, ++k) {
        char field[TP_NAME_MAX + 16];
        snprintf(field, sizeof field, "bodies.%.60s", b->string);
        if (!b->string[0] || strlen(b->string) >= TP_NAME_MAX || tpState_FindBody(s, b->string) >= 0) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: %s", field,
                       tpState_FindBody(s, b->string) >= 0 ? "given twice" : "not a body name");
            tplan_state_free(s);
            return NULL;
        }
        if (!parse_body(b, b->string, &s->x[k], &s->rest[k], err)) {
            tplan_state_free(s);
            return NULL;
        }
        tpStrCopy(s->names[k], sizeof s->names[k], b->string);
    }
    return s;
}

tplan_state *tpState_Parse(const char *json, size_t len, tplan_error *err)
{
    cJSON *root = tpRun_ParseJsonObject("state", json, len, err);
    tplan_state *s = root ? parse_root(root, err) : NULL;
    cJSON_Delete(root);
    return s;
}

/* Appends to a growing buffer; false once out of memory (the buffer is then freed). */
typedef struct tpBuf {
    char *p;
    size_t len, cap;
    bool failed;
} tpBuf;

static void put(tpBuf *b, const char *s, size_t n)
{
    if (b->failed) {
        return;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        while (cap < b->len + n + 1) {
            cap *= 2;
        }
        char *p = realloc(b->p, cap);
        if (!p) {
            free(b->p);
            *b = (tpBuf){NULL, 0, 0, true};
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void puts_(tpBuf *b, const char *s)
{
    put(b, s, strlen(s));
}

static void put_number(tpBuf *b, double v)
{
    char num[48];
    put(b, num, (size_t)tpPlan_FormatDouble(v, num));
}

/* A JSON string of a name (body names are printable; quotes, backslashes, control bytes escaped). */
static void put_name(tpBuf *b, const char *s)
{
    put(b, "\"", 1);
    for (; *s; ++s) {
        char e[8];
        if (*s == '"' || *s == '\\') {
            e[0] = '\\';
            e[1] = *s;
            put(b, e, 2);
        } else if ((unsigned char)*s < 0x20) {
            snprintf(e, sizeof e, "\\u%04x", (unsigned)(unsigned char)*s);
            put(b, e, 6);
        } else {
            put(b, s, 1);
        }
    }
    put(b, "\"", 1);
}

char *tpState_ToJson(const tplan_state *s)
{
    tpBuf b = {0};
    puts_(&b, "{\"format\": \"" TPLAN_STATE_FORMAT "\", \"version\": 1, \"domain\": ");
    put_name(&b, s->domain);
    puts_(&b, ", \"time\": ");
    put_number(&b, s->t);
    puts_(&b, ", \"bodies\": {");
    for (int k = 0; k < s->n; ++k) {
        puts_(&b, k ? ",\n  " : "\n  ");
        put_name(&b, s->names[k]);
        puts_(&b, ": {");
        for (int v = 0; v < 4; ++v) {
            puts_(&b, v ? "], \"" : "\"");
            puts_(&b, tpState_VectorNames[v]);
            puts_(&b, "\": [");
            for (int i = 0; i < tpState_VectorLengths[v]; ++i) {
                puts_(&b, i ? ", " : "");
                put_number(&b, tpState_Vector(&s->x[k], v)[i]);
            }
        }
        char rest[32];
        snprintf(rest, sizeof rest, "], \"rest\": %d}", s->rest[k]);
        puts_(&b, rest);
    }
    puts_(&b, s->n ? "\n}}\n" : "}}\n");
    return b.failed ? NULL : b.p;
}
