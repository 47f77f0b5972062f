/* dv_tjson.c - the streaming Chrome Trace Event writer.
 *
 * Ordering rules the viewers depend on (Perfetto binds a flow event to the
 * slice on top of its track when it reads the event, and reads events of
 * equal timestamp in file order):
 *   - each lane's slices are written in time order; a slice with a duration
 *     waits in its lane's slot until the lane's next event, so that a run cut
 *     short can end it at the stop cycle;
 *   - a set_flag slice is written at once, followed by the flow's "s";
 *   - a wait_flag slice is written when it is released, followed by "f"
 *     (bp "e", at the release cycle, never before its "s").
 * A flow whose wait is not written (the flag was set again first, no wait
 * consumed it before the end, or the wait lies outside --trace-window) ends
 * on an instant on the core's FLOWCTRL lane saying so: every "s" has its
 * "f". */
#include "dv_profile.h"
#include "dv_tjson_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Buffers shown as occupancy counters. */
static const dv_mem_kind occ_kinds[] = {DV_MEM_L1, DV_MEM_L0A, DV_MEM_L0B, DV_MEM_L0C, DV_MEM_UB};
_Static_assert(sizeof occ_kinds / sizeof occ_kinds[0] == NOCC, "one kind per counter");

/* ---- metadata ---- */

static void meta(dv_tjson *t, const char *name, unsigned core, int lane, const char *key, const char *sval,
                 uint64_t ival)
{
    if (!t->first)
        tj_put(t, ",\n", 2);
    t->first = false;
    tj_puts(t, "{\"ph\":\"M\",\"name\":\"");
    tj_puts(t, name);
    tj_puts(t, "\",\"pid\":");
    uint64_t pid = core < t->ncores && t->pid ? t->pid[core] : core + 1;
    tj_u64(t, pid);
    if (lane >= 0) {
        tj_puts(t, ",\"tid\":");
        tj_u64(t, pid * 100 + (unsigned)lane);
    }
    tj_puts(t, ",\"args\":{\"");
    tj_puts(t, key);
    tj_puts(t, "\":");
    if (sval)
        tj_jstr(t, sval);
    else
        tj_u64(t, ival);
    tj_puts(t, "}}");
    t->tot.events++;
}

/* msprof's names: core<group>.cubecore0 / .veccore<n> on split chips;
 * coupled cores are core<i>.aicore0.  The labels say it the short way. */
static void name_core(const dv_core_info *c, unsigned i, char *name, size_t nsize, char *label, size_t lsize)
{
    switch (c->kind) {
    case DV_KIND_AIC:
        snprintf(name, nsize, "core%u.cubecore0", c->group);
        snprintf(label, lsize, "AIC %u", c->group);
        break;
    case DV_KIND_AIV:
        snprintf(name, nsize, "core%u.veccore%llu", c->group, (unsigned long long)c->sub_idx);
        snprintf(label, lsize, "AIV %llu", (unsigned long long)(c->group * c->sub_dim + c->sub_idx));
        break;
    default:
        snprintf(name, nsize, "core%u.aicore0", i);
        snprintf(label, lsize, "AI Core %u", i);
        break;
    }
}

/* ---- the per-instruction text, built once per pc ---- */

