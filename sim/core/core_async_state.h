/* core_async_state.h - what a core keeps of its product in flight on the
 * launch's host threads (the functions: core_async.h). */
#ifndef CORE_ASYNC_STATE_H
#define CORE_ASYNC_STATE_H

#include "dv_pool.h"
#include "dv_unit.h"

#include <stdbool.h>

typedef struct core_async {
    dv_pool *pool;     /* the launch's threads; NULL: everything runs at once, here */
    dv_pool_job job;   /* the product in flight, if job.submitted */
    dv_cube_work work; /* its operands */
    dv_unit_ctx owner; /* the working memory of the product in flight */
} core_async;

#endif
