/* physics: entry points for tests only (tests/physics adds physics/src to its include path). */
#ifndef TP_PHYSICS_TESTING_H
#define TP_PHYSICS_TESTING_H

#include <stdbool.h>

#include "tp/physics.h"

/// Steps the live world once (no restore first) with the given action: the "continue" mode
/// used by tests to show why Sim restores. Reads results with tpWorld_Snapshot.
bool tpWorld_StepLive(tpWorld *world, const double *action);

#endif
