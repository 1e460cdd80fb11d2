/* Dice faces ("all show six" must be seen): which body of a plan is a die, and the pips
 * of each face, shared by the viewer, the export and (as the same table in web/js/dice.js) the web
 * page. */
#include <math.h>
#include <string.h>

#include "tp/plan.h"

bool tpPlanBody_IsDie(const tpPlanRecord *rec, const tpPlanBody *b)
{
    if (!rec->domain_name || strcmp(rec->domain_name, "dice") != 0 || !b->moving || !b->shape ||
        strcmp(b->shape, "box") != 0 || b->nparts > 0) {
        return false;
    }
    double s = b->size[0];
    return s > 0 && fabs(b->size[1] - s) <= 1e-9 * s && fabs(b->size[2] - s) <= 1e-9 * s;
}

int tpDie_Face(int face, double out[6][2], double *radius)
{
    /* the number per face (+x, -x, +y, -y, +z, -z) and the pip layouts of 1..6 on a 3 x 3 lattice */
    static const int k_number[6] = {3, 4, 2, 5, 6, 1};
    static const signed char k_pips[7][6][2] = {
        {{0}},
        {{0, 0}},
        {{-1, -1}, {1, 1}},
        {{-1, -1}, {0, 0}, {1, 1}},
        {{-1, -1}, {-1, 1}, {1, -1}, {1, 1}},
        {{-1, -1}, {-1, 1}, {0, 0}, {1, -1}, {1, 1}},
        {{-1, -1}, {-1, 0}, {-1, 1}, {1, -1}, {1, 0}, {1, 1}},
    };
    const double a = 0.5; /* lattice step: pips half-way between the centre and the edge */
    int n = k_number[face >= 0 && face < 6 ? face : 4];
    for (int k = 0; k < n; ++k) {
        out[k][0] = a * k_pips[n][k][0];
        out[k][1] = a * k_pips[n][k][1];
    }
    if (radius) {
        *radius = 0.18;
    }
    return n;
}
