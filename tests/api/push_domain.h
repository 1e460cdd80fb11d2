/* The tests of the embedding API (test_api.c, test_state.c): a small domain given as text. */
#ifndef TP_TEST_PUSH_DOMAIN_H
#define TP_TEST_PUSH_DOMAIN_H

/* A small domain: a ball pushed into a box region (solves in a few iterations). TP_PUSH_DOMAIN
 * makes its variants: the name, the region's x range (strings of numbers) and max_iters. */
#define TP_PUSH_DOMAIN(NAME, XMIN, XMAX, ITERS)                                                                        \
    "local tp = require 'tp'\n"                                                                                        \
    "return tp.domain {\n"                                                                                             \
    "  name = '" NAME "', dt = 1/60,\n"                                                                                \
    "  bodies = {\n"                                                                                                   \
    "    tp.plane { name = 'floor' },\n"                                                                               \
    "    tp.sphere { name = 'ball', class = 'active', radius = 0.05, mass = 0.2,\n"                                    \
    "                pos = {0, 0, 0.05}, max_force = 50 } },\n"                                                        \
    "  tactics = { tp.tactic { name = 'push', body = 'ball', skills = {\n"                                             \
    "    tp.skill.impulse { name = 'roll', speed = tp.uniform(0.5, 3),\n"                                              \
    "                       direction = tp.angle(-0.4, 0.4) } } } },\n"                                                \
    "  goal = tp.inside { body = 'ball', min = {" XMIN ", -0.5}, max = {" XMAX ", 0.5} },\n"                           \
    "  planner = { max_iters = " ITERS " },\n"                                                                         \
    "}\n"
static const char k_push[] = TP_PUSH_DOMAIN("push", "0.3", "5", "2000");

#endif