static const char *insn_text(dv_tjson *t, const dv_insn *in, uint64_t pc)
{
    size_t idx = (size_t)(pc / DV_INSN_BYTES);
    if (pc % DV_INSN_BYTES || idx >= t->ntext)
        return NULL;
    if (t->text[idx])
        return t->text[idx];
    char asmtext[256], src[300] = "";
    dv_isa_format_insn(in, pc, NULL, NULL, asmtext, sizeof asmtext);
    const char *mn = dv_isa_info(in->op)->mnemonic;
    const char *ops = asmtext + strlen(mn);
    while (*ops == ' ')
        ops++;
    const dv_obj_line *ln = dv_obj_line_at(t->obj, pc);
    if (ln && ln->file < t->obj->nfiles)
        snprintf(src, sizeof src, "%s:%u", t->obj->files[ln->file], ln->line);
    /* Built through the writer's escaping into a scratch buffer. */
    char *saved = t->buf;
    size_t saved_len = t->len;
    char scratch[4096];
    /* escaping writes at most 6 bytes per byte (\u00XX, \ufffd) */
    _Static_assert(sizeof scratch >= 6 * (sizeof asmtext + sizeof src) + 128, "insn_text: scratch too small");
    t->buf = scratch;
    t->len = 0;
    bool saved_failed = t->failed;
    tj_puts(t, "\"name\":\"");
    tj_puts(t, mn);
    tj_puts(t, "\",\"args\":{\"operands\":");
    tj_jstr(t, ops);
    char pcs[48];
    snprintf(pcs, sizeof pcs, ",\"pc\":\"0x%llx\",\"source\":", (unsigned long long)pc);
    tj_puts(t, pcs);
    tj_jstr(t, src);
    char *text = malloc(t->len + 1);
    if (text) {
        memcpy(text, scratch, t->len);
        text[t->len] = '\0';
    }
    t->buf = saved;
    t->len = saved_len;
    t->failed = saved_failed;
    t->text[idx] = text;
    return text;
}

/* ---- slices ---- */

static bool in_window(const dv_tjson *t, uint64_t start, uint64_t end)
{
    return start < t->w1 && (end > t->w0 || start >= t->w0);
}

static const char *cat_of(dv_pipe lane, const dv_insn *in)
{
    const dv_insn_info *info = dv_isa_info(in->op);
    if (lane == DV_PIPE_S && info->pipe != DV_PIPE_S)
        return in->op == DV_OP_SET_FLAG || in->op == DV_OP_WAIT_FLAG ? "sync" : "dispatch";
    return dv_tclass_name(info->tclass);
}

/* Writes a slice; false if it lies outside the window. */
/* The stall classes of a slice (dv_prof_classes.def): a wait's (stall,
 * the whole slice), a unit instruction's memory and bank cycles. */
typedef struct slice_stall {
    const char *stall;
    uint64_t mem, bank;
} slice_stall;

static void write_stall(dv_tjson *t, const slice_stall *ss, uint64_t cycles)
{
    if (ss->stall) {
        tj_puts(t, ",\"stall\":\"");
        tj_puts(t, ss->stall);
        tj_puts(t, "\",\"stall_cycles\":");
        tj_u64(t, cycles);
    }
    if (ss->mem) {
        tj_puts(t, ",\"memory_cycles\":");
        tj_u64(t, ss->mem);
    }
    if (ss->bank) {
        tj_puts(t, ",\"bank_cycles\":");
        tj_u64(t, ss->bank);
    }
}

static bool write_slice(dv_tjson *t, unsigned core, unsigned lane, uint64_t start, uint64_t end,
                        const char *text, const char *cat, dv_path path, uint64_t bytes, bool cut,
                        const slice_stall *ss)
{
    if (!in_window(t, start, end) || !text)
        return false;
    tj_event_start(t, 'X', core, lane, start);
    tj_puts(t, ",\"dur\":");
    tj_us(t, tj_ns(t, end) - tj_ns(t, start));
    tj_puts(t, ",\"cat\":\"");
    tj_puts(t, cat);
    tj_puts(t, "\",");
    tj_puts(t, text);
    tj_puts(t, ",\"cycle\":");
    tj_u64(t, start);
    tj_puts(t, ",\"cycles\":");
    tj_u64(t, end - start);
    if (bytes) {
        tj_puts(t, ",\"bytes\":");
        tj_u64(t, bytes);
        tj_puts(t, ",\"path\":\"");
        tj_puts(t, dv_path_name(path));
        tj_puts(t, "\"");
    }
    if (cut)
        tj_puts(t, ",\"cut\":true");
    write_stall(t, ss, end - start);
    tj_puts(t, "}}");
    t->tot.slices++;
    return true;
}

