/* The joints of a plan ("joints", docs/plan-format.md): each joint's kind, bodies, anchors and axes
 * in the frames of the bodies that hold them, recorded so that the viewer and the web page can draw
 * the joints without loading the script. Optional in every version (replay never reads it). Writer
 * check, writer and the strict reader: every member known, typed and in range, or the file is
 * refused with the field and the reason. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"
#include "tp/base.h"
#include "tp/plan.h"

/* physics' tpJointKind order */
static const char *const k_kinds[TP_PLAN_JOINT_KINDS] = {"hinge",     "slider", "ball",    "fixed",
                                                         "universal", "hinge2", "distance"};
/* which kinds have axis 1 and axis 2 */
static const bool k_axis1[TP_PLAN_JOINT_KINDS] = {true, true, false, false, true, true, false};
static const bool k_axis2[TP_PLAN_JOINT_KINDS] = {false, false, false, false, true, true, false};

#define UNIT_TOL 1e-6 /* |length - 1| of a recorded axis */

const char *tpPlan_JointKindName(int kind)
{
    return kind >= 0 && kind < TP_PLAN_JOINT_KINDS ? k_kinds[kind] : NULL;
}

void tpPlan_FreeJoints(tpPlanRecord *rec)
{
    for (int j = 0; j < rec->njoints && rec->joints; ++j) {
        free(rec->joints[j].name);
    }
    free(rec->joints);
    rec->joints = NULL;
    rec->njoints = 0;
}

static bool coords(const double v[3])
{
    return fabs(v[0]) <= TP_MAX_COORD && fabs(v[1]) <= TP_MAX_COORD && fabs(v[2]) <= TP_MAX_COORD;
}

/* An axis that the kind has must be unit length; one it has not must be zero. */
static bool axis_ok(const double v[3], bool has, const char *name, char *why, size_t cap)
{
    if (!(isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]))) {
        return tpBroken(why, cap, "%s: not finite", name);
    }
    const double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (has && !(fabs(n - 1.0) <= UNIT_TOL)) {
        return tpBroken(why, cap, "%s: not a unit vector (length %g)", name, n);
    }
    if (!has && n != 0.0) {
        return tpBroken(why, cap, "%s: [0, 0, 0] for this kind (got length %g)", name, n);
    }
    return true;
}

bool tpPlanJoint_Valid(const tpPlanJoint *j, int nbodies, char *why, size_t cap)
{
    if (why && cap) {
        why[0] = '\0';
    }
    if (!tpPlan_JointKindName(j->kind)) {
        return tpBroken(why, cap, "kind: %d is not a joint kind", j->kind);
    }
    if (!j->name || strlen(j->name) >= TP_PLAN_JOINT_NAME) {
        return tpBroken(why, cap, "name: missing or longer than %d bytes", TP_PLAN_JOINT_NAME - 1);
    }
    if (j->body_a < 0 || j->body_a >= nbodies) {
        return tpBroken(why, cap, "bodies[0]: index %d out of range [0, %d)", j->body_a, nbodies);
    }
    if (j->body_b < -1 || j->body_b >= nbodies || j->body_b == j->body_a) {
        return tpBroken(why, cap, "bodies[1]: index %d is not another body or the world (-1)", j->body_b);
    }
    if (!coords(j->anchor) || !coords(j->anchor2)) {
        return tpBroken(why, cap, "%s: a coordinate beyond +-%g m or not finite",
                        coords(j->anchor) ? "anchor2" : "anchor", TP_MAX_COORD);
    }
    return axis_ok(j->axis, k_axis1[j->kind], "axis", why, cap) &&
           axis_ok(j->axis2, k_axis2[j->kind], "axis2", why, cap);
}

