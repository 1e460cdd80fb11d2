/* Private layout of tpDomain, shared by domain.c, cond.c and record.c. */
#ifndef TP_DOMAIN_INTERNAL_H
#define TP_DOMAIN_INTERNAL_H

#include "tp/base.h"
#include "tp/tactics.h"
#include "cond_testing.h" /* the condition evaluator (cond.c), also for tests */

struct tpDomain {
    tpDomainDef def; /* copy; def.tactics points at `tactics` */
    tpWorld *world;  /* owned */
    int nbodies, nstate, ncontrol, ntactics;
    tpTacticDef *tactics; /* owned deep copies (skills, pi, pi_dynamic arrays owned too) */
    int max_skills;
    double *probs;         /* scratch: max_skills doubles */
    size_t off_bodies;     /* byte offset of the body states in a state blob */
    size_t off_tactics;    /* byte offset of the tactic states */
    size_t off_rest;       /* byte offset of the bodies' rest counts (tpWorld_StepRest: nstate bytes) */
    size_t *tac_off;       /* per tactic: byte offset of its tpTacticState in a blob */
    int *tac_nv;           /* per tactic: skill variables stored (max tpSkill_VarCount of its skills) */
    int action_dim;        /* doubles of a stored (compact) action: 3 per planar control slot
                              (fx, fy, tz: the clamp zeroes the rest), 6 per other slot */
    int *act_off;          /* per control slot: offset of its entries in a compact action */
    bool *act_planar;      /* per control slot: stored as 3 doubles */
    int nmotor;            /* driven motors (tpWorld_MotorCount): their targets end every action, full
                              and compact */
    int motor_off;         /* offset of the motor targets in a compact action (= action_dim - nmotor) */
    double *motor_default; /* nmotor: each driven motor's target when no skill sets it (its `speed`) */
    double *act_full;      /* scratch: one full action, 6 per control slot, then the nmotor targets */
    double *act_zero;      /* a full action of zeros (the root's, for callbacks) */
    int nmem;              /* temporal memory slots of the goal and valid conditions (tpCond.mem) */
    size_t off_mem;        /* byte offset of their int32 memory in a state blob (nmem of them) */
    size_t state_bytes;
    tpBodyState *initial_all; /* every body's state at t = 0 (for "moved") */
    int key_body;             /* body compared with y in BK-RRT, -1 if none */
    int sample_dim, key_dim;
    double max_accel, max_angaccel; /* min-time distance bounds */
    tpSkillCache *skill_cache;      /* owned: the navigation skills' grids, paths, fields, move trees */
    uint64_t skill_step;            /* the last tpSkillCall.step given (one per cb_control call) */
    char error[1024];               /* last host-callback error */
    int nwarnings;                  /* warnings kept (tpDomain_Warning) */
    int warnings_seen;              /* all found, also those beyond TP_MAX_WARNINGS */
    char warnings[TP_MAX_WARNINGS][TP_WARNING_MAX];
    const tpCond *valid_blame; /* the node of def.valid that refused the last state valid() refused */
    /* The start of every plan (tpDomain_SetStart); has_start false: the scene's initial state at 0 */
    bool has_start;
    tpBodyState *start_x; /* nstate states, slot order (NULL until set) */
    uint8_t *start_rest;  /* nstate rest counts (NULL until set) */
    double start_t;       /* s */
    /* The bodies an approximate answer judged at rest looks at (docs/lua-api.md#fallbacks): the
       goal's tp.settled ones with their limits, else every passive and active body (owned) */
    int nrest;
    int *rest_body;
    double *rest_speed, *rest_angular; /* m/s, rad/s */
    bool *rest_held;                   /* in a joint: held by it, not asked whether it rests on something */
    /* What the tactics and the temporal conditions start from (tpDomain_SetStartTactics): NULL, the
       tactics afresh (σ_init, not started) and every memory slot 0, as at t = 0 */
    uint8_t *start_tac; /* off_rest - off_tactics bytes: every tactic's tpTacticState (NULL: afresh) */
    int32_t *start_mem; /* nmem slots (NULL: all 0) */
};

/// Full action (6 doubles per control slot, then the motor targets) from a compact stored one.
void tpDomain_ExpandAction(const tpDomain *d, const double *compact, double *full);

/// After a physics step made the state (bodies, t): updates mem (nmem slots) from it through the goal
/// and valid conditions (tpCond_Observe). 0, or -1 on a host error (message in d->error).
int tpDomain_Observe(tpDomain *d, const tpBodyState *bodies, double t, int32_t *mem);

/// A state view of a blob.
tpStateView tpDomain_View(const tpDomain *d, const void *x);

/// Replays the solution ending at `leaf` through the navigation skills and stores the overlays they
/// emit in rec (record_overlay.c). Nothing happens for domains without navigation skills.
bool tpDomain_RecordOverlays(const tpDomain *d, const tpTree *tree, int32_t leaf, tpPlanRecord *rec, char *err,
                             size_t errlen);

/// Invariants (domain_validate.c): true when d's counts, state layout, action slots, tactics,
/// sampling, temporal memory slots, warnings and start are consistent, else false with the first
/// broken rule in why (NULL allowed). Run through TP_VALIDATE (tp/base.h) when tpCreateDomain returns a
/// domain and after its start changes (Debug and sanitizer builds); tests/tactics/test_tactics.c
/// breaks each rule once.
bool tpDomain_Valid(const tpDomain *d, char *why, size_t cap);

#endif