static void flush_slot(dv_tjson *t, unsigned core, unsigned lane, uint64_t stop)
{
    slot *s = &t->cores[core].slots[lane];
    if (!s->used)
        return;
    s->used = false;
    bool cut = s->end > stop;
    uint64_t end = cut ? stop : s->end;
    size_t idx = (size_t)(s->pc / DV_INSN_BYTES);
    const char *text = idx < t->ntext ? t->text[idx] : NULL;
    slice_stall ss = {NULL, s->mem, s->bank};
    t->cores[core].last_written[lane] =
        write_slice(t, core, lane, s->start, end, text, s->cat, s->path, s->bytes, cut, &ss);
}

/* ---- flows ---- */

static void flow_event(dv_tjson *t, char ph, uint64_t id, unsigned core, unsigned lane, uint64_t cycle)
{
    tj_event_start(t, ph, core, lane, cycle);
    tj_puts(t, ph == 'f' ? ",\"bp\":\"e\",\"id\":" : ",\"id\":");
    tj_u64(t, id);
    tj_puts(t, ",\"cat\":\"flag\",\"name\":\"set_flag\"}");
    if (ph == 'f')
        t->tot.flows++;
}

static void add_dangling(dv_tjson *t, unsigned core, uint64_t id)
{
    core_state *cs = &t->cores[core];
    if (cs->ndangling == cs->capdangling) {
        size_t cap = cs->capdangling ? cs->capdangling * 2 : 16;
        uint64_t *p = realloc(cs->dangling, cap * sizeof *p);
        if (!p) {
            tj_fail(t, "out of memory");
            return;
        }
        cs->dangling = p;
        cs->capdangling = cap;
    }
    cs->dangling[cs->ndangling++] = id;
}

/* Ends flow id on an instant of the core's FLOWCTRL lane. */
static void end_on_marker(dv_tjson *t, unsigned core, uint64_t id, uint64_t cycle, const char *why)
{
    tj_event_start(t, 'i', core, DV_LANE_FLOWCTRL, cycle);
    tj_puts(t, ",\"s\":\"t\",\"cat\":\"flag\",\"name\":");
    tj_jstr(t, why);
    tj_puts(t, "}");
    flow_event(t, 'f', id, core, DV_LANE_FLOWCTRL, cycle);
}

static int flag_index(const dv_trace_flag *ev)
{
    return ((int)ev->src * DV_PIPE_COUNT + (int)ev->dst) * DV_MAX_EVENT_IDS + (int)ev->id;
}

/* ---- the hooks ---- */

static void on_counters(void *user, unsigned core, const dv_tcount_window *w);

/* Core i of this launch takes the pid its name had in an earlier launch
 * (*known), or the next one: pids stay 1..ncores for one launch. */
static bool assign_pid(dv_tjson *t, unsigned i, const char *name, bool *known)
{
    for (unsigned k = 0; k < t->npids; k++)
        if (strcmp(t->pid_names[k], name) == 0) {
            t->pid[i] = k + 1;
            *known = true;
            return true;
        }
    if (t->npids == t->cappids) {
        unsigned cap = t->cappids ? 2 * t->cappids : 64;
        char(*nn)[64] = realloc(t->pid_names, cap * sizeof *nn);
        if (!nn) {
            tj_fail(t, "out of memory");
            return false;
        }
        t->pid_names = nn;
        t->cappids = cap;
    }
    snprintf(t->pid_names[t->npids], sizeof t->pid_names[0], "%s", name);
    t->pid[i] = ++t->npids;
    return true;
}

