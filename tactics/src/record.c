/* Plan recordings from a finished run, and bit-exact replay of a recording through Sim. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "domain_internal.h"
#include "tp/mathx.h"

static const char *class_name(tpBodyClass c)
{
    switch (c) {
    case TP_BODY_STATIC:
        return "static";
    case TP_BODY_PASSIVE:
        return "passive";
    case TP_BODY_ACTIVE:
        return "active";
    default:
        return "foreign";
    }
}

static const char *shape_name(tpShapeKind s)
{
    static const char *const names[] = {"box", "sphere", "cylinder", "capsule", "plane", "mesh", "compound"};
    return (s >= 0 && s <= TP_SHAPE_COMPOUND) ? names[s] : "box";
}

static char *dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) {
        memcpy(c, s, n);
    }
    return c;
}

/* A compound body's parts for the record (shapes, sizes, offsets, mesh parts' triangles) and the
 * box about its origin that holds them (what a viewer that draws no parts draws). */
static bool record_parts(const tpBodyDef *bd, tpPlanBody *pb)
{
    double lo[3], hi[3];
    tpCompound_Bounds(bd, lo, hi);
    for (int k = 0; k < 3; k++)
        pb->size[k] = 2.0 * fmax(fabs(lo[k]), fabs(hi[k]));
    memcpy(pb->mesh_origin, bd->mesh_origin, sizeof pb->mesh_origin);
    pb->parts = calloc((size_t)bd->nparts, sizeof *pb->parts);
    if (!pb->parts) {
        return false;
    }
    pb->nparts = bd->nparts;
    for (int k = 0; k < bd->nparts; k++) {
        const tpPartDef *p = &bd->parts[k];
        tpPlanPart *q = &pb->parts[k];
        snprintf(q->shape, sizeof q->shape, "%s", shape_name(p->shape));
        memcpy(q->size, p->size, sizeof q->size);
        memcpy(q->pos, p->pos, sizeof q->pos);
        memcpy(q->quat, p->quat, sizeof q->quat);
        if (p->shape == TP_SHAPE_MESH) {
            memset(q->size, 0, sizeof q->size);
            q->vertices = malloc((size_t)p->mesh.nvertices * 3 * sizeof(double));
            q->triangles = malloc((size_t)p->mesh.ntriangles * 3 * sizeof(int32_t));
            if (!q->vertices || !q->triangles) {
                return false;
            }
            memcpy(q->vertices, p->mesh.vertices, (size_t)p->mesh.nvertices * 3 * sizeof(double));
            memcpy(q->triangles, p->mesh.triangles, (size_t)p->mesh.ntriangles * 3 * sizeof(int32_t));
            q->nvertices = p->mesh.nvertices;
            q->ntriangles = p->mesh.ntriangles;
        } else if (p->shape == TP_SHAPE_SPHERE) {
            q->size[1] = q->size[2] = 0.0;
        } else if (p->shape != TP_SHAPE_BOX) {
            q->size[2] = 0.0;
        }
    }
    return true;
}

static void state_row(const tpBodyState *s, double *row)
{
    memcpy(row, s->pos, sizeof s->pos);
    memcpy(row + 3, s->quat, sizeof s->quat);
    memcpy(row + 7, s->vel, sizeof s->vel);
    memcpy(row + 10, s->angvel, sizeof s->angvel);
}

/* The temporal memory's changes along the path root..leaf (len nodes) into w->tchanges. */
static bool record_changes(const tpDomain *d, const tpTree *tree, const int32_t *path, int len, tpPlanWorld *w)
{
    int n = 0, cap = 0;
    int32_t *ch = NULL;
    int32_t *zero = calloc((size_t)d->nmem, sizeof *zero);
    if (!zero) {
        return false;
    }
    /* step 0: the root's memory against all 0 (a start state's, the embedding audit; none from the initial state) */
    for (int i = 0; i < len; ++i) {
        const int32_t *m0 = i ? tpDomain_Memory(d, tpTree_State(tree, path[i - 1])) : zero;
        const int32_t *m1 = tpDomain_Memory(d, tpTree_State(tree, path[i]));
        for (int k = 0; k < d->nmem; ++k) {
            if (m1[k] == m0[k]) {
                continue;
            }
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                int32_t *g = realloc(ch, sizeof *ch * 3 * (size_t)cap);
                if (!g) {
                    free(ch);
                    free(zero);
                    return false;
                }
                ch = g;
            }
            ch[3 * n] = i;
            ch[3 * n + 1] = k;
            ch[3 * n + 2] = m1[k];
            n++;
        }
    }
    free(zero);
    w->tchanges = ch;
    w->ntchanges = n;
    return true;
}

/* The temporal conditions of the domain (slot order) into rec->temporal. */
typedef struct TemporalFill {
    tpPlanRecord *rec;
    const tpDomain *d;
    bool ok;
} TemporalFill;

static char *dup(const char *s);

