/* The plain-ODE controls of the physics suites (test_contact_truth.c, test_compound.c): contact
 * joints made as a few lines calling ODE directly would, for comparing tplan's pipeline with. Needs
 * <ode/ode.h> and <string.h> included before it. */
#ifndef TP_TESTS_PLAIN_ODE_H
#define TP_TESTS_PLAIN_ODE_H

/* The contact joints of the geom pair (a, b) into group: ODE's own collider, at most 8 contacts,
 * dContactApprox1, mu 0.5 (the default material's), no bounce. */
static inline void plainContacts(dWorldID world, dJointGroupID group, dGeomID a, dGeomID b)
{
    dContact c[8];
    int n = dCollide(a, b, 8, &c[0].geom, sizeof c[0]);
    for (int k = 0; k < n; k++) {
        memset(&c[k].surface, 0, sizeof c[k].surface);
        c[k].surface.mode = dContactApprox1;
        c[k].surface.mu = 0.5;
        dJointID j = dJointCreateContact(world, group, &c[k]);
        dJointAttach(j, dGeomGetBody(a), dGeomGetBody(b));
    }
}

#endif
