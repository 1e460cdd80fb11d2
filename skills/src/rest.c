/* "Everything rests": the follow-through test shared by the impulse and spin skills. */
#include <math.h>

#include "skill_internal.h"

bool tpCtl_WorldMoving(const tpSkillCall *call, double speed)
{
    int n = tpWorld_StateCount(call->world);
    double s2 = speed * speed;
    for (int k = 0; k < n; ++k) {
        const double *v = call->x[k].vel;
        if (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] > s2) {
            return true;
        }
    }
    return false;
}