/* v (world) in the frame of a body at state b (NULL: the world): R^T (v - p) for a point, R^T v
 * for a direction. */
static void to_frame(const tpBodyState *b, const double v[3], bool point, double out[3])
{
    if (!b) {
        memcpy(out, v, 3 * sizeof *out);
        return;
    }
    double r[9];
    tpQuat_ToMatrix(b->quat, r);
    const double d[3] = {v[0] - (point ? b->pos[0] : 0), v[1] - (point ? b->pos[1] : 0),
                         v[2] - (point ? b->pos[2] : 0)};
    for (int i = 0; i < 3; i++)
        out[i] = r[i] * d[0] + r[3 + i] * d[1] + r[6 + i] * d[2];
}

/* The domain's joints for the viewers (member "joints"): anchors and axes, given in the world at
 * the bodies' initial poses, in the frames of the bodies that hold them. False when out of memory. */
static bool record_joints(const tpDomain *d, tpPlanRecord *rec)
{
    const int n = tpWorld_JointCount(d->world);
    if (n <= 0) {
        return true;
    }
    if (!(rec->joints = calloc((size_t)n, sizeof *rec->joints))) {
        return false;
    }
    rec->njoints = n;
    for (int j = 0; j < n; j++) {
        const tpJointDef *jd = tpWorld_Joint(d->world, j);
        tpPlanJoint *pj = &rec->joints[j];
        if (!(pj->name = dup(jd->name))) {
            return false;
        }
        pj->kind = (int)jd->kind;
        pj->body_a = jd->body_a;
        pj->body_b = jd->body_b;
        const tpBodyState *a = &d->initial_all[jd->body_a], *b = jd->body_b >= 0 ? &d->initial_all[jd->body_b] : NULL;
        const bool axis1 = jd->kind == TP_JOINT_HINGE || jd->kind == TP_JOINT_SLIDER ||
                           jd->kind == TP_JOINT_UNIVERSAL || jd->kind == TP_JOINT_HINGE2;
        const bool axis2 = jd->kind == TP_JOINT_UNIVERSAL || jd->kind == TP_JOINT_HINGE2;
        /* a slider and a fixed joint have no anchor of their own: b's centre (a's when b is the world) */
        double at[3];
        memcpy(at, jd->anchor, sizeof at);
        if (jd->kind == TP_JOINT_SLIDER || jd->kind == TP_JOINT_FIXED) {
            memcpy(at, (b ? b : a)->pos, sizeof at);
        }
        to_frame(a, at, true, pj->anchor);
        to_frame(b, jd->kind == TP_JOINT_DISTANCE ? jd->anchor2 : at, true, pj->anchor2);
        if (axis1) {
            to_frame(a, jd->axis, false, pj->axis);
        }
        if (axis2) {
            to_frame(b, jd->axis2, false, pj->axis2);
        }
    }
    return true;
}

static void fill_temporal(void *user, const tpCond *c)
{
    TemporalFill *f = user;
    static const char *const kinds[] = {"sequence", "ever", "never", "within_time", "at_time"};
    TP_ASSERT(c->mem >= 0 && c->mem < f->rec->ntemporal);
    tpPlanTemporal *t = &f->rec->temporal[c->mem];
    char name[200];
    tpStateView v = {f->d->world, NULL, 0.0, NULL};
    tpCond_Name(c, &v, name, sizeof name);
    t->name = dup(name);
    t->kind = dup(kinds[c->kind - TP_COND_SEQUENCE]);
    t->size = c->kind == TP_COND_SEQUENCE ? c->nchildren : c->kind == TP_COND_AT_TIME ? 2 : 1;
    f->ok = f->ok && t->name && t->kind;
}