bool tpPlan_CheckJoints(const tpPlanRecord *rec, char *err, size_t errlen)
{
    if (rec->njoints < 0 || rec->njoints > TP_PLAN_MAX_JOINTS || (rec->njoints > 0 && !rec->joints)) {
        tpErrorf(err, errlen, "joints: %d entries (at most %d)", rec->njoints, TP_PLAN_MAX_JOINTS);
        return false;
    }
    char why[200];
    for (int i = 0; i < rec->njoints; ++i) {
        if (!tpPlanJoint_Valid(&rec->joints[i], rec->nbodies, why, sizeof why)) {
            tpErrorf(err, errlen, "joints[%d].%s", i, why);
            return false;
        }
    }
    return true;
}

static void put_vec(FILE *f, const char *key, const double v[3])
{
    fprintf(f, ", \"%s\": [", key);
    for (int k = 0; k < 3; ++k) {
        fputs(k ? ", " : "", f);
        tpPlan_PutDouble(f, v[k]);
    }
    fputc(']', f);
}

void tpPlan_PutJoints(FILE *f, const tpPlanRecord *rec)
{
    if (rec->njoints <= 0) {
        return;
    }
    fputs(",\n  \"joints\": [", f);
    for (int i = 0; i < rec->njoints; ++i) {
        const tpPlanJoint *j = &rec->joints[i];
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        tpPlan_PutString(f, j->name);
        fprintf(f, ", \"kind\": \"%s\", \"bodies\": [", k_kinds[j->kind]);
        tpPlan_PutString(f, rec->bodies[j->body_a].name);
        fputs(", ", f);
        if (j->body_b >= 0) {
            tpPlan_PutString(f, rec->bodies[j->body_b].name);
        } else {
            fputs("null", f);
        }
        fputc(']', f);
        put_vec(f, "anchor", j->anchor);
        put_vec(f, "axis", j->axis);
        put_vec(f, "anchor2", j->anchor2);
        put_vec(f, "axis2", j->axis2);
        fputc('}', f);
    }
    fputs("\n  ]", f);
}

/* ------------------------------------------------------------------------------------------ */
/* Reader                                                                                      */

typedef struct JointReader {
    const char *file;
    char *err;
    size_t errlen;
    tpPlanRecord *rec;
} JointReader;

static bool jFail(const JointReader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool jFail(const JointReader *r, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tpPlan_FileFail(r->file, r->err, r->errlen, "%s", msg);
}

static const char *json_type(const cJSON *v)
{
    if (!v) {
        return "nothing";
    }
    if (cJSON_IsNumber(v)) {
        return "a number";
    }
    if (cJSON_IsString(v)) {
        return "a string";
    }
    if (cJSON_IsArray(v)) {
        return "an array";
    }
    if (cJSON_IsObject(v)) {
        return "an object";
    }
    if (cJSON_IsNull(v)) {
        return "null";
    }
    return cJSON_IsBool(v) ? "a boolean" : "an unknown value";
}

/* Body index by name (a linear search: a plan's joints are few next to its bodies' steps). */
static int find_body(const tpPlanRecord *rec, const char *name)
{
    for (int b = 0; b < rec->nbodies; ++b) {
        if (rec->bodies[b].name && strcmp(rec->bodies[b].name, name) == 0) {
            return b;
        }
    }
    return -1;
}

static bool read_vec(const JointReader *r, const cJSON *o, int i, const char *key, double out[3])
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3) {
        return jFail(r, "joints[%d].%s: expected an array of 3 numbers, got %s", i, key,
                     cJSON_IsArray(v) ? "another length" : json_type(v));
    }
    int k = 0;
    for (const cJSON *e = v->child; e; e = e->next, ++k) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
            return jFail(r, "joints[%d].%s[%d]: expected a finite number, got %s", i, key, k, json_type(e));
        }
        out[k] = e->valuedouble;
    }
    return true;
}

