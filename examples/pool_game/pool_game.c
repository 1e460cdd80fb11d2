/* A game's pool opponent in a game loop (docs/embedding.md, "Anytime search").
 *
 * The game runs at 60 frames a second and gives the opponent a planning budget of 16 ms a frame.
 * For each of its shots the opponent thinks for `think` frames while the balls of the last shot
 * are still rolling: it predicts, with tplan_simulate (the planner's own physics, bit for bit),
 * where they will be when it strikes, loads the pool domain aimed at that layout, starts an
 * anytime search from the predicted state (positions and velocities) and runs it one budget per
 * frame; meanwhile the game steps its world with tplan_simulate. At the strike the world is the
 * predicted state bit for bit (the search re-roots on it and keeps its whole tree), and the shot
 * is played with the best plan's controls, one step a frame, until the balls roll on into the next
 * shot's thinking. Pocketed balls are taken off the table, as a game does (a pocketed cue ball goes
 * back to its spot).
 *
 *   pool_game POOL.lua [--shots 10] [--think 20] [--budget 0.016] [--play 90] [--iterations N]
 *
 * --iterations N plans N iterations a frame instead of a wall-clock budget: the whole game is
 * then the same on every run. Prints one line a shot and a summary; exit status 0 when every call
 * succeeded and every prediction held, 1 otherwise. */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <tplan/tplan.h>

#define NBALLS 11
static const char *const k_balls[NBALLS] = {"cue", "yellow", "blue", "red", "purple", "black",
                                            "s9",  "s10",    "s11",  "s12", "s13"};
static const double k_radius = 0.028575; /* m: the pool domain's balls (domains/lib/pool_table.lua) */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The thread's involuntary context switches so far (0 where not counted): a frame that was preempted
 * lost a scheduler tick (4 ms at 250 Hz) whatever the library did. */
static long preemptions(void)
{
#ifdef RUSAGE_THREAD
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : 0;
#else
    return 0;
#endif
}

static int fail(const char *what, const tplan_error *err)
{
    fprintf(stderr, "pool_game: %s: %s: %s\n", what, tplan_code_name(err->code), err->message);
    return 1;
}

/* Steps the world one frame with no force (the game's physics between shots). */
static int step_free(tplan_domain *d, tplan_state *world, int steps, tplan_error *err)
{
    tplan_simulate_def sim;
    tplan_simulate_def_init(&sim);
    sim.steps = steps;
    return tplan_simulate(d, world, &sim, err) == TPLAN_OK ? 0 : fail("simulate", err);
}

