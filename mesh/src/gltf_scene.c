/* glTF scenes: the node tree of the default scene, the physics extensions (OMI_physics_body +
 * OMI_physics_shape, KHR_physics_rigid_bodies + KHR_implicit_shapes, extras) and the bodies they
 * make. Nothing is dropped silently: every node, extension and property tplan does not use is
 * named in the scene's warnings. docs/lua-api.md (tp.scene) is the user's side of this file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_internal.h"
#include "tp/base.h"
#include "tp/util.h"

#define FAIL TP_GLTF_FAIL
#define STR_(x) #x
#define STR(x) STR_(x)

enum {
    W_UNUSED,
    W_COM,
    W_INERTIA,
    W_GRAVITY,
    W_MATERIAL,
    W_FILTER,
    W_TRIGGER_MOVING,
    W_NO_COLLIDER,
    W_SHAPE,
    W_SCALE,
    W_COMPOUND,
    W_TRIMESH,
    W_HULL,
    W_RENAMED,
    W_KINEMATIC,
    W_COUNT
};

static const char *const k_heads[W_COUNT] = {
    [W_UNUSED] = "nodes not used (no mesh, collider or trigger tplan reads)",
    [W_COM] = "motion.centerOfMass not used (tplan puts the centre of mass at the shape's centroid)",
    [W_INERTIA] = ("motion.inertiaDiagonal/inertiaOrientation not used (tplan computes the inertia of the shape "
                   "with uniform density)"), /* parenthesised: one string (clang -Wstring-concatenation) */
    [W_GRAVITY] = "motion.gravityFactor not used (tplan's gravity is the scene's, the same for every body)",
    [W_MATERIAL] = "physics materials not used (name a tplan material with extras.material)",
    [W_FILTER] = "collision filters not used (every pair of bodies collides)",
    [W_TRIGGER_MOVING] = "triggers on moving bodies not loaded (a tplan marker is static)",
    [W_NO_COLLIDER] = "bodies without a collider or a mesh, not loaded",
    [W_SHAPE] = "colliders tplan cannot build, skipped",
    [W_SCALE] = "round shapes under a non-uniform scale (the largest radius is taken)",
    [W_COMPOUND] = "moving bodies of several colliders are compound bodies, one part per collider",
    [W_TRIMESH] = "moving trimesh colliders collide as their convex hull",
    [W_HULL] = "moving meshes collide as the hull of at most " STR(TP_MESH_HULL_MAX_VERTICES) " of their vertices",
    [W_RENAMED] = "nodes with a name already taken, renamed",
    [W_KINEMATIC] = "kinematic bodies with both linearVelocity and angularVelocity move linearly only",
};

/* ------------------------------------------------------------------------------------------ */
/* The physics of one node                                                                     */

typedef struct tpShapeSpec {
    tpGltfShape kind;
    double box[3];             /* glTF local axes (m) */
    double radius, rtop, rbot; /* sphere; capsule, cylinder (m) */
    double height;             /* capsule: between the caps' centres; cylinder: full (m) */
    long mesh;                 /* TP_GLTF_SHAPE_MESH: glTF mesh index */
    bool convex;               /* the mesh's hull */
    bool finite_plane;
} tpShapeSpec;

typedef struct tpPhys {
    bool khr;        /* KHR_physics_rigid_bodies (else OMI_physics_body, or nothing) */
    bool motion;     /* a body node */
    tpGltfClass cls; /* of the motion */
    double mass;     /* kg, 0 = not given */
    double vel[3], angvel[3];
    bool has_collider, has_trigger, trigger_compound;
    tpShapeSpec coll, trig;
    bool collider_bad, trigger_bad; /* a collider or trigger tplan cannot build (warned) */
    bool trigger_body;              /* OMI drafts: a body of type "trigger" (its colliders are triggers) */
} tpPhys;

static const cJSON *ext_of(const cJSON *node, const char *name)
{
    const cJSON *ext = cJSON_GetObjectItemCaseSensitive(node, "extensions");
    return ext ? cJSON_GetObjectItemCaseSensitive(ext, name) : NULL;
}

static bool opt_number(tpGltf *g, const cJSON *o, const char *key, double def, double lo, const char *where,
                       double *out)
{
    const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    if (!v) {
        *out = def;
        return true;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || !(v->valuedouble >= lo) || fabs(v->valuedouble) > 1e6)
        FAIL(g, "%s.%s: expected a number >= %g", where, key, lo);
    *out = v->valuedouble;
    return true;
}

/* A shape object (OMI_physics_shape.shapes[i] or KHR_implicit_shapes.shapes[i]) into *sp. False on
 * a malformed value (an error); *bad when the type is one tplan cannot build (a warning). */
static bool parse_shape(tpGltf *g, const cJSON *shape, bool khr, const char *where, tpShapeSpec *sp, bool *bad)
{
    memset(sp, 0, sizeof *sp);
    sp->mesh = -1;
    *bad = false;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(shape, "type");
    if (!cJSON_IsString(type))
        FAIL(g, "%s: a shape needs a type", where);
    const char *t = type->valuestring;
    const cJSON *sub = cJSON_GetObjectItemCaseSensitive(shape, t);
    /* the two specifications' defaults differ (OMI: radius 0.5, capsule 1, cylinder 2; KHR:
       capsule and cylinder radius 0.25, height 0.5) */
    const double rdef = khr && strcmp(t, "sphere") != 0 ? 0.25 : 0.5;
    if (strcmp(t, "box") == 0) {
        sp->kind = TP_GLTF_SHAPE_BOX;
        sp->box[0] = sp->box[1] = sp->box[2] = 1;
        const cJSON *sz = sub ? cJSON_GetObjectItemCaseSensitive(sub, "size") : NULL;
        if (sz && (!tpGltfI_Numbers(sz, 3, sp->box) || !(sp->box[0] > 0 && sp->box[1] > 0 && sp->box[2] > 0)))
            FAIL(g, "%s.box.size: expected 3 numbers > 0", where);
    } else if (strcmp(t, "sphere") == 0) {
        sp->kind = TP_GLTF_SHAPE_SPHERE;
        if (!opt_number(g, sub, "radius", 0.5, 0, where, &sp->radius))
            return false;
        if (!(sp->radius > 0))
            FAIL(g, "%s.sphere.radius must be > 0", where);
    } else if (strcmp(t, "capsule") == 0 || strcmp(t, "cylinder") == 0) {
        const bool cap = t[1] == 'a';
        sp->kind = cap ? TP_GLTF_SHAPE_CAPSULE : TP_GLTF_SHAPE_CYLINDER;
        const double hdef = khr ? 0.5 : cap ? 1.0 : 2.0;
        if (!opt_number(g, sub, "height", hdef, 0, where, &sp->height) ||
            !opt_number(g, sub, "radiusTop", rdef, 0, where, &sp->rtop) ||
            !opt_number(g, sub, "radiusBottom", rdef, 0, where, &sp->rbot))
            return false;
        if (sub && cJSON_GetObjectItemCaseSensitive(sub, "radius")) { /* older OMI drafts: one radius */
            if (!opt_number(g, sub, "radius", rdef, 0, where, &sp->rtop))
                return false;
            sp->rbot = sp->rtop;
        }
        if (!(sp->rtop > 0 || sp->rbot > 0) || (!cap && !(sp->height > 0)))
            FAIL(g, "%s.%s: needs a radius > 0%s", where, t, cap ? "" : " and a height > 0");
    } else if (!khr && (strcmp(t, "convex") == 0 || strcmp(t, "trimesh") == 0)) {
        sp->kind = TP_GLTF_SHAPE_MESH;
        sp->convex = t[0] == 'c';
        long m;
        if (!sub || !tpGltfI_Int(g, sub, "mesh", -1, 1L << 30, &m, where) || m < 0)
            FAIL(g, "%s.%s.mesh: expected the index of a mesh", where, t);
        if (!tpGltfI_Item(g->root, "meshes", m))
            FAIL(g, "%s.%s.mesh: mesh %ld does not exist", where, t, m);
        sp->mesh = m;
    } else if (khr && strcmp(t, "plane") == 0) {
        sp->kind = TP_GLTF_SHAPE_PLANE;
        sp->finite_plane =
            sub && (cJSON_GetObjectItemCaseSensitive(sub, "sizeX") || cJSON_GetObjectItemCaseSensitive(sub, "sizeZ"));
    } else {
        *bad = true;
    }
    return true;
}

