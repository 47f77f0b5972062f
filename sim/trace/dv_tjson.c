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
#include "dv_tjson.h"

#include "dv_tcount.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum {
    BUF_BYTES = 1 << 20,
    LANES = DV_PIPE_COUNT + 1, /* the pipes, then FLOWCTRL */
    LANE_FLOWCTRL = DV_PIPE_COUNT,
    NFLAGS = DV_PIPE_COUNT * DV_PIPE_COUNT * DV_MAX_EVENT_IDS,
};

static const char *const lane_names[LANES] = {"SCALAR", "VECTOR", "CUBE", "MTE1",
                                              "MTE2",   "MTE3",   "FIXP", "FLOWCTRL"};
/* Buffers shown as occupancy counters. */
static const dv_mem_kind occ_kinds[] = {DV_MEM_L1, DV_MEM_L0A, DV_MEM_L0B, DV_MEM_L0C, DV_MEM_UB};
static const char *const occ_names[] = {"L1", "L0A", "L0B", "L0C", "UB"};
enum { NOCC = sizeof occ_kinds / sizeof occ_kinds[0] };

/* A slice waiting for its lane's next event. */
typedef struct slot {
    bool used;
    uint64_t start, end, pc;
    const char *cat;
    dv_path path;
    uint64_t bytes;
} slot;

/* The open flow of a flag: set, not yet consumed. */
typedef struct pending_flow {
    uint64_t id; /* 0: none */
    bool started;
} pending_flow;

typedef struct core_state {
    slot slots[DV_PIPE_COUNT];
    bool last_written[LANES]; /* the lane's last slice made it into the window */
    pending_flow flags[NFLAGS];
    int scalar_set_flag; /* a set by the Scalar unit whose slice comes next, or -1 */
    uint64_t scalar_wait_flow;
    uint64_t *dangling; /* flows to end on a marker when the trace closes */
    size_t ndangling, capdangling;
    double last_bw[DV_PATH_COUNT], last_occ[NOCC];
    bool counters_seen;
} core_state;

struct dv_tjson {
    char *path, *tmp;
    FILE *f;
    z_stream z;
    bool zinit;
    char *buf;
    size_t len;
    bool failed;
    char failmsg[256];
    bool first;
    dv_tjson_options opt;
    uint64_t w0, w1; /* window; w1 = UINT64_MAX without an end */
    dv_trace_sink sink;
    const dv_sim *sim;
    const dv_chip_config *cfg;
    uint64_t mhz;
    unsigned ncores;
    core_state *cores;
    dv_tcount *counters;
    const dv_obj *obj;
    char **text; /* per instruction of .text: its name and static args, JSON */
    size_t ntext;
    uint64_t next_flow;
    dv_tjson_totals tot;
};

/* ---- output: a buffer, zlib, the file ---- */

static void fail(dv_tjson *t, const char *what)
{
    if (!t->failed)
        snprintf(t->failmsg, sizeof t->failmsg, "%s: %s", t->path, what);
    t->failed = true;
}

static void deflate_buf(dv_tjson *t, int flush)
{
    if (t->failed) {
        t->len = 0; /* nothing more reaches the file */
        return;
    }
    unsigned char out[65536];
    t->z.next_in = (Bytef *)t->buf;
    t->z.avail_in = (uInt)t->len;
    do {
        t->z.next_out = out;
        t->z.avail_out = sizeof out;
        int rc = deflate(&t->z, flush);
        if (rc == Z_STREAM_ERROR) {
            fail(t, "zlib error");
            return;
        }
        size_t n = sizeof out - t->z.avail_out;
        if (n && fwrite(out, 1, n, t->f) != n) {
            fail(t, strerror(errno));
            return;
        }
        t->tot.gz_bytes += n;
    } while (t->z.avail_out == 0);
    t->tot.json_bytes += t->len;
    t->len = 0;
    if (flush == Z_SYNC_FLUSH && fflush(t->f) != 0)
        fail(t, strerror(errno));
}

static void need(dv_tjson *t, size_t n)
{
    if (t->len + n > BUF_BYTES)
        deflate_buf(t, Z_SYNC_FLUSH);
}