/* A ball below the cloth has dropped into a pocket. */
static int pocketed(const double row[13])
{
    return row[2] < 0.5 * k_radius;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr,
                "usage: %s POOL.lua [--shots N] [--think FRAMES] [--budget S] [--play FRAMES] "
                "[--iterations N]\n",
                argv[0]);
        return 1;
    }
    const char *path = argv[1];
    int shots = 10, think = 20, play = 90;
    double budget = 0.016;
    long long iterations = 0;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--shots") == 0) {
            shots = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--think") == 0) {
            think = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--budget") == 0) {
            budget = atof(argv[i + 1]);
        } else if (strcmp(argv[i], "--play") == 0) {
            play = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--iterations") == 0) {
            iterations = atoll(argv[i + 1]);
        } else {
            fprintf(stderr, "pool_game: unknown option %s\n", argv[i]);
            return 1;
        }
    }
    tplan_error err;
    /* where a pocketed ball goes: the domain's place for a ball "off" the table */
    const tplan_param all_off[] = {{"layout", "yellow:off;blue:off;red:off;purple:off;black:off;s9:off;s10:off;"
                                              "s11:off;s12:off;s13:off"}};
    tplan_domain *table = tplan_domain_load_file(path, all_off, 1, NULL, &err);
    tplan_state *off = table ? tplan_state_new(table, &err) : NULL;
    tplan_domain *game = tplan_domain_load_file(path, NULL, 0, NULL, &err); /* the game's physics */
    tplan_state *world = game ? tplan_state_new(game, &err) : NULL;
    if (!table || !off || !game || !world) {
        return fail("load", &err);
    }
    int bad = 0, solved = 0, pots = 0, next_target = 3; /* red first */
    double worst_frame = 0, worst_setup = 0;
    int late = 0, late_quiet = 0, nframes = 0; /* thinking frames over the budget (a preempted thread's too), of all */
    for (int shot = 1; shot <= shots && !bad; ++shot) {
        /* the game takes pocketed balls off the table; the opponent picks a target on it */
        int on_table = 0;
        for (int b = 0; b < NBALLS; ++b) { /* a pocketed cue ball goes back to its spot (in `off` too) */
            double row[13], off_row[13];
            tplan_state_get_body(world, k_balls[b], row, NULL, &err);
            if (pocketed(row)) {
                tplan_state_get_body(off, k_balls[b], off_row, NULL, &err);
                if (tplan_state_set_body(world, k_balls[b], off_row, 0, &err) != TPLAN_OK) {
                    return fail("remove a ball", &err);
                }
            }
            on_table += b > 0 && !pocketed(row) && row[1] < 1.0; /* off balls wait beyond the long side */
        }
        if (on_table == 0) {
            printf("shot %d: the table is clear\n", shot);
            break;
        }
        int target = next_target;
        for (int k = 0; k < NBALLS; ++k, target = target % (NBALLS - 1) + 1) {
            double row[13];
            tplan_state_get_body(world, k_balls[target], row, NULL, &err);
            if (!pocketed(row) && row[1] < 1.0) {
                break;
            }
        }
        next_target = target % (NBALLS - 1) + 1;
        /* where the balls will be at the strike, `think` frames from now: the planner's own physics */
        const double t_setup = now();
        tplan_state *strike = tplan_state_copy(world);
        if (!strike || step_free(game, strike, think, &err)) {
            return 1;
        }
        char layout[1024] = "", entry[96];
        for (int b = 0; b < NBALLS; ++b) {
            double row[13];
            tplan_state_get_body(strike, k_balls[b], row, NULL, &err);
            if (row[1] >= 1.0 || pocketed(row)) {
                snprintf(entry, sizeof entry, "%s%s:off", layout[0] ? ";" : "", k_balls[b]);
            } else {
                snprintf(entry, sizeof entry, "%s%s:%.6f,%.6f", layout[0] ? ";" : "", k_balls[b], row[0], row[1]);
            }
            strncat(layout, entry, sizeof layout - strlen(layout) - 1);
        }
        /* the opponent aims from that layout (a ball still rolling there is not on its final spot:
           the plan starts from the predicted state, velocities included) */
        const tplan_param params[] = {
            {"mode", "single"}, {"target", k_balls[target]}, {"forbidden", "others"}, {"layout", layout}};
        tplan_domain *aim = tplan_domain_load_file(path, params, 4, NULL, &err);
        tplan_run_def def;
        tplan_run_def_init(&def);
        def.seed = shot;
        tplan_search *search = aim ? tplan_search_new(aim, &def, strike, &err) : NULL;
        const double setup = now() - t_setup;
        worst_setup = setup > worst_setup ? setup : worst_setup;
        if (!search) { /* a layout the domain refuses (two balls touching closer than its check) */
            printf("shot %d: no shot at %s (%s); the opponent waits\n", shot, k_balls[target], err.message);
            tplan_domain_free(aim);
            tplan_state_free(strike);
            if (step_free(game, world, think + play, &err)) {
                return 1;
            }
            continue;
        }
        /* think: one planning budget a frame, while the game steps its world */
        int frames = 0;
        for (int f = 0; f < think; ++f) {
            const long p0 = preemptions();
            const double t0 = now();
            if (step_free(game, world, 1, &err)) {
                return 1;
            }
            if (!tplan_search_done(search)) {
                const tplan_code c = iterations > 0 ? tplan_search_run_iterations(search, iterations, &err)
                                                    : tplan_search_run(search, budget - (now() - t0), &err);
                if (c != TPLAN_OK && c != TPLAN_ERR_ARGUMENT) { /* ARGUMENT: the frame's budget was spent */
                    return fail("search", &err);
                }
                frames++;
            }
            const double spent = now() - t0;
            worst_frame = spent > worst_frame ? spent : worst_frame;
            late += spent > budget;
            late_quiet += spent > budget && preemptions() == p0;
            nframes++;
        }
        /* the strike: the world is where the opponent predicted, bit for bit */
        const long long searched = (long long)tplan_result_iterations(tplan_search_best(search));
        int64_t kept = 0;
        if (tplan_search_reroot(search, world, 0, &kept, &err) != TPLAN_OK) {
            return fail("reroot", &err);
        }
        if (kept == 0) {
            fprintf(stderr, "pool_game: shot %d: the world is not the predicted state\n", shot);
            bad = 1;
        }
        const tplan_result *plan = tplan_search_best(search);
        const int steps = tplan_result_steps(plan), nc = tplan_domain_control_count(aim);
        const int cue = tplan_result_body_index(plan, "cue");
        const double *controls = tplan_result_controls(plan, cue);
        const int is_solved = tplan_result_status(plan) == TPLAN_SOLVED;
        solved += is_solved;
        /* play the shot: the plan's controls, one step a frame, for `play` frames (the balls may still
           roll when the next shot's thinking starts) */
        double *row = calloc((size_t)(6 * nc), sizeof *row);
        for (int i = 0; row && i < play && !bad; ++i) {
            memset(row, 0, sizeof *row * (size_t)(6 * nc));
            if (controls && i < steps) {
                memcpy(row, controls + 6 * i, 6 * sizeof *row); /* the cue ball is aim's only controlled body */
            }
            tplan_simulate_def sim;
            tplan_simulate_def_init(&sim);
            sim.steps = 1;
            sim.controls = row;
            if (tplan_simulate(aim, world, &sim, &err) != TPLAN_OK) {
                free(row);
                return fail("play", &err);
            }
        }
        free(row);
        double trow[13], speed = 0;
        tplan_state_get_body(world, k_balls[target], trow, NULL, &err);
        pots += pocketed(trow);
        for (int b = 0; b < NBALLS; ++b) {
            double r[13];
            tplan_state_get_body(world, k_balls[b], r, NULL, &err);
            const double v = sqrt(r[7] * r[7] + r[8] * r[8]);
            speed = v > speed ? v : speed;
        }
        printf("shot %d: %-6s %s plan (%d steps, %lld iterations over %d frames), %s; fastest ball %.2f m/s "
               "when the next shot's thinking starts\n",
               shot, k_balls[target], is_solved ? "solved" : "approximate", steps, searched, frames,
               pocketed(trow) ? "pocketed" : "missed", speed);
        tplan_search_free(search);
        tplan_domain_free(aim);
        tplan_state_free(strike);
    }
    printf("%d shots: %d plans solved, %d balls pocketed; %d of %d thinking frames over the %.1f ms budget (%d of "
           "them not preempted), the longest %.2f ms; the longest shot setup (predict, load, search_new) %.1f ms\n",
           shots, solved, pots, late, nframes, 1e3 * budget, late_quiet, 1e3 * worst_frame, 1e3 * worst_setup);
    tplan_state_free(world);
    tplan_state_free(off);
    tplan_domain_free(game);
    tplan_domain_free(table);
    return bad;
}