/* The collider or trigger of a node: OMI {shape: i} or KHR {geometry: {shape | node, convexHull}}. */
static bool parse_geometry(tpGltf *g, const cJSON *obj, bool khr, long ni, const char *what, tpShapeSpec *sp,
                           bool *have, bool *bad)
{
    char where[96];
    snprintf(where, sizeof where, "nodes[%ld].%s.%s", ni, khr ? "KHR_physics_rigid_bodies" : "OMI_physics_body", what);
    *have = *bad = false;
    const cJSON *geo = khr ? cJSON_GetObjectItemCaseSensitive(obj, "geometry") : obj;
    if (khr && !geo)
        geo = obj; /* drafts before the geometry object: shape on the collider itself */
    long si, gn = -1;
    if (!tpGltfI_Int(g, geo, "shape", -1, 1L << 20, &si, where))
        return false;
    if (khr && !tpGltfI_Int(g, geo, "node", -1, 1L << 30, &gn, where))
        return false;
    if (si >= 0) {
        const cJSON *rext = cJSON_GetObjectItemCaseSensitive(g->root, "extensions");
        const char *rname = khr ? "KHR_implicit_shapes" : "OMI_physics_shape";
        const cJSON *root = rext ? cJSON_GetObjectItemCaseSensitive(rext, rname) : NULL;
        if (khr && !root && rext)
            root = cJSON_GetObjectItemCaseSensitive(rext, "KHR_collision_shapes"); /* the draft's name */
        const cJSON *shape = root ? tpGltfI_Item(root, "shapes", si) : NULL;
        if (!cJSON_IsObject(shape))
            FAIL(g, "%s.shape: shape %ld does not exist (extensions.%s.shapes)", where, si, rname);
        char sw[96];
        snprintf(sw, sizeof sw, "extensions.%s.shapes[%ld]", rname, si);
        if (!parse_shape(g, shape, khr, sw, sp, bad))
            return false;
        *have = true;
    } else if (gn >= 0) {
        const cJSON *target = tpGltfI_Item(g->root, "nodes", gn);
        long m = -1;
        if (!target || !tpGltfI_Int(g, target, "mesh", -1, 1L << 30, &m, where) || m < 0 ||
            !tpGltfI_Item(g->root, "meshes", m))
            FAIL(g, "%s.geometry.node: node %ld has no mesh", where, gn);
        memset(sp, 0, sizeof *sp);
        sp->kind = TP_GLTF_SHAPE_MESH;
        sp->mesh = m;
        *have = true;
    }
    if (*have && khr && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(geo, "convexHull")))
        sp->convex = true;
    return true;
}

static bool vec3(tpGltf *g, const cJSON *o, const char *key, const char *where, double out[3])
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return true;
    if (!tpGltfI_Numbers(v, 3, out))
        FAIL(g, "%s.%s: expected 3 finite numbers", where, key);
    return true;
}

