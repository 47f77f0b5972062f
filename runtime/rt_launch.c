/* rt_launch.c - kernel and operator launches on streams: enqueued (checked
 * and, for an operator, prepared on the device's tensors), issued on the
 * chip when their stream reaches them, and recorded when they end. */
#include "rt_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dv_status rt_new_record(dv_rt_device *d, unsigned *index, dv_error *err)
{
    if (d->nrec == d->caprec) {
        unsigned cap = d->caprec ? 2 * d->caprec : 64;
        dv_rt_record *r = realloc(d->rec, cap * sizeof *r);
        if (r)
            d->rec = r;
        rt_foot *f = d->opt.race_check ? realloc(d->foot, cap * sizeof *f) : NULL;
        if (f)
            d->foot = f;
        if (!r || (d->opt.race_check && !f))
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        d->caprec = cap;
    }
    *index = d->nrec++;
    memset(&d->rec[*index], 0, sizeof d->rec[*index]);
    if (d->opt.race_check)
        memset(&d->foot[*index], 0, sizeof d->foot[*index]);
    return DV_OK;
}

unsigned dv_rt_record_count(const dv_rt_device *d)
{
    return d->nrec;
}

const dv_rt_record *dv_rt_record_at(const dv_rt_device *d, unsigned i)
{
    return i < d->nrec ? &d->rec[i] : NULL;
}

const dv_rt_record *dv_rt_failed(const dv_rt_device *d)
{
    for (unsigned i = 0; i < d->nrec; i++)
        if (d->rec[i].stop != DV_STOP_NONE && d->rec[i].stop != DV_STOP_DONE)
            return &d->rec[i];
    return NULL;
}

void rt_cmd_free(rt_cmd *c)
{
    if (c->kind == CMD_OP)
        dv_opr_destroy(c->run);
    free(c);
}

static dv_status check_cores(const dv_rt_device *d, const dv_coreset *cores, dv_error *err)
{
    for (unsigned i = (unsigned)d->cfg.cores; cores && i < 64 * DV_CORESET_WORDS; i++)
        if (dv_coreset_has(cores, i))
            return dv_error_set(err, DV_ERR_INPUT, "core %u is not on %s (cores 0-%llu)", i, d->cfg.name,
                                (unsigned long long)d->cfg.cores - 1);
    return DV_OK;
}

static void init_record(dv_rt_stream *s, unsigned i, dv_rt_kind kind, const dv_coreset *cores)
{
    dv_rt_record *r = &s->d->rec[i];
    r->kind = kind;
    r->stream = s->index;
    r->enqueue_cycle = dv_sim_now(s->d->sim);
    if (cores)
        r->cores = *cores;
}

dv_status dv_rt_launch_kernel(dv_rt_stream *s, const dv_rt_kernel_launch *k, unsigned *record, dv_error *err)
{
    dv_rt_device *d = s->d;
    if (!k->obj || k->obj->nkernels == 0)
        return dv_error_set(err, DV_ERR_INPUT, "the object has no kernel (declare one with .kernel)");
    const dv_obj_kernel *kern = k->kernel ? dv_obj_find_kernel(k->obj, k->kernel) : &k->obj->kernels[0];
    if (!kern)
        return dv_error_set(err, DV_ERR_INPUT, "the object has no kernel '%s'", k->kernel);
    if (!k->kernel && k->obj->nkernels > 1)
        return dv_error_set(err, DV_ERR_INPUT, "the object has %zu kernels; name one", k->obj->nkernels);
    if (d->cfg.split == (kern->core == DV_CORE_COUPLED))
        return dv_error_set(err, DV_ERR_INPUT, "kernel '%s' is for %s cores; %s has %s cores", kern->name,
                            dv_core_type_name(kern->core), d->cfg.name,
                            d->cfg.split ? "split AIC/AIV" : "coupled");
    if (k->blocks == 0 || k->blocks > 65535)
        return dv_error_set(err, DV_ERR_INPUT, "blocks must be 1 to 65535, not %llu",
                            (unsigned long long)k->blocks);
    dv_status st = check_cores(d, k->cores, err);
    if (st != DV_OK)
        return st;
    rt_cmd *c = calloc(1, sizeof *c);
    if (!c)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    c->kind = CMD_KERNEL;
    c->desc.obj = k->obj;
    c->desc.kernel = kern->name;
    memcpy(c->desc.args, k->args, sizeof c->desc.args);
    c->desc.block_dim = k->blocks;
    if (k->cores)
        c->desc.cores = *k->cores;
    if ((st = rt_new_record(d, &c->record, err)) != DV_OK) {
        free(c);
        return st;
    }
    init_record(s, c->record, DV_RT_KERNEL, k->cores);
    dv_rt_record *r = &d->rec[c->record];
    snprintf(r->label, sizeof r->label, "%s", k->label ? k->label : kern->name);
    r->blocks = k->blocks;
    rt_enqueue(s, c);
    if (record)
        *record = c->record;
    return DV_OK;
}