static bool fill_world(const tpDomain *d, const tpTree *tree, int32_t leaf, double cost, tpPlanRecord *rec,
                       tpPlanWorld *w)
{
    int len = tpTree_Path(tree, leaf, NULL, 0);
    int32_t *path = malloc(sizeof *path * (size_t)len);
    if (!path) {
        return false;
    }
    tpTree_Path(tree, leaf, path, len);
    int nsteps = len - 1;
    if (!tpPlanWorld_Alloc(w, rec, nsteps)) {
        free(path);
        return false;
    }
    w->cost = cost;
    w->rest = calloc((size_t)len * (size_t)d->nbodies + 1, 1);
    const size_t tb = tpDomain_TacticBytes(d); /* the tactics' part of every state, in memory only */
    w->tactics = malloc((size_t)len * tb + 1);
    if (!w->rest || !w->tactics) {
        free(path);
        return false;
    }
    rec->tactic_bytes = tb;
    for (int i = 0; i < len; ++i) {
        const void *x = tpTree_State(tree, path[i]);
        memcpy(w->tactics + (size_t)i * tb, tpState_TacticsPart(d, x), tb);
        for (int k = 0; k < d->nstate; ++k) {
            w->rest[(size_t)i * (size_t)d->nbodies + (size_t)tpWorld_StateBody(d->world, k)] =
                ((const uint8_t *)x)[d->off_rest + (size_t)k];
        }
        for (int b = 0; b < d->nbodies; ++b) {
            if (w->traj[b]) {
                tpBodyState s;
                tpWorld_BodyState(d->world, tpState_Bodies(x), tpState_Time(x), b, &s);
                state_row(&s, w->traj[b] + (size_t)i * TP_STATE_DOUBLES);
            }
        }
        if (i == 0) {
            continue;
        }
        const double *a = d->act_full;
        tpDomain_ExpandAction(d, tpTree_Action(tree, path[i]), d->act_full);
        for (int b = 0; b < d->nbodies; ++b) {
            int slot = tpWorld_ControlSlot(d->world, b);
            if (slot >= 0 && w->controls[b]) {
                memcpy(w->controls[b] + (size_t)(i - 1) * TP_CONTROL_DOUBLES, a + 6 * slot,
                       sizeof(double) * TP_CONTROL_DOUBLES);
            }
        }
        for (int m = 0; m < d->nmotor; ++m) {
            w->targets[(size_t)(i - 1) * (size_t)d->nmotor + (size_t)m] = a[6 * d->ncontrol + m];
        }
        for (int t = 0; t < d->ntactics; ++t) {
            w->active[t][i - 1] = tpState_Tactic(d, x, t)->sigma;
        }
    }
    bool ok = d->nmem == 0 || record_changes(d, tree, path, len, w);
    free(path);
    return ok;
}

/* rec->goal_unmet: the goal's false node at `node`, described. The node's step is simulated again
 * from its parent (Sim is pure: the same state) so that tp.touching reads that step's contacts. */
static bool describe_unmet(const tpDomain *dc, const tpTree *tree, int32_t node, tpPlanRecord *rec)
{
    tpDomain *d = (tpDomain *)dc;
    const void *x = tpTree_State(tree, node);
    void *again = NULL;
    const int32_t parent = tpTree_Node(tree, node)->parent;
    if (parent >= 0) {
        tpProblem p = tpDomain_Problem(d);
        if (!(again = malloc(d->state_bytes))) {
            return false;
        }
        memcpy(again, x, d->state_bytes);
        if (p.simulate(p.ctx, tpTree_State(tree, parent), tpTree_Action(tree, node), again) == TP_CB_TRUE &&
            memcmp(again, x, d->state_bytes) == 0) {
            x = again;
        }
    }
    tpStateView v = tpDomain_View(d, x);
    const tpCond *blame = NULL;
    char line[600];
    bool ok = true;
    if (tpCond_EvalBlame(d->def.goal, &v, d->initial_all, &blame) == 0 && blame) {
        tpCond_Describe(blame, &v, d->initial_all, line, sizeof line);
        ok = (rec->goal_unmet = dup(line)) != NULL;
    }
    free(again);
    return ok;
}

