/* tplan: physics-based tactics planner (Zickler & Veloso 2009). Command dispatcher. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tp/base.h"
#include "tplan/version.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: tplan <command> [options]\n"
               "\n"
               "Plans forces and torques for rigid bodies so that an ODE simulation reaches a goal,\n"
               "guided by Tactics and Skills written in Lua (BK-RRT and BK-BGT, Zickler & Veloso 2009).\n"
               "\n"
               "commands:\n"
               "  plan DOMAIN     plan a domain script (a path, or a built-in name such as minigolf)\n"
               "  replay PLAN     re-simulate a plan file and check it bit for bit\n"
               "  bench           benchmark domains x planners over seeds (paper Table 1, Fig. 13)\n"
               "  view PLAN       play back a plan (and its search tree) in a window\n"
               "  render PLAN     render a plan's motion to numbered PNG frames (offscreen)\n"
               "  export PLAN     export a plan to glTF (.glb, .gltf) or CSV for animation tools\n"
               "  serve           run the planner as an HTTP/JSON job service with a web page\n"
               "  domains         list the built-in domains\n"
               "  help [COMMAND]  show help for a command\n"
               "\n"
               "options:\n"
               "  -h, --help      this help\n"
               "  --version       print the version\n"
               "\n"
               "exit status: 0 success/solved, 1 internal failure or replay mismatch,\n"
               "             2 bad input (command line, script, file), 3 approximate plan only.\n"
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
    if (strcmp(cmd, "plan") == 0) {
        return tpCmd_Plan(argc, argv);
    }
    if (strcmp(cmd, "replay") == 0) {
        return tpCmd_Replay(argc, argv);
    }
    if (strcmp(cmd, "bench") == 0) {
        return tpCmd_Bench(argc, argv);
    }
    if (strcmp(cmd, "view") == 0) {
        return tpCmd_View(argc, argv);
    }
    if (strcmp(cmd, "render") == 0) {
        return tpCmd_Render(argc, argv);
    }
    if (strcmp(cmd, "export") == 0) {
        return tpCmd_Export(argc, argv);
    }
    if (strcmp(cmd, "domains") == 0) {
        return tpCmd_Domains(argc, argv);
    }
    if (strcmp(cmd, "serve") == 0) {
        return tpCmd_Serve(argc, argv);
    }
    if (strcmp(cmd, "worker") == 0) { /* internal: the worker process of `tplan serve` */
        return tpCmd_Worker(argc, argv);
    }
    tpLog(TP_LOG_ERROR, "unknown command '%s' (try 'tplan --help')", cmd);
    return TP_EXIT_BAD_INPUT;
}