static dv_status on_launch(void *user, const dv_sim *sim, dv_error *err)
{
    (void)err; /* a trace that cannot be written says so when it ends (tj_fail) */
    dv_tjson *t = user;
    t->sim = sim;
    t->cfg = dv_sim_config(sim);
    t->mhz = t->cfg->clock_mhz ? t->cfg->clock_mhz : 1000;
    t->ncores = dv_sim_ncores(sim);
    t->cores = calloc(t->ncores ? t->ncores : 1, sizeof *t->cores);
    dv_core_info c0;
    bool have0 = dv_sim_core_info(sim, 0, &c0);
    t->obj = have0 ? c0.obj : NULL;
    t->ntext = have0 ? c0.obj->text_size / DV_INSN_BYTES : 0;
    t->text = calloc(t->ntext ? t->ntext : 1, sizeof *t->text);
    uint64_t period = t->opt.counter_period ? t->opt.counter_period : DV_TJSON_DEFAULT_PERIOD;
    t->counters = dv_tcount_create(t->ncores, period, on_counters, t);
    t->pid = calloc(t->ncores ? t->ncores : 1, sizeof *t->pid);
    if (!t->cores || !t->text || !t->counters || !t->pid) {
        tj_fail(t, "out of memory");
        free(t->cores);
        t->cores = NULL;
        t->ncores = 0;
        return DV_OK;
    }
    for (unsigned i = 0; i < t->ncores; i++) {
        dv_core_info c;
        dv_sim_core_info(sim, i, &c);
        char name[64], label[64];
        name_core(&c, i, name, sizeof name, label, sizeof label);
        bool known = false;
        if (!assign_pid(t, i, name, &known))
            return DV_OK;
        if (known) { /* a later launch on a core an earlier one named */
            t->cores[i].scalar_set_flag = -1;
            continue;
        }
        meta(t, "process_name", i, -1, "name", name, 0);
        meta(t, "process_labels", i, -1, "labels", label, 0);
        meta(t, "process_sort_index", i, -1, "sort_index", NULL, i);
        for (int l = 0; l < DV_LANES; l++) {
            meta(t, "thread_name", i, l, "name", dv_lane_name((unsigned)l), 0);
            meta(t, "thread_sort_index", i, l, "sort_index", NULL, (uint64_t)l);
        }
        t->cores[i].scalar_set_flag = -1;
    }
    return DV_OK;
}

static void on_block(void *user, unsigned core, uint64_t block_idx, uint64_t cycle)
{
    dv_tjson *t = user;
    if (core >= t->ncores || !in_window(t, cycle, cycle))
        return;
    tj_event_start(t, 'i', core, DV_LANE_FLOWCTRL, cycle);
    tj_puts(t, ",\"s\":\"t\",\"cat\":\"block\",\"name\":\"block ");
    tj_u64(t, block_idx);
    tj_puts(t, "\",\"args\":{\"block\":");
    tj_u64(t, block_idx);
    tj_puts(t, "}}");
}

static bool is_sync(dv_opcode op)
{
    return op == DV_OP_SET_FLAG || op == DV_OP_WAIT_FLAG || op == DV_OP_CC_SET_FLAG ||
           op == DV_OP_CC_WAIT_FLAG;
}

static void on_insn(void *user, const dv_trace_insn *ev)
{
    dv_tjson *t = user;
    if (ev->core >= t->ncores || (unsigned)ev->lane >= DV_PIPE_COUNT)
        return;
    dv_tcount_insn(t->counters, ev);
    core_state *cs = &t->cores[ev->core];
    const char *text = insn_text(t, ev->insn, ev->pc);
    const char *cat = cat_of(ev->lane, ev->insn);
    flush_slot(t, ev->core, ev->lane, UINT64_MAX);
    if (is_sync(ev->insn->op)) {
        /* written at once: a flow event follows it */
        slice_stall ss = {NULL, 0, 0};
        if (ev->end > ev->start && ev->lane != DV_PIPE_S)
            ss.stall =
                dv_prof_class_name(ev->insn->op == DV_OP_CC_WAIT_FLAG ? DV_PROF_CC_FLAG : DV_PROF_FLAG);
        bool w =
            write_slice(t, ev->core, ev->lane, ev->start, ev->end, text, cat, DV_PATH_NONE, 0, false, &ss);
        cs->last_written[ev->lane] = w;
        if (ev->lane == DV_PIPE_S && cs->scalar_set_flag >= 0) {
            pending_flow *pf = &cs->flags[cs->scalar_set_flag];
            if (w && pf->id) {
                flow_event(t, 's', pf->id, ev->core, DV_PIPE_S, ev->start);
                pf->started = true;
            }
            cs->scalar_set_flag = -1;
        }
        if (ev->lane == DV_PIPE_S && cs->scalar_wait_flow) {
            if (w)
                flow_event(t, 'f', cs->scalar_wait_flow, ev->core, DV_PIPE_S, ev->start);
            else
                add_dangling(t, ev->core, cs->scalar_wait_flow);
            cs->scalar_wait_flow = 0;
        }
        return;
    }
    slot *s = &cs->slots[ev->lane];
    s->used = true;
    s->start = ev->start;
    s->end = ev->end;
    s->pc = ev->pc;
    s->cat = cat;
    s->path = ev->st ? ev->st->path : DV_PATH_NONE;
    s->bytes = ev->st ? ev->st->bytes : 0;
    s->mem = ev->mem_cycles;
    s->bank = ev->st ? ev->st->ub_bank_conflict_cycles + ev->st->ub_group_conflict_cycles : 0;
}

