/* CSV export: states.csv and controls.csv in a folder (docs/export.md). Every number is printed
 * with %.17g, which reads back (strtod, or any correctly rounding parser) to the plan's double. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export_internal.h"
#include "tp/base.h"

/* A CSV field: quoted (RFC 4180) only when it holds a comma, a quote or a line break. */
static void put_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"') {
            fputc('"', f);
        }
        fputc(*s, f);
    }
    fputc('"', f);
}

static void put_numbers(FILE *f, const double *v, int n)
{
    for (int k = 0; k < n; ++k) {
        fprintf(f, ",%.17g", v[k]);
    }
}

static void write_states(FILE *f, const tpPlanRecord *rec, const tpPlanWorld *w)
{
    fputs("step,t,body,px,py,pz,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n", f);
    for (int i = 0; i <= w->nsteps; ++i) {
        for (int b = 0; b < rec->nbodies; ++b) {
            if (!rec->bodies[b].moving) {
                continue;
            }
            fprintf(f, "%d,%.17g,", i, i * rec->dt);
            put_field(f, rec->bodies[b].name);
            put_numbers(f, w->traj[b] + (size_t)i * TP_STATE_DOUBLES, TP_STATE_DOUBLES);
            fputc('\n', f);
        }
    }
}

static void write_controls(FILE *f, const tpPlanRecord *rec, const tpPlanWorld *w)
{
    fputs("step,t,body,fx,fy,fz,tx,ty,tz,tactic,skill\n", f);
    for (int i = 0; i < w->nsteps; ++i) {
        for (int b = 0; b < rec->nbodies; ++b) {
            if (!rec->bodies[b].controlled) {
                continue;
            }
            fprintf(f, "%d,%.17g,", i, i * rec->dt);
            put_field(f, rec->bodies[b].name);
            put_numbers(f, w->controls[b] + (size_t)i * TP_CONTROL_DOUBLES, TP_CONTROL_DOUBLES);
            /* the tactics driving this body (usually one; several are joined with ';') */
            char tac[1024] = "", sk[1024] = "";
            for (int t = 0; t < rec->ntactics; ++t) {
                const tpPlanTactic *pt = &rec->tactics[t];
                if (strcmp(pt->body, rec->bodies[b].name) != 0) {
                    continue;
                }
                int a = w->active[t][i];
                size_t lt = strlen(tac), ls = strlen(sk);
                snprintf(tac + lt, sizeof tac - lt, "%s%s", lt ? ";" : "", pt->name);
                snprintf(sk + ls, sizeof sk - ls, "%s%s", ls ? ";" : "",
                         a >= 0 && a < pt->nskills ? pt->skills[a] : "");
            }
            fputc(',', f);
            put_field(f, tac);
            fputc(',', f);
            put_field(f, sk);
            fputc('\n', f);
        }
    }
}

/* motors.csv (plans with driven motors only): each step's target speed of every driven motor. */
static void write_motors(FILE *f, const tpPlanRecord *rec, const tpPlanWorld *w)
{
    fputs("step,t,joint,axis,target\n", f);
    for (int i = 0; i < w->nsteps; ++i) {
        for (int m = 0; m < rec->nmotors; ++m) {
            fprintf(f, "%d,%.17g,", i, i * rec->dt);
            put_field(f, rec->motors[m].joint);
            fprintf(f, ",%d", rec->motors[m].axis + 1);
            put_numbers(f, w->targets + (size_t)i * (size_t)rec->nmotors + (size_t)m, 1);
            fputc('\n', f);
        }
    }
}

bool tpX_WriteCsv(const tpPlanRecord *rec, const char *dir, const tpExportDef *def, tpExportStats *st, char *err,
                  size_t errlen)
{
    const tpPlanWorld *w = &rec->worlds[def->world];
    bool created = false;
    struct stat sb;
    if (stat(dir, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode)) {
            tpErrorf(err, errlen, "cannot write %s: not a directory (CSV export writes a folder)", dir);
            return false;
        }
    } else if (mkdir(dir, 0777) == 0) {
        created = true;
    } else {
        tpErrorf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return false;
    }
    char path_s[4096], path_c[4096], path_m[4096];
    snprintf(path_s, sizeof path_s, "%s/states.csv", dir);
    snprintf(path_c, sizeof path_c, "%s/controls.csv", dir);
    snprintf(path_m, sizeof path_m, "%s/motors.csv", dir);
    tpXTemp ts = {0}, tc = {0}, tm = {0};
    bool ok = false;
    const bool motors = rec->nmotors > 0 && w->targets;
    if (!tpXTemp_Open(&ts, path_s, err, errlen) || !tpXTemp_Open(&tc, path_c, err, errlen) ||
        (motors && !tpXTemp_Open(&tm, path_m, err, errlen))) {
        goto out;
    }
    write_states(ts.f, rec, w);
    write_controls(tc.f, rec, w);
    if (motors) {
        write_motors(tm.f, rec, w);
    }
    long ls = ftell(ts.f), lc = ftell(tc.f), lm = motors ? ftell(tm.f) : 0;
    if (!tpXTemp_Commit(&ts, err, errlen)) {
        goto out;
    }
    if (!tpXTemp_Commit(&tc, err, errlen)) {
        remove(path_s);
        goto out;
    }
    if (motors && !tpXTemp_Commit(&tm, err, errlen)) {
        remove(path_s);
        remove(path_c);
        goto out;
    }
    st->bytes = (int64_t)ls + lc + lm;
    ok = true;
out:
    tpXTemp_Abort(&ts);
    tpXTemp_Abort(&tc);
    tpXTemp_Abort(&tm);
    if (!ok && created) {
        rmdir(dir);
    }
    return ok;
}
