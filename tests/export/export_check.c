/* Checks tplan export's output against the plan it came from (e2e tests, tests/export/export.sh):
 *   export_check anim PLAN.json FILE.glb|.gltf TOL   every animation ("plan" = the selected world,
 *       "solution K" = world K) sampled at every step: translation error <= TOL (m) and rotation
 *       error x the body's bounding radius <= TOL; TOL 0 means unreduced: float32 rounding only
 *   export_check csv PLAN.json DIR [K]                states.csv and controls.csv read back bit for
 *       bit equal to world K (1 = selected), every row present, skills named as in the plan
 * Prints the figures; exit 0 on success, 1 on a mismatch, 2 on unreadable input. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glb_read.h"
#include "tp/plan.h"

static double radius(const tpPlanBody *b)
{
    const double *s = b->size;
    if (strcmp(b->shape, "box") == 0) {
        return 0.5 * sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    }
    if (strcmp(b->shape, "sphere") == 0) {
        return s[0];
    }
    if (strcmp(b->shape, "cylinder") == 0) {
        return sqrt(s[0] * s[0] + 0.25 * s[1] * s[1]);
    }
    return s[0] + 0.5 * s[1]; /* capsule */
}

static int check_anim(const tpPlanRecord *rec, const char *file, double tol)
{
    char err[512];
    tpTestGltf g;
    if (!tpTestGltf_Load(&g, file, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    double *scale = calloc((size_t)rec->nbodies + 1, sizeof *scale);
    for (int b = 0; b < rec->nbodies; ++b) {
        scale[b] = rec->bodies[b].moving ? radius(&rec->bodies[b]) : 0;
    }
    int rc = 0, n = cJSON_GetArraySize(cJSON_GetObjectItem(g.json, "animations"));
    for (int a = 0; a < n; ++a) {
        const char *name = cJSON_GetStringValue(
            cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(g.json, "animations"), a), "name"));
        int world = 0;
        if (name && strncmp(name, "solution ", 9) == 0) {
            world = atoi(name + 9) - 1;
        }
        if (world < 0 || world >= rec->nworlds) {
            fprintf(stderr, "%s: animation %d (%s): no such world\n", file, a, name ? name : "?");
            rc = 1;
            continue;
        }
        double pe, ae;
        if (!tpTestGltf_AnimError(&g, a, rec, world, scale, &pe, &ae, err, sizeof err)) {
            fprintf(stderr, "%s: animation %d: %s\n", file, a, err);
            rc = 1;
            continue;
        }
        /* unreduced: float32 rounding of coordinates within 1000 m and of unit quaternions */
        double pos_bound = tol > 0 ? tol * (1 + 1e-9) : 1e-4, ang_bound = tol > 0 ? tol * (1 + 1e-9) : 1e-6;
        bool ok = pe <= pos_bound && ae <= ang_bound;
        printf("%s: animation %d \"%s\" vs world %d: max translation error %.3g m, max rotation error x radius "
               "%.3g m (bound %.3g) %s\n",
               file, a, name ? name : "?", world + 1, pe, ae, pos_bound, ok ? "ok" : "FAIL");
        rc = ok ? rc : 1;
    }
    if (n == 0) {
        fprintf(stderr, "%s: no animation\n", file);
        rc = 1;
    }
    free(scale);
    tpTestGltf_Free(&g);
    return rc;
}

/* Splits a CSV line (no quoted fields in these tests' names) into at most cap fields, in place. */
static int split(char *line, char **f, int cap)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = 0;
    for (char *p = line; n < cap;) {
        f[n++] = p;
        char *c = strchr(p, ',');
        if (!c) {
            break;
        }
        *c = 0;
        p = c + 1;
    }
    return n;
}

static bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static int check_csv_file(const tpPlanRecord *rec, const tpPlanWorld *w, const char *path, bool states)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return 2;
    }
    static char line[1 << 16];
    char *fl[32];
    int width = states ? TP_STATE_DOUBLES : TP_CONTROL_DOUBLES, rows = 0, bad = 0;
    const char *want =
        states ? "step,t,body,px,py,pz,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz" : "step,t,body,fx,fy,fz,tx,ty,tz,tactic,skill";
    if (!fgets(line, sizeof line, f) || (line[strcspn(line, "\r\n")] = 0, strcmp(line, want) != 0)) {
        fprintf(stderr, "%s: header '%s', expected '%s'\n", path, line, want);
        fclose(f);
        return 1;
    }
    int steps = states ? w->nsteps + 1 : w->nsteps;
    for (int i = 0; i < steps; ++i) {
        for (int b = 0; b < rec->nbodies; ++b) {
            if (states ? !rec->bodies[b].moving : !rec->bodies[b].controlled) {
                continue;
            }
            if (!fgets(line, sizeof line, f)) {
                fprintf(stderr, "%s: ends at row %d\n", path, rows);
                fclose(f);
                return 1;
            }
            ++rows;
            int n = split(line, fl, 32);
            const double *v =
                states ? w->traj[b] + (size_t)i * TP_STATE_DOUBLES : w->controls[b] + (size_t)i * TP_CONTROL_DOUBLES;
            bool ok = n == 3 + width + (states ? 0 : 2) && atoi(fl[0]) == i &&
                      same_bits(strtod(fl[1], NULL), i * rec->dt) && strcmp(fl[2], rec->bodies[b].name) == 0;
            for (int k = 0; ok && k < width; ++k) {
                ok = same_bits(strtod(fl[3 + k], NULL), v[k]);
            }
            if (ok && !states) { /* the first tactic driving the body and its skill at this step */
                for (int t = 0; t < rec->ntactics; ++t) {
                    if (strcmp(rec->tactics[t].body, rec->bodies[b].name) == 0) {
                        size_t lt = strlen(rec->tactics[t].name);
                        const char *sk = rec->tactics[t].skills[w->active[t][i]];
                        ok = strncmp(fl[3 + width], rec->tactics[t].name, lt) == 0 &&
                             strncmp(fl[4 + width], sk, strlen(sk)) == 0;
                        break;
                    }
                }
            }
            if (!ok && bad++ < 5) {
                fprintf(stderr, "%s: row %d (step %d, body %s) differs from the plan\n", path, rows, i,
                        rec->bodies[b].name);
            }
        }
    }
    bool extra = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (extra) {
        fprintf(stderr, "%s: rows after the last expected one\n", path);
        return 1;
    }
    printf("%s: %d rows, %s\n", path, rows, bad ? "MISMATCH" : "bit for bit equal to the plan");
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: export_check anim PLAN FILE TOL | csv PLAN DIR [K]\n");
        return 2;
    }
    tpPlanRecord rec;
    char err[1024];
    if (!tpPlanRecord_Read(&rec, argv[2], err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    int rc;
    if (strcmp(argv[1], "anim") == 0 && argc >= 5) {
        rc = check_anim(&rec, argv[3], atof(argv[4]));
    } else if (strcmp(argv[1], "csv") == 0) {
        int k = argc >= 5 ? atoi(argv[4]) - 1 : 0;
        char p[4096];
        snprintf(p, sizeof p, "%s/states.csv", argv[3]);
        rc = check_csv_file(&rec, &rec.worlds[k], p, true);
        snprintf(p, sizeof p, "%s/controls.csv", argv[3]);
        int rc2 = check_csv_file(&rec, &rec.worlds[k], p, false);
        rc = rc > rc2 ? rc : rc2;
    } else {
        fprintf(stderr, "export_check: unknown mode %s\n", argv[1]);
        rc = 2;
    }
    tpPlanRecord_Free(&rec);
    return rc;
}