bool tpDomain_Record(const tpDomain *d, const tpTree *tree, const tpPlanResult *result, const tpPlannerDef *planner,
                     tpPlanRecord *rec, char *err, size_t errlen)
{
    TP_ASSERT(d && tree && result && planner && rec);
    memset(rec, 0, sizeof *rec);
    rec->domain_name = dup(d->def.name);
    rec->seed = planner->seed;
    rec->planner = dup(planner->kind == TP_PLANNER_RRT ? "rrt" : "bgt");
    rec->mu = planner->mu;
    rec->max_iters = planner->max_iters;
    rec->time_limit = planner->time_limit;
    rec->solutions_requested = planner->solutions;
    rec->status = dup(result->status == TP_PLAN_SOLVED ? "solved" : "approximate");
    rec->dt = d->def.scene.dt;
    rec->max_static_penetration = d->def.scene.max_static_penetration;
    rec->max_body_penetration = d->def.scene.max_body_penetration;
    rec->view = d->def.view;
    if (d->has_start) { /* the first rows of the trajectories hold its states */
        rec->has_start = true;
        rec->start_time = d->start_t;
        rec->start_rest = calloc((size_t)d->nbodies + 1, 1);
        if (!rec->start_rest) {
            goto oom;
        }
        for (int k = 0; k < d->nstate; ++k) {
            rec->start_rest[tpWorld_StateBody(d->world, k)] = d->start_rest[k];
        }
    }
    rec->nbodies = d->nbodies;
    rec->bodies = calloc((size_t)d->nbodies, sizeof *rec->bodies);
    rec->ntactics = d->ntactics;
    rec->tactics = calloc((size_t)(d->ntactics > 0 ? d->ntactics : 1), sizeof *rec->tactics);
    if (!rec->domain_name || !rec->planner || !rec->status || !rec->bodies || !rec->tactics) {
        goto oom;
    }
    for (int b = 0; b < d->nbodies; ++b) {
        const tpBodyDef *bd = tpWorld_Body(d->world, b);
        tpPlanBody *pb = &rec->bodies[b];
        pb->name = dup(bd->name);
        pb->cls = dup(class_name(bd->cls));
        pb->shape = dup(shape_name(bd->shape));
        if (!pb->name || !pb->cls || !pb->shape) {
            goto oom;
        }
        if (bd->shape == TP_SHAPE_PLANE) {
            memcpy(pb->size, bd->plane, sizeof pb->size);
        } else if (bd->shape == TP_SHAPE_MESH) {
            /* the box about the body's origin that holds the mesh: what viewers draw for it */
            double lo[3], hi[3];
            tpMesh_Bounds(&bd->mesh, lo, hi);
            for (int k = 0; k < 3; k++)
                pb->size[k] = 2.0 * fmax(fabs(lo[k]), fabs(hi[k]));
            /* the triangles themselves, for exporters to write the artist's object back */
            const tpMeshView *mv = &bd->mesh;
            pb->mesh_vertices = malloc((size_t)mv->nvertices * 3 * sizeof(double));
            pb->mesh_triangles = malloc((size_t)mv->ntriangles * 3 * sizeof(int32_t));
            if (!pb->mesh_vertices || !pb->mesh_triangles) {
                goto oom;
            }
            memcpy(pb->mesh_vertices, mv->vertices, (size_t)mv->nvertices * 3 * sizeof(double));
            memcpy(pb->mesh_triangles, mv->triangles, (size_t)mv->ntriangles * 3 * sizeof(int32_t));
            pb->mesh_nvertices = mv->nvertices;
            pb->mesh_ntriangles = mv->ntriangles;
            memcpy(pb->mesh_origin, bd->mesh_origin, sizeof pb->mesh_origin);
        } else if (bd->shape == TP_SHAPE_COMPOUND) {
            if (!record_parts(bd, pb)) {
                goto oom;
            }
        } else {
            memcpy(pb->size, bd->size, sizeof bd->size);
        }
        memcpy(pb->color, bd->color, sizeof pb->color);
        pb->moving = bd->cls != TP_BODY_STATIC;
        pb->controlled = tpWorld_ControlSlot(d->world, b) >= 0;
        state_row(&d->initial_all[b], pb->pose);
    }
    { /* where the goal is, for viewers (they never load the script) */
        tpPlanGoalRegion *regions = malloc(sizeof *regions * TP_PLAN_MAX_GOAL_REGIONS);
        if (!regions) {
            goto oom;
        }
        int n = tpCond_GoalRegions(d->def.goal, d->nbodies, regions, TP_PLAN_MAX_GOAL_REGIONS);
        if (n == 0) {
            free(regions);
        } else { /* shrunk to fit (a failed shrink keeps the block) */
            tpPlanGoalRegion *fit = realloc(regions, sizeof *regions * (size_t)n);
            rec->goal_regions = fit ? fit : regions;
            rec->ngoal_regions = n;
        }
    }
    if (!record_joints(d, rec)) {
        goto oom;
    }
    if (d->nmotor > 0) { /* the driven motors, in the action's order */
        rec->motors = calloc((size_t)d->nmotor, sizeof *rec->motors);
        if (!rec->motors) {
            goto oom;
        }
        rec->nmotors = d->nmotor;
        for (int m = 0; m < d->nmotor; ++m) {
            const int j = tpWorld_MotorJoint(d->world, m, &rec->motors[m].axis);
            if (!(rec->motors[m].joint = dup(tpWorld_Joint(d->world, j)->name))) {
                goto oom;
            }
        }
    }
    for (int t = 0; t < d->ntactics; ++t) {
        const tpTacticDef *td = &d->tactics[t];
        tpPlanTactic *pt = &rec->tactics[t];
        pt->name = dup(td->name);
        pt->body = dup(td->body >= 0 ? tpWorld_Body(d->world, td->body)->name : "");
        pt->skills = calloc((size_t)td->nskills, sizeof *pt->skills);
        if (!pt->name || !pt->body || !pt->skills) {
            goto oom;
        }
        pt->nskills = td->nskills;
        for (int s = 0; s < td->nskills; ++s) {
            if (!(pt->skills[s] = dup(td->skills[s].name))) {
                goto oom;
            }
        }
    }
    if (result->status == TP_PLAN_SOLVED && result->nsolutions > 0) {
        rec->nworlds = result->nsolutions;
        rec->worlds = calloc((size_t)rec->nworlds, sizeof *rec->worlds);
        if (!rec->worlds) {
            goto oom;
        }
        for (int i = 0; i < result->nsolutions; ++i) {
            if (!fill_world(d, tree, result->solutions[i], result->costs[i], rec, &rec->worlds[i])) {
                goto oom;
            }
        }
        rec->selected = result->best_solution;
    } else {
        rec->nworlds = 1;
        rec->worlds = calloc(1, sizeof *rec->worlds);
        tpProblem p = tpDomain_Problem((tpDomain *)d);
        double q = p.quality(p.ctx, tpTree_State(tree, result->best));
        if (!rec->worlds || !fill_world(d, tree, result->best, q, rec, &rec->worlds[0])) {
            goto oom;
        }
        rec->selected = 0;
    }
    if (d->nmem > 0) {
        rec->temporal = calloc((size_t)d->nmem, sizeof *rec->temporal);
        if (!rec->temporal) {
            goto oom;
        }
        rec->ntemporal = d->nmem;
        TemporalFill tf = {rec, d, true};
        tpCond_EachTemporal(d->def.goal, fill_temporal, &tf);
        tpCond_EachTemporal(d->def.valid, fill_temporal, &tf);
        if (!tf.ok) {
            goto oom;
        }
    }
    if (result->status != TP_PLAN_SOLVED && result->best >= 0) { /* what the best node's goal misses */
        if (!describe_unmet(d, tree, result->best, rec)) {
            goto oom;
        }
    }
    rec->iterations = result->stats.iterations;
    rec->nodes = result->stats.nodes;
    rec->rejected = result->stats.rejected;
    memcpy(rec->rejections, result->stats.reject, sizeof rec->rejections);
    rec->nsolutions = result->stats.solutions;
    rec->memory_bytes = (int64_t)tpTree_MemoryBytes(tree);
    if (d->def.nreports > 0 && result->best >= 0) {
        double values[TP_MAX_REPORTS];
        if (!tpDomain_Reports((tpDomain *)d, tree, result->best, values)) {
            tpErrorf(err, errlen, "report: %s", tpDomain_Error(d));
            return false;
        }
        rec->nreports = d->def.nreports < TP_PLAN_MAX_REPORTS ? d->def.nreports : TP_PLAN_MAX_REPORTS;
        for (int i = 0; i < rec->nreports; ++i) {
            tpStrCopy(rec->report_names[i], sizeof rec->report_names[i], d->def.reports[i].name);
            rec->report_values[i] = values[i];
        }
    }
    if (d->nwarnings > 0) { /* the domain's warnings travel with its plans (stats.warnings) */
        const int n = d->nwarnings < TP_PLAN_MAX_WARNINGS ? d->nwarnings : TP_PLAN_MAX_WARNINGS;
        rec->warnings = calloc((size_t)n, sizeof *rec->warnings);
        if (!rec->warnings) {
            goto oom;
        }
        for (int i = 0; i < n; ++i) {
            if (!(rec->warnings[i] = dup(d->warnings[i]))) {
                goto oom;
            }
            rec->nwarnings = i + 1;
        }
    }
    {
        int32_t leaf = result->status == TP_PLAN_SOLVED && result->nsolutions > 0
                           ? result->solutions[result->best_solution]
                           : result->best;
        if (!tpDomain_RecordOverlays(d, tree, leaf, rec, err, errlen)) {
            return false;
        }
    }
    rec->t_select = result->stats.t_select;
    rec->t_tactics = result->stats.t_tactics;
    rec->t_physics = result->stats.t_physics;
    rec->t_check = result->stats.t_check;
    rec->t_total = result->stats.t_total;
    rec->nodes_first = result->stats.nodes_first > 0 ? result->stats.nodes_first : 0;
    rec->t_first = result->stats.t_first;
    return true;
oom:
    tpErrorf(err, errlen, "out of memory while recording the plan");
    return false;
}

