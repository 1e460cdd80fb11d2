/* tplan navigation (the tp_nav library): one header per concept, all included here.
 *
 *   tp/nav_grid.h   shapes, occupancy grids, Dijkstra / A* and the path-following controller
 *                   (Kuffner 1998)
 *   tp/nav_field.h  harmonic potential fields and crowds (Dapper 2007)
 *   tp/nav_car.h    the planar car, move trees, finite-horizon A*, track files (Adam 2007)
 *   tp/nav_space.h  space-time navigation over moving surfaces (Lopez, Lamarche & Li 2011)
 *
 * Pure computation: no ODE, no Lua. */
#ifndef TP_NAV_H
#define TP_NAV_H

#include "tp/nav_car.h"
#include "tp/nav_field.h"
#include "tp/nav_grid.h"
#include "tp/nav_space.h"

#endif
