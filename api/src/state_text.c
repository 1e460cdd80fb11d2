/* The state file and the value behind tplan_state that needs no domain: a state made,
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
        free(s->tactics);
        free(s->memory);
        free(s);
    }
}

bool tpState_SetMind(tplan_state *s, const tpStateTactic *tactics, int n, const int32_t *memory, int m)
{
    tpStateTactic *tc = NULL;
    int32_t *mc = NULL;
    if (tactics && n >= 0 && !(tc = malloc(sizeof *tc * (size_t)(n > 0 ? n : 1)))) {
        return false;
    }
    if (memory && m >= 0 && !(mc = malloc(sizeof *mc * (size_t)(m > 0 ? m : 1)))) {
        free(tc);
        return false;
    }
    if (tc) {
        memcpy(tc, tactics, sizeof *tc * (size_t)n);
    }
    if (mc) {
        memcpy(mc, memory, sizeof *mc * (size_t)m);
    }
    free(s->tactics);
    free(s->memory);
    s->tactics = tc;
    s->has_tactics = tc != NULL;
    s->ntactics = tc ? n : 0;
    s->memory = mc;
    s->has_memory = mc != NULL;
    s->nmemory = mc ? m : 0;
    return true;
}

tplan_state *tplan_state_copy(const tplan_state *s)
{
    tplan_state *c = s ? tpState_New(s->domain, s->n) : NULL;
    if (c) {
        memcpy(c->names, s->names, sizeof *s->names * (size_t)s->n);
        memcpy(c->x, s->x, sizeof *s->x * (size_t)s->n);
        memcpy(c->rest, s->rest, (size_t)s->n);
        c->t = s->t;
        if (!tpState_SetMind(c, s->has_tactics ? s->tactics : NULL, s->ntactics, s->has_memory ? s->memory : NULL,
                             s->nmemory)) {
            tplan_state_free(c);
            return NULL;
        }
        TP_VALIDATE(tpState_Valid, c);
    }
    return c;
}

int tpState_FindTactic(const tplan_state *s, const char *name)
{
    for (int k = 0; s && name && s->has_tactics && k < s->ntactics; ++k) {
        if (strcmp(s->tactics[k].name, name) == 0) {
            return k;
        }
    }
    return -1;
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

/* An integer-valued JSON number in [lo, hi] into *out. */
static bool int_in(const cJSON *e, double lo, double hi, int *out)
{
    if (!cJSON_IsNumber(e) || !(e->valuedouble >= lo && e->valuedouble <= hi) ||
        e->valuedouble != floor(e->valuedouble)) {
        return false;
    }
    *out = (int)e->valuedouble;
    return true;
}