static bool parse_phys(tpGltf *g, const cJSON *node, long ni, const char *name, tpGltfNames *lists, tpPhys *p)
{
    memset(p, 0, sizeof *p);
    const cJSON *omi = ext_of(node, "OMI_physics_body"), *khr = ext_of(node, "KHR_physics_rigid_bodies");
    const cJSON *e = khr ? khr : omi;
    p->khr = khr != NULL;
    if (!e && ext_of(node, "OMI_physics_shape"))
        e = cJSON_GetObjectItemCaseSensitive(node, "extensions"); /* no body properties: a shape only */
    if (!e)
        return true;
    char where[TP_GLTF_NAME_MAX + 96];
    snprintf(where, sizeof where, "nodes[%ld] '%s': %s.motion", ni, name,
             khr ? "KHR_physics_rigid_bodies" : "OMI_physics_body");
    const cJSON *motion = cJSON_GetObjectItemCaseSensitive(e, "motion");
    const cJSON *old_type = omi && !khr ? cJSON_GetObjectItemCaseSensitive(omi, "type") : NULL;
    if (motion || old_type) {
        p->motion = true;
        const cJSON *m = motion ? motion : omi;
        if (khr) {
            p->cls =
                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "isKinematic")) ? TP_GLTF_KINEMATIC : TP_GLTF_PASSIVE;
        } else {
            const cJSON *type = cJSON_GetObjectItemCaseSensitive(m, "type");
            const char *t = cJSON_IsString(type) ? type->valuestring : "";
            if (strcmp(t, "dynamic") == 0 || strcmp(t, "rigid") == 0 || strcmp(t, "vehicle") == 0)
                p->cls = TP_GLTF_PASSIVE;
            else if (strcmp(t, "static") == 0)
                p->cls = TP_GLTF_STATIC;
            else if (strcmp(t, "kinematic") == 0 || strcmp(t, "character") == 0)
                p->cls = TP_GLTF_KINEMATIC;
            else
                FAIL(g, "%s.type \"%s\" (static, kinematic or dynamic)", where, t);
        }
        const cJSON *mass = cJSON_GetObjectItemCaseSensitive(m, "mass");
        if (mass) {
            if (!cJSON_IsNumber(mass) || !(mass->valuedouble >= 0) || !isfinite(mass->valuedouble) ||
                mass->valuedouble > 1e9)
                FAIL(g, "%s.mass must be a number >= 0", where);
            p->mass = mass->valuedouble;
            if (khr && p->mass == 0)
                p->cls = TP_GLTF_KINEMATIC; /* KHR: a mass of 0 is infinite: moved by its velocities only */
        }
        if (!vec3(g, m, "linearVelocity", where, p->vel) || !vec3(g, m, "angularVelocity", where, p->angvel))
            return false;
        if (cJSON_GetObjectItemCaseSensitive(m, "centerOfMass"))
            tpGltfI_ListAdd(&lists[W_COM], name);
        if (cJSON_GetObjectItemCaseSensitive(m, "inertiaDiagonal") ||
            cJSON_GetObjectItemCaseSensitive(m, "inertiaOrientation") ||
            cJSON_GetObjectItemCaseSensitive(m, "inertiaTensor"))
            tpGltfI_ListAdd(&lists[W_INERTIA], name);
        const cJSON *gf = cJSON_GetObjectItemCaseSensitive(m, "gravityFactor");
        if (gf && !(cJSON_IsNumber(gf) && gf->valuedouble == 1.0))
            tpGltfI_ListAdd(&lists[W_GRAVITY], name);
        if (old_type && strcmp(old_type->valuestring, "trigger") == 0) {
            p->cls = TP_GLTF_STATIC; /* the drafts' trigger body: its shapes are triggers */
            p->trigger_body = true;
        }
    }
    const cJSON *coll = cJSON_GetObjectItemCaseSensitive(e, "collider");
    if (coll) {
        if (!parse_geometry(g, coll, p->khr, ni, "collider", &p->coll, &p->has_collider, &p->collider_bad))
            return false;
        if (cJSON_GetObjectItemCaseSensitive(coll, "physicsMaterial"))
            tpGltfI_ListAdd(&lists[W_MATERIAL], name);
        if (cJSON_GetObjectItemCaseSensitive(coll, "collisionFilter"))
            tpGltfI_ListAdd(&lists[W_FILTER], name);
    }
    const cJSON *nshape = ext_of(node, "OMI_physics_shape");
    if (!p->has_collider && !p->collider_bad && nshape && !p->khr &&
        cJSON_GetObjectItemCaseSensitive(nshape, "shape")) {
        /* the drafts before OMI_physics_body.collider: the shape on the node itself */
        if (!parse_geometry(g, nshape, false, ni, "collider", &p->coll, &p->has_collider, &p->collider_bad))
            return false;
    }
    const cJSON *trig = cJSON_GetObjectItemCaseSensitive(e, "trigger");
    if (trig) {
        if (!parse_geometry(g, trig, p->khr, ni, "trigger", &p->trig, &p->has_trigger, &p->trigger_bad))
            return false;
        p->trigger_compound = cJSON_GetObjectItemCaseSensitive(trig, "nodes") != NULL;
    }
    if (p->collider_bad || p->trigger_bad) {
        char label[TP_GLTF_NAME_MAX + 40];
        snprintf(label, sizeof label, "%s (%s)", name, p->collider_bad ? "collider" : "trigger");
        tpGltfI_ListAdd(&lists[W_SHAPE], label);
    }
    return true;
}

