/* Fuzz target: the track file reader (tpNavTrack_Parse). Every input must be refused with a
 * message naming the file, or give a track within the documented bounds. */
#include <math.h>
#include <string.h>

#include "fuzz_util.h"
#include "tp/base.h"
#include "tp/nav.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024] = "";
    tpNavTrackFile *t = tpNavTrack_Parse((const char *)data, size, "fuzz.json", err, sizeof err);
    if (!t) {
        if (strncmp(err, "fuzz.json", 9) != 0 || strlen(err) < 12) {
            tpFuzz_Fail("refusal without a proper message: \"%s\"", err);
        }
        return 0;
    }
    if (t->track.nwalls < 0 || t->track.nwalls > TP_NAV_TRACK_MAX_WALLS || t->track.ncars < 0 ||
        t->track.ncars > TP_NAV_TRACK_MAX_CARS || strlen(t->name) >= sizeof t->name) {
        tpFuzz_Fail("accepted %d walls, %d cars", t->track.nwalls, t->track.ncars);
    }
    for (int i = 0; i < t->track.nwalls; ++i) {
        for (int k = 0; k < 4; ++k) {
            if (!(fabs(t->track.walls[i][k]) <= TP_MAX_COORD)) {
                tpFuzz_Fail("wall %d coordinate %d is %g", i, k, t->track.walls[i][k]);
            }
        }
    }
    for (int i = 0; i < t->track.ncars; ++i) {
        const tpNavTrafficCar *c = &t->track.cars[i];
        if (!(c->length > 0 && c->width > 0 && fabs(c->pos[0]) <= TP_MAX_COORD && fabs(c->vel[0]) <= TP_MAX_SPEED)) {
            tpFuzz_Fail("car %d out of range", i);
        }
    }
    tpNavTrack_Free(t);
    return 0;
}