/* One tactic's member of "tactics": skill, busy, started, vars (all required). */
static bool parse_tactic(const cJSON *o, tpStateTactic *tac, tplan_error *err)
{
    static const char *const keys[4] = {"skill", "busy", "started", "vars"};
    char field[TP_NAME_MAX + 64];
    snprintf(field, sizeof field, "tactics.%s", tac->name);
    if (!cJSON_IsObject(o)) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: expected an object (skill, busy, started, vars)", field);
        return false;
    }
    const cJSON *item[4] = {NULL};
    for (const cJSON *m = o->child; m; m = m->next) {
        int k = 0;
        while (k < 4 && strcmp(m->string, keys[k]) != 0) {
            ++k;
        }
        snprintf(field, sizeof field, "tactics.%s.%.40s", tac->name, m->string);
        if (k == 4 || item[k]) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: %s", field,
                       k == 4 ? "unknown field (expected skill, busy, started, vars)" : "given twice");
            return false;
        }
        item[k] = m;
    }
    for (int k = 0; k < 4; ++k) {
        snprintf(field, sizeof field, "tactics.%s.%s", tac->name, keys[k]);
        if (!item[k]) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: missing", field);
            return false;
        }
        if ((k == 0 && !int_in(item[0], 0, 1e6, &tac->skill)) || ((k == 1 || k == 2) && !cJSON_IsBool(item[k])) ||
            (k == 3 && !cJSON_IsArray(item[3]))) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: expected %s", field,
                       k == 0   ? "the index of the tactic's active skill (an integer >= 0)"
                       : k == 3 ? "an array of numbers (the skill variables)"
                                : "true or false");
            return false;
        }
    }
    tac->busy = cJSON_IsTrue(item[1]);
    tac->started = cJSON_IsTrue(item[2]);
    if (tac->busy && !tac->started) {
        snprintf(field, sizeof field, "tactics.%s.busy", tac->name);
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: a tactic that has not started is not busy", field);
        return false;
    }
    int i = 0;
    for (const cJSON *e = item[3]->child; e; e = e->next, ++i) {
        snprintf(field, sizeof field, "tactics.%s.vars", tac->name);
        if (i == TP_STATE_MAX_VARS) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: more than %d numbers (the skill variables)", field,
                       TP_STATE_MAX_VARS);
            return false;
        }
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s[%d]: %s", field, i,
                       cJSON_IsNumber(e) ? "not a finite number" : "expected a number");
            return false;
        }
        tac->vars[i] = e->valuedouble;
    }
    tac->nvars = i;
    return true;
}

/* Members "tactics" (object: name -> tactic) and "memory" (array of integers) into s. */
static bool parse_mind(const cJSON *tactics, const cJSON *memory, tplan_state *s, tplan_error *err)
{
    tpStateTactic *tac = NULL;
    int32_t *mem = NULL;
    int nt = -1, nm = -1;
    bool ok = true;
    if (tactics) {
        nt = cJSON_IsObject(tactics) ? cJSON_GetArraySize(tactics) : -1;
        if (nt < 0 || nt > TP_STATE_MAX_TACTICS) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "tactics",
                       "state: tactics: expected an object (tactic name -> skill, busy, started, vars)");
            return false;
        }
        tac = calloc((size_t)(nt > 0 ? nt : 1), sizeof *tac);
        ok = tac != NULL;
        int k = 0;
        for (const cJSON *o = tactics->child; ok && o; o = o->next, ++k) {
            char field[TP_NAME_MAX + 16];
            snprintf(field, sizeof field, "tactics.%.60s", o->string);
            bool twice = false;
            for (int j = 0; j < k && !twice; ++j) {
                twice = strcmp(tac[j].name, o->string) == 0;
            }
            if (!o->string[0] || strlen(o->string) >= TP_NAME_MAX || twice) {
                tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: %s", field,
                           twice ? "given twice" : "not a tactic name");
                ok = false;
                break;
            }
            tpStrCopy(tac[k].name, sizeof tac[k].name, o->string);
            ok = parse_tactic(o, &tac[k], err);
        }
        if (!tac) {
            tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        }
    }
    if (ok && memory) {
        nm = cJSON_IsArray(memory) ? cJSON_GetArraySize(memory) : -1;
        if (nm < 0 || nm > TP_STATE_MAX_MEMORY) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "memory",
                       "state: memory: expected an array of at most %d integers (the temporal conditions' memory)",
                       TP_STATE_MAX_MEMORY);
            ok = false;
        } else if (!(mem = calloc((size_t)(nm > 0 ? nm : 1), sizeof *mem))) {
            tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
            ok = false;
        }
        int i = 0;
        for (const cJSON *e = ok ? memory->child : NULL; e; e = e->next, ++i) {
            int v = 0;
            if (!int_in(e, 0, TP_STATE_MAX_MEMORY_VALUE, &v)) {
                char field[32];
                snprintf(field, sizeof field, "memory[%d]", i);
                tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: expected an integer in 0..%d", field,
                           TP_STATE_MAX_MEMORY_VALUE);
                ok = false;
                break;
            }
            mem[i] = v;
        }
    }
    if (ok && !tpState_SetMind(s, tac, nt, mem, nm)) {
        tpRun_Fail(err, TPLAN_ERR_NOMEM, NULL, "out of memory");
        ok = false;
    }
    free(tac);
    free(mem);
    return ok;
}