/* extras of a node: tplan_class, mass, density, material */
static bool parse_extras(tpGltf *g, const cJSON *node, long ni, const char *name, tpGltfNode *out)
{
    const cJSON *extras = cJSON_GetObjectItemCaseSensitive(node, "extras");
    if (!cJSON_IsObject(extras))
        return true;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(extras, "tplan_class");
    if (c) {
        if (!cJSON_IsString(c))
            FAIL(g, "nodes[%ld] '%s': extras.tplan_class must be a string", ni, name);
        if (strcmp(c->valuestring, "static") == 0)
            out->cls = TP_GLTF_STATIC;
        else if (strcmp(c->valuestring, "passive") == 0)
            out->cls = TP_GLTF_PASSIVE;
        else if (strcmp(c->valuestring, "active") == 0)
            out->cls = TP_GLTF_ACTIVE;
        else
            FAIL(g, "nodes[%ld] '%s': extras.tplan_class \"%s\" (static, passive or active)", ni, name, c->valuestring);
    }
    const char *keys[2] = {"mass", "density"};
    double *vals[2] = {&out->mass, &out->density};
    for (int k = 0; k < 2; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(extras, keys[k]);
        if (!v)
            continue;
        if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || !isfinite(v->valuedouble))
            FAIL(g, "nodes[%ld] '%s': extras.%s must be a number > 0", ni, name, keys[k]);
        *vals[k] = v->valuedouble;
    }
    const cJSON *mat = cJSON_GetObjectItemCaseSensitive(extras, "material");
    if (mat) {
        if (!cJSON_IsString(mat) || strlen(mat->valuestring) >= TP_GLTF_NAME_MAX)
            FAIL(g, "nodes[%ld] '%s': extras.material must be a string of under %d bytes", ni, name, TP_GLTF_NAME_MAX);
        snprintf(out->material, sizeof out->material, "%s", mat->valuestring);
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Poses and shapes                                                                            */

static void box_mesh_fill(const double h[3], double *v, int32_t *t)
{
    for (int i = 0; i < 8; i++) {
        v[3 * i] = (i & 1) ? h[0] : -h[0];
        v[3 * i + 1] = (i & 2) ? h[1] : -h[1];
        v[3 * i + 2] = (i & 4) ? h[2] : -h[2];
    }
    static const int32_t T[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                                  2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    memcpy(t, T, sizeof T);
}

/* The mesh of a primitive (for a compound or a tapered shape), in the frame (z = the shape's axis). */
static bool primitive_mesh(const tpGltfNode *nd, double rtop, double rbot, tpMesh *out)
{
    memset(out, 0, sizeof *out);
    if (nd->shape == TP_GLTF_SHAPE_BOX) {
        out->vertices = malloc(24 * sizeof(double));
        out->triangles = malloc(36 * sizeof(int32_t));
        if (!out->vertices || !out->triangles) {
            tpMesh_Free(out);
            return false;
        }
        const double h[3] = {0.5 * nd->size[0], 0.5 * nd->size[1], 0.5 * nd->size[2]};
        box_mesh_fill(h, out->vertices, out->triangles);
        out->nvertices = 8;
        out->ntriangles = 12;
        return true;
    }
    enum { K = 6 };
    double z[2 * K + 2], r[2 * K + 2];
    int np = 0;
    if (nd->shape == TP_GLTF_SHAPE_CYLINDER) {
        z[0] = -0.5 * nd->size[1];
        z[1] = 0.5 * nd->size[1];
        r[0] = rbot;
        r[1] = rtop;
        np = 2;
    } else { /* sphere (a capsule of length 0) and capsule: two hemispheres, K rings each */
        const double h = nd->shape == TP_GLTF_SHAPE_SPHERE ? 0 : 0.5 * nd->size[1];
        if (nd->shape == TP_GLTF_SHAPE_SPHERE)
            rtop = rbot = nd->size[0];
        for (int k = 0; k <= K; k++) {
            double a = -0.5 * TP_PI + 0.5 * TP_PI * k / K;
            z[np] = -h + rbot * sin(a);
            r[np++] = k == 0 ? 0 : rbot * cos(a);
        }
        for (int k = h > 0 || rtop != rbot ? 0 : 1; k <= K; k++) {
            double a = 0.5 * TP_PI * k / K;
            z[np] = h + rtop * sin(a);
            r[np++] = k == K ? 0 : rtop * cos(a);
        }
    }
    return tpMesh_Lathe(z, r, np, 16, out);
}

/* A collider (or trigger) of node ni as a body piece: pose from the node's world transform, the
 * shape scaled. Returns 1 built, 0 skipped (warned), -1 error. */
static int build_piece(tpGltf *g, long ni, const double world[12], const char *name, const tpShapeSpec *sp, bool moving,
                       tpGltfNames *lists, tpGltfNode *out)
{
    double s[3];
    if (!tpGltfI_Decompose(g, world, name, s, out->pos, out->quat))
        return -1;
    out->index = (int)ni;
    out->shape = sp->kind;
    out->convex = sp->convex || sp->kind != TP_GLTF_SHAPE_MESH;
    /* tplan's frame of the shape: glTF local (x, y, z) -> (x, -z, y): a glTF size (sx, sy, sz) is
       (sx, sz, sy) here, the glTF y axis (capsules, cylinders, the plane's normal) is z */
    const double round = fmax(s[0], s[2]);
    switch (sp->kind) {
    case TP_GLTF_SHAPE_BOX:
        out->size[0] = sp->box[0] * s[0];
        out->size[1] = sp->box[2] * s[2];
        out->size[2] = sp->box[1] * s[1];
        break;
    case TP_GLTF_SHAPE_SPHERE: {
        const double smax = fmax(round, s[1]), smin = fmin(fmin(s[0], s[1]), s[2]);
        if (smax > smin * (1 + 1e-6))
            tpGltfI_ListAdd(&lists[W_SCALE], name);
        out->size[0] = sp->radius * smax;
        break;
    }
    case TP_GLTF_SHAPE_CAPSULE:
    case TP_GLTF_SHAPE_CYLINDER: {
        if (fabs(s[0] - s[2]) > 1e-6 * round)
            tpGltfI_ListAdd(&lists[W_SCALE], name);
        out->size[0] = fmax(sp->rtop, sp->rbot) * round;
        out->size[1] = sp->height * s[1];
        if (sp->rtop != sp->rbot || (sp->kind == TP_GLTF_SHAPE_CAPSULE && !(out->size[1] > 0))) {
            /* tapered (or a capsule of no length): a mesh of revolution, collided as its hull */
            tpMesh m;
            if (!primitive_mesh(out, sp->rtop * round, sp->rbot * round, &m)) {
                tpErrorf(g->err, g->errlen, "%s: out of memory", g->name);
                return -1;
            }
            out->mesh = m;
            out->shape = TP_GLTF_SHAPE_MESH;
        }
        break;
    }
    case TP_GLTF_SHAPE_COMPOUND: /* never a shape spec: made from a body's several colliders */
        return 0;
    case TP_GLTF_SHAPE_PLANE:
        if (moving) {
            char label[TP_GLTF_NAME_MAX + 40];
            snprintf(label, sizeof label, "%s (a moving plane)", name);
            tpGltfI_ListAdd(&lists[W_SHAPE], label);
            return 0;
        }
        if (sp->finite_plane) {
            char label[TP_GLTF_NAME_MAX + 40];
            snprintf(label, sizeof label, "%s (a finite plane: loaded infinite)", name);
            tpGltfI_ListAdd(&lists[W_SHAPE], label);
        }
        break;
    case TP_GLTF_SHAPE_MESH: {
        tpGltfRepair rep = {.first_tri = -1};
        if (!tpGltfI_ReadMesh(g, sp->mesh, s, &out->mesh, &rep))
            return -1;
        bool warned = false;
        for (int k = 0; k < g->nrepaired && !warned; k++)
            warned = g->repaired[k] == sp->mesh;
        if ((rep.degenerate > 0 || rep.welded > 0) && !warned) {
            if (g->nrepaired < (int)(sizeof g->repaired / sizeof g->repaired[0]))
                g->repaired[g->nrepaired++] = sp->mesh;
            char first[120] = "";
            if (rep.first_tri >= 0)
                snprintf(first, sizeof first, " (the first: primitive %d triangle %ld, vertices %ld, %ld, %ld)",
                         rep.first_prim, rep.first_tri, rep.first_v[0], rep.first_v[1], rep.first_v[2]);
            tpGltfI_Warn(g,
                         "node '%s': mesh %ld repaired: %ld degenerate triangle%s dropped%s, %ld vertices within "
                         "1e-6 of the mesh's size welded",
                         name, sp->mesh, rep.degenerate, rep.degenerate == 1 ? "" : "s", first, rep.welded);
        }
        if (out->mesh.ntriangles == 0) {
            tpMesh_Free(&out->mesh);
            tpErrorf(g->err, g->errlen, "%s: node '%s': mesh %ld has no triangles (after dropping the degenerate ones)",
                     g->name, name, sp->mesh);
            return -1;
        }
        if (moving && !sp->convex)
            tpGltfI_ListAdd(&lists[W_TRIMESH], name);
        break;
    }
    }
    return 1;
}

/* ------------------------------------------------------------------------------------------ */
/* The scene                                                                                   */

typedef struct tpItem {
    int node; /* the collider (or mesh, or trigger) node */
    int body; /* its body node (-1: a body of its own) */
    bool trigger;
    tpShapeSpec spec;
} tpItem;

static void free_parts(tpGltfNode *nd)
{
    for (int k = 0; k < nd->nparts; k++)
        tpMesh_Free(&nd->parts[k].mesh);
    free(nd->parts);
    nd->parts = NULL;
    nd->nparts = 0;
}

static bool push_node(tpGltf *g, tpGltfScene *sc, tpGltfNode *nd)
{
    tpGltfNode *grown = realloc(sc->nodes, (size_t)(sc->nnodes + 1) * sizeof *grown);
    if (!grown) {
        tpMesh_Free(&nd->mesh);
        FAIL(g, "out of memory");
    }
    sc->nodes = grown;
    sc->nodes[sc->nnodes++] = *nd;
    return true;
}

static void node_name(const cJSON *nodes, int i, char out[TP_GLTF_NAME_MAX])
{
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(nodes, i), "name");
    if (cJSON_IsString(nm) && nm->valuestring[0] && strlen(nm->valuestring) < TP_GLTF_NAME_MAX)
        snprintf(out, TP_GLTF_NAME_MAX, "%s", nm->valuestring);
    else
        snprintf(out, TP_GLTF_NAME_MAX, "node%d", i);
}

/* v in tplan's world frame of a glTF vector: KHR gives velocities in node space (rotated by the
 * node's world rotation), OMI in the scene's axes. */
static void to_world(const double v[3], bool node_space, const double world[12], double out[3])
{
    double w[3] = {v[0], v[1], v[2]};
    if (node_space) {
        for (int i = 0; i < 3; i++) { /* the rotation: the columns normalised */
            w[i] = 0;
            for (int j = 0; j < 3; j++) {
                double n = sqrt(world[j] * world[j] + world[4 + j] * world[4 + j] + world[8 + j] * world[8 + j]);
                w[i] += (n > 0 ? world[4 * i + j] / n : 0) * v[j];
            }
        }
    }
    out[0] = w[0];
    out[1] = -w[2];
    out[2] = w[1];
}

/* The body of group `body` (a node with a motion) from its items items[first..] with that body. */
static bool build_group(tpGltf *g, tpGltfScene *sc, const cJSON *nodes, const double *world, const tpPhys *phys,
                        const tpItem *items, int nitems, int first, tpGltfNames *lists)
{
    const int b = items[first].body;
    const tpPhys *bp = &phys[b];
    char bname[TP_GLTF_NAME_MAX];
    node_name(nodes, b, bname);
    tpGltfNode base;
    memset(&base, 0, sizeof base);
    base.cls = bp->cls;
    base.mass = bp->mass;
    if (!parse_extras(g, cJSON_GetArrayItem(nodes, b), b, bname, &base))
        return false;
    if (base.cls == TP_GLTF_NONE)
        base.cls = TP_GLTF_STATIC;
    if (!bp->khr && !(base.mass > 0) && !(base.density > 0))
        base.mass = 1.0; /* OMI_physics_body: "If not specified, the default value is 1 kilogram" */
    to_world(bp->vel, bp->khr, world + 12 * b, base.vel);
    to_world(bp->angvel, bp->khr, world + 12 * b, base.angvel);
    if (base.cls == TP_GLTF_KINEMATIC && !(base.vel[0] || base.vel[1] || base.vel[2]) &&
        !(base.angvel[0] || base.angvel[1] || base.angvel[2]))
        base.cls = TP_GLTF_STATIC; /* a kinematic body nothing moves stays where it is */
    if (base.cls == TP_GLTF_STATIC)
        memset(base.vel, 0, sizeof base.vel), memset(base.angvel, 0, sizeof base.angvel);
    const bool moving = base.cls != TP_GLTF_STATIC;
    base.body = b;
    /* one collider: a body named after the body node. Several: one compound body of one part per
       collider, named after the body node (a static body's planes are bodies of their own, named
       after their collider nodes: a plane is never a part); the drafts' trigger bodies: one marker
       per collider, named after the collider nodes */
    int k = 0, nplanes = 0;
    for (int i = first; i < nitems; i++) {
        if (items[i].body != b)
            continue;
        k++;
        nplanes += items[i].spec.kind == TP_GLTF_SHAPE_PLANE && !moving;
    }
    const bool separate = bp->trigger_body || k == 1 || k - nplanes <= 1;
    for (int i = first; i < nitems; i++) {
        if (items[i].body != b || (!separate && items[i].spec.kind != TP_GLTF_SHAPE_PLANE) || (!separate && moving))
            continue;
        tpGltfNode nd = base;
        char cname[TP_GLTF_NAME_MAX];
        node_name(nodes, items[i].node, cname);
        const bool own = k > 1 && (bp->trigger_body || items[i].spec.kind == TP_GLTF_SHAPE_PLANE);
        snprintf(nd.name, sizeof nd.name, "%s", own ? cname : bname);
        const cJSON *cn = cJSON_GetArrayItem(nodes, items[i].node);
        tpGltfNode ex;
        memset(&ex, 0, sizeof ex);
        if (items[i].node != b && !parse_extras(g, cn, items[i].node, cname, &ex))
            return false;
        if (ex.density > 0)
            nd.density = ex.density;
        if (ex.material[0])
            snprintf(nd.material, sizeof nd.material, "%s", ex.material);
        int r = build_piece(g, items[i].node, world + 12 * items[i].node, cname, &items[i].spec, moving, lists, &nd);
        if (r < 0)
            return false;
        nd.marker = bp->trigger_body;
        if (r > 0 && !push_node(g, sc, &nd))
            return false;
    }
    if (separate)
        return true;
    k -= nplanes;
    /* a body of several colliders: a compound of one part per collider, each placed by its pose
       relative to the body node */
    if (k > TP_GLTF_MAX_PARTS)
        FAIL(g, "node '%s': a body of %d colliders (at most %d)", bname, k, TP_GLTF_MAX_PARTS);
    tpGltfNode nd = base;
    snprintf(nd.name, sizeof nd.name, "%s", bname);
    nd.index = b;
    nd.shape = TP_GLTF_SHAPE_COMPOUND;
    double sb[3];
    if (!tpGltfI_Decompose(g, world + 12 * b, bname, sb, nd.pos, nd.quat))
        return false;
    nd.parts = calloc((size_t)k, sizeof *nd.parts);
    if (!nd.parts)
        FAIL(g, "out of memory");
    double Rb[9];
    tpMesh_QuatToMatrix(nd.quat, Rb);
    const double qi[4] = {nd.quat[0], -nd.quat[1], -nd.quat[2], -nd.quat[3]}; /* the body's inverse */
    for (int i = first; i < nitems; i++) {
        if (items[i].body != b || (!moving && items[i].spec.kind == TP_GLTF_SHAPE_PLANE))
            continue;
        char cname[TP_GLTF_NAME_MAX];
        node_name(nodes, items[i].node, cname);
        tpGltfNode piece;
        memset(&piece, 0, sizeof piece);
        int r = build_piece(g, items[i].node, world + 12 * items[i].node, cname, &items[i].spec, moving, lists, &piece);
        if (r < 0) {
            free_parts(&nd);
            return false;
        }
        if (r == 0)
            continue;
        tpGltfPart *p = &nd.parts[nd.nparts++];
        snprintf(p->name, sizeof p->name, "%s", cname);
        p->shape = piece.shape;
        memcpy(p->size, piece.size, sizeof p->size);
        p->mesh = piece.mesh;
        double w[3];
        for (int a = 0; a < 3; a++)
            w[a] = piece.pos[a] - nd.pos[a];
        for (int a = 0; a < 3; a++) /* R_b^T w */
            p->pos[a] = Rb[a] * w[0] + Rb[3 + a] * w[1] + Rb[6 + a] * w[2];
        const double *q = piece.quat;
        p->quat[0] = qi[0] * q[0] - qi[1] * q[1] - qi[2] * q[2] - qi[3] * q[3];
        p->quat[1] = qi[0] * q[1] + qi[1] * q[0] + qi[2] * q[3] - qi[3] * q[2];
        p->quat[2] = qi[0] * q[2] - qi[1] * q[3] + qi[2] * q[0] + qi[3] * q[1];
        p->quat[3] = qi[0] * q[3] + qi[1] * q[2] - qi[2] * q[1] + qi[3] * q[0];
    }
    char label[TP_GLTF_NAME_MAX + 24];
    snprintf(label, sizeof label, "%s (%d colliders)", bname, nd.nparts);
    if (moving)
        tpGltfI_ListAdd(&lists[W_COMPOUND], label);
    if (!push_node(g, sc, &nd)) {
        free_parts(&nd);
        return false;
    }
    return true;
}

/* Names unique: a second "Cube" becomes "Cube.2" (then .3, ...). */
static void unique_names(tpGltfScene *sc, tpGltfNames *lists)
{
    for (int i = 1; i < sc->nnodes; i++) {
        bool taken = true;
        char base[TP_GLTF_NAME_MAX];
        snprintf(base, sizeof base, "%s", sc->nodes[i].name);
        for (int suffix = 2; taken; suffix++) {
            taken = false;
            for (int j = 0; j < i && !taken; j++)
                taken = strcmp(sc->nodes[j].name, sc->nodes[i].name) == 0;
            if (taken) {
                if (suffix == 2)
                    tpGltfI_ListAdd(&lists[W_RENAMED], base);
                char tail[16];
                snprintf(tail, sizeof tail, ".%d", suffix % 100000);
                size_t keep = strlen(base), room = sizeof sc->nodes[i].name - 1 - strlen(tail);
                if (keep > room)
                    keep = room;
                memcpy(sc->nodes[i].name, base, keep);
                memcpy(sc->nodes[i].name + keep, tail, strlen(tail) + 1);
            }
        }
    }
}

static bool known_node_ext(const char *k)
{
    return strcmp(k, "OMI_physics_body") == 0 || strcmp(k, "KHR_physics_rigid_bodies") == 0 ||
           strcmp(k, "OMI_physics_joint") == 0 || strcmp(k, "OMI_physics_shape") == 0;
}

/* The bodies, in the order of a depth-first walk of the scene (order[0..norder)). */
static bool bodies(tpGltf *g, const cJSON *nodes, int nn, const int *order, int norder, const int *body_of,
                   const double *world)
{
    tpGltfScene *sc = g->scene;
    tpPhys *phys = calloc((size_t)(nn > 0 ? nn : 1), sizeof *phys);
    tpItem *items = calloc((size_t)(nn > 0 ? 2 * nn : 1), sizeof *items);
    char *has_coll = calloc((size_t)(nn > 0 ? nn : 1), 1);
    char *done = calloc((size_t)(nn > 0 ? nn : 1), 1);
    tpGltfNames *lists = calloc(W_COUNT, sizeof *lists);
    bool ok = phys && items && has_coll && done && lists;
    if (!ok)
        tpErrorf(g->err, g->errlen, "%s: out of memory", g->name);
    for (int k = 0; ok && k < W_COUNT; k++)
        lists[k].head = k_heads[k];
    int nitems = 0;
    for (int o = 0; ok && o < norder; o++) {
        const int i = order[o];
        char name[TP_GLTF_NAME_MAX];
        node_name(nodes, i, name);
        ok = parse_phys(g, cJSON_GetArrayItem(nodes, i), i, name, lists, &phys[i]);
        if (ok && body_of[i] == i && !phys[i].motion) { /* a static compound collider (above) */
            phys[i].motion = true;
            phys[i].cls = TP_GLTF_STATIC;
        }
        if (ok && phys[i].has_collider && body_of[i] >= 0)
            has_coll[body_of[i]] = 1;
    }
    for (int o = 0; ok && o < norder; o++) {
        const int i = order[o];
        const cJSON *node = cJSON_GetArrayItem(nodes, i);
        char name[TP_GLTF_NAME_MAX];
        node_name(nodes, i, name);
        const tpPhys *p = &phys[i];
        long mi = -1;
        if (!tpGltfI_Int(g, node, "mesh", -1, 1L << 30, &mi, "nodes[]")) {
            ok = false;
            break;
        }
        const int b = body_of[i];
        const bool moving_body = b >= 0 && phys[b].cls != TP_GLTF_STATIC;
        bool used = false;
        if (p->has_trigger) {
            used = true;
            if (moving_body) {
                tpGltfI_ListAdd(&lists[W_TRIGGER_MOVING], name);
            } else {
                items[nitems++] = (tpItem){.node = i, .body = -1, .trigger = true, .spec = p->trig};
            }
        }
        if (p->has_collider) {
            used = true;
            items[nitems++] = (tpItem){.node = i, .body = b, .spec = p->coll};
        } else if (p->collider_bad || p->trigger_bad || p->trigger_compound) {
            used = true; /* warned */
        } else if (mi >= 0 && !p->has_trigger) {
            used = true;
            if (b >= 0 && has_coll[b])
                continue; /* the visual mesh of a body that has colliders */
            tpShapeSpec sp = {.kind = TP_GLTF_SHAPE_MESH, .mesh = mi, .convex = true};
            const cJSON *ex = cJSON_GetObjectItemCaseSensitive(node, "extras");
            const bool own = cJSON_IsObject(ex) && cJSON_GetObjectItemCaseSensitive(ex, "tplan_class");
            items[nitems++] = (tpItem){.node = i, .body = own ? -1 : b, .spec = sp};
        } else if (p->motion) {
            used = true; /* a body node: its colliders are below it */
        }
        if (!used) {
            /* a group node (no mesh, nothing else) is used by its children; a camera, a light, an
               extension tplan does not read is not */
            const cJSON *ext = cJSON_GetObjectItemCaseSensitive(node, "extensions"), *e;
            const char *what = cJSON_GetObjectItemCaseSensitive(node, "camera") ? "a camera" : NULL;
            cJSON_ArrayForEach(e, ext)
            {
                if (!what && e->string && !known_node_ext(e->string))
                    what = e->string;
            }
            if (what) {
                char label[TP_GLTF_NAME_MAX + 80];
                snprintf(label, sizeof label, "%s (%.60s)", name, what);
                tpGltfI_ListAdd(&lists[W_UNUSED], label);
            }
        }
    }
    /* bodies with a motion and nothing to collide with */
    for (int o = 0; ok && o < norder; o++) {
        const int i = order[o];
        if (!phys[i].motion)
            continue;
        bool any = false;
        for (int k = 0; k < nitems && !any; k++)
            any = items[k].body == i;
        if (!any && !phys[i].has_trigger) {
            char name[TP_GLTF_NAME_MAX];
            node_name(nodes, i, name);
            tpGltfI_ListAdd(&lists[W_NO_COLLIDER], name);
        }
    }
    for (int k = 0; ok && k < nitems; k++) {
        tpItem *it = &items[k];
        if (it->body >= 0 && !phys[it->body].motion)
            it->body = -1;
        if (it->body >= 0) {
            if (done[it->body])
                continue;
            done[it->body] = 1;
            ok = build_group(g, sc, nodes, world, phys, items, nitems, k, lists);
            continue;
        }
        /* a body of its own: a static collider, a trigger, a mesh node with extras or none */
        tpGltfNode nd;
        memset(&nd, 0, sizeof nd);
        nd.body = it->node;
        node_name(nodes, it->node, nd.name);
        const cJSON *node = cJSON_GetArrayItem(nodes, it->node);
        if (!parse_extras(g, node, it->node, nd.name, &nd)) {
            ok = false;
            break;
        }
        if (it->trigger) {
            nd.cls = TP_GLTF_STATIC;
            nd.marker = true;
        } else if (phys[it->node].has_collider && nd.cls == TP_GLTF_NONE) {
            nd.cls = TP_GLTF_STATIC; /* a collider without a body: static (both specifications) */
        }
        const bool moving = nd.cls != TP_GLTF_STATIC && nd.cls != TP_GLTF_NONE;
        int r = build_piece(g, it->node, world + 12 * it->node, nd.name, &it->spec, moving, lists, &nd);
        if (r < 0) {
            ok = false;
            break;
        }
        if (r > 0)
            ok = push_node(g, sc, &nd);
    }
    if (ok) {
        for (int i = 0; i < sc->nnodes; i++) {
            const tpGltfNode *nd = &sc->nodes[i];
            if (nd->cls == TP_GLTF_KINEMATIC && (nd->vel[0] || nd->vel[1] || nd->vel[2]) &&
                (nd->angvel[0] || nd->angvel[1] || nd->angvel[2]))
                tpGltfI_ListAdd(&lists[W_KINEMATIC], nd->name);
            if (nd->cls != TP_GLTF_STATIC && nd->cls != TP_GLTF_NONE && nd->shape == TP_GLTF_SHAPE_MESH &&
                nd->mesh.nvertices > TP_MESH_HULL_MAX_VERTICES) {
                char label[TP_GLTF_NAME_MAX + 32];
                snprintf(label, sizeof label, "%s (%d vertices)", nd->name, nd->mesh.nvertices);
                tpGltfI_ListAdd(&lists[W_HULL], label);
            }
            for (int k = 0; k < nd->nparts; k++) { /* a compound's mesh parts, likewise */
                if (nd->parts[k].shape == TP_GLTF_SHAPE_MESH &&
                    nd->parts[k].mesh.nvertices > TP_MESH_HULL_MAX_VERTICES) {
                    char label[2 * TP_GLTF_NAME_MAX + 32];
                    snprintf(label, sizeof label, "%s's %s (%d vertices)", nd->name, nd->parts[k].name,
                             nd->parts[k].mesh.nvertices);
                    tpGltfI_ListAdd(&lists[W_HULL], label);
                }
            }
        }
        unique_names(sc, lists);
        for (int k = 0; k < W_COUNT; k++)
            tpGltfI_ListFlush(g, &lists[k]);
    }
    free(phys);
    free(items);
    free(has_coll);
    free(done);
    free(lists);
    return ok;
}

/* Extensions of the document tplan does not read, in one warning. */
static void unused_extensions(tpGltf *g)
{
    const cJSON *used = cJSON_GetObjectItemCaseSensitive(g->root, "extensionsUsed"), *e;
    tpGltfNames l = {.head = "extensions not used (tplan reads geometry and physics only)"};
    cJSON_ArrayForEach(e, used)
    {
        if (!cJSON_IsString(e))
            continue;
        const char *s = e->valuestring;
        if (strcmp(s, "OMI_physics_body") == 0 || strcmp(s, "OMI_physics_shape") == 0 ||
            strcmp(s, "OMI_physics_joint") == 0 || strcmp(s, "KHR_physics_rigid_bodies") == 0 ||
            strcmp(s, "KHR_implicit_shapes") == 0 || strcmp(s, "KHR_collision_shapes") == 0)
            continue; /* read */
        tpGltfI_ListAdd(&l, s);
    }
    tpGltfI_ListFlush(g, &l);
}

bool tpGltfI_Scene(tpGltf *g)
{
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(g->root, "nodes");
    int nn = cJSON_IsArray(nodes) ? cJSON_GetArraySize(nodes) : 0;
    if (nn > g->limits.max_nodes)
        FAIL(g, "%d nodes (at most %d)", nn, g->limits.max_nodes);
    const size_t n1 = (size_t)(nn > 0 ? nn : 1);
    int *parent = malloc(n1 * sizeof *parent), *roots = malloc(n1 * sizeof *roots);
    int *order = malloc(n1 * sizeof *order), *body_of = malloc(n1 * sizeof *body_of);
    char *seen = calloc(n1, 1);
    double *world = malloc(n1 * 12 * sizeof *world);
    typedef struct {
        int node, anc;
    } tpFrame;
    tpFrame *stack = malloc(n1 * sizeof *stack);
    bool ok = parent && roots && seen && order && body_of && world && stack;
    if (!ok)
        tpErrorf(g->err, g->errlen, "%s: out of memory", g->name);
    for (int i = 0; ok && i < nn; i++)
        parent[i] = -1;
    for (int i = 0; ok && i < nn; i++) {
        const cJSON *node = cJSON_GetArrayItem(nodes, i);
        if (!cJSON_IsObject(node)) {
            tpErrorf(g->err, g->errlen, "%s: nodes[%d] is not an object", g->name, i);
            ok = false;
            break;
        }
        const cJSON *ch = cJSON_GetObjectItemCaseSensitive(node, "children"), *c;
        if (ch && !cJSON_IsArray(ch)) {
            tpErrorf(g->err, g->errlen, "%s: nodes[%d].children must be an array", g->name, i);
            ok = false;
            break;
        }
        cJSON_ArrayForEach(c, ch)
        {
            double v = cJSON_IsNumber(c) ? c->valuedouble : -1;
            if (!(v >= 0 && v < nn && v == floor(v))) {
                tpErrorf(g->err, g->errlen, "%s: nodes[%d].children: %g is not a node index", g->name, i, v);
                ok = false;
                break;
            }
            int k = (int)v;
            if (parent[k] >= 0 || k == i) {
                tpErrorf(g->err, g->errlen, "%s: node %d has two parents (%d and %d): not a tree", g->name, k,
                         parent[k] >= 0 ? parent[k] : i, i);
                ok = false;
                break;
            }
            parent[k] = i;
        }
    }
    /* the scene's roots: the default scene, else the first, else every parentless node */
    int nroots = 0;
    if (ok) {
        long si;
        const cJSON *scenes = cJSON_GetObjectItemCaseSensitive(g->root, "scenes");
        ok = tpGltfI_Int(g, g->root, "scene", 0, 1L << 20, &si, "glTF");
        const cJSON *scene = ok && cJSON_IsArray(scenes) ? cJSON_GetArrayItem(scenes, (int)si) : NULL;
        if (ok && cJSON_IsArray(scenes) && !scene) {
            tpErrorf(g->err, g->errlen, "%s: scene %ld does not exist", g->name, si);
            ok = false;
        }
        const cJSON *rn = scene ? cJSON_GetObjectItemCaseSensitive(scene, "nodes") : NULL, *r;
        if (scene) {
            cJSON_ArrayForEach(r, rn)
            {
                double v = cJSON_IsNumber(r) ? r->valuedouble : -1;
                if (v >= 0 && v < nn && v == floor(v) && parent[(int)v] >= 0) {
                    tpErrorf(g->err, g->errlen,
                             "%s: scenes[%ld].nodes: node %d is also a child of node %d (a root "
                             "cannot have a parent: a cycle?)",
                             g->name, si, (int)v, parent[(int)v]);
                    ok = false;
                    break;
                }
                if (!(v >= 0 && v < nn && v == floor(v)) || seen[(int)v]) {
                    tpErrorf(g->err, g->errlen, "%s: scenes[%ld].nodes: %g is not a node index (or listed twice)",
                             g->name, si, v);
                    ok = false;
                    break;
                }
                seen[(int)v] = 1;
                roots[nroots++] = (int)v;
            }
        } else {
            for (int i = 0; ok && i < nn; i++)
                if (parent[i] < 0)
                    roots[nroots++] = i;
        }
    }
    /* every node must hang off a parentless node: with one parent each, the others are in a cycle */
    for (int i = 0; ok && i < nn; i++) {
        int k = i, steps = 0;
        while (parent[k] >= 0 && steps <= nn) {
            k = parent[k];
            steps++;
            if (k == i || steps > nn) {
                tpErrorf(g->err, g->errlen, "%s: the node tree has a cycle through node %d", g->name, i);
                ok = false;
                break;
            }
        }
    }
    /* depth first from the roots: world transforms, the nearest body (motion) at or above each
       node, the visiting order; a node is visited at most once (one parent each) */
    int top = 0, norder = 0;
    static const double ident[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    for (int r = nroots - 1; ok && r >= 0; r--)
        stack[top++] = (tpFrame){roots[r], -1};
    while (ok && top > 0) {
        tpFrame f = stack[--top];
        const cJSON *node = cJSON_GetArrayItem(nodes, f.node);
        double local[12];
        if (!tpGltfI_Local(g, node, f.node, local)) {
            ok = false;
            break;
        }
        const int pa = parent[f.node];
        tpGltfI_Mul34(pa >= 0 ? world + 12 * pa : ident, local, world + 12 * f.node);
        const cJSON *omi = ext_of(node, "OMI_physics_body"), *khr = ext_of(node, "KHR_physics_rigid_bodies");
        const bool motion = (khr && cJSON_GetObjectItemCaseSensitive(khr, "motion")) ||
                            (!khr && omi &&
                             (cJSON_GetObjectItemCaseSensitive(omi, "motion") ||
                              cJSON_IsString(cJSON_GetObjectItemCaseSensitive(omi, "type"))));
        /* a collider without a shape and outside any body groups its descendants' colliders into
           one static compound (OMI_physics_body.collider: "can combine those nodes into one
           collider"): it is their body, as a static body node is */
        const cJSON *coll = omi && !khr ? cJSON_GetObjectItemCaseSensitive(omi, "collider") : NULL;
        const bool group = coll && f.anc < 0 && !cJSON_GetObjectItemCaseSensitive(coll, "shape");
        body_of[f.node] = motion || group ? f.node : f.anc;
        order[norder++] = f.node;
        const cJSON *ch = cJSON_GetObjectItemCaseSensitive(node, "children");
        int nch = cJSON_IsArray(ch) ? cJSON_GetArraySize(ch) : 0;
        for (int c = nch - 1; c >= 0 && top < nn; c--)
            stack[top++] = (tpFrame){(int)cJSON_GetArrayItem(ch, c)->valuedouble, body_of[f.node]};
    }
    if (ok)
        ok = bodies(g, nodes, nn, order, norder, body_of, world);
    if (ok)
        ok = tpGltfI_Joints(g, nodes, order, norder, body_of, world);
    if (ok) {
        unused_extensions(g);
        for (int o = 0; o < norder; o++) {
            const cJSON *node = cJSON_GetArrayItem(nodes, order[o]);
            g->scene->nmeshnodes += cJSON_GetObjectItemCaseSensitive(node, "mesh") != NULL ||
                                    cJSON_GetObjectItemCaseSensitive(node, "extensions") != NULL;
        }
    }
    free(parent);
    free(roots);
    free(order);
    free(body_of);
    free(seen);
    free(world);
    free(stack);
    return ok;
}

/* ------------------------------------------------------------------------------------------ */
/* The document: read (mesh_gltf.c), then its scene                                            */

bool tpGltf_ReadScene(const char *name, const void *data, size_t len, const tpMeshLimits *limits,
                      const tpGltfFile *files, int nfiles, tpGltfScene *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    tpGltf g = {
        .name = name, .err = err, .errlen = errlen, .limits = limits ? *limits : tpDefaultMeshLimits(), .scene = out};
    bool ok = tpGltfI_Open(&g, data, len, files, nfiles) && tpGltfI_Scene(&g);
    tpGltfI_Close(&g);
    if (!ok)
        tpGltfScene_Free(out);
    else
        TP_VALIDATE(tpGltfScene_Valid, out);
    return ok;
}

void tpGltfScene_Free(tpGltfScene *sc)
{
    if (sc == NULL)
        return;
    for (int i = 0; i < sc->nnodes; i++) {
        tpMesh_Free(&sc->nodes[i].mesh);
        for (int k = 0; k < sc->nodes[i].nparts; k++)
            tpMesh_Free(&sc->nodes[i].parts[k].mesh);
        free(sc->nodes[i].parts);
    }
    free(sc->nodes);
    free(sc->joints);
    memset(sc, 0, sizeof *sc);
}
