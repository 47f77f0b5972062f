/* dv_test_sim.h - a core of a finished launch, for assertions. */
#ifndef DV_TEST_SIM_H
#define DV_TEST_SIM_H

#include "dv_sim.h"

#include <check.h>

static inline dv_core_info tc_core(const dv_sim *s, unsigned i)
{
    dv_core_info c;
    ck_assert_msg(dv_sim_core_info(s, i, &c), "the launch has no core %u", i);
    return c;
}

#endif
