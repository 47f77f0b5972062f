/* san_observe.c - the sanitizer as an observer of a run (dv_sanitize.h): its
 * hooks, one launch's state, the tensors and the checks asked for. */
#include "san_state.h"

#include <stdlib.h>
#include <string.h>

dv_status dv_san_parse_checks(const char *spec, unsigned *checks, dv_error *err)
{
    *checks = 0;
    if (!spec || !*spec || strcmp(spec, "all") == 0) {
        *checks = DV_SAN_ALL;
        return DV_OK;
    }
    static const struct {
        const char *name;
        unsigned bit;
    } words[] = {{"race", DV_SAN_RACE}, {"sync", DV_SAN_SYNC}, {"init", DV_SAN_INIT}, {"mem", DV_SAN_MEM}};
    const char *p = spec;
    for (;;) {
        size_t n = strcspn(p, ",");
        unsigned i;
        for (i = 0; i < 4 && !(strlen(words[i].name) == n && strncmp(p, words[i].name, n) == 0); i++)
            ;
        if (i == 4)
            return dv_error_set(err, DV_ERR_USAGE,
                                "--sanitize: '%.*s' is not a check (race, sync, init, mem)", (int)n, p);
        *checks |= words[i].bit;
        if (!p[n])
            return DV_OK;
        p += n + 1;
    }
}

dv_san *dv_san_create(unsigned checks, dv_error *err)
{
    dv_san *s = calloc(1, sizeof *s);
    if (!s) {
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        return NULL;
    }
    s->checks = checks & DV_SAN_ALL;
    return s;
}

static void free_launch(dv_san *s)
{
    san_free_launch_sync(s);
    san_shadow_free(s);
    s->sim = NULL;
    s->obj = NULL;
}

void dv_san_destroy(dv_san *s)
{
    if (!s)
        return;
    free_launch(s);
    for (size_t i = 0; i < s->ntensors; i++)
        free(s->tensors[i].name);
    free(s->tensors);
    free(s->f);
    free(s->seen);
    free(s);
}

dv_status dv_san_add_tensor(dv_san *s, const char *name, uint64_t addr, uint64_t len, bool uninit,
                            dv_error *err)
{
    san_tensor *n = realloc(s->tensors, (s->ntensors + 1) * sizeof *n);
    if (!n)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    s->tensors = n;
    char *copy = strdup(name);
    if (!copy)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    s->tensors[s->ntensors++] = (san_tensor){copy, addr, len, uninit};
    return DV_OK;
}

/* ---- hooks ---- */

static dv_status on_launch(void *user, const dv_sim *sim, dv_error *err)
{
    dv_san *s = user;
    s->ncores = dv_sim_ncores(sim);
    s->nthreads = s->ncores * SAN_NP;
    s->cores = calloc(s->ncores ? s->ncores : 1, sizeof *s->cores);
    s->vc = calloc((size_t)s->nthreads * s->nthreads + 1, sizeof *s->vc);
    if (!s->cores || !s->vc)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory for the sanitizer's clocks");
    for (unsigned i = 0; i < s->ncores; i++) {
        dv_core_info info;
        dv_sim_core_info(sim, i, &info);
        san_core *c = &s->cores[i];
        c->kind = info.kind;
        c->group = info.group;
        memcpy(c->buf_bytes, info.buffer_bytes, sizeof c->buf_bytes);
        if (!s->obj)
            s->obj = info.obj;
    }
    return DV_OK;
}

static void on_block(void *user, unsigned core, uint64_t block_idx, uint64_t cycle)
{
    (void)cycle;
    san_on_block(user, core, block_idx);
}

static void on_insn(void *user, const dv_trace_insn *ev)
{
    dv_san *s = user;
    /* the Scalar unit's own instructions are most of them: only sync and dispatch matter */
    if (ev->lane == DV_PIPE_S && ev->insn && dv_isa_info(ev->insn->op)->pipe == DV_PIPE_S &&
        ev->insn->op != DV_OP_SET_FLAG && ev->insn->op != DV_OP_WAIT_FLAG)
        return;
    san_on_insn(s, ev);
}

static void on_access(void *user, const dv_trace_access *ev)
{
    san_on_access(user, ev);
}

dv_status dv_san_attach(dv_san *s, dv_sim *sim, dv_error *err)
{
    free_launch(s);
    s->sim = sim;
    s->launch++;
    dv_sim_hooks h = {
        .user = s, .launch = on_launch, .block = on_block, .insn = on_insn, .access = on_access};
    return dv_sim_add_hooks(sim, &h, err);
}

void dv_san_finish(dv_san *s, dv_sim *sim, const dv_run_result *res)
{
    if (s->sim != sim || !s->cores)
        return;
    san_launch_end(s, res);
    free_launch(s);
}