static tplan_state *parse_root(const cJSON *root, tplan_error *err)
{
    static const char *const top[7] = {"format", "version", "domain", "time", "bodies", "tactics", "memory"};
    const cJSON *item[7] = {NULL};
    for (const cJSON *m = root->child; m; m = m->next) {
        int k = 0;
        while (k < 7 && strcmp(m->string, top[k]) != 0) {
            ++k;
        }
        char field[72];
        snprintf(field, sizeof field, "%.60s", m->string);
        if (k == 7 || item[k]) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, field, "state: %s: %s", field,
                       k == 7 ? "unknown field (expected format, version, domain, time, bodies, tactics, memory)"
                              : "given twice");
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
    if (!cJSON_IsNumber(item[1]) || (item[1]->valuedouble != 1 && item[1]->valuedouble != TPLAN_STATE_VERSION)) {
        tpRun_Fail(err, TPLAN_ERR_ARGUMENT, "version", "state: version: expected 1 or %d (this tplan reads 1..%d)",
                   TPLAN_STATE_VERSION, TPLAN_STATE_VERSION);
        return NULL;
    }
    for (int k = 5; k < 7 && item[1]->valuedouble == 1; ++k) {
        if (item[k]) {
            tpRun_Fail(err, TPLAN_ERR_ARGUMENT, top[k], "state: %s: a version 1 state has none (version 2 has)",
                       top[k]);
            return NULL;
        }
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
    if ((item[5] || item[6]) && !parse_mind(item[5], item[6], s, err)) {
        tplan_state_free(s);
        return NULL;
    }
    return s;
}

tplan_state *tpState_Parse(const char *json, size_t len, tplan_error *err)
{
    cJSON *root = tpRun_ParseJsonObject("state", json, len, err);
    tplan_state *s = root ? parse_root(root, err) : NULL;
    cJSON_Delete(root);
    if (s) {
        TP_VALIDATE(tpState_Valid, s);
    }
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
    const bool v2 = s->has_tactics || s->has_memory; /* version 1 otherwise: such a state's bytes as before */
    puts_(&b, v2 ? "{\"format\": \"" TPLAN_STATE_FORMAT "\", \"version\": 2, \"domain\": "
                 : "{\"format\": \"" TPLAN_STATE_FORMAT "\", \"version\": 1, \"domain\": ");
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
    puts_(&b, s->n ? "\n}" : "}");
    if (s->has_tactics) {
        puts_(&b, ", \"tactics\": {");
        for (int k = 0; k < s->ntactics; ++k) {
            const tpStateTactic *tac = &s->tactics[k];
            char head[96];
            puts_(&b, k ? ",\n  " : "\n  ");
            put_name(&b, tac->name);
            snprintf(head, sizeof head, ": {\"skill\": %d, \"busy\": %s, \"started\": %s, \"vars\": [", tac->skill,
                     tac->busy ? "true" : "false", tac->started ? "true" : "false");
            puts_(&b, head);
            for (int i = 0; i < tac->nvars; ++i) {
                puts_(&b, i ? ", " : "");
                put_number(&b, tac->vars[i]);
            }
            puts_(&b, "]}");
        }
        puts_(&b, s->ntactics ? "\n}" : "}");
    }
    if (s->has_memory) {
        puts_(&b, ", \"memory\": [");
        for (int k = 0; k < s->nmemory; ++k) {
            char num[24];
            snprintf(num, sizeof num, "%s%d", k ? ", " : "", (int)s->memory[k]);
            puts_(&b, num);
        }
        puts_(&b, "]");
    }
    puts_(&b, "}\n");
    return b.failed ? NULL : b.p;
}
