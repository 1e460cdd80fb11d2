/* tplan lua: tp.domain — turns the constructed pieces into a tpDomainDef, resolves every body,
 * material and skill name, and builds the tpDomain.
 *
 * Scratch arrays are Lua userdata kept in a `keep` table, so a Lua error anywhere leaves no
 * leak; condition trees hang off a guard userdata whose __gc frees them (tpCreateDomain copies
 * them). Arrays are read in index order and named tables are looked up by name:
 * Lua's table iteration order (randomised per run) never reaches the definition. */
#include "lua_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct tplCondGuard {
    tpCond *root;
} tplCondGuard;

typedef struct tplBuild {
    lua_State *L;
    tplDomain *dom;
    int keep;             /* stack index: table that keeps scratch userdata alive */
    int names;            /* stack index: body name -> index */
    int fns;              /* stack index: flat callback array */
    const char *bodylist; /* "ground, robot, ball" for messages (kept in `keep`) */
    const char *where;    /* call site of tp.domain */
} tplBuild;

static void *tplScratch(tplBuild *b, size_t bytes)
{
    void *p = lua_newuserdatauv(b->L, bytes ? bytes : 1, 0);
    memset(p, 0, bytes ? bytes : 1);
    lua_rawseti(b->L, b->keep, (lua_Integer)lua_rawlen(b->L, b->keep) + 1);
    return p;
}

/* Registers the function at the top of the stack as a callback; returns its id (pops it). */
static int tplRegister(tplBuild *b)
{
    int id = (int)lua_rawlen(b->L, b->fns) + 1;
    lua_rawseti(b->L, b->fns, id);
    return id;
}

/* Pushes field `key` of the domain table, which must be nil or an array (returns its length,
 * -1 for nil). */
static int tplArrayField(lua_State *L, const char *key, const char *what)
{
    int t = tplField(L, 1, key);
    if (t == LUA_TNIL)
        return -1;
    if (t != LUA_TTABLE)
        tplError(L, "%s%s: expected an array, got %s", what, key, tplTypeName(L, -1));
    int n = (int)lua_rawlen(L, -1);
    lua_Integer count = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        count++;
    }
    if (count != n)
        tplError(L, "%s%s must be an array (no named entries or holes)", what, key);
    return n;
}

static const char *tplUdWhere(lua_State *L, int idx)
{
    lua_getiuservalue(L, idx, 1);
    const char *w = lua_tostring(L, -1); /* the userdata keeps the string alive */
    lua_pop(L, 1);
    return w ? w : "?:";
}

/* Index of the material called name among mats[0 .. n), "default" being mdef; -1 if none. */
static int tplMaterialIndex(const tpMaterialDef *mats, int n, int mdef, const char *name)
{
    if (strcmp(name, "default") == 0)
        return mdef;
    for (int j = 0; j < n; j++)
        if (strcmp(mats[j].name, name) == 0)
            return j;
    return -1;
}

static int tplResolveBody(tplBuild *b, const char *name, const char *where)
{
    lua_State *L = b->L;
    if (lua_getfield(L, b->names, name) != LUA_TNUMBER)
        tplErrorAt(L, where, "unknown body '%s' (bodies: %s)", name, b->bodylist);
    int i = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return i;
}

/* ------------------------------------------------------------------------------------------ */
/* Scene                                                                                       */

