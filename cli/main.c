/* tplan: physics-based tactics planner (Zickler & Veloso 2009). Command dispatcher. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tp/base.h"
#include "tplan/version.h"

/* The subcommands: one row each (name, what `tplan --help` says of it, entry point). A hidden
 * command (no summary) is dispatched but not listed. tools/man.sh makes a man page per listed row. */
typedef struct Command {
    const char *name;
    const char *args;    /* after the name in the list ("DOMAIN") */
    const char *summary; /* NULL: internal, not listed */
    int (*run)(int argc, char **argv);
    const char *missing; /* NULL: built; else the part this build lacks, e.g. "the viewer (TP_VIEWER=OFF)":
                            the command is refused (exit 2) and `tplan --help` lists it apart */
} Command;

/* The optional parts (docs/install.md#build-options): a build without one has no entry point for
 * its commands, only the refusal. */
#if TP_HAVE_VIEWER
#define VIEWER_CMD(f) f, NULL
#else
#define VIEWER_CMD(f) NULL, "the viewer (TP_VIEWER=OFF)"
#endif
#if TP_HAVE_SERVICE
#define SERVICE_CMD(f) f, NULL
#else
#define SERVICE_CMD(f) NULL, "the service (TP_SERVICE=OFF)"
#endif

static const Command k_commands[] = {
    {"plan", "DOMAIN", "plan a domain script (a path, or a built-in name such as minigolf)", tpCmd_Plan, NULL},
    {"replay", "PLAN", "re-simulate a plan file and check it bit for bit", tpCmd_Replay, NULL},
    {"state", "PLAN", "write the state at a step of a plan (a state file, for plan --state)", tpCmd_State, NULL},
    {"worlds", "PLAN", "list, filter (space-time queries) and rank a plan's solutions; pick one", tpCmd_Worlds, NULL},
    {"simulate", "DOMAIN", "step a state with controls through the planner's physics", tpCmd_Simulate, NULL},
    {"bench", "", "benchmark domains x planners over seeds (paper Table 1, Fig. 13)", tpCmd_Bench, NULL},
    {"view", "PLAN", "play back a plan (and its search tree) in a window", VIEWER_CMD(tpCmd_View)},
    {"render", "PLAN", "render a plan's motion to numbered PNG frames (offscreen)", VIEWER_CMD(tpCmd_Render)},
    {"export", "PLAN", "export a plan to glTF (.glb, .gltf) or CSV for animation tools", tpCmd_Export, NULL},
    {"serve", "", "run the planner as an HTTP/JSON job service with a web page", SERVICE_CMD(tpCmd_Serve)},
    {"domains", "", "list the built-in domains", tpCmd_Domains, NULL},
    {"worker", "", NULL, SERVICE_CMD(tpCmd_Worker)}, /* the worker process of `tplan serve` */
};

static const Command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; ++i) {
        if (strcmp(k_commands[i].name, name) == 0) {
            return &k_commands[i];
        }
    }
    return NULL;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: tplan <command> [options]\n"
               "\n"
               "Plans forces and torques for rigid bodies so that an ODE simulation reaches a goal,\n"
               "guided by Tactics and Skills written in Lua (BK-RRT and BK-BGT, Zickler & Veloso 2009).\n"
               "\n"
               "commands:\n");
    int missing = 0;
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; ++i) {
        const Command *c = &k_commands[i];
        if (c->summary && !c->missing) {
            char head[32];
            snprintf(head, sizeof head, "%s %s", c->name, c->args);
            fprintf(f, "  %-15s %s\n", head, c->summary);
        }
        missing += c->summary && c->missing;
    }
    fprintf(f, "  help [COMMAND]  show help for a command\n");
    if (missing) { /* after the list's blank line: tools/man.sh makes no page for these */
        fprintf(f, "\nnot in this build (docs/install.md#build-options):\n");
        for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; ++i) {
            const Command *c = &k_commands[i];
            if (c->summary && c->missing) {
                char head[32];
                snprintf(head, sizeof head, "%s %s", c->name, c->args);
                fprintf(f, "  %-15s %s: built without %s\n", head, c->summary, c->missing);
            }
        }
    }
    fprintf(f, "\n"
               "options:\n"
               "  -h, --help      this help\n"
               "  --version       print the version\n"
               "\n"
               "exit status: 0 success/solved, 1 internal failure or replay mismatch,\n"
               "             2 bad input (command line, script, file), 3 approximate plan only,\n"
               "             4 stopped at the hard deadline.\n"
               "Run 'tplan <command> --help' for the options of a command. Docs: docs/cli.md.\n");
}

/* A run ended by a signal leaves its destinations as they were and removes its temporary files. */
static void on_fatal_signal(int sig)
{
    tpFile_RemoveTemps();
    raise(sig); /* SA_RESETHAND: the default action now */
}

static void remove_temps_on_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; ++i) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) {
            continue; /* ignored by whoever started us (nohup, a shell's trap ''): keep it so */
        }
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sa.sa_flags = (int)SA_RESETHAND;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

int main(int argc, char **argv)
{
    remove_temps_on_signals();
    if (argc < 2) {
        usage(stderr);
        return TP_EXIT_BAD_INPUT;
    }
    const char *cmd = argv[1];
    char *help_argv[] = {NULL, "--help", NULL}; /* `tplan help CMD` runs `CMD --help` */
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        usage(stdout);
        return TP_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("tplan %s\n", TPLAN_VERSION); /* project(VERSION), as libtplan reports it */
        return TP_EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0) {
        if (argc < 3) {
            usage(stdout);
            return TP_EXIT_OK;
        }
        help_argv[0] = argv[2];
        argc = 2;
        argv = help_argv;
        cmd = argv[0];
    } else {
        argc -= 1;
        argv += 1;
    }
    const Command *c = find_command(cmd);
    if (c && c->missing) {
        tpLog(TP_LOG_ERROR, "tplan %s: this tplan was built without %s", c->name, c->missing);
        return TP_EXIT_BAD_INPUT;
    }
    if (c) {
        return c->run(argc, argv);
    }
    tpLog(TP_LOG_ERROR, "unknown command '%s' (try 'tplan --help')", cmd);
    return TP_EXIT_BAD_INPUT;
}
