/* Plans the minigolf domain with libtplan and writes the ball's trajectory as CSV, one row per
 * simulation step: t (s), x, y, z (m). For an animation tool or a plot.
 *
 *   minigolf_csv MINIGOLF.lua OUT.csv [SEED]
 *
 * Exit status: 0 solved (the ball is in the hole), 3 approximate, 1 an error (message on stderr). */
#include <stdio.h>
#include <stdlib.h>

#include <tplan/tplan.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s MINIGOLF.lua OUT.csv [SEED]\n", argv[0]);
        return 1;
    }
    tplan_error err;
    tplan_domain *golf = tplan_domain_load_file(argv[1], NULL, 0, NULL, &err);
    if (!golf) {
        fprintf(stderr, "minigolf_csv: %s\n", err.message);
        return 1;
    }
    tplan_run_def run;
    tplan_run_def_init(&run);
    run.seed = argc > 3 ? atoll(argv[3]) : 1;
    tplan_result *plan = tplan_plan(golf, &run, &err);
    if (!plan) {
        fprintf(stderr, "minigolf_csv: %s\n", err.message);
        tplan_domain_free(golf);
        return 1;
    }
    int rows = 0;
    const double *ball = tplan_result_states(plan, tplan_result_body_index(plan, "ball"), &rows);
    FILE *f = fopen(argv[2], "w");
    if (!ball || !f) {
        fprintf(stderr, "minigolf_csv: %s\n", ball ? "cannot write the CSV file" : "no body 'ball'");
        if (f) {
            fclose(f);
        }
        tplan_result_free(plan);
        tplan_domain_free(golf);
        return 1;
    }
    fprintf(f, "t,x,y,z\n");
    for (int i = 0; i < rows; ++i) {
        const double *s = ball + 13 * i; /* x, y, z, quaternion, velocity, angular velocity */
        fprintf(f, "%.4f,%.6f,%.6f,%.6f\n", i * tplan_result_dt(plan), s[0], s[1], s[2]);
    }
    int ok = fclose(f) == 0;
    printf("tplan %s: minigolf seed %lld %s in %d steps; %d rows written to %s\n", tplan_version(), (long long)run.seed,
           tplan_result_status(plan) == TPLAN_SOLVED ? "solved" : "approximate", tplan_result_steps(plan), rows,
           argv[2]);
    int code = !ok ? 1 : tplan_result_status(plan) == TPLAN_SOLVED ? 0 : 3;
    tplan_result_free(plan);
    tplan_domain_free(golf);
    return code;
}