static void put(dv_tjson *t, const char *s, size_t n)
{
    if (n > BUF_BYTES / 2) /* never: events are small; a long string is cut */
        n = BUF_BYTES / 2;
    need(t, n);
    memcpy(t->buf + t->len, s, n);
    t->len += n;
}

static void puts_(dv_tjson *t, const char *s)
{
    put(t, s, strlen(s));
}

static void put_u64(dv_tjson *t, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    need(t, (size_t)n);
    while (n)
        t->buf[t->len++] = tmp[--n];
}

/* A JSON string literal. */
static void put_jstr(dv_tjson *t, const char *s)
{
    put(t, "\"", 1);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            char e[2] = {'\\', (char)ch};
            put(t, e, 2);
        } else if (ch == '\n') {
            put(t, "\\n", 2);
        } else if (ch < 0x20) {
            char e[8];
            snprintf(e, sizeof e, "\\u%04x", ch);
            put(t, e, 6);
        } else {
            put(t, (const char *)&ch, 1);
        }
    }
    put(t, "\"", 1);
}

/* Nanoseconds at the chip clock, rounded down. */
static uint64_t ns_of(const dv_tjson *t, uint64_t cycle)
{
    return t->mhz == 1000 ? cycle : cycle * 1000 / t->mhz;
}

/* A time in microseconds with exactly three decimals (whole nanoseconds). */
static void put_us(dv_tjson *t, uint64_t ns)
{
    put_u64(t, ns / 1000);
    char frac[4] = {'.', (char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10), (char)('0' + ns % 10)};
    put(t, frac, 4);
}

/* Starts an event: the separator, then {"ph":"P","pid":N,"tid":N,"ts":T */
static void event_start(dv_tjson *t, char ph, unsigned core, unsigned lane, uint64_t cycle)
{
    if (!t->first)
        put(t, ",\n", 2);
    t->first = false;
    char head[] = "{\"ph\":\"?\",\"pid\":";
    head[7] = ph;
    put(t, head, sizeof head - 1);
    put_u64(t, core + 1);
    puts_(t, ",\"tid\":");
    put_u64(t, (uint64_t)(core + 1) * 100 + lane);
    puts_(t, ",\"ts\":");
    put_us(t, ns_of(t, cycle));
    t->tot.events++;
}

/* ---- metadata ---- */

static void meta(dv_tjson *t, const char *name, unsigned core, int lane, const char *key, const char *sval,
                 uint64_t ival)
{
    if (!t->first)
        put(t, ",\n", 2);
    t->first = false;
    puts_(t, "{\"ph\":\"M\",\"name\":\"");
    puts_(t, name);
    puts_(t, "\",\"pid\":");
    put_u64(t, core + 1);
    if (lane >= 0) {
        puts_(t, ",\"tid\":");
        put_u64(t, (uint64_t)(core + 1) * 100 + (unsigned)lane);
    }
    puts_(t, ",\"args\":{\"");
    puts_(t, key);
    puts_(t, "\":");
    if (sval)
        put_jstr(t, sval);
    else
        put_u64(t, ival);
    puts_(t, "}}");
    t->tot.events++;
}

/* msprof's names: core<group>.cubecore0 / .veccore<n> on split chips;
 * coupled cores are core<i>.aicore0.  The labels say it the short way. */
