/* dv_test_sim.h - a simulation made from assembler text, and a core of a
 * finished launch, for assertions. */
#ifndef DV_TEST_SIM_H
#define DV_TEST_SIM_H

#include "dv_asm.h"
#include "dv_sim.h"

#include <check.h>
#include <string.h>

/* Assembles src ("t.dvs"; its first diagnostic fails the test) into *obj
 * and loads it into a new simulation of cfg (functional with data). */
static inline dv_sim *tc_sim_of(const dv_chip_config *cfg, const char *src, bool data, dv_obj **obj)
{
    dv_error err = {DV_OK, ""};
    dv_diags diags = {NULL, 0};
    dv_status st = dv_asm_string("t.dvs", src, strlen(src), NULL, obj, &diags, &err);
    ck_assert_msg(st == DV_OK, "%s", diags.count ? diags.lines[0] : err.msg);
    dv_diags_free(&diags);
    dv_sim *sim = dv_sim_create(cfg, data, &err);
    ck_assert_msg(sim != NULL, "%s", err.msg);
    ck_assert_int_eq(dv_sim_load(sim, *obj, NULL, &err), DV_OK);
    return sim;
}

static inline dv_core_info tc_core(const dv_sim *s, unsigned i)
{
    dv_core_info c;
    ck_assert_msg(dv_sim_core_info(s, i, &c), "the launch has no core %u", i);
    return c;
}

#endif