dv_status dv_rt_launch_op(dv_rt_stream *s, const dv_rt_op_launch *op, unsigned *record, dv_error *err)
{
    dv_rt_device *d = s->d;
    const dv_operator *o = dv_operator_find(op->op);
    if (!o)
        return dv_error_set(err, DV_ERR_INPUT, "no operator '%s' (dvsim ops lists them)", op->op);
    dv_status st = check_cores(d, op->cores, err);
    if (st != DV_OK)
        return st;
    if (op->nbound > DV_OPR_MAX_TENSORS)
        return dv_error_set(err, DV_ERR_INPUT, "at most %d tensors", DV_OPR_MAX_TENSORS);
    dv_opr_target tg = {.gm = dv_sim_gm(d->sim), .nbound = op->nbound};
    for (unsigned i = 0; i < op->nbound; i++) {
        tg.name[i] = op->name[i];
        tg.addr[i] = op->addr[i];
    }
    rt_cmd *c = calloc(1, sizeof *c);
    if (!c)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    c->kind = CMD_OP;
    st = dv_opr_create_on(o, &op->req, &d->cfg, d->opt.data, &tg, &c->run, err);
    if (st != DV_OK) {
        free(c);
        return st;
    }
    c->check = op->check && d->opt.data;
    if (op->cores)
        c->cores = *op->cores;
    unsigned n = c->run->launches;
    for (unsigned i = 0; i < n; i++) {
        unsigned idx;
        if ((st = rt_new_record(d, &idx, err)) != DV_OK) {
            rt_cmd_free(c);
            return st;
        }
        if (i == 0)
            c->record = idx;
        init_record(s, idx, DV_RT_OP, op->cores);
        dv_rt_record *r = &d->rec[idx];
        if (n == 1)
            snprintf(r->label, sizeof r->label, "%s", o->name);
        else
            snprintf(r->label, sizeof r->label, "%s[%u/%u]", o->name, i + 1, n);
        snprintf(r->shape, sizeof r->shape, "%s", op->req.shape ? op->req.shape : "");
    }
    rt_enqueue(s, c);
    if (record)
        *record = c->record;
    return DV_OK;
}

static void on_launch_done(void *user, dv_sim *sim, unsigned launch);

/* The chip launch of command c's next kernel (a kernel, or an operator's
 * launch op_next) at the current cycle plus the launch overhead. */
dv_status rt_issue(dv_rt_stream *s, rt_cmd *c, dv_error *err)
{
    dv_rt_device *d = s->d;
    dv_launch_desc desc = c->desc;
    unsigned rec = c->record;
    if (c->kind == CMD_OP) {
        dv_opr_run *r = c->run;
        rec = c->record + c->op_next;
        dv_status st = c->op_next == 0 ? (c->check ? dv_opr_before_run(r, err) : DV_OK)
                                       : dv_opr_next_launch(r, c->op_next, err);
        if (st != DV_OK)
            return st;
        desc = (dv_launch_desc){
            .obj = r->obj, .kernel = r->kernel->name, .block_dim = r->block_dim, .cores = c->cores};
        memcpy(desc.args, r->args, sizeof desc.args);
        d->rec[rec].blocks = r->block_dim;
    }
    uint64_t now = dv_sim_now(d->sim);
    desc.not_before = now + (d->opt.no_launch_overhead ? 0 : d->cfg.launch_cycles);
    desc.done = on_launch_done;
    desc.user = s;
    unsigned id;
    dv_status st = dv_sim_launch(d->sim, &desc, &id, err);
    if (st != DV_OK)
        return st;
    if (id >= d->nlaunch_map) {
        unsigned cap = d->nlaunch_map ? 2 * d->nlaunch_map : 64;
        while (cap <= id)
            cap *= 2;
        unsigned *m = realloc(d->rec_of_launch, cap * sizeof *m);
        if (!m)
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        d->rec_of_launch = m;
        d->nlaunch_map = cap;
    }
    d->rec_of_launch[id] = rec;
    dv_rt_record *r = &d->rec[rec];
    r->issue_cycle = now;
    r->launch_id = id;
    if (d->opt.race_check) { /* its order: what the stream knows, and its own epoch */
        s->vc.c[s->index]++;
        d->foot[rec].vc = s->vc;
    }
    return DV_OK;
}