static void name_core(const dv_core *c, unsigned i, char *name, size_t nsize, char *label, size_t lsize)
{
    switch ((dv_core_kind)c->core_type) {
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
    t->buf = scratch;
    t->len = 0;
    bool saved_failed = t->failed;
    puts_(t, "\"name\":\"");
    puts_(t, mn);
    puts_(t, "\",\"args\":{\"operands\":");
    put_jstr(t, ops);
    char pcs[48];
    snprintf(pcs, sizeof pcs, ",\"pc\":\"0x%llx\",\"source\":", (unsigned long long)pc);
    puts_(t, pcs);
    put_jstr(t, src);
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
static bool write_slice(dv_tjson *t, unsigned core, unsigned lane, uint64_t start, uint64_t end,
                        const char *text, const char *cat, dv_path path, uint64_t bytes, bool cut)
{
    if (!in_window(t, start, end) || !text)
        return false;
    event_start(t, 'X', core, lane, start);
    puts_(t, ",\"dur\":");
    put_us(t, ns_of(t, end) - ns_of(t, start));
    puts_(t, ",\"cat\":\"");
    puts_(t, cat);
    puts_(t, "\",");
    puts_(t, text);
    puts_(t, ",\"cycle\":");
    put_u64(t, start);
    puts_(t, ",\"cycles\":");
    put_u64(t, end - start);
    if (bytes) {
        puts_(t, ",\"bytes\":");
        put_u64(t, bytes);
        puts_(t, ",\"path\":\"");
        puts_(t, dv_path_name(path));
        puts_(t, "\"");
    }
    if (cut)
        puts_(t, ",\"cut\":true");
    puts_(t, "}}");
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
    t->cores[core].last_written[lane] =
        write_slice(t, core, lane, s->start, end, text, s->cat, s->path, s->bytes, cut);
}

/* ---- flows ---- */

static void flow_event(dv_tjson *t, char ph, uint64_t id, unsigned core, unsigned lane, uint64_t cycle)
{
    event_start(t, ph, core, lane, cycle);
    puts_(t, ph == 'f' ? ",\"bp\":\"e\",\"id\":" : ",\"id\":");
    put_u64(t, id);
    puts_(t, ",\"cat\":\"flag\",\"name\":\"set_flag\"}");
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
            fail(t, "out of memory");
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
    event_start(t, 'i', core, LANE_FLOWCTRL, cycle);
    puts_(t, ",\"s\":\"t\",\"cat\":\"flag\",\"name\":");
    put_jstr(t, why);
    puts_(t, "}");
    flow_event(t, 'f', id, core, LANE_FLOWCTRL, cycle);
}

static int flag_index(const dv_trace_flag *ev)
{
    return ((int)ev->src * DV_PIPE_COUNT + (int)ev->dst) * DV_MAX_EVENT_IDS + (int)ev->id;
}

/* ---- the sink ---- */

static void on_counters(void *user, unsigned core, const dv_tcount_window *w);

static void on_launch(void *user, const dv_sim *sim)
{
    dv_tjson *t = user;
    t->sim = sim;
    t->cfg = dv_sim_config(sim);
    t->mhz = t->cfg->clock_mhz ? t->cfg->clock_mhz : 1000;
    t->ncores = dv_sim_ncores(sim);
    t->cores = calloc(t->ncores ? t->ncores : 1, sizeof *t->cores);
    const dv_core *c0 = dv_sim_core(sim, 0);
    t->obj = c0 ? c0->obj : NULL;
    t->ntext = c0 ? c0->ninsns : 0;
    t->text = calloc(t->ntext ? t->ntext : 1, sizeof *t->text);
    uint64_t period = t->opt.counter_period ? t->opt.counter_period : DV_TJSON_DEFAULT_PERIOD;
    t->counters = dv_tcount_create(t->ncores, period, on_counters, t);
    if (!t->cores || !t->text || !t->counters) {
        fail(t, "out of memory");
        free(t->cores);
        t->cores = NULL;
        t->ncores = 0;
        return;
    }
    for (unsigned i = 0; i < t->ncores; i++) {
        const dv_core *c = dv_sim_core(sim, i);
        char name[64], label[64];
        name_core(c, i, name, sizeof name, label, sizeof label);
        meta(t, "process_name", i, -1, "name", name, 0);
        meta(t, "process_labels", i, -1, "labels", label, 0);
        meta(t, "process_sort_index", i, -1, "sort_index", NULL, i);
        for (int l = 0; l < LANES; l++) {
            meta(t, "thread_name", i, l, "name", lane_names[l], 0);
            meta(t, "thread_sort_index", i, l, "sort_index", NULL, (uint64_t)l);
        }
        t->cores[i].scalar_set_flag = -1;
    }
}

static void on_block(void *user, unsigned core, uint64_t block_idx, uint64_t cycle)
{
    dv_tjson *t = user;
    if (core >= t->ncores || !in_window(t, cycle, cycle))
        return;
    event_start(t, 'i', core, LANE_FLOWCTRL, cycle);
    puts_(t, ",\"s\":\"t\",\"cat\":\"block\",\"name\":\"block ");
    put_u64(t, block_idx);
    puts_(t, "\",\"args\":{\"block\":");
    put_u64(t, block_idx);
    puts_(t, "}}");
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
        bool w = write_slice(t, ev->core, ev->lane, ev->start, ev->end, text, cat, DV_PATH_NONE, 0, false);
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
}

static void on_flag(void *user, const dv_trace_flag *ev)
{
    dv_tjson *t = user;
    if (ev->core >= t->ncores)
        return;
    core_state *cs = &t->cores[ev->core];
    if (ev->kind == DV_TRACE_CC_SET) {
        if (in_window(t, ev->cycle, ev->cycle)) {
            event_start(t, 'i', ev->core, LANE_FLOWCTRL, ev->cycle);
            puts_(t, ",\"s\":\"t\",\"cat\":\"flag\",\"name\":\"cc_set_flag ");
            puts_(t, dv_pipe_name(ev->src));
            puts_(t, " id ");
            put_u64(t, ev->id);
            puts_(t, "\"}");
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
    switch (ev->kind) {
    case DV_TRACE_STALL_QUEUE_FULL:
        snprintf(name, sizeof name, "queue full: %s", lane_names[ev->pipe]);
        break;
    case DV_TRACE_STALL_FLAG:
        snprintf(name, sizeof name, "wait_flag %s->s %u", dv_pipe_name(ev->pipe), ev->id);
        break;
    default: snprintf(name, sizeof name, "pipe_barrier all"); break;
    }
    event_start(t, 'X', ev->core, LANE_FLOWCTRL, ev->start);
    puts_(t, ",\"dur\":");
    put_us(t, ns_of(t, ev->end) - ns_of(t, ev->start));
    puts_(t, ",\"cat\":\"stall\",\"name\":");
    put_jstr(t, name);
    puts_(t, ",\"args\":{\"pc\":\"0x");
    char pcs[24];
    snprintf(pcs, sizeof pcs, "%llx", (unsigned long long)ev->pc);
    puts_(t, pcs);
    puts_(t, "\",\"cycle\":");
    put_u64(t, ev->start);
    puts_(t, ",\"cycles\":");
    put_u64(t, ev->end - ev->start);
    puts_(t, "}}");
    t->tot.slices++;
}

/* ---- counters ---- */

static void counter_event(dv_tjson *t, unsigned core, uint64_t cycle, const char *name,
                          const char *const *keys, const double *vals, unsigned n)
{
    event_start(t, 'C', core, 0, cycle);
    puts_(t, ",\"name\":\"");
    puts_(t, name);
    puts_(t, "\",\"args\":{");
    for (unsigned i = 0; i < n; i++) {
        char v[64];
        int len = snprintf(v, sizeof v, "%s\"%s\":%.6g", i ? "," : "", keys[i], vals[i]);
        put(t, v, (size_t)len);
    }
    puts_(t, "}}");
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
    if (!cs->counters_seen || memcmp(occ, cs->last_occ, sizeof cs->last_occ))
        counter_event(t, core, cycle, "in-flight bytes", occ_names, occ, NOCC);
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
    size_t n = strlen(path);
    t->path = malloc(n + 1);
    t->tmp = malloc(n + 16);
    t->buf = malloc(BUF_BYTES);
    if (!t->path || !t->tmp || !t->buf) {
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        free(t->path);
        free(t->tmp);
        free(t->buf);
        free(t);
        return NULL;
    }
    memcpy(t->path, path, n + 1);
    snprintf(t->tmp, n + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(t->tmp);
    if (fd >= 0) {
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
        t->f = fdopen(fd, "wb");
        if (!t->f)
            close(fd);
    }
    if (!t->f) {
        dv_error_set(err, DV_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        if (fd >= 0)
            unlink(t->tmp);
        free(t->path);
        free(t->tmp);
        free(t->buf);
        free(t);
        return NULL;
    }
    /* windowBits 15 + 16: a gzip wrapper; one member for the whole file.
     * Level 1: the trace is large and written while the simulation waits. */
    if (deflateInit2(&t->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        dv_error_set(err, DV_ERR_NOMEM, "zlib: out of memory");
        fclose(t->f);
        unlink(t->tmp);
        free(t->path);
        free(t->tmp);
        free(t->buf);
        free(t);
        return NULL;
    }
    t->zinit = true;
    t->sink = (dv_trace_sink){t, on_launch, on_block, on_insn, on_flag, on_stall};
    puts_(t, "{\"traceEvents\":[\n");
    return t;
}

const dv_trace_sink *dv_tjson_sink(dv_tjson *t)
{
    return &t->sink;
}

static void free_all(dv_tjson *t)
{
    if (t->zinit)
        deflateEnd(&t->z);
    if (t->f)
        fclose(t->f);
    for (size_t i = 0; t->text && i < t->ntext; i++)
        free(t->text[i]);
    free(t->text);
    for (unsigned i = 0; t->cores && i < t->ncores; i++)
        free(t->cores[i].dangling);
    free(t->cores);
    dv_tcount_destroy(t->counters);
    free(t->buf);
    free(t->path);
    free(t->tmp);
    free(t);
}

void dv_tjson_discard(dv_tjson *t)
{
    if (!t)
        return;
    if (t->f) {
        fclose(t->f);
        t->f = NULL;
        unlink(t->tmp);
    }
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
    puts_(t, "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"version\":");
    put_jstr(t, t->opt.producer ? t->opt.producer : "dvsim");
    puts_(t, ",\"run\":");
    put_jstr(t, t->opt.title ? t->opt.title : "");
    puts_(t, ",\"time_unit\":\"microseconds at the chip clock, rounded down to whole nanoseconds\"");
    if (t->cfg) {
        puts_(t, ",\"chip\":");
        put_jstr(t, t->cfg->name);
        puts_(t, ",\"clock_mhz\":");
        put_u64(t, t->mhz);
    }
    const dv_obj_kernel *k = t->sim ? dv_sim_kernel(t->sim) : NULL;
    if (k) {
        puts_(t, ",\"kernel\":");
        put_jstr(t, k->name);
    }
    puts_(t, ",\"cores\":");
    put_u64(t, t->ncores);
    if (res) {
        puts_(t, ",\"cycles\":");
        put_u64(t, res->cycles);
        puts_(t, ",\"stop\":");
        put_jstr(t, dv_stop_name(res->stop));
    }
    puts_(t, ",\"window_start_cycle\":");
    put_u64(t, t->w0);
    if (t->w1 != UINT64_MAX) {
        puts_(t, ",\"window_end_cycle\":");
        put_u64(t, t->w1);
    }
    puts_(t, ",\"counter_period_cycles\":");
    put_u64(t, t->opt.counter_period ? t->opt.counter_period : DV_TJSON_DEFAULT_PERIOD);
    if (t->cfg) {
        dv_buf ini = DV_BUF_INIT;
        dv_config_write_ini(t->cfg, &ini);
        puts_(t, ",\"config\":");
        put_jstr(t, ini.data ? ini.data : "");
        dv_buf_free(&ini);
    }
    puts_(t, "}}\n");
}

dv_status dv_tjson_finish(dv_tjson *t, const dv_run_result *res, dv_tjson_totals *totals, dv_error *err)
{
    if (t->cores)
        close_run(t, res);
    other_data(t, res);
    deflate_buf(t, Z_FINISH);
    if (fclose(t->f) != 0)
        fail(t, strerror(errno));
    t->f = NULL;
    dv_status st = DV_OK;
    if (!t->failed && rename(t->tmp, t->path) != 0)
        fail(t, strerror(errno));
    if (t->failed) {
        unlink(t->tmp);
        st = dv_error_set(err, DV_ERR_IO, "%s", t->failmsg);
    }
    if (totals)
        *totals = t->tot;
    free_all(t);
    return st;
}