static void on_flag(void *user, const dv_trace_flag *ev)
{
    dv_tjson *t = user;
    if (ev->core >= t->ncores)
        return;
    core_state *cs = &t->cores[ev->core];
    if (ev->kind == DV_TRACE_CC_SET) {
        if (in_window(t, ev->cycle, ev->cycle)) {
            tj_event_start(t, 'i', ev->core, DV_LANE_FLOWCTRL, ev->cycle);
            tj_puts(t, ",\"s\":\"t\",\"cat\":\"flag\",\"name\":\"cc_set_flag ");
            tj_puts(t, dv_pipe_name(ev->src));
            tj_puts(t, " id ");
            tj_u64(t, ev->id);
            tj_puts(t, "\"}");
        }
        return;
    }
    if (ev->kind == DV_TRACE_CC_WAIT || (unsigned)ev->src >= DV_PIPE_COUNT ||
        (unsigned)ev->dst >= DV_PIPE_COUNT || ev->id >= DV_MAX_EVENT_IDS)
        return;
    int fi = flag_index(ev);
    pending_flow *pf = &cs->flags[fi];
    if (ev->kind == DV_TRACE_FLAG_SET) {
        if (pf->id && pf->started) { /* set again before a wait consumed it */
            char why[96];
            snprintf(why, sizeof why, "flag %s->%s %u set again before a wait", dv_pipe_name(ev->src),
                     dv_pipe_name(ev->dst), ev->id);
            if (in_window(t, ev->cycle, ev->cycle))
                end_on_marker(t, ev->core, pf->id, ev->cycle, why);
            else
                add_dangling(t, ev->core, pf->id);
        }
        pf->id = ++t->next_flow;
        pf->started = false;
        if (ev->lane == DV_PIPE_S) {
            cs->scalar_set_flag = fi; /* its slice comes next */
        } else if (cs->last_written[ev->lane]) {
            flow_event(t, 's', pf->id, ev->core, ev->lane, ev->cycle);
            pf->started = true;
        }
        return;
    }
    /* DV_TRACE_FLAG_WAIT: the wait consumed the flag */
    uint64_t id = pf->started ? pf->id : 0;
    pf->id = 0;
    pf->started = false;
    if (!id)
        return;
    if (ev->lane == DV_PIPE_S)
        cs->scalar_wait_flow = id; /* its slice comes next */
    else if (cs->last_written[ev->lane])
        flow_event(t, 'f', id, ev->core, ev->lane, ev->cycle);
    else
        add_dangling(t, ev->core, id);
}