/* An operator's launch ended: its figures in the run's launch list, as
 * oplaunch.c records them for a launch of its own (the cores of each kind
 * a split chip's AIC, AIV or mix kernel had), so the roofline is the same
 * function of the same figures; at its last launch, the roofline. */
static void op_launch_ended(dv_opr_run *run, const dv_launch_info *in, dv_rt_record *r, bool last)
{
    if (run->nlaunched < DV_OPR_MAX_LAUNCHES) {
        dv_opr_launch *l = &run->launch[run->nlaunched++];
        const dv_obj_kernel *k = run->kernel;
        *l = (dv_opr_launch){.cycles = in->end_cycle - in->start_cycle, .ncores = in->units};
        snprintf(l->kernel, sizeof l->kernel, "%s", k ? k->name : "?");
        l->cube_cores = l->vec_cores = in->units;
        if (run->cfg->split && k && k->core == DV_CORE_AIC)
            l->vec_cores = 0;
        else if (run->cfg->split && k && k->core == DV_CORE_AIV)
            l->cube_cores = 0;
        else if (run->cfg->split && k && k->core == DV_CORE_MIX) {
            l->cube_cores = in->units / (double)(1 + run->cfg->aiv_per_aic);
            l->vec_cores = in->units - l->cube_cores;
        }
    }
    if (!last)
        return;
    dv_run_result res = {.cycles = in->end_cycle - in->start_cycle, .ncores = in->units};
    dv_opr_roofline_of(run, &res, &r->roofline);
    r->has_roofline = true;
}

/* A chip launch ended (between events, at its end cycle): its record, the
 * operator's next launch or its check, and the streams move on. */
static void on_launch_done(void *user, dv_sim *sim, unsigned launch)
{
    dv_rt_stream *s = user;
    dv_rt_device *d = s->d;
    dv_launch_info in;
    dv_sim_launch_info(sim, launch, &in);
    unsigned rec = d->rec_of_launch[launch];
    dv_rt_record *r = &d->rec[rec];
    r->stop = in.stop;
    r->start_cycle = in.start_cycle;
    r->end_cycle = in.end_cycle;
    r->units = in.units;
    r->cores_used = in.cores_used;
    snprintf(r->message, sizeof r->message, "%s", in.message ? in.message : "");
    for (unsigned p = 0; p < DV_PATH_COUNT; p++) {
        if (dv_path_src(p) == DV_MEM_GM)
            r->gm_read += in.path_bytes[p];
        if (dv_path_dst(p) == DV_MEM_GM)
            r->gm_write += in.path_bytes[p];
    }
    if (d->opt.race_check)
        rt_race_launch_ended(d, rec);
    if (in.stop == DV_STOP_LIMIT || in.stop == DV_STOP_INTERRUPTED)
        d->halted = true;
    rt_cmd *c = s->head;
    s->busy = false;
    bool more = c->kind == CMD_OP && in.stop == DV_STOP_DONE && c->op_next + 1 < c->run->launches;
    if (c->kind == CMD_OP && in.stop == DV_STOP_DONE)
        op_launch_ended(c->run, &in, r, !more);
    if (more) {
        c->op_next++; /* the stream's head stays: its next launch is issued by the pump */
    } else {
        if (c->kind == CMD_OP && c->check && in.stop == DV_STOP_DONE) {
            dv_error err = {DV_OK, ""};
            if (dv_opr_check_outputs(c->run, &err) != DV_OK)
                rt_defer_error(d, &err);
            r->checked = c->run->check.done;
            r->passed = dv_opr_check_passed(&c->run->check);
            r->mismatches = c->run->check.mismatches;
        }
        s->head = c->next;
        if (!s->head)
            s->tail = NULL;
        rt_cmd_free(c);
    }
    rt_pump(d);
}
