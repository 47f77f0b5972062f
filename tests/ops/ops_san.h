/* ops_san.h - the sanitizer as an operator run's launch observer, for the
 * ops tests: the run's GM tensors are declared once (before the first
 * launch), and every launch's simulation is attached and finished. */
#ifndef OPS_SAN_H
#define OPS_SAN_H

#include "dv_opjob.h"
#include "dv_sanitize.h"

typedef struct watch {
    dv_san *san;
    bool added;
} watch;

static inline dv_status watch_begin(void *user, dv_opr_run *r, dv_error *err)
{
    watch *w = user;
    for (unsigned i = 0; !w->added && i < r->ntensors; i++)
        if (dv_san_add_tensor(w->san, r->t[i].name, r->t[i].addr, r->t[i].bytes, false, err) != DV_OK)
            return err->status;
    w->added = true;
    return dv_san_attach(w->san, dv_opr_sim(r), err);
}

static inline void watch_end(void *user, dv_opr_run *r, const dv_run_result *res)
{
    watch *w = user;
    dv_san_finish(w->san, dv_opr_sim(r), res);
}

#endif