static void on_stall(void *user, const dv_trace_stall *ev)
{
    dv_tjson *t = user;
    if (ev->core >= t->ncores || !in_window(t, ev->start, ev->end))
        return;
    char name[64];
    slice_stall ss = {NULL, 0, 0};
    switch (ev->kind) {
    case DV_TRACE_STALL_QUEUE_FULL:
        snprintf(name, sizeof name, "queue full: %s", dv_lane_name(ev->pipe));
        ss.stall = dv_prof_class_name(DV_PROF_QUEUE_FULL);
        break;
    case DV_TRACE_STALL_FLAG:
        snprintf(name, sizeof name, "wait_flag %s->s %u", dv_pipe_name(ev->pipe), ev->id);
        ss.stall = dv_prof_class_name(DV_PROF_FLAG);
        break;
    default:
        snprintf(name, sizeof name, "pipe_barrier all");
        ss.stall = dv_prof_class_name(DV_PROF_BARRIER);
        break;
    }
    tj_event_start(t, 'X', ev->core, DV_LANE_FLOWCTRL, ev->start);
    tj_puts(t, ",\"dur\":");
    tj_us(t, tj_ns(t, ev->end) - tj_ns(t, ev->start));
    tj_puts(t, ",\"cat\":\"stall\",\"name\":");
    tj_jstr(t, name);
    tj_puts(t, ",\"args\":{\"pc\":\"0x");
    char pcs[24];
    snprintf(pcs, sizeof pcs, "%llx", (unsigned long long)ev->pc);
    tj_puts(t, pcs);
    tj_puts(t, "\",\"cycle\":");
    tj_u64(t, ev->start);
    tj_puts(t, ",\"cycles\":");
    tj_u64(t, ev->end - ev->start);
    write_stall(t, &ss, ev->end - ev->start);
    tj_puts(t, "}}");
    t->tot.slices++;
}

/* ---- counters ---- */

static void counter_event(dv_tjson *t, unsigned core, uint64_t cycle, const char *name,
                          const char *const *keys, const double *vals, unsigned n)
{
    tj_event_start(t, 'C', core, 0, cycle);
    tj_puts(t, ",\"name\":\"");
    tj_puts(t, name);
    tj_puts(t, "\",\"args\":{");
    for (unsigned i = 0; i < n; i++) {
        char v[64];
        /* JSON has no NaN or infinity (a window always has cycles: none occurs) */
        double x = isfinite(vals[i]) ? vals[i] : 0;
        int len = snprintf(v, sizeof v, "%s\"%s\":%.6g", i ? "," : "", keys[i], x);
        tj_put(t, v, (size_t)len);
    }
    tj_puts(t, "}}");
}

static void write_counters(dv_tjson *t, unsigned core, uint64_t cycle, const double *bw, const double *occ)
{
    core_state *cs = &t->cores[core];
    const char *keys[DV_PATH_COUNT];
    double vals[DV_PATH_COUNT];
    unsigned n = 0;
    for (int p = 1; p < DV_PATH_COUNT; p++) {
        if (!dv_path_bw(t->cfg, (dv_path)p))
            continue;
        keys[n] = dv_path_name((dv_path)p);
        vals[n++] = bw[p];
    }
    if (!cs->counters_seen || memcmp(bw, cs->last_bw, sizeof cs->last_bw))
        counter_event(t, core, cycle, "bandwidth GB/s", keys, vals, n);
    if (!cs->counters_seen || memcmp(occ, cs->last_occ, sizeof cs->last_occ)) {
        const char *occ_names[NOCC];
        for (int i = 0; i < NOCC; i++)
            occ_names[i] = dv_mem_kind_name(occ_kinds[i]);
        counter_event(t, core, cycle, "in-flight bytes", occ_names, occ, NOCC);
    }
    memcpy(cs->last_bw, bw, sizeof cs->last_bw);
    memcpy(cs->last_occ, occ, sizeof cs->last_occ);
    cs->counters_seen = true;
}