static void row_state(const double *row, tpBodyState *s)
{
    memcpy(s->pos, row, sizeof s->pos);
    memcpy(s->quat, row + 3, sizeof s->quat);
    memcpy(s->vel, row + 7, sizeof s->vel);
    memcpy(s->angvel, row + 10, sizeof s->angvel);
}

static const char *const k_fields[TP_STATE_DOUBLES] = {"pos.x",    "pos.y",    "pos.z",   "quat.w", "quat.x",
                                                       "quat.y",   "quat.z",   "vel.x",   "vel.y",  "vel.z",
                                                       "angvel.x", "angvel.y", "angvel.z"};

/* The first of the state's doubles that differs from a recorded row in any bit (-1: none); its
 * values in mine. */
static int first_difference(const tpBodyState *s, const double *row, double mine[TP_STATE_DOUBLES])
{
    state_row(s, mine);
    for (int k = 0; k < TP_STATE_DOUBLES; ++k) {
        if (memcmp(&mine[k], &row[k], sizeof(double)) != 0) {
            return k;
        }
    }
    return -1;
}

/* Compares a replayed state with a recorded row bit for bit; describes the first difference and
 * its possible causes: a user who changed nothing but the compiler or its flags gets here too. */
static bool same_row(const tpBodyState *s, const double *row, const char *body, int step, char *err, size_t errlen)
{
    double mine[TP_STATE_DOUBLES];
    int k = first_difference(s, row, mine);
    if (k >= 0) {
        tpErrorf(err, errlen,
                 "step %d: body '%s' %s differs: recorded %.17g, replayed %.17g (was the domain changed, or "
                 "the plan made by a different build (compiler or flags)?)",
                 step, body, k_fields[k], row[k], mine[k]);
        return false;
    }
    return true;
}

