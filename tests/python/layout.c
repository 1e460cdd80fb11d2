/* The layout of tplan/tplan.h's structs as this compiler lays them out, as JSON: the Python binding's
 * ctypes mirrors (python/tplan/_lib.py) are checked against it by test_layout in test_tplan.py. */
#include <stddef.h>
#include <stdio.h>

#include "tplan/tplan.h"

#define FIELD(T, f) printf("%s\"%s\": [%zu, %zu]", first ? "" : ", ", #f, offsetof(T, f), sizeof((T *)0)->f), first = 0
#define BEGIN(T) printf("%s\"%s\": {\"sizeof\": %zu, \"fields\": {", nstruct++ ? ", " : "", #T, sizeof(T)), first = 1
#define END() printf("}}")

int main(void)
{
    int first, nstruct = 0;
    printf("{");
    BEGIN(tplan_error);
    FIELD(tplan_error, code);
    FIELD(tplan_error, field);
    FIELD(tplan_error, message);
    END();
    BEGIN(tplan_param);
    FIELD(tplan_param, name);
    FIELD(tplan_param, value);
    END();
    BEGIN(tplan_run_def);
    FIELD(tplan_run_def, size);
    FIELD(tplan_run_def, planner);
    FIELD(tplan_run_def, mu);
    FIELD(tplan_run_def, seed);
    FIELD(tplan_run_def, max_iters);
    FIELD(tplan_run_def, time_limit);
    FIELD(tplan_run_def, solutions);
    FIELD(tplan_run_def, nn_index);
    FIELD(tplan_run_def, jobs);
    FIELD(tplan_run_def, memory_limit_mb);
    FIELD(tplan_run_def, load_time_limit);
    FIELD(tplan_run_def, call_time_limit);
    FIELD(tplan_run_def, search_memory_mb);
    FIELD(tplan_run_def, output);
    FIELD(tplan_run_def, output_user);
    FIELD(tplan_run_def, start);
    FIELD(tplan_run_def, near_miss);
    END();
    BEGIN(tplan_progress);
    FIELD(tplan_progress, iterations);
    FIELD(tplan_progress, nodes);
    FIELD(tplan_progress, rejected);
    FIELD(tplan_progress, solutions);
    FIELD(tplan_progress, elapsed);
    END();
    BEGIN(tplan_simulate_def);
    FIELD(tplan_simulate_def, size);
    FIELD(tplan_simulate_def, steps);
    FIELD(tplan_simulate_def, controls);
    FIELD(tplan_simulate_def, trajectory);
    FIELD(tplan_simulate_def, motor_targets);
    END();
    printf("}\n");
    return 0;
}