static void on_counters(void *user, unsigned core, const dv_tcount_window *w)
{
    dv_tjson *t = user;
    if (!in_window(t, w->start, w->start + w->cycles) || core >= t->ncores)
        return;
    double bw[DV_PATH_COUNT], occ[NOCC];
    /* GB/s = bytes per cycle x cycles per ns */
    double scale = (double)t->mhz / 1000.0 / (double)w->cycles;
    for (int p = 0; p < DV_PATH_COUNT; p++)
        bw[p] = w->path_bytes[p] * scale;
    for (unsigned m = 0; m < NOCC; m++)
        occ[m] = w->inflight[occ_kinds[m]];
    uint64_t at = w->start < t->w0 ? t->w0 : w->start;
    write_counters(t, core, at, bw, occ);
}

/* ---- lifecycle ---- */

dv_tjson *dv_tjson_create(const char *path, const dv_tjson_options *opt, dv_error *err)
{
    dv_tjson *t = calloc(1, sizeof *t);
    if (!t) {
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (opt)
        t->opt = *opt;
    t->w0 = t->opt.window_start;
    t->w1 = t->opt.window_end ? t->opt.window_end : UINT64_MAX;
    t->first = true;
    t->mhz = 1000;
    if (!tj_open(t, path, err)) {
        free(t);
        return NULL;
    }
    t->hooks = (dv_sim_hooks){.user = t,
                              .launch = on_launch,
                              .block = on_block,
                              .insn = on_insn,
                              .flag = on_flag,
                              .stall = on_stall};
    tj_puts(t, "{\"traceEvents\":[\n");
    return t;
}

const dv_sim_hooks *dv_tjson_hooks(dv_tjson *t)
{
    return &t->hooks;
}

/* What one launch's simulation needed: its cores, its text, its counters. */
static void free_launch(dv_tjson *t)
{
    for (size_t i = 0; t->text && i < t->ntext; i++)
        free(t->text[i]);
    free(t->text);
    t->text = NULL;
    t->ntext = 0;
    for (unsigned i = 0; t->cores && i < t->ncores; i++)
        free(t->cores[i].dangling);
    free(t->cores);
    t->cores = NULL;
    free(t->pid);
    t->pid = NULL;
    t->ncores = 0;
    dv_tcount_destroy(t->counters);
    t->counters = NULL;
}

static void free_all(dv_tjson *t)
{
    free_launch(t);
    free(t->pid_names);
    tj_close(t);
    free(t);
}

void dv_tjson_discard(dv_tjson *t)
{
    if (!t)
        return;
    tj_abandon(t);
    free_all(t);
}

/* The end of the run: cut slices, last counters, flows left open. */
static void close_run(dv_tjson *t, const dv_run_result *res)
{
    uint64_t stop = res ? res->cycles : 0;
    if (t->counters) {
        dv_tcount_finish(t->counters, stop);
        double zero_bw[DV_PATH_COUNT] = {0}, zero_occ[NOCC] = {0};
        uint64_t at = stop < t->w0 ? t->w0 : stop > t->w1 ? t->w1 : stop;
        for (unsigned i = 0; i < t->ncores; i++)
            if (t->cores[i].counters_seen && in_window(t, at, at))
                write_counters(t, i, at, zero_bw, zero_occ);
    }
    uint64_t mark = stop < t->w0 ? t->w0 : stop >= t->w1 ? t->w1 - 1 : stop;
    for (unsigned i = 0; i < t->ncores; i++) {
        core_state *cs = &t->cores[i];
        for (int l = 0; l < DV_PIPE_COUNT; l++)
            flush_slot(t, i, (unsigned)l, stop);
        for (int f = 0; f < NFLAGS; f++) {
            pending_flow *pf = &cs->flags[f];
            if (pf->id && pf->started) {
                char why[96];
                int src = f / (DV_PIPE_COUNT * DV_MAX_EVENT_IDS), dst = f / DV_MAX_EVENT_IDS % DV_PIPE_COUNT;
                snprintf(why, sizeof why, "flag %s->%s %d still set at the end", dv_pipe_name((dv_pipe)src),
                         dv_pipe_name((dv_pipe)dst), f % DV_MAX_EVENT_IDS);
                end_on_marker(t, i, pf->id, mark, why);
            }
            pf->id = 0;
        }
        if (cs->scalar_wait_flow)
            add_dangling(t, i, cs->scalar_wait_flow);
        for (size_t k = 0; k < cs->ndangling; k++)
            end_on_marker(t, i, cs->dangling[k], mark, "flag consumed outside the trace window");
        cs->ndangling = 0;
    }
}

static void other_data(dv_tjson *t, const dv_run_result *res)
{
    tj_puts(t, "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"version\":");
    tj_jstr(t, t->opt.producer ? t->opt.producer : "dvsim");
    tj_puts(t, ",\"run\":");
    tj_jstr(t, t->opt.title ? t->opt.title : "");
    tj_puts(t, ",\"time_unit\":\"microseconds at the chip clock, rounded down to whole nanoseconds\"");
    if (t->cfg) {
        tj_puts(t, ",\"chip\":");
        tj_jstr(t, t->cfg->name);
        tj_puts(t, ",\"clock_mhz\":");
        tj_u64(t, t->mhz);
    }
    const dv_obj_kernel *k = t->sim ? dv_sim_kernel(t->sim) : NULL;
    if (k || t->kernels[0]) {
        tj_puts(t, ",\"kernel\":");
        tj_jstr(t, k ? k->name : t->kernels);
    }
    if (t->launches > 1) {
        tj_puts(t, ",\"launches\":");
        tj_u64(t, t->launches);
    }
    tj_puts(t, ",\"cores\":");
    tj_u64(t, t->launches ? t->npids : t->ncores);
    if (res) {
        tj_puts(t, ",\"cycles\":");
        tj_u64(t, t->launches ? t->base : res->cycles);
        tj_puts(t, ",\"stop\":");
        tj_jstr(t, dv_stop_name(res->stop));
    }
    tj_puts(t, ",\"window_start_cycle\":");
    tj_u64(t, t->opt.window_start);
    if (t->opt.window_end) {
        tj_puts(t, ",\"window_end_cycle\":");
        tj_u64(t, t->opt.window_end);
    }
    tj_puts(t, ",\"counter_period_cycles\":");
    tj_u64(t, t->opt.counter_period ? t->opt.counter_period : DV_TJSON_DEFAULT_PERIOD);
    if (t->cfg) {
        dv_buf ini = DV_BUF_INIT;
        dv_config_write_ini(t->cfg, &ini);
        tj_puts(t, ",\"config\":");
        tj_jstr(t, ini.data ? ini.data : "");
        dv_buf_free(&ini);
    }
    tj_puts(t, "}}\n");
}

/* The launch-local window: the global one shifted by the launches before. */
static void local_window(dv_tjson *t)
{
    uint64_t w0 = t->opt.window_start, w1 = t->opt.window_end;
    t->w0 = w0 > t->base ? w0 - t->base : 0;
    t->w1 = !w1 ? UINT64_MAX : w1 > t->base ? w1 - t->base : 0;
}

void dv_tjson_end_launch(dv_tjson *t, const dv_run_result *res)
{
    if (t->cores)
        close_run(t, res);
    if (t->cfg) {
        t->cfg_kept = *t->cfg;
        t->cfg = &t->cfg_kept;
    }
    const dv_obj_kernel *k = t->sim ? dv_sim_kernel(t->sim) : NULL;
    size_t n = strlen(t->kernels);
    if (k && n + 2 < sizeof t->kernels)
        snprintf(t->kernels + n, sizeof t->kernels - n, "%s%s", n ? "," : "", k->name);
    free_launch(t);
    t->sim = NULL;
    t->obj = NULL;
    t->launches++;
    t->base += res ? res->cycles : 0;
    local_window(t);
}

dv_status dv_tjson_finish(dv_tjson *t, const dv_run_result *res, dv_tjson_totals *totals, dv_error *err)
{
    if (t->cores)
        close_run(t, res);
    other_data(t, res);
    dv_status st = tj_finish(t, err);
    if (totals)
        *totals = t->tot;
    free_all(t);
    return st;
}
