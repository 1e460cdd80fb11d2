/* tplan export: a plan file to glTF 2.0 (.glb / .gltf + .bin) or CSV (export/, docs/export.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_validate.h"
#include "cmd_opts.h"
#include "tp/base.h"
#include "tp/export.h"
#include "tp/plan.h"

static void export_usage(FILE *f)
{
    fprintf(f, "usage: tplan export PLAN.json --format glb|gltf|csv -o OUT [options]\n"
               "\n"
               "Writes the plan's motion for offline animation: glTF 2.0 (Blender, Godot, Unity, three.js)\n"
               "with one node per body (in a plan of a tp.scene file, in that file's node tree, its other\n"
               "nodes kept by name), a mesh per shape and a LINEAR translation + rotation animation per\n"
               "moving body (y-up, times in seconds from 0) and the physics as OMI_physics_body/_shape/_joint\n"
               "(masses and joints from the plan's own script, which tp.scene reads back), or CSV (OUT is a\n"
               "folder: states.csv and controls.csv, numbers that read back to the plan's exact doubles).\n"
               "Details: docs/export.md.\n"
               "\n"
               "  --format F          glb (one binary file), gltf (OUT.gltf + OUT.bin) or csv (a folder);\n"
               "                      default: from OUT's extension (.glb, .gltf), else glb\n"
               "  -o, --out OUT       output file (glb, gltf) or folder (csv)\n"
               "  --tolerance M       keyframe reduction: drop keys that linear interpolation reproduces\n"
               "                      within M metres (and M / the body's bounding radius in radians of\n"
               "                      rotation) at every step; default 0: a key at every step\n"
               "  --angle-tolerance R rotation tolerance in radians instead of the derived one\n"
               "  --world K           export solution K (1 = the selected one; many-worlds plans)\n"
               "  --alternatives      glTF: one more animation per other solution of the plan\n"
               "  --tree FILE         glTF: add the search tree (tplan plan --tree FILE) as line meshes\n"
               "  --overlays          glTF: add the navigation paths recorded in the plan as line meshes\n"
               "  -q, --quiet         print nothing but errors\n"
               "  -h, --help          this help\n"
               "\n"
               "Output is written under a temporary name and renamed: a failed export leaves no file.\n"
               "exit status: 0 written, 2 bad option, unreadable/corrupt plan or tree, or an output that\n"
               "cannot be written, 1 out of memory.\n");
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Parses and checks the options into e: -1 to go on, else the exit code. */
static int export_parse(int argc, char **argv, tpCliExportCmd *e)
{
    memset(e, 0, sizeof *e);
    e->def = tpDefaultExportDef();
    enum { OPT_FORMAT = TP_OPT_FIRST_FREE, OPT_TOL, OPT_ATOL, OPT_WORLD, OPT_TREE, OPT_ALT, OPT_OVERLAYS };
    static const struct option longopts[] = {
        {"format", required_argument, NULL, OPT_FORMAT},
        {"out", required_argument, NULL, 'o'},
        {"tolerance", required_argument, NULL, OPT_TOL},
        {"angle-tolerance", required_argument, NULL, OPT_ATOL},
        {"world", required_argument, NULL, OPT_WORLD},
        {"tree", required_argument, NULL, OPT_TREE},
        {"alternatives", no_argument, NULL, OPT_ALT},
        {"overlays", no_argument, NULL, OPT_OVERLAYS},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    tpCliArgs args = {.argc = argc, .argv = argv, .cmd = "export", .shortopts = "hqo:", .longopts = longopts};
    int c;
    while ((c = tpCli_NextOption(&args)) != -1) {
        double x;
        long long k;
        switch (c) {
        case 'h':
            export_usage(stdout);
            return TP_EXIT_OK;
        case 'q':
            e->quiet = true;
            break;
        case 'o':
            e->out = args.value;
            break;
        case OPT_FORMAT:
            e->format = args.value;
            break;
        case OPT_TOL:
        case OPT_ATOL:
            if (!tpCli_ParseDouble(args.name, args.value, 0, false, 1e6, &x)) {
                return TP_EXIT_BAD_INPUT;
            }
            *(c == OPT_TOL ? &e->def.tolerance : &e->def.angle_tolerance) = x;
            break;
        case OPT_WORLD:
            if (!tpCli_ParseInt(args.name, args.value, 1, 1000000, &k)) {
                return TP_EXIT_BAD_INPUT;
            }
            e->def.world = (int)k - 1;
            break;
        case OPT_TREE:
            e->tree_path = args.value;
            break;
        case OPT_ALT:
            e->def.alternatives = true;
            break;
        case OPT_OVERLAYS:
            e->def.overlays = true;
            break;
        case 1:
            if (!tpCli_OneArgument(args.value, &e->plan)) {
                return TP_EXIT_BAD_INPUT;
            }
            break;
        default:
            return TP_EXIT_BAD_INPUT;
        }
    }
    if (!e->plan || !e->out) {
        tpLog(TP_LOG_ERROR, "export: %s is required (see 'tplan export --help')", e->plan ? "-o OUT" : "a plan file");
        return TP_EXIT_BAD_INPUT;
    }
    const char *format = e->format ? e->format : ends_with(e->out, ".gltf") ? "gltf" : "glb";
    if (strcmp(format, "glb") == 0) {
        e->def.format = TP_EXPORT_GLB;
    } else if (strcmp(format, "gltf") == 0) {
        e->def.format = TP_EXPORT_GLTF;
    } else if (strcmp(format, "csv") == 0) {
        e->def.format = TP_EXPORT_CSV;
    } else {
        tpLog(TP_LOG_ERROR, "--format: unknown format '%s' (glb, gltf or csv)", format);
        return TP_EXIT_BAD_INPUT;
    }
    if (e->def.format == TP_EXPORT_CSV && (e->tree_path || e->def.alternatives || e->def.overlays)) {
        tpLog(TP_LOG_ERROR, "--tree, --alternatives and --overlays are glTF options (not for --format csv)");
        return TP_EXIT_BAD_INPUT;
    }
    /* the files written beside --out are outputs too: glTF's buffer (x.gltf -> x.bin, as gltf.c
       names it) and the CSV folder's two files; a plan named like one of them was overwritten */
    char side1[4096] = "", side2[4096] = "";
    const char *out = e->out;
    if (e->def.format == TP_EXPORT_GLTF) {
        size_t len = strlen(out);
        size_t stem = len > 5 && strcmp(out + len - 5, ".gltf") == 0 ? len - 5 : len;
        snprintf(side1, sizeof side1, "%.*s.bin", (int)stem, out);
    } else if (e->def.format == TP_EXPORT_CSV) {
        snprintf(side1, sizeof side1, "%s/states.csv", out);
        snprintf(side2, sizeof side2, "%s/controls.csv", out);
    }
    const tpCliFile files[] = {
        {"the plan", e->plan, false},
        {"--tree", e->tree_path, false},
        {"--out", out, true},
        {e->def.format == TP_EXPORT_CSV ? "--out's states.csv" : "--out's glTF buffer", side1[0] ? side1 : NULL, true},
        {"--out's controls.csv", side2[0] ? side2 : NULL, true}};
    return tpCli_CheckFiles(files, 5) ? -1 : TP_EXIT_BAD_INPUT;
}

/* What was written, and how long reading and writing took. */
static void export_report(const tpCliExportCmd *e, const tpExportStats *st, double t_read, double t_write)
{
    if (e->def.format == TP_EXPORT_CSV) {
        printf("wrote      %s/states.csv%s controls.csv (%.1f MB)\n", e->out, e->motors ? ", motors.csv and" : " and",
               st->bytes / 1e6);
    } else {
        printf("wrote      %s (%.1f MB): %d nodes, %d meshes, %d materials, %d animation%s\n", e->out, st->bytes / 1e6,
               st->nodes, st->meshes, st->materials, st->animations, st->animations == 1 ? "" : "s");
        printf("keys       %lld of %lld (%.1f %%), max error %.3g m, %.3g rad (float32 included)\n",
               (long long)st->keys_kept, (long long)st->keys_full,
               st->keys_full ? 100.0 * (double)st->keys_kept / (double)st->keys_full : 100.0, st->max_pos_err,
               st->max_ang_err);
    }
    printf("time       %.3f s: reading %.3f s, writing %.3f s\n", t_read + t_write, t_read, t_write);
}

/* The plan's physics the recording does not keep (masses, joints), from its own script loaded as
 * `tplan replay` loads it; false (after a warning) when the script cannot be loaded: the export
 * then has no masses and no joints. *masses and *joints are freed by the caller. */
static bool export_physics(const tpCliExportCmd *e, const tpPlanRecord *rec, tpExportPhysics *ph, double **masses,
                           tpExportJoint **joints)
{
    memset(ph, 0, sizeof *ph);
    *masses = NULL;
    *joints = NULL;
    if (e->def.format == TP_EXPORT_CSV) {
        return true;
    }
    tpScriptFile *files = NULL;
    tpScript *script = tpCli_LoadPlanScript(e->plan, NULL, rec, true, true, &files);
    if (!script) {
        free(files);
        tpLog(TP_LOG_WARN,
              "%s: its script could not be loaded: the glTF's OMI_physics_body has no masses and "
              "no joints are written",
              e->plan);
        return false;
    }
    const tpWorld *w = tpDomain_World(tpScript_Domain(script));
    const int nj = tpWorld_JointCount(w);
    *masses = calloc((size_t)(rec->nbodies > 0 ? rec->nbodies : 1), sizeof **masses);
    *joints = calloc((size_t)(nj > 0 ? nj : 1), sizeof **joints);
    int *index = calloc((size_t)(tpWorld_BodyCount(w) + 1), sizeof *index); /* world body -> record body */
    bool ok = *masses && *joints && index;
    for (int i = 0; ok && i < tpWorld_BodyCount(w); ++i) {
        index[i] = -1;
        for (int b = 0; b < rec->nbodies; ++b) {
            if (strcmp(rec->bodies[b].name, tpWorld_Body(w, i)->name) == 0) {
                index[i] = b;
                (*masses)[b] = tpWorld_Body(w, i)->mass;
            }
        }
    }
    for (int j = 0; ok && j < nj; ++j) {
        const tpJointDef *d = tpWorld_Joint(w, j);
        tpExportJoint *x = &(*joints)[ph->njoints];
        snprintf(x->name, sizeof x->name, "%s", d->name);
        x->kind = tpJointKindName(d->kind);
        x->a = d->body_a >= 0 ? index[d->body_a] : -1;
        x->b = d->body_b >= 0 ? index[d->body_b] : -1;
        if (x->a < 0 || (d->body_b >= 0 && x->b < 0)) {
            continue; /* a body the record does not have */
        }
        memcpy(x->anchor, d->anchor, sizeof x->anchor);
        memcpy(x->anchor2, d->anchor2, sizeof x->anchor2);
        memcpy(x->axis, d->axis, sizeof x->axis);
        memcpy(x->axis2, d->axis2, sizeof x->axis2);
        x->length = d->length;
        x->collide = d->collide;
        for (int k = 0; k < 2; ++k) {
            const tpJointAxisDef *a = &d->axes[k];
            x->axes[k] = (tpExportJointAxis){.limit = a->limit,
                                             .lo = a->lo,
                                             .hi = a->hi,
                                             .stiffness = a->stiffness,
                                             .damping = a->damping,
                                             .rest = a->rest,
                                             .motor = a->motor,
                                             .speed = a->speed,
                                             .max_force = a->max_force};
        }
        char why[200];
        if (!tpExport_JointWritable(x, why, sizeof why)) {
            tpLog(TP_LOG_WARN, "%s: joint '%s' (%s) is not written: %s", e->plan, d->name, x->kind, why);
        }
        ph->njoints++;
    }
    free(index);
    tpDestroyScript(script);
    free(files);
    if (!ok) {
        return false;
    }
    ph->mass = *masses;
    ph->joints = *joints;
    return true;
}

int tpCmd_Export(int argc, char **argv)
{
    tpCliExportCmd e;
    int code = export_parse(argc, argv, &e);
    if (code >= 0) {
        return code;
    }
    TP_VALIDATE(tpCliExportCmd_Valid, &e); /* the parse kept its rules (cli_validate.c) */
    char err[1024];
    double t0 = tpClock_Now();
    tpPlanRecord rec;
    if (!tpPlanRecord_Read(&rec, e.plan, err, sizeof err)) {
        tpLog(TP_LOG_ERROR, "%s", err);
        return TP_EXIT_BAD_INPUT;
    }
    tpTreeRecord tree;
    memset(&tree, 0, sizeof tree);
    if (e.tree_path) {
        if (!tpTreeRecord_Read(&tree, e.tree_path, err, sizeof err)) {
            tpLog(TP_LOG_ERROR, "%s", err);
            tpPlanRecord_Free(&rec);
            return TP_EXIT_BAD_INPUT;
        }
        e.def.tree = &tree;
    }
    tpExportPhysics ph;
    double *masses = NULL;
    tpExportJoint *joints = NULL;
    tpExportSource src;
    tpExportSourceNode *src_nodes = NULL;
    if (export_physics(&e, &rec, &ph, &masses, &joints)) {
        e.def.physics = &ph;
        /* a plan of a tp.scene file: its node tree written back, or the flat layout and why */
        char why[320];
        if (e.def.format != TP_EXPORT_CSV && tpCli_ExportSource(&rec, &src, &src_nodes)) {
            if (tpExport_SourceUsable(&src, &rec, why, sizeof why))
                ph.source = &src;
            else
                tpLog(TP_LOG_WARN, "%s: the scene file's node tree is not written (one root node per body): %s", e.plan,
                      why);
        }
    }
    double t1 = tpClock_Now();
    e.motors = rec.nmotors > 0;
    tpExportStats st;
    bool ok = tpExport_Write(&rec, e.out, &e.def, &st, err, sizeof err);
    double t2 = tpClock_Now();
    code = TP_EXIT_OK;
    if (!ok) {
        tpLog(TP_LOG_ERROR, "%s", err);
        code = strncmp(err, "out of memory", 13) == 0 ? TP_EXIT_FAILURE : TP_EXIT_BAD_INPUT;
    } else if (!e.quiet) {
        export_report(&e, &st, t1 - t0, t2 - t1);
    }
    free(masses);
    free(joints);
    free(src_nodes);
    tpTreeRecord_Free(&tree);
    tpPlanRecord_Free(&rec);
    return code;
}