static void tplBuildScene(tplBuild *b, tpSceneDef *scene)
{
    lua_State *L = b->L;
    const char *what = "tp.domain: ";
    scene->dt = tplNumber(L, 1, what, "dt", scene->dt, false);
    if (!(scene->dt > 0))
        tplError(L, "tp.domain: dt must be > 0 (got %g)", scene->dt);
    tplVector(L, 1, what, "gravity", scene->gravity, 3, 3, false);
    char solver[16];
    if (tplString(L, 1, what, "solver", solver, sizeof solver)) {
        if (strcmp(solver, "step") == 0)
            scene->solver = TP_SOLVER_STEP;
        else if (strcmp(solver, "quickstep") == 0)
            scene->solver = TP_SOLVER_QUICKSTEP;
        else
            tplError(L, "tp.domain: solver must be \"step\" or \"quickstep\" (got \"%s\")", solver);
    }
    char space[16];
    if (tplString(L, 1, what, "space", space, sizeof space)) {
        static const char *const names[] = {"auto", "simple", "hash", "sap"};
        int k = 0;
        while (k < 4 && strcmp(space, names[k]) != 0)
            k++;
        if (k == 4)
            tplError(L, "tp.domain: space must be \"auto\", \"simple\", \"hash\" or \"sap\" (got \"%s\")", space);
        scene->space = (tpSpaceKind)k;
    }
    scene->quickstep_iters = (int)tplInteger(L, 1, what, "quickstep_iters", scene->quickstep_iters, 1, 100000);
    scene->erp = tplNumber(L, 1, what, "erp", scene->erp, false);
    if (!(scene->erp >= 0 && scene->erp <= 1))
        tplError(L, "tp.domain: erp must be in [0, 1] (got %g)", scene->erp);
    scene->cfm = tplNumber(L, 1, what, "cfm", scene->cfm, false);
    if (!(scene->cfm >= 0))
        tplError(L, "tp.domain: cfm must be >= 0 (got %g)", scene->cfm);
    scene->max_contacts = (int)tplInteger(L, 1, what, "max_contacts", scene->max_contacts, 1, 64);
    scene->substeps = (int)tplInteger(L, 1, what, "substeps", scene->substeps, 1, 64);
    scene->max_static_penetration =
        tplNumber(L, 1, what, "max_static_penetration", scene->max_static_penetration, false);
    if (!(scene->max_static_penetration >= 0 && scene->max_static_penetration <= 1000))
        tplError(L, "tp.domain: max_static_penetration must be in [0, 1000] m (0 = no check; got %g)",
                 scene->max_static_penetration);
    scene->max_body_penetration = tplNumber(L, 1, what, "max_body_penetration", scene->max_body_penetration, false);
    if (!(scene->max_body_penetration >= 0 && scene->max_body_penetration <= 1000))
        tplError(L, "tp.domain: max_body_penetration must be in [0, 1000] m (0 = no check; got %g)",
                 scene->max_body_penetration);

    scene->sleep_speed = tplNumber(L, 1, what, "sleep_speed", scene->sleep_speed, false);
    if (!(scene->sleep_speed >= 0 && scene->sleep_speed <= 1))
        tplError(L, "tp.domain: sleep_speed must be in [0, 1] m/s (0 = bodies never sleep; got %g)",
                 scene->sleep_speed);
    scene->friction_cone = tplBool(L, 1, what, "friction_cone", scene->friction_cone);
    scene->sleep_time = tplNumber(L, 1, what, "sleep_time", scene->sleep_time, false);
    if (!(scene->sleep_time > 0 && scene->sleep_time <= 60))
        tplError(L, "tp.domain: sleep_time must be in (0, 60] s (got %g)", scene->sleep_time);

    /* materials: none given means one default material */
    int nm = tplArrayField(L, "materials", what);
    if (nm > TP_MAX_MATERIALS)
        tplError(L,
                 "tp.domain: %d materials, at most %d (every pair of materials has a surface: the table grows "
                 "with the square)",
                 nm, TP_MAX_MATERIALS);
    int msrc = lua_gettop(L);
    int nmat = nm > 0 ? nm : 1;
    tpMaterialDef *mats = tplScratch(b, sizeof *mats * (size_t)nmat);
    mats[0] = tpDefaultMaterialDef();
    for (int i = 0; i < nm; i++) {
        lua_rawgeti(L, msrc, i + 1);
        const tplMaterial *m = luaL_testudata(L, -1, TPL_MATERIAL);
        if (!m)
            tplError(L, "tp.domain: materials[%d]: expected tp.material, got %s", i + 1, tplTypeName(L, -1));
        mats[i] = m->def;
        for (int j = 0; j < i; j++)
            if (strcmp(mats[j].name, mats[i].name) == 0)
                tplErrorAt(L, tplUdWhere(L, -1), "duplicate material name '%s'%s", mats[i].name,
                           strcmp(mats[i].name, "default") == 0
                               ? " (a material named \"default\" replaces the built-in default: define it once)"
                               : "");
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    scene->materials = mats;
    scene->nmaterials = nmat;
    /* "default" names the material of bodies that name none: the script's own material called
       "default" (its properties replace the built-in default's), else its first material, else
       the built-in one (tpDefaultMaterialDef, named "default") */
    int mdef = 0;
    for (int j = 0; j < nmat; j++)
        if (strcmp(mats[j].name, "default") == 0)
            mdef = j;
    /* the list for "unknown material" messages */
    luaL_Buffer mlist;
    luaL_buffinit(L, &mlist);
    for (int j = 0; j < nmat; j++) {
        if (j)
            luaL_addstring(&mlist, ", ");
        luaL_addstring(&mlist, mats[j].name);
    }
    if (strcmp(mats[mdef].name, "default") != 0) {
        luaL_addstring(&mlist, "; \"default\" is ");
        luaL_addstring(&mlist, mats[mdef].name);
    }
    luaL_pushresult(&mlist);
    const char *matlist = lua_tostring(L, -1);
    lua_rawseti(L, b->keep, (lua_Integer)lua_rawlen(L, b->keep) + 1); /* keeps matlist alive */

    /* bodies: the array order is the body index */
    int nb = tplArrayField(L, "bodies", what);
    if (nb < 1)
        tplError(L, "tp.domain: 'bodies' is required (at least one body)");
    int bsrc = lua_gettop(L);
    tpBodyDef *bodies = tplScratch(b, sizeof *bodies * (size_t)nb);
    for (int i = 0; i < nb; i++) {
        lua_rawgeti(L, bsrc, i + 1);
        const tplBody *bd = luaL_testudata(L, -1, TPL_BODY);
        if (!bd)
            tplError(L,
                     "tp.domain: bodies[%d]: expected a body (tp.box, tp.sphere, tp.cylinder, tp.capsule, tp.plane, "
                     "tp.mesh, tp.compound), got %s",
                     i + 1, tplTypeName(L, -1));
        bodies[i] = bd->def;
        if (bd->def.shape == TP_SHAPE_MESH || bd->def.shape == TP_SHAPE_COMPOUND) {
            /* the domain keeps the mesh's arrays (the parts) alive */
            lua_getiuservalue(L, -1, 3);
            lua_rawseti(L, b->keep, (lua_Integer)lua_rawlen(L, b->keep) + 1);
        }
        if (bd->def.motion.kind == TP_MOTION_FUNCTION && bd->def.cls == TP_BODY_FOREIGN) {
            lua_getiuservalue(L, -1, 2);
            bodies[i].motion.fn = tplMotionCallback;
            bodies[i].motion.user = b->dom;
            bodies[i].motion.fn_id = tplRegister(b);
        }
        if (lua_getfield(L, b->names, bd->def.name) != LUA_TNIL)
            tplErrorAt(L, tplUdWhere(L, -2), "duplicate body name '%s'", bd->def.name);
        lua_pop(L, 1);
        lua_pushinteger(L, i);
        lua_setfield(L, b->names, bd->def.name);
        bodies[i].material = mdef;
        if (bd->material[0]) {
            bodies[i].material = tplMaterialIndex(mats, nmat, mdef, bd->material);
            if (bodies[i].material < 0)
                tplErrorAt(L, tplUdWhere(L, -1), "unknown material '%s' (materials: %s)", bd->material, matlist);
        }
        lua_pop(L, 1);
    }
    /* the list for "unknown body" messages, built after the loop: the buffer uses the stack */
    luaL_Buffer list;
    luaL_buffinit(L, &list);
    for (int i = 0; i < nb; i++) {
        if (i)
            luaL_addstring(&list, ", ");
        luaL_addstring(&list, bodies[i].name);
    }
    luaL_pushresult(&list);
    b->bodylist = lua_tostring(L, -1);
    lua_rawseti(L, b->keep, (lua_Integer)lua_rawlen(L, b->keep) + 1);
    lua_pop(L, 1);
    scene->bodies = bodies;
    scene->nbodies = nb;

    /* pair overrides by material name; unspecified values follow the mixing rule */
    int nc = tplArrayField(L, "contacts", what);
    int csrc = lua_gettop(L);
    tpContactDef *cons = tplScratch(b, sizeof *cons * (size_t)(nc > 0 ? nc : 1));
    for (int i = 0; i < nc; i++) {
        lua_rawgeti(L, csrc, i + 1);
        const tplContact *c = luaL_testudata(L, -1, TPL_CONTACT);
        if (!c)
            tplError(L, "tp.domain: contacts[%d]: expected tp.contact, got %s", i + 1, tplTypeName(L, -1));
        int ia = tplMaterialIndex(mats, nmat, mdef, c->a), ib = tplMaterialIndex(mats, nmat, mdef, c->b);
        if (ia < 0 || ib < 0)
            tplErrorAt(L, tplUdWhere(L, -1), "unknown material '%s' in tp.contact (materials: %s)",
                       ia < 0 ? c->a : c->b, matlist);
        const tpMaterialDef *ma = &mats[ia], *mb = &mats[ib];
        cons[i].material_a = ia;
        cons[i].material_b = ib;
        cons[i].friction = isnan(c->friction) ? sqrt(ma->friction * mb->friction) : c->friction;
        cons[i].restitution = isnan(c->restitution) ? fmax(ma->restitution, mb->restitution) : c->restitution;
        cons[i].rolling_friction =
            isnan(c->rolling_friction) ? fmax(ma->rolling_friction, mb->rolling_friction) : c->rolling_friction;
        cons[i].bounce_velocity =
            isnan(c->bounce_velocity) ? fmax(ma->bounce_velocity, mb->bounce_velocity) : c->bounce_velocity;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    scene->contacts = cons;
    scene->ncontacts = nc > 0 ? nc : 0;

    /* joints: their body names, and a distance joint's anchors at the bodies' centres by default */
    int nj = tplArrayField(L, "joints", what);
    if (nj > TP_MAX_JOINTS)
        tplError(L, "tp.domain: %d joints, at most %d", nj, TP_MAX_JOINTS);
    int jsrc = lua_gettop(L);
    lua_newtable(L);
    const int jnames = lua_gettop(L);
    tpJointDef *joints = tplScratch(b, sizeof *joints * (size_t)(nj > 0 ? nj : 1));
    for (int i = 0; i < nj; i++) {
        lua_rawgeti(L, jsrc, i + 1);
        const tplJoint *j = luaL_testudata(L, -1, TPL_JOINT);
        if (!j)
            tplError(L, "tp.domain: joints[%d]: expected tp.joint, got %s", i + 1, tplTypeName(L, -1));
        const char *jwhere = tplUdWhere(L, -1);
        joints[i] = j->def;
        joints[i].body_a = tplResolveBody(b, j->a, jwhere);
        joints[i].body_b = j->b[0] ? tplResolveBody(b, j->b, jwhere) : -1;
        const tpBodyDef *ba = &bodies[joints[i].body_a];
        if (ba->cls == TP_BODY_STATIC)
            tplErrorAt(L, jwhere,
                       "tp.joint: bodies[1] '%s' is static: the first body must move (a static one goes "
                       "second, like the world)",
                       ba->name);
        if (j->def.name[0]) { /* jnames: name -> true, linear in the number of joints */
            if (lua_getfield(L, jnames, j->def.name) != LUA_TNIL)
                tplErrorAt(L, jwhere, "duplicate joint name '%s'", j->def.name);
            lua_pop(L, 1);
            lua_pushboolean(L, 1);
            lua_setfield(L, jnames, j->def.name);
        }
        if (j->def.kind == TP_JOINT_DISTANCE) {
            if (!j->has_anchor)
                memcpy(joints[i].anchor, ba->pos, sizeof joints[i].anchor);
            if (!j->has_anchor2) {
                if (joints[i].body_b < 0)
                    tplErrorAt(L, jwhere, "tp.joint: anchor2 is required for a distance joint to the world");
                memcpy(joints[i].anchor2, bodies[joints[i].body_b].pos, sizeof joints[i].anchor2);
            }
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
    scene->joints = joints;
    scene->njoints = nj > 0 ? nj : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Tactics                                                                                     */

typedef struct tplWorldGuard {
    tpWorld *world;
} tplWorldGuard;

static int tplWorldGc(lua_State *L)
{
    tplWorldGuard *g = luaL_checkudata(L, 1, TPL_WORLDGUARD);
    tpDestroyWorld(g->world);
    g->world = NULL;
    return 0;
}

/* The call site of the body a tpCreateWorld message is about ('body "NAME": ...': a compound's
 * parts[k].size out of range is reported at the tp.compound's line), else `where`. The string
 * lives in the body's userdata, which tp.domain's bodies table (at 1) keeps. */
static const char *tplBodyErrorWhere(lua_State *L, const tpSceneDef *scene, const char *err, const char *where)
{
    for (int i = 0; i < scene->nbodies; i++) {
        char prefix[TP_NAME_MAX + 16];
        snprintf(prefix, sizeof prefix, "body \"%s\":", scene->bodies[i].name);
        if (strncmp(err, prefix, strlen(prefix)) != 0)
            continue;
        if (tplField(L, 1, "bodies") == LUA_TTABLE) {
            lua_rawgeti(L, -1, i + 1);
            if (luaL_testudata(L, -1, TPL_BODY))
                where = tplUdWhere(L, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        return where;
    }
    return where;
}

static void tplBuildTactics(tplBuild *b, tpDomainDef *def)
{
    lua_State *L = b->L;
    /* A scratch world lets every skill be checked (tpSkill_Validate) here, so a bad skill is
     * reported at its own line rather than at tp.domain's. The guard frees it on any error. */
    tplWorldGuard *wg = lua_newuserdatauv(L, sizeof *wg, 0);
    wg->world = NULL;
    luaL_setmetatable(L, TPL_WORLDGUARD);
    char err[512] = "";
    wg->world = tpCreateWorld(&def->scene, err, sizeof err);
    if (!wg->world && tplHasPosition(err)) { /* a tp.motion function's error names its own line */
        lua_pushstring(L, err);
        lua_error(L);
    }
    if (!wg->world)
        tplErrorAt(L, tplBodyErrorWhere(L, &def->scene, err, b->where), "%s", err);
    int nt = tplArrayField(L, "tactics", "tp.domain: ");
    int tsrc = lua_gettop(L);
    int n = nt > 0 ? nt : 0;
    tpTacticDef *tactics = tplScratch(b, sizeof *tactics * (size_t)(n ? n : 1));
    lua_newtable(L); /* [t] -> dynamic rows */
    int pis = lua_gettop(L);
    lua_newtable(L); /* [t] -> {i -> skill name, name -> i} */
    int skn = lua_gettop(L);
    for (int t = 0; t < n; t++) {
        lua_rawgeti(L, tsrc, t + 1);
        int tidx = lua_gettop(L);
        const tplTactic *tc = luaL_testudata(L, tidx, TPL_TACTIC);
        if (!tc)
            tplError(L, "tp.domain: tactics[%d]: expected tp.tactic, got %s", t + 1, tplTypeName(L, tidx));
        const char *twhere = tplUdWhere(L, tidx);
        for (int u = 0; u < t; u++)
            if (strcmp(tactics[u].name, tc->name) == 0)
                tplErrorAt(L, twhere, "duplicate tactic name '%s'", tc->name);
        tpTacticDef *td = &tactics[t];
        tpStrCopy(td->name, sizeof td->name, tc->name);
        td->foreign = tc->foreign;
        td->nskills = tc->nskills;
        td->initial = tc->initial;
        int tbody = tc->body[0] ? tplResolveBody(b, tc->body, twhere) : -1;

        tpSkillDef *skills = tplScratch(b, sizeof *skills * (size_t)tc->nskills);
        lua_getiuservalue(L, tidx, 2);
        int sks = lua_gettop(L);
        lua_createtable(L, tc->nskills, tc->nskills);
        for (int i = 0; i < tc->nskills; i++) {
            lua_rawgeti(L, sks, i + 1);
            const tplSkill *sk = luaL_checkudata(L, -1, TPL_SKILL);
            const char *swhere = tplUdWhere(L, -1);
            skills[i] = sk->def;
            /* a skill without a body drives its tactic's body */
            skills[i].body = sk->body[0] ? tplResolveBody(b, sk->body, swhere) : tbody;
            skills[i].target = sk->target[0] ? tplResolveBody(b, sk->target, swhere) : -1;
            if (sk->ground_offset && sk->ground[0]) /* the kind's body field (kick's `ground`), by name */
                *(int *)((char *)&skills[i] + sk->ground_offset) = tplResolveBody(b, sk->ground, swhere);
            if (sk->joint_offset && sk->joint[0]) { /* the kind's joint field (motor's `joint`), by name */
                const int j = tpWorld_FindJoint(wg->world, sk->joint);
                if (j < 0)
                    tplErrorAt(L, swhere, "skill '%s' (%s): joint: no joint named '%s' in the domain", sk->def.name,
                               tpSkillKind_Name(sk->def.kind), sk->joint);
                *(int *)((char *)&skills[i] + sk->joint_offset) = j;
                /* a motor skill of a tactic without a body is about the joint's (first) body */
                if (skills[i].body < 0 && sk->def.kind == TP_SKILL_MOTOR)
                    skills[i].body = tpWorld_Joint(wg->world, j)->body_a;
            }
            if (sk->def.kind == TP_SKILL_CUSTOM) {
                lua_getiuservalue(L, -1, 2);
                skills[i].custom.fn = tplSkillCallback;
                skills[i].custom.user = b->dom;
                skills[i].custom.id = tplRegister(b);
            }
            if (!tpSkill_Validate(&skills[i], wg->world, err, sizeof err))
                tplErrorAt(L, swhere, "%s", err);
            TP_VALIDATE(tpSkillDef_Valid, &skills[i]); /* with its bodies and joint resolved */
            lua_pop(L, 1);
            lua_pushstring(L, sk->def.name);
            lua_pushvalue(L, -1);
            lua_rawseti(L, -3, i + 1);
            lua_pushinteger(L, i + 1);
            lua_rawset(L, -3);
        }
        lua_rawseti(L, skn, t + 1);
        lua_pop(L, 1); /* skills array */
        if (tbody < 0)
            for (int i = 0; i < tc->nskills && tbody < 0; i++)
                tbody = skills[i].body;
        td->body = tbody;
        td->skills = skills;
        td->pi = tc->pi;
        bool anydyn = false;
        for (int i = 0; i < tc->nskills; i++)
            anydyn = anydyn || tc->dynamic[i];
        td->pi_dynamic = anydyn ? tc->dynamic : NULL;
        td->pi_fn = anydyn ? tplPiCallback : NULL;
        td->pi_user = anydyn ? b->dom : NULL;
        lua_getiuservalue(L, tidx, 3);
        lua_rawseti(L, pis, t + 1);
        lua_settop(L, skn);
    }
    lua_pushvalue(L, skn);
    b->dom->skillsref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushvalue(L, pis);
    b->dom->piref = luaL_ref(L, LUA_REGISTRYINDEX);
    tpDestroyWorld(wg->world);
    wg->world = NULL;
    lua_settop(L, tsrc - 2); /* the tactics array and the world guard */
    def->tactics = tactics;
    def->ntactics = n;
}

/* ------------------------------------------------------------------------------------------ */
/* Conditions                                                                                  */

static int tplCondGc(lua_State *L)
{
    tplCondGuard *g = luaL_checkudata(L, 1, TPL_CONDGUARD);
    tpDestroyCond(g->root);
    g->root = NULL;
    return 0;
}

static tpCond *tplNewNode(lua_State *L, tpCondKind kind, tpCond *parent, tplCondGuard *g)
{
    tpCond *c = tpCreateCond(kind);
    if (!c)
        tplError(L, "out of memory building a condition");
    if (!parent) {
        g->root = c;
    } else if (!tpCond_Add(parent, c)) {
        tpDestroyCond(c);
        tplError(L, "out of memory building a condition");
    }
    return c;
}

/* The constructor that makes each condition kind (one row per tpCondKind), for labels. */
static const char *const tplCondCtors[] = {
    "true",      "tp.within",  "tp.within",   "tp.inside", "tp.slower", "tp.faster",      "tp.near",    "tp.touching",
    "tp.moved",  "tp.all",     "tp.any",      "tp.negate", "function",  "tp.arranged",    "tp.heading", "tp.upright",
    "tp.tilted", "tp.settled", "tp.sequence", "tp.ever",   "tp.never",  "tp.within_time", "tp.at_time",
};
_Static_assert(sizeof tplCondCtors / sizeof tplCondCtors[0] == TP_COND_KIND_COUNT, "one row per tpCondKind");

/* c->label: the constructor, its bodies and where the script called it ("file:line: " from
 * `where`, or a function's definition), as the summary of rejected states names it. The file is
 * named relative to the script's folder, so that the words, which plan files record, do not
 * depend on where the checkout is (a built-in domain's path is absolute). */
static void tplCondLabel(const tplBuild *b, tpCond *c, const tplCond *lc, const char *where)
{
    const char *slash = strrchr(b->dom->path, '/');
    size_t dir = slash ? (size_t)(slash - b->dom->path) + 1 : 0;
    if (dir > 0 && strncmp(where, b->dom->path, dir) == 0)
        where += dir;
    size_t n = strlen(where);
    while (n > 0 && (where[n - 1] == ' ' || where[n - 1] == ':'))
        n--;
    const char *ctor = (unsigned)c->kind < TP_COND_KIND_COUNT ? tplCondCtors[c->kind] : "?";
    char bodies[2 * TP_NAME_MAX + 8] = "";
    if (lc && lc->body[0] && lc->other[0])
        snprintf(bodies, sizeof bodies, " '%s' '%s'", lc->body, lc->other);
    else if (lc && lc->body[0])
        snprintf(bodies, sizeof bodies, " '%s'", lc->body);
    snprintf(c->label, sizeof c->label, "%s%s (%.*s)", ctor, bodies, (int)n, where);
}

/* Converts the condition or function at idx and attaches it to parent (or the guard): every
 * node is reachable from the guard as soon as it exists, so an error frees it. */
static void tplBuildCond(tplBuild *b, int idx, tpCond *parent, tplCondGuard *g)
{
    lua_State *L = b->L;
    idx = lua_absindex(L, idx);
    luaL_checkstack(L, 8, NULL);
    if (lua_type(L, idx) == LUA_TFUNCTION) {
        lua_pushvalue(L, idx);
        int id = tplRegister(b);
        tpCond *c = tplNewNode(L, TP_COND_CALLBACK, parent, g);
        c->fn = tplCondCallback;
        c->user = b->dom;
        c->id = id;
        lua_Debug ar;
        lua_pushvalue(L, idx);
        if (lua_getinfo(L, ">S", &ar)) {
            char where[1100];
            snprintf(where, sizeof where, "%s:%d", ar.source[0] == '@' ? ar.source + 1 : ar.short_src, ar.linedefined);
            tplCondLabel(b, c, NULL, where);
        }
        return;
    }
    const tplCond *lc = luaL_testudata(L, idx, TPL_COND);
    if (!lc)
        tplError(L, "tp.domain: expected a condition or a function, got %s", tplTypeName(L, idx));
    const char *where = tplUdWhere(L, idx);
    int body = lc->body[0] ? tplResolveBody(b, lc->body, where) : -1;
    int other = lc->other[0] ? tplResolveBody(b, lc->other, where) : -1;
    tpCond *c = tplNewNode(L, lc->kind, parent, g);
    c->body = body;
    c->other = other;
    tplCondLabel(b, c, lc, where);
    memcpy(c->center, lc->center, sizeof c->center);
    c->radius = lc->radius;
    memcpy(c->lo, lc->lo, sizeof c->lo);
    memcpy(c->hi, lc->hi, sizeof c->hi);
    c->value = lc->value;
    if (lc->kind == TP_COND_ARRANGED) {
        c->fraction = lc->fraction;
        lua_getiuservalue(L, idx, 2);
        lua_rawgeti(L, -1, 1);
        lua_rawgeti(L, -2, 2);
        int n = (int)lua_rawlen(L, -2);
        int *bodies = tplScratch(b, sizeof *bodies * (size_t)n);
        double *pts = tplScratch(b, sizeof *pts * 3 * (size_t)n);
        for (int i = 0; i < n; i++) {
            lua_rawgeti(L, -2, i + 1);
            bodies[i] = tplResolveBody(b, lua_tostring(L, -1), where);
            lua_pop(L, 1);
            for (int k = 0; k < 3; k++) {
                lua_rawgeti(L, -1, 3 * i + k + 1);
                pts[3 * i + k] = lua_tonumber(L, -1);
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 3);
        if (!tpCond_SetTargets(c, n, bodies, pts, lc->dim))
            tplError(L, "out of memory building a condition");
    }
    if (lc->kind == TP_COND_SETTLED) {
        c->angular = lc->radius;
        lua_getiuservalue(L, idx, 2);
        lua_rawgeti(L, -1, 1);
        int n = (int)lua_rawlen(L, -1);
        int *bodies = tplScratch(b, sizeof *bodies * (size_t)n);
        double *pts = tplScratch(b, sizeof *pts * 3 * (size_t)n);
        for (int i = 0; i < n; i++) {
            lua_rawgeti(L, -1, i + 1);
            bodies[i] = tplResolveBody(b, lua_tostring(L, -1), where);
            lua_pop(L, 1);
            pts[3 * i] = pts[3 * i + 1] = pts[3 * i + 2] = 0.0;
        }
        lua_pop(L, 2);
        if (!tpCond_SetTargets(c, n, bodies, pts, 3))
            tplError(L, "out of memory building a condition");
    }
    c->value = lc->value;
    c->t0 = lc->t0;
    c->t1 = lc->t1;
    if (lc->kind == TP_COND_AND || lc->kind == TP_COND_OR || lc->kind == TP_COND_NOT ||
        (lc->kind >= TP_COND_SEQUENCE && lc->kind <= TP_COND_AT_TIME)) {
        lua_getiuservalue(L, idx, 2);
        int n = (int)lua_rawlen(L, -1);
        for (int i = 0; i < n; i++) {
            lua_rawgeti(L, -1, i + 1);
            tplBuildCond(b, -1, c, g);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
}

/* Builds field `key` into a guarded tree; returns the guard (pushed) or NULL (nothing pushed)
 * when the field is absent. */
static tplCondGuard *tplCondField(tplBuild *b, const char *key)
{
    lua_State *L = b->L;
    if (tplField(L, 1, key) == LUA_TNIL) {
        lua_pop(L, 1);
        return NULL;
    }
    int src = lua_gettop(L);
    if (lua_type(L, src) != LUA_TFUNCTION && !luaL_testudata(L, src, TPL_COND))
        tplError(L, "tp.domain: %s: expected a condition (tp.within, tp.all, ...) or a function, got %s", key,
                 tplTypeName(L, src));
    tplCondGuard *g = lua_newuserdatauv(L, sizeof *g, 0);
    g->root = NULL;
    luaL_setmetatable(L, TPL_CONDGUARD);
    tplBuildCond(b, src, NULL, g);
    lua_remove(L, src);
    return g;
}

/* ------------------------------------------------------------------------------------------ */
/* Sampling, metrics, planner                                                                  */

static void tplBuildSampling(tplBuild *b, tpSamplingDef *s)
{
    static const char *const known[] = {"distance", "body", "bodies", "max_accel", "max_angaccel", NULL};
    lua_State *L = b->L;
    int t = tplField(L, 1, "sampling");
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    if (t != LUA_TTABLE)
        tplError(L, "tp.domain: sampling: expected a table, got %s", tplTypeName(L, -1));
    int idx = lua_gettop(L);
    int n = (int)lua_rawlen(L, idx);
    tplCheckFields(L, idx, "tp.domain sampling", known, n);
    if (n > 4)
        tplError(L, "tp.domain: sampling: at most 4 distributions (got %d)", n);
    int dims = 0;
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, idx, i + 1);
        char label[64];
        snprintf(label, sizeof label, "tp.domain: sampling[%d]", i + 1);
        tplToDist(L, -1, label, &s->dists[i], 1, 3);
        lua_pop(L, 1);
        if (s->dists[i].kind == TP_DIST_SAMPLE)
            tplError(L, "%s: tp.sample cannot define the sample itself", label);
        dims += s->dists[i].dim;
    }
    if (dims > TP_MAX_SAMPLE_DIMS)
        tplError(L, "tp.domain: sampling: %d dimensions, at most %d", dims, TP_MAX_SAMPLE_DIMS);
    s->ndists = n;
    char dist[16];
    if (tplString(L, idx, "tp.domain: sampling.", "distance", dist, sizeof dist)) {
        if (strcmp(dist, "min_time") == 0)
            s->distance = TP_DISTANCE_MIN_TIME;
        else if (strcmp(dist, "euclidean") == 0)
            s->distance = TP_DISTANCE_EUCLIDEAN;
        else
            tplError(L, "tp.domain: sampling.distance must be \"min_time\" or \"euclidean\" (got \"%s\")", dist);
    }
    char body[TP_NAME_MAX];
    if (tplString(L, idx, "tp.domain: sampling.", "body", body, sizeof body))
        s->body = tplResolveBody(b, body, b->where);
    /* bodies = { names }: the key is all of their positions (one body that waits for the
       last throw tells the RRT's nodes apart no better than a constant) */
    int bt = lua_getfield(L, idx, "bodies");
    if (bt != LUA_TNIL) {
        if (bt != LUA_TTABLE)
            tplError(L, "tp.domain: sampling.bodies: expected an array of body names, got %s", tplTypeName(L, -1));
        if (s->body >= 0)
            tplError(L, "tp.domain: sampling: body and bodies are exclusive (bodies compares every one listed)");
        int nb = (int)lua_rawlen(L, -1);
        if (nb < 1 || nb > TP_MAX_KEY_BODIES)
            tplError(L, "tp.domain: sampling.bodies: 1 to %d body names (got %d)", TP_MAX_KEY_BODIES, nb);
        if (dims > 3)
            tplError(L, "tp.domain: sampling.bodies: y must be a position of at most 3 dimensions (got %d)", dims);
        for (int i = 0; i < nb; i++) {
            lua_rawgeti(L, -1, i + 1);
            if (lua_type(L, -1) != LUA_TSTRING)
                tplError(L, "tp.domain: sampling.bodies[%d]: expected a body name, got %s", i + 1, tplTypeName(L, -1));
            s->bodies[i] = tplResolveBody(b, lua_tostring(L, -1), b->where);
            lua_pop(L, 1);
        }
        s->nbodies = nb;
    }
    lua_pop(L, 1);
    s->max_accel = tplNumber(L, idx, "tp.domain: sampling.", "max_accel", s->max_accel, false);
    if (!(s->max_accel >= 0))
        tplError(L, "tp.domain: sampling.max_accel must be >= 0 (got %g)", s->max_accel);
    s->max_angaccel = tplNumber(L, idx, "tp.domain: sampling.", "max_angaccel", s->max_angaccel, false);
    if (!(s->max_angaccel >= 0))
        tplError(L, "tp.domain: sampling.max_angaccel must be >= 0 (got %g)", s->max_angaccel);
    lua_pop(L, 1);
}

/* Builds an arranged condition used as a metric: a guarded tree (kept in `keep`, freed by its
 * __gc) that tpCreateDomain copies. */
static tpCond *tplMetricCond(tplBuild *b, int idx)
{
    lua_State *L = b->L;
    tplCondGuard *g = lua_newuserdatauv(L, sizeof *g, 0);
    g->root = NULL;
    luaL_setmetatable(L, TPL_CONDGUARD);
    lua_rawseti(L, b->keep, (lua_Integer)lua_rawlen(L, b->keep) + 1);
    tplBuildCond(b, idx, NULL, g);
    return g->root;
}

/* The metric value at stack index idx (absolute; may be nil) for `key` (label in messages). */
static void tplMetricAt(tplBuild *b, int idx, const char *key, tpMetricDef *m, bool solution)
{
    lua_State *L = b->L;
    int t = lua_type(L, idx);
    if (t == LUA_TNIL) {
        m->kind = TP_METRIC_DEFAULT;
    } else if (t == LUA_TFUNCTION) {
        lua_pushvalue(L, idx);
        m->kind = TP_METRIC_CALLBACK;
        m->fn = tplMetricCallback;
        m->user = b->dom;
        m->id = tplRegister(b);
        if (solution)
            b->dom->solution_id = m->id;
        else
            b->dom->quality_id = m->id;
    } else if (luaL_testudata(L, idx, TPL_COND)) {
        const tplCond *lc = luaL_testudata(L, idx, TPL_COND);
        if (lc->kind != TP_COND_ARRANGED)
            tplError(L, "tp.domain: %s: of the conditions only tp.arranged is a metric (its on-target fraction)", key);
        m->kind = TP_METRIC_ARRANGED;
        m->cond = tplMetricCond(b, idx);
    } else if (t == LUA_TSTRING && solution) {
        if (strcmp(lua_tostring(L, idx), "steps") != 0)
            tplError(L, "tp.domain: %s: expected \"steps\", tp.effort, tp.distance or a function, got \"%s\"", key,
                     lua_tostring(L, idx));
        m->kind = TP_METRIC_STEPS;
    } else {
        const tplMetric *lm = luaL_testudata(L, idx, TPL_METRIC);
        if (!lm || (!solution && lm->kind != TP_METRIC_DISTANCE))
            tplError(L, "tp.domain: %s: expected %s, got %s", key,
                     solution ? "\"steps\", tp.effort, tp.peak_force, tp.distance, tp.arranged or a function"
                              : "tp.distance, tp.arranged or a function",
                     lm ? (lm->kind == TP_METRIC_PEAK_FORCE ? "tp.peak_force" : "tp.effort") : tplTypeName(L, idx));
        const char *where = tplUdWhere(L, idx);
        m->kind = lm->kind;
        if (lm->kind == TP_METRIC_DISTANCE) {
            m->body = tplResolveBody(b, lm->body, where);
            memcpy(m->point, lm->point, sizeof m->point);
            m->planar = lm->planar;
        } else {
            m->nbodies = lm->nbodies;
            for (int i = 0; i < lm->nbodies; i++)
                m->bodies[i] = tplResolveBody(b, lm->bodies[i], where);
        }
    }
}

static void tplBuildMetric(tplBuild *b, const char *key, tpMetricDef *m, bool solution)
{
    lua_State *L = b->L;
    tplField(L, 1, key);
    int idx = lua_gettop(L);
    tplMetricAt(b, idx, key, m, solution);
    lua_settop(L, idx - 1);
}

/* report = { { "name", metric }, ... }: figures of the selected plan (printed, stored in stats). */
static void tplBuildReports(tplBuild *b, tpDomainDef *def)
{
    lua_State *L = b->L;
    int t = tplField(L, 1, "report");
    int idx = lua_gettop(L);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    if (t != LUA_TTABLE)
        tplError(L, "tp.domain: report: expected an array of { name, metric }, got %s", tplTypeName(L, idx));
    int n = (int)lua_rawlen(L, idx);
    if (n > TP_MAX_REPORTS)
        tplError(L, "tp.domain: report: at most %d entries (got %d)", TP_MAX_REPORTS, n);
    for (int i = 0; i < n; i++) {
        char label[96];
        snprintf(label, sizeof label, "report[%d]", i + 1);
        if (lua_rawgeti(L, idx, i + 1) != LUA_TTABLE || lua_rawlen(L, -1) != 2)
            tplError(L, "tp.domain: %s: expected { name, metric }", label);
        int e = lua_gettop(L);
        if (lua_rawgeti(L, e, 1) != LUA_TSTRING)
            tplError(L, "tp.domain: %s: the name must be a string, got %s", label, tplTypeName(L, -1));
        size_t len = 0;
        const char *name = lua_tolstring(L, -1, &len);
        if (len == 0 || len >= TP_NAME_MAX)
            tplError(L, "tp.domain: %s: name must be 1..%d bytes", label, TP_NAME_MAX - 1);
        for (int j = 0; j < i; j++)
            if (strcmp(def->reports[j].name, name) == 0)
                tplError(L, "tp.domain: %s: duplicate name '%s'", label, name);
        tpStrCopy(def->reports[i].name, sizeof def->reports[i].name, name);
        snprintf(label, sizeof label, "report '%s'", name);
        lua_rawgeti(L, e, 2);
        if (lua_type(L, -1) == LUA_TFUNCTION || lua_isnil(L, -1))
            tplError(L, "tp.domain: %s: expected tp.arranged, tp.peak_force, tp.effort, tp.distance or \"steps\"",
                     label);
        tplMetricAt(b, lua_gettop(L), label, &def->reports[i].metric, true);
        def->nreports = i + 1;
        lua_settop(L, idx);
    }
    lua_settop(L, idx - 1);
}

/* view = { yaw = deg, pitch = deg, distance = m, target = {x, y, z} }: the default camera */
static void tplBuildView(tplBuild *b, tpPlanView *v)
{
    static const char *const known[] = {"yaw", "pitch", "distance", "target", NULL};
    lua_State *L = b->L;
    int t = tplField(L, 1, "view");
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    if (t != LUA_TTABLE)
        tplError(L, "tp.domain: view: expected a table, got %s", tplTypeName(L, -1));
    int idx = lua_gettop(L);
    tplCheckFields(L, idx, "tp.domain view", known, 0);
    const char *what = "tp.domain: view.";
    v->yaw = tplReqNumber(L, idx, what, "yaw");
    v->pitch = tplReqNumber(L, idx, what, "pitch");
    v->distance = tplNumber(L, idx, what, "distance", 0.0, false); /* 0: fitted by the viewer */
    if (!isfinite(v->yaw))
        tplError(L, "tp.domain: view.yaw must be finite (got %g)", v->yaw);
    if (!(fabs(v->pitch) <= 89.9))
        tplError(L, "tp.domain: view.pitch must be within -89.9..89.9 degrees (got %g)", v->pitch);
    if (!(v->distance > 0) && v->distance != 0.0)
        tplError(L, "tp.domain: view.distance must be > 0 (got %g)", v->distance);
    v->has_target = tplVector(L, idx, what, "target", v->target, 3, 3, false) != 0;
    v->set = true;
    lua_settop(L, idx - 1);
}

/* fallback = "auto" | "rest" | "quality" and shot = { min = s, max = s } (docs/lua-api.md#fallbacks) */
static void tplBuildFallback(tplBuild *b, tpDomainDef *def)
{
    lua_State *L = b->L;
    char mode[16] = "auto";
    tplString(L, 1, "tp.domain: ", "fallback", mode, sizeof mode);
    if (strcmp(mode, "auto") == 0)
        def->fallback = TP_FALLBACK_AUTO;
    else if (strcmp(mode, "rest") == 0)
        def->fallback = TP_FALLBACK_REST;
    else if (strcmp(mode, "quality") == 0)
        def->fallback = TP_FALLBACK_QUALITY;
    else
        tplError(L, "tp.domain: fallback must be \"auto\", \"rest\" or \"quality\" (got \"%s\")", mode);
    static const char *const known[] = {"min", "max", NULL};
    int t = tplField(L, 1, "shot");
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    if (t != LUA_TTABLE)
        tplError(L, "tp.domain: shot: expected a table { min = s, max = s }, got %s", tplTypeName(L, -1));
    int idx = lua_gettop(L);
    tplCheckFields(L, idx, "tp.domain shot", known, 0);
    def->shot_min = tplNumber(L, idx, "tp.domain: shot.", "min", 0.0, false);
    const double max = tplNumber(L, idx, "tp.domain: shot.", "max", INFINITY, true);
    if (!(def->shot_min >= 0))
        tplError(L, "tp.domain: shot.min must be >= 0 s (got %g)", def->shot_min);
    if (!(max > 0) || !(max >= def->shot_min))
        tplError(L, "tp.domain: shot.max must be > 0 s and >= shot.min (got %g, min %g)", max, def->shot_min);
    def->shot_max = isinf(max) ? 0.0 : max;
    lua_settop(L, idx - 1);
}

static void tplBuildPlanner(tplBuild *b, tpPlannerDef *p, double dt)
{
    static const char *const known[] = {"algorithm", "mu",    "max_iters", "time_limit", "solutions",
                                        "seed",      "coast", "near_miss", NULL};
    lua_State *L = b->L;
    int t = tplField(L, 1, "planner");
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    if (t != LUA_TTABLE)
        tplError(L, "tp.domain: planner: expected a table, got %s", tplTypeName(L, -1));
    int idx = lua_gettop(L);
    tplCheckFields(L, idx, "tp.domain planner", known, 0);
    const char *what = "tp.domain: planner.";
    char alg[16];
    if (tplString(L, idx, what, "algorithm", alg, sizeof alg)) {
        if (strcmp(alg, "bgt") == 0)
            p->kind = TP_PLANNER_BGT;
        else if (strcmp(alg, "rrt") == 0)
            p->kind = TP_PLANNER_RRT;
        else
            tplError(L, "tp.domain: planner.algorithm must be \"bgt\" or \"rrt\" (got \"%s\")", alg);
    }
    p->mu = tplNumber(L, idx, what, "mu", p->mu, false);
    if (!(p->mu > 0))
        tplError(L, "tp.domain: planner.mu must be > 0 (got %g)", p->mu);
    p->max_iters = tplInteger(L, idx, what, "max_iters", p->max_iters, 1, (long long)1 << 50);
    p->time_limit = tplNumber(L, idx, what, "time_limit", p->time_limit, false);
    if (!(p->time_limit >= 0))
        tplError(L, "tp.domain: planner.time_limit must be >= 0 (got %g)", p->time_limit);
    p->solutions = (int)tplInteger(L, idx, what, "solutions", p->solutions, 1, 1000000);
    p->seed = (uint32_t)tplInteger(L, idx, what, "seed", p->seed, 0, 4294967295LL);
    /* s of zero action after each segment, tested for the goal: whole steps of the domain's dt */
    double coast = tplNumber(L, idx, what, "coast", 0.0, false);
    if (!(coast >= 0) || !(coast <= 1000.0 * dt))
        tplError(L, "tp.domain: planner.coast must be in [0, %g] s (1000 steps; got %g)", 1000.0 * dt, coast);
    p->coast_steps = (int)ceil(coast / dt - 1e-9);
    p->near_miss = tplNumber(L, idx, what, "near_miss", p->near_miss, false);
    if (!(p->near_miss >= 0 && p->near_miss <= 1))
        tplError(L, "tp.domain: planner.near_miss must be in [0, 1] (got %g)", p->near_miss);
    lua_pop(L, 1);
}

/* ------------------------------------------------------------------------------------------ */
/* tp.domain                                                                                   */

static const char *const tplDomainFields[] = {
    "name",
    "description",
    "dt",
    "gravity",
    "solver",
    "quickstep_iters",
    "erp",
    "cfm",
    "max_contacts",
    "materials",
    "contacts",
    "bodies",
    "joints",
    "tactics",
    "goal",
    "valid",
    "sampling",
    "quality",
    "solution_metric",
    "planner",
    "report",
    "space",
    "substeps",
    "max_static_penetration",
    "max_body_penetration",
    "sleep_speed",
    "sleep_time",
    "friction_cone",
    "view",
    "fallback",
    "shot",
    NULL,
};

static int tplDomainNew(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    tplCheckFields(L, 1, "tp.domain", tplDomainFields, 0);
    tplPushWhere(L);                                       /* 2 */
    tplDomain *dom = lua_newuserdatauv(L, sizeof *dom, 0); /* 3 */
    memset(dom, 0, sizeof *dom);
    dom->L = L;
    dom->fnref = dom->piref = dom->namesref = dom->skillsref = dom->liveref = LUA_NOREF;
    dom->quality_id = dom->solution_id = -1;
    luaL_setmetatable(L, TPL_DOMAIN);
    tpStrCopy(dom->where, sizeof dom->where, lua_tostring(L, 2));
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_REG_PATH);
    tpStrCopy(dom->path, sizeof dom->path, lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
    lua_getfield(L, LUA_REGISTRYINDEX, TPL_REG_SHORT_SRC);
    tpStrCopy(dom->short_src, sizeof dom->short_src, lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
    lua_settop(L, 3);
    lua_newtable(L); /* 4: keep */
    lua_newtable(L); /* 5: names */
    lua_newtable(L); /* 6: fns */
    tplBuild b = {L, dom, 4, 5, 6, "", dom->where};

    tpDomainDef def = tpDefaultDomainDef();
    if (!tplString(L, 1, "tp.domain: ", "name", def.name, sizeof def.name) || !def.name[0])
        tplError(L, "tp.domain: 'name' is required");
    tplString(L, 1, "tp.domain: ", "description", def.description, sizeof def.description);
    {
        int t = tplField(L, 1, "goal");
        lua_pop(L, 1);
        if (t == LUA_TNIL)
            tplError(L, "tp.domain: 'goal' is required");
    }
    /* the registry refs come first: tp.motion functions run while the scene is checked */
    lua_pushvalue(L, 5);
    dom->namesref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushvalue(L, 6);
    dom->fnref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L);
    dom->liveref = luaL_ref(L, LUA_REGISTRYINDEX);
    tplBuildScene(&b, &def.scene);
    tplBuildTactics(&b, &def);
    tplBuildSampling(&b, &def.sampling);
    tplBuildMetric(&b, "quality", &def.quality, false);
    tplBuildMetric(&b, "solution_metric", &def.solution, true);
    tplBuildReports(&b, &def);
    tplBuildPlanner(&b, &def.planner, def.scene.dt);
    tplBuildView(&b, &def.view);
    tplBuildFallback(&b, &def);
    tplCondGuard *goal = tplCondField(&b, "goal");   /* 7 */
    tplCondGuard *valid = tplCondField(&b, "valid"); /* 8 if present */

    /* tpCreateDomain copies the trees; the guards keep ours and free them with the rest */
    def.goal = goal->root;
    if (valid)
        def.valid = valid->root;
    /* where each body is defined, for the domain's warnings about it (the bodies' userdata, held
       by the domain table, keep the strings alive) */
    const char **body_where = tplScratch(&b, sizeof *body_where * (size_t)def.scene.nbodies);
    tplField(L, 1, "bodies");
    for (int i = 0; i < def.scene.nbodies; i++) {
        lua_rawgeti(L, -1, i + 1);
        body_where[i] = tplUdWhere(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    def.body_where = body_where;
    /* tp.scene's warnings about the files it read (the registry's list keeps the strings alive) */
    if (lua_getfield(L, LUA_REGISTRYINDEX, TPL_REG_SCENE_NOTES) == LUA_TTABLE) {
        const int nn = (int)lua_rawlen(L, -1);
        const char **notes = tplScratch(&b, sizeof *notes * (size_t)(nn > 0 ? nn : 1));
        for (int i = 0; i < nn; i++) {
            lua_rawgeti(L, -1, i + 1);
            notes[i] = lua_tostring(L, -1);
            lua_pop(L, 1);
        }
        def.notes = notes;
        def.nnotes = nn;
    }
    lua_pop(L, 1);
    char err[1024] = "";
    tpDomain *d = tpCreateDomain(&def, err, sizeof err);
    if (!d) {
        /* a message about one body that says where the script defines it keeps that place */
        const char *where = dom->where;
        for (int i = 0; i < def.scene.nbodies; i++)
            if (body_where[i] && body_where[i][0] && strncmp(err, body_where[i], strlen(body_where[i])) == 0)
                where = "";
        if (dom->pending[0])
            tplErrorAt(L, where, "%s (%s)", err, dom->pending);
        tplErrorAt(L, where, "%s", err[0] ? err : "invalid domain");
    }
    dom->domain = d;
    TP_VALIDATE(tplDomain_Valid, dom);
    lua_pushvalue(L, 3);
    return 1;
}

static int tplDomainGc(lua_State *L)
{
    tplDomain *dom = luaL_checkudata(L, 1, TPL_DOMAIN);
    tpDestroyDomain(dom->domain);
    dom->domain = NULL;
    int *refs[] = {&dom->fnref, &dom->piref, &dom->namesref, &dom->skillsref, &dom->liveref};
    for (int i = 0; i < 5; i++) {
        luaL_unref(L, LUA_REGISTRYINDEX, *refs[i]);
        *refs[i] = LUA_NOREF;
    }
    return 0;
}

void tplOpenDomain(lua_State *L)
{
    luaL_newmetatable(L, TPL_DOMAIN);
    lua_pushcfunction(L, tplDomainGc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    luaL_newmetatable(L, TPL_WORLDGUARD);
    lua_pushcfunction(L, tplWorldGc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    luaL_newmetatable(L, TPL_CONDGUARD);
    lua_pushcfunction(L, tplCondGc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    lua_pushcfunction(L, tplDomainNew);
    lua_setfield(L, -2, "domain");
}