/* What a replay hands back: the state after its last step (tpDomain_ReplayTo). */
typedef struct tpReplayOut {
    int upto;       /* steps to replay (the world's nsteps for a whole replay) */
    tpBodyState *x; /* NULL, or nstate states */
    uint8_t *rest;  /* NULL, or nstate rest counts */
    double t;       /* s */
    int32_t *mem;   /* NULL, or the domain's nmem temporal memory slots */
} tpReplayOut;

static tpReplayStatus replay(tpDomain *d, const tpPlanRecord *rec, int w, tpStepObserver observe, void *user, int *step,
                             tpReplayOut *out, char *err, size_t errlen);

tpReplayStatus tpDomain_Replay(tpDomain *d, const tpPlanRecord *rec, int w, int *step, char *err, size_t errlen)
{
    return tpDomain_ReplayObserved(d, rec, w, NULL, NULL, step, err, errlen);
}

tpReplayStatus tpDomain_ReplayObserved(tpDomain *d, const tpPlanRecord *rec, int w, tpStepObserver observe, void *user,
                                       int *step, char *err, size_t errlen)
{
    return replay(d, rec, w, observe, user, step, NULL, err, errlen);
}

tpReplayStatus tpDomain_ReplayTo(tpDomain *d, const tpPlanRecord *rec, int w, int upto, tpBodyState *x, uint8_t *rest,
                                 double *t, char *err, size_t errlen)
{
    tpReplayOut out = {upto, x, rest, 0.0, NULL};
    tpReplayStatus r = replay(d, rec, w, NULL, NULL, NULL, &out, err, errlen);
    *t = out.t;
    return r;
}

tpReplayStatus tpDomain_ReplayGoal(tpDomain *d, const tpPlanRecord *rec, int w, int *goal, int *step, char *err,
                                   size_t errlen)
{
    *goal = -1;
    if (w < 0 || w >= rec->nworlds) {
        tpErrorf(err, errlen, "no world %d in the recording (it has %d)", w, rec->nworlds);
        return TP_REPLAY_MISFIT;
    }
    const int ns = d->nstate > 0 ? d->nstate : 1;
    tpBodyState *x = calloc((size_t)ns, sizeof *x);
    int32_t *mem = calloc((size_t)d->nmem + 1, sizeof *mem);
    if (!x || !mem) {
        free(x);
        free(mem);
        tpErrorf(err, errlen, "out of memory");
        return TP_REPLAY_MISFIT;
    }
    tpReplayOut out = {rec->worlds[w].nsteps, x, NULL, 0.0, mem};
    tpReplayStatus r = replay(d, rec, w, NULL, NULL, step, &out, err, errlen);
    if (r == TP_REPLAY_MATCH) { /* the world as the last step left it: its contacts, the memory */
        *goal = tpDomain_GoalHoldsWith(d, x, d->nmem > 0 ? mem : NULL, out.t);
    }
    free(x);
    free(mem);
    return r;
}

/* The replay's temporal memory against the recorded changes (w->tchanges, applied to expect up to
 * step `step`, *next the next change): false with the first difference in err. */
static bool same_memory(const tpDomain *d, const tpPlanRecord *rec, const tpPlanWorld *pw, int step, const int32_t *mem,
                        int32_t *expect, int *next, char *err, size_t errlen)
{
    while (*next < pw->ntchanges && pw->tchanges[3 * *next] <= step) {
        const int32_t *c = pw->tchanges + 3 * *next;
        expect[c[1]] = c[2];
        ++*next;
    }
    for (int k = 0; k < d->nmem; ++k) {
        if (mem[k] != expect[k]) {
            tpErrorf(err, errlen,
                     "step %d: temporal condition %s (%s) memory differs: recorded %d, replayed %d (was the domain "
                     "changed?)",
                     step, rec->temporal[k].name, rec->temporal[k].kind, expect[k], mem[k]);
            return false;
        }
    }
    return true;
}

/* The recorded start state (rec->has_start) into x, rest and *t, checked like any start and made
 * the domain's (tp.moved and the goal compare with it, as when the plan was made). */
static bool replay_start(tpDomain *d, const tpPlanRecord *rec, const tpPlanWorld *pw, tpBodyState *x, uint8_t *rest,
                         double *t, char *err, size_t errlen)
{
    for (int k = 0; k < d->nstate; ++k) {
        int b = tpWorld_StateBody(d->world, k);
        row_state(pw->traj[b], &x[k]);
        rest[k] = rec->start_rest[b];
    }
    *t = rec->start_time;
    char msg[512];
    if (!tpDomain_CheckState(d, x, rest, *t, NULL, 0, msg, sizeof msg)) {
        tpErrorf(err, errlen, "the plan's start state does not fit the domain: %s", msg);
        return false;
    }
    if (!tpDomain_SetStart(d, x, rest, *t)) {
        tpErrorf(err, errlen, "out of memory");
        return false;
    }
    return true;
}