static bool read_joint(const JointReader *r, const cJSON *o, int i, tpPlanJoint *j)
{
    static const char *const keys[] = {"name", "kind", "bodies", "anchor", "axis", "anchor2", "axis2", NULL};
    if (!cJSON_IsObject(o)) {
        return jFail(r, "joints[%d]: expected an object, got %s", i, json_type(o));
    }
    for (const cJSON *m = o->child; m; m = m->next) {
        if (!tpPlan_IsOneOf(m->string, keys)) {
            return jFail(r,
                         "joints[%d]: unknown field \"%.64s\" (expected name, kind, bodies, anchor, axis, anchor2, "
                         "axis2)",
                         i, m->string);
        }
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
    if (!cJSON_IsString(name) || !name->valuestring) {
        return jFail(r, "joints[%d].name: expected a string, got %s", i, json_type(name));
    }
    if (!(j->name = malloc(strlen(name->valuestring) + 1))) {
        return jFail(r, "joints: out of memory");
    }
    strcpy(j->name, name->valuestring);
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
    j->kind = -1;
    for (int k = 0; k < TP_PLAN_JOINT_KINDS && cJSON_IsString(kind); ++k) {
        if (strcmp(kind->valuestring, k_kinds[k]) == 0) {
            j->kind = k;
        }
    }
    if (j->kind < 0) {
        return jFail(r,
                     "joints[%d].kind: expected one of hinge, slider, ball, fixed, universal, hinge2, distance, got %s",
                     i, cJSON_IsString(kind) ? "another string" : json_type(kind));
    }
    const cJSON *bodies = cJSON_GetObjectItemCaseSensitive(o, "bodies");
    if (!cJSON_IsArray(bodies) || cJSON_GetArraySize(bodies) != 2) {
        return jFail(r, "joints[%d].bodies: expected [body, body or null], got %s", i,
                     cJSON_IsArray(bodies) ? "another length" : json_type(bodies));
    }
    const cJSON *a = bodies->child, *b = a->next;
    if (!cJSON_IsString(a) || (j->body_a = find_body(r->rec, a->valuestring)) < 0) {
        return jFail(r, "joints[%d].bodies[0]: expected the name of a body, got %s", i,
                     cJSON_IsString(a) ? "an unknown name" : json_type(a));
    }
    if (cJSON_IsNull(b)) {
        j->body_b = -1;
    } else if (!cJSON_IsString(b) || (j->body_b = find_body(r->rec, b->valuestring)) < 0) {
        return jFail(r, "joints[%d].bodies[1]: expected the name of a body or null (the world), got %s", i,
                     cJSON_IsString(b) ? "an unknown name" : json_type(b));
    }
    if (!read_vec(r, o, i, "anchor", j->anchor) || !read_vec(r, o, i, "axis", j->axis) ||
        !read_vec(r, o, i, "anchor2", j->anchor2) || !read_vec(r, o, i, "axis2", j->axis2)) {
        return false;
    }
    char why[200];
    if (!tpPlanJoint_Valid(j, r->rec->nbodies, why, sizeof why)) {
        return jFail(r, "joints[%d].%s", i, why);
    }
    return true;
}

bool tpPlan_ReadJoints(const char *file, const cJSON *root, tpPlanRecord *rec, char *err, size_t errlen)
{
    JointReader r = {file, err, errlen, rec};
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "joints");
    if (!arr) {
        return true; /* optional: domains without joints, and older plans, have none */
    }
    const int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : -1;
    if (n < 1 || n > TP_PLAN_MAX_JOINTS) {
        return jFail(&r, "joints: expected an array of 1..%d joints, got %s", TP_PLAN_MAX_JOINTS,
                     cJSON_IsArray(arr) ? "an empty or longer array" : json_type(arr));
    }
    if (!(rec->joints = calloc((size_t)n, sizeof *rec->joints))) {
        return jFail(&r, "joints: out of memory");
    }
    rec->njoints = n;
    int i = 0;
    for (const cJSON *o = arr->child; o; o = o->next, ++i) {
        if (!read_joint(&r, o, i, &rec->joints[i])) {
            return false;
        }
    }
    return true;
}
