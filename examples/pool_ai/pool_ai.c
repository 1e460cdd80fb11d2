/* A pool opponent for a game: given the table's layout and the ball to pocket, ask libtplan for a
 * cue shot and print it. The pool domain's "single" mode plans one stroke of the cue ball that
 * pockets the target without touching the forbidden balls and without a scratch.
 *
 *   pool_ai POOL.lua TARGET [LAYOUT]      e.g. pool_ai /usr/share/tplan/domains/pool.lua purple
 *
 * Prints the stroke (the cue ball's one-step force, its direction and the speed it gives) and
 * whether the plan pockets the target. Exit status: 0 a solved shot, 3 only an approximate one,
 * 1 an error (its message on stderr). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tplan/tplan.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s POOL.lua TARGET [LAYOUT]\n", argv[0]);
        return 1;
    }
    tplan_param params[3] = {{"mode", "single"}, {"target", argv[2]}, {"layout", argc > 3 ? argv[3] : ""}};
    tplan_error err;
    tplan_domain *pool = tplan_domain_load_file(argv[1], params, 3, NULL, &err);
    if (!pool) {
        fprintf(stderr, "pool_ai: %s: %s\n", tplan_code_name(err.code), err.message);
        return 1;
    }
    tplan_run_def run;
    tplan_run_def_init(&run);
    run.seed = 1;        /* the same shot for the same table, every time */
    run.time_limit = 20; /* s: a game cannot wait for ever; the best shot found is returned */
    tplan_result *shot = tplan_plan(pool, &run, &err);
    if (!shot) {
        fprintf(stderr, "pool_ai: %s: %s\n", tplan_code_name(err.code), err.message);
        tplan_domain_free(pool);
        return 1;
    }
    int cue = tplan_result_body_index(shot, "cue");
    const double *controls = tplan_result_controls(shot, cue);
    int steps = tplan_result_steps(shot);
    double dt = tplan_result_dt(shot);
    int code = 1;
    for (int i = 0; controls && i < steps; ++i) {
        const double *f = controls + 6 * i; /* force x, y, z (N), torque x, y, z (N m) */
        double n = hypot(f[0], f[1]);
        if (n > 0) {
            const double mass = 0.17; /* kg: the pool domain's balls */
            printf("shot at t=%.3f s: force %.3f N for %.4f s toward %.1f deg (cue ball speed %.2f m/s)\n", i * dt, n,
                   dt, atan2(f[1], f[0]) * 180.0 / M_PI, n * dt / mass);
            code = 0;
            break;
        }
    }
    if (code != 0) {
        printf("no stroke in the plan\n");
    } else if (tplan_result_status(shot) == TPLAN_SOLVED) {
        printf("pockets %s: yes (%d steps planned, %lld nodes searched)\n", argv[2], steps,
               (long long)tplan_result_nodes(shot));
    } else {
        printf("pockets %s: no, best attempt only\n", argv[2]);
        code = 3;
    }
    tplan_result_free(shot);
    tplan_domain_free(pool);
    return code;
}