static tpReplayStatus replay(tpDomain *d, const tpPlanRecord *rec, int w, tpStepObserver observe, void *user, int *step,
                             tpReplayOut *out, char *err, size_t errlen)
{
    int dummy;
    step = step ? step : &dummy;
    *step = 0;
    if (w < 0 || w >= rec->nworlds) {
        tpErrorf(err, errlen, "no world %d in the recording (it has %d)", w, rec->nworlds);
        return TP_REPLAY_MISFIT;
    }
    if (rec->nbodies != d->nbodies) {
        tpErrorf(err, errlen, "the recording has %d bodies, the domain %d", rec->nbodies, d->nbodies);
        return TP_REPLAY_MISFIT;
    }
    for (int b = 0; b < d->nbodies; ++b) {
        const tpPlanBody *pb = &rec->bodies[b];
        bool moving = tpWorld_Body(d->world, b)->cls != TP_BODY_STATIC;
        bool controlled = tpWorld_ControlSlot(d->world, b) >= 0;
        if (strcmp(pb->name, tpWorld_Body(d->world, b)->name) != 0 || pb->moving != moving ||
            pb->controlled != controlled) {
            tpErrorf(err, errlen, "body %d: the recording has '%s', the domain '%s' (or its class differs)", b,
                     pb->name, tpWorld_Body(d->world, b)->name);
            return TP_REPLAY_MISFIT;
        }
    }
    if (rec->nmotors != d->nmotor) {
        tpErrorf(err, errlen, "the recording has %d driven motors, the domain %d", rec->nmotors, d->nmotor);
        return TP_REPLAY_MISFIT;
    }
    for (int m = 0; m < d->nmotor; ++m) {
        int axis = 0;
        const tpJointDef *jd = tpWorld_Joint(d->world, tpWorld_MotorJoint(d->world, m, &axis));
        if (strcmp(rec->motors[m].joint, jd->name) != 0 || rec->motors[m].axis != axis) {
            tpErrorf(err, errlen, "motor %d: the recording drives joint '%s' axis %d, the domain '%s' axis %d", m,
                     rec->motors[m].joint, rec->motors[m].axis + 1, jd->name, axis + 1);
            return TP_REPLAY_MISFIT;
        }
    }
    if (memcmp(&rec->dt, &d->def.scene.dt, sizeof(double)) != 0) {
        tpErrorf(err, errlen, "dt differs: recording %.17g, domain %.17g", rec->dt, d->def.scene.dt);
        return TP_REPLAY_MISFIT;
    }
    const tpPlanWorld *pw = &rec->worlds[w];
    int ns = d->nstate > 0 ? d->nstate : 1;
    tpBodyState *x = calloc((size_t)ns, sizeof *x);
    double *action = calloc((size_t)tpWorld_ActionCount(d->world) + 1, sizeof *action);
    uint8_t *rest = calloc((size_t)ns, 1); /* the bodies' rest counts: 0 at the start, as the planner's root */
    if (!x || !action || !rest) {
        free(x);
        free(action);
        free(rest);
        tpErrorf(err, errlen, "out of memory");
        return TP_REPLAY_MISFIT;
    }
    tpReplayStatus result = TP_REPLAY_MATCH;
    double t = 0.0;
    const int nsteps = out && out->upto < pw->nsteps ? out->upto : pw->nsteps;
    /* the temporal conditions' memory, observed after every step as the planner did, and what the
       plan recorded of it (checked when the plan has the member "temporal") */
    int32_t *mem = calloc((size_t)d->nmem + 1, sizeof *mem), *expect = calloc((size_t)d->nmem + 1, sizeof *expect);
    int next_change = 0;
    const bool check_mem = rec->ntemporal > 0;
    if (!mem || !expect) {
        tpErrorf(err, errlen, "out of memory");
        result = TP_REPLAY_MISFIT;
        goto done;
    }
    if (check_mem && rec->ntemporal != d->nmem) {
        tpErrorf(err, errlen, "the recording has %d temporal conditions, the domain %d", rec->ntemporal, d->nmem);
        result = TP_REPLAY_MISFIT;
        goto done;
    }
    if (out && !(out->upto >= 0 && out->upto <= pw->nsteps)) {
        tpErrorf(err, errlen, "no step %d in world %d (it has steps 0..%d)", out->upto, w, pw->nsteps);
        result = TP_REPLAY_MISFIT;
        goto done;
    }
    if (rec->has_start && !replay_start(d, rec, pw, x, rest, &t, err, errlen)) {
        result = TP_REPLAY_MISFIT;
        goto done;
    }
    for (int b = 0; rec->has_start && b < d->nbodies; ++b) { /* the scripted bodies at the start time */
        double mine[TP_STATE_DOUBLES];
        int f = pw->traj[b] ? first_difference(&d->initial_all[b], pw->traj[b], mine) : -1;
        if (f >= 0) {
            tpErrorf(err, errlen,
                     "the recorded start state of body '%s' is not the domain's at t = %.17g s (%s: recorded %.17g, "
                     "domain %.17g)",
                     rec->bodies[b].name, t, k_fields[f], pw->traj[b][f], mine[f]);
            result = TP_REPLAY_MISFIT;
            goto done;
        }
    }
    for (int k = 0; !rec->has_start && k < d->nstate; ++k) {
        int b = tpWorld_StateBody(d->world, k);
        row_state(pw->traj[b], &x[k]);
        double mine[TP_STATE_DOUBLES];
        int f = first_difference(&d->initial_all[b], pw->traj[b], mine);
        if (f >= 0) {
            /* The script computes the initial state in this build's arithmetic, so this is also what
             * a plan made by another build whose arithmetic differs meets first (dice). */
            tpErrorf(err, errlen,
                     "the recorded initial state of body '%s' is not the domain's (%s: recorded %.17g, domain "
                     "%.17g): was the domain changed, run with other set values, or the plan made by a "
                     "different build (compiler or flags)?",
                     rec->bodies[b].name, k_fields[f], pw->traj[b][f], mine[f]);
            result = TP_REPLAY_MISFIT;
            goto done;
        }
    }
    if (check_mem) { /* the memory the plan started from: its step-0 changes (a start state's) */
        same_memory(d, rec, pw, 0, expect, expect, &next_change, err, errlen);
        memcpy(mem, expect, sizeof *mem * (size_t)d->nmem);
    }
    for (int i = 0; i < nsteps; ++i) {
        for (int k = 0; k < d->ncontrol; ++k) {
            int b = tpWorld_ControlBody(d->world, k);
            memcpy(action + 6 * k, pw->controls[b] + (size_t)i * TP_CONTROL_DOUBLES, sizeof(double) * 6);
        }
        if (d->nmotor > 0) {
            memcpy(action + 6 * d->ncontrol, pw->targets + (size_t)i * (size_t)d->nmotor,
                   sizeof(double) * (size_t)d->nmotor);
        }
        if (!tpDomain_Step(d, x, rest, &t, action)) {
            if (tpWorld_FatalError(d->world)[0]) {
                tpErrorf(err, errlen, "%s", tpWorld_FatalError(d->world));
                result = TP_REPLAY_MISFIT;
                goto done;
            }
            /* never a physical state: the plan was edited or its controls are out of range */
            tpErrorf(err, errlen,
                     "step %d: the controls are out of range, the simulation left the physical "
                     "ranges (|force| <= %g, |pos| <= %g m, |vel| <= %g m/s) or a body sank %g m into "
                     "static geometry (max_static_penetration %g m)",
                     i + 1, TP_MAX_FORCE, TP_MAX_COORD, TP_MAX_SPEED, tpWorld_StaticDepth(d->world),
                     d->def.scene.max_static_penetration);
            result = TP_REPLAY_MISMATCH;
            *step = i + 1;
            goto done;
        }
        if (d->nmem > 0 && tpDomain_Observe(d, x, t, mem) < 0) {
            tpErrorf(err, errlen, "step %d: a temporal condition failed: %s", i + 1, tpDomain_Error(d));
            result = TP_REPLAY_MISFIT;
            goto done;
        }
        if (check_mem && !same_memory(d, rec, pw, i + 1, mem, expect, &next_change, err, errlen)) {
            result = TP_REPLAY_MISMATCH;
            *step = i + 1;
            goto done;
        }
        if (observe) {
            observe(user, i + 1, d->world);
        }
        for (int b = 0; b < d->nbodies; ++b) {
            if (!pw->traj[b]) {
                continue;
            }
            tpBodyState s;
            tpWorld_BodyState(d->world, x, t, b, &s);
            if (!same_row(&s, pw->traj[b] + (size_t)(i + 1) * TP_STATE_DOUBLES, rec->bodies[b].name, i + 1, err,
                          errlen)) {
                result = TP_REPLAY_MISMATCH;
                *step = i + 1;
                goto done;
            }
        }
    }
    if (out) {
        if (out->x) {
            memcpy(out->x, x, sizeof *x * (size_t)d->nstate);
        }
        if (out->rest) {
            memcpy(out->rest, rest, (size_t)d->nstate);
        }
        out->t = t;
        if (out->mem && d->nmem > 0) {
            memcpy(out->mem, mem, sizeof *mem * (size_t)d->nmem);
        }
    }
done:
    free(x);
    free(action);
    free(rest);
    free(mem);
    free(expect);
    return result;
}
