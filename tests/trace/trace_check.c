/* trace_check.c - validates a trace written by dvsim run --trace.
 *
 * usage: trace_check TRACE.json.gz [--stats stats.json] [--stop NAME]
 *
 * Checks: the file is one gzip member holding one JSON document (cJSON);
 * it has traceEvents, displayTimeUnit and otherData; every process and
 * every lane that has events is named (process_name, thread_name); the X
 * slices of a lane never overlap (compared in whole nanoseconds, as the
 * writer rounds them); every flow id has exactly one "s" and one "f", the
 * "s" no later than the "f", each inside a slice (or instant) of its lane;
 * counters carry numbers.  With --stats, the X slices of each core's pipe
 * lanes equal core<i>.<pipe>.instructions of that run (a run of several
 * launches: each launch's slices, in its span of the time axis, equal its
 * op.launch<i>.instructions); with --stop, the
 * run's stop reason (otherData.stop) is NAME.  Prints one line of totals;
 * exit 0 if all holds, 1 with the first problems on stderr. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { MAX_CORES = 256, LANES = 8, MAX_PROBLEMS = 10 };

/* The statistics keys of the pipes, lane k = pipe k (isa/pipes.def, read
 * directly: the checker links no dvsim library). */
static const char *const pipe_keys[] = {
#define DV_PIPE_ROW(id, ev, asm_name, lane, key, busy) key,
#include "pipes.def"
#undef DV_PIPE_ROW
};
enum { NPIPES = sizeof pipe_keys / sizeof pipe_keys[0] };
static int problems;

static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void problem(const char *fmt, ...)
{
    if (problems++ < MAX_PROBLEMS) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "trace_check: ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
    }
}

/* Reads the whole file and inflates it; fails unless it is exactly one
 * gzip member. */
static char *gunzip_one_member(const char *path, size_t *outlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "trace_check: cannot open %s\n", path);
        return NULL;
    }
    size_t cap = 1 << 20, len = 0;
    unsigned char *in = malloc(cap);
    size_t got;
    while (in && (got = fread(in + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            cap *= 2;
            unsigned char *p = realloc(in, cap);
            if (!p) {
                free(in);
                in = NULL;
            }
            in = p;
        }
    }
    fclose(f);
    if (!in)
        return NULL;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) {
        free(in);
        return NULL;
    }
    size_t ocap = len * 8 + 1024, olen = 0;
    char *out = malloc(ocap + 1);
    z.next_in = in;
    z.avail_in = (uInt)len;
    int rc = Z_OK;
    while (out && rc == Z_OK) {
        if (olen == ocap) {
            ocap *= 2;
            char *p = realloc(out, ocap + 1);
            if (!p) {
                free(out);
                out = NULL;
                break;
            }
            out = p;
        }
        z.next_out = (Bytef *)out + olen;
        z.avail_out = (uInt)(ocap - olen);
        rc = inflate(&z, Z_NO_FLUSH);
        olen = ocap - z.avail_out;
    }
    size_t left = z.avail_in;
    inflateEnd(&z);
    free(in);
    if (!out)
        return NULL;
    if (rc != Z_STREAM_END) {
        fprintf(stderr, "trace_check: %s: the gzip stream is cut short or damaged (zlib %d)\n", path, rc);
        free(out);
        return NULL;
    }
    if (left) {
        fprintf(stderr, "trace_check: %s: %zu bytes after the first gzip member (expected exactly one)\n",
                path, left);
        free(out);
        return NULL;
    }
    out[olen] = '\0';
    *outlen = olen;
    return out;
}

static long long ns_of(double us)
{
    return llround(us * 1000.0);
}

typedef struct slice {
    long long ts, end;
    size_t order;
} slice;

typedef struct lane {
    bool named;
    slice *s;
    size_t n, cap;
    long long *inst; /* instants (ts) */
    size_t ninst, capinst;
} lane;

static lane lanes[MAX_CORES][LANES];
static bool proc_named[MAX_CORES];

static lane *lane_of(const cJSON *e, bool *ok)
{
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(e, "pid");
    const cJSON *tid = cJSON_GetObjectItemCaseSensitive(e, "tid");
    *ok = cJSON_IsNumber(pid) && cJSON_IsNumber(tid);
    if (!*ok)
        return NULL;
    int p = pid->valueint, t = tid->valueint;
    if (p < 1 || p > MAX_CORES || t / 100 != p || t % 100 >= LANES) {
        *ok = false;
        return NULL;
    }
    return &lanes[p - 1][t % 100];
}

static int cmp_slice(const void *a, const void *b)
{
    const slice *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

typedef struct flow {
    long long id;
    int starts, ends;
    long long s_ts, f_ts;
    int s_pid, s_tid, f_pid, f_tid;
} flow;

static flow *flows;
static size_t nflows, capflows;

static flow *flow_get(long long id)
{
    /* ids are small consecutive numbers from the writer */
    if (id < 1 || id > 100000000)
        return NULL;
    if ((size_t)id > capflows) {
        size_t cap = capflows ? capflows : 1024;
        while (cap < (size_t)id)
            cap *= 2;
        flow *p = realloc(flows, cap * sizeof *p);
        if (!p)
            return NULL;
        memset(p + capflows, 0, (cap - capflows) * sizeof *p);
        flows = p;
        capflows = cap;
    }
    if ((size_t)id > nflows)
        nflows = (size_t)id;
    flow *f = &flows[id - 1];
    f->id = id;
    return f;
}

/* True if ts lies in a slice of the lane (sorted by start) or on an instant. */
static bool inside(const lane *l, long long ts)
{
    size_t lo = 0, hi = l->n; /* the first slice that starts after ts */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->s[mid].ts <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;) {
        if (l->s[i].end >= ts)
            return true;
        if (l->s[i].ts < ts)
            break; /* slices do not overlap: none before this one reaches ts */
    }
    for (size_t i = 0; i < l->ninst; i++)
        if (l->inst[i] == ts)
            return true;
    return false;
}

static void push_slice(lane *l, long long ts, long long end, size_t order)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->s = realloc(l->s, l->cap * sizeof *l->s);
        if (!l->s) {
            fprintf(stderr, "trace_check: out of memory\n");
            exit(2);
        }
    }
    l->s[l->n++] = (slice){ts, end, order};
}

static void push_instant(lane *l, long long ts)
{
    if (l->ninst == l->capinst) {
        l->capinst = l->capinst ? l->capinst * 2 : 64;
        l->inst = realloc(l->inst, l->capinst * sizeof *l->inst);
        if (!l->inst) {
            fprintf(stderr, "trace_check: out of memory\n");
            exit(2);
        }
    }
    l->inst[l->ninst++] = ts;
}

static cJSON *load_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(buf);
        return NULL;
    }
    fclose(f);
    buf[n] = '\0';
    cJSON *j = cJSON_Parse(buf);
    free(buf);
    return j;
}

typedef struct totals {
    size_t events, slices, counters, instants, lanes, flow_pairs, matched, launches_matched;
} totals;

/* Names first: metadata may come anywhere. */
static void read_names(const cJSON *events)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, events)
    {
        const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
        if (!cJSON_IsString(ph) || strcmp(ph->valuestring, "M") != 0 || !cJSON_IsString(name))
            continue;
        const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(args, "name");
        if (strcmp(name->valuestring, "thread_name") == 0 && cJSON_IsString(n) && n->valuestring[0]) {
            bool ok;
            lane *l = lane_of(e, &ok);
            if (ok)
                l->named = true;
        } else if (strcmp(name->valuestring, "process_name") == 0 && cJSON_IsString(n) && n->valuestring[0]) {
            const cJSON *pid = cJSON_GetObjectItemCaseSensitive(e, "pid");
            if (cJSON_IsNumber(pid) && pid->valueint >= 1 && pid->valueint <= MAX_CORES)
                proc_named[pid->valueint - 1] = true;
        }
    }
}

/* A counter sample: in a named process, with numbers only. */
static void read_counter(const cJSON *e, size_t order)
{
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(e, "pid");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args"), *a;
    if (!cJSON_IsNumber(pid) || pid->valueint < 1 || pid->valueint > MAX_CORES ||
        !proc_named[pid->valueint - 1])
        problem("counter #%lld is not in a named process", (long long)order);
    if (!cJSON_IsObject(args) || !args->child)
        problem("counter #%lld has no values", (long long)order);
    cJSON_ArrayForEach(a, args)
    {
        if (!cJSON_IsNumber(a))
            problem("counter #%lld has a value that is not a number", (long long)order);
    }
}

/* One end of a flow ("s" or "f", ph), at t on its lane. */
static void read_flow_end(const cJSON *e, char ph, long long t, size_t order)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
    flow *f = cJSON_IsNumber(id) ? flow_get((long long)id->valuedouble) : NULL;
    if (!f) {
        problem("flow event #%lld has no usable id", (long long)order);
        return;
    }
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(e, "pid");
    const cJSON *tid = cJSON_GetObjectItemCaseSensitive(e, "tid");
    if (ph == 's') {
        f->starts++;
        f->s_ts = t, f->s_pid = pid->valueint, f->s_tid = tid->valueint;
        return;
    }
    const cJSON *bp = cJSON_GetObjectItemCaseSensitive(e, "bp");
    if (!cJSON_IsString(bp) || strcmp(bp->valuestring, "e") != 0)
        problem("flow end #%lld is not bound to its enclosing slice (bp \"e\")", (long long)f->id);
    f->ends++;
    f->f_ts = t, f->f_pid = pid->valueint, f->f_tid = tid->valueint;
}

/* An event on a core's lane: a slice, an instant or a flow end. */
static void read_lane_event(const cJSON *e, char p, long long t, size_t order, totals *n)
{
    bool ok;
    lane *l = lane_of(e, &ok);
    if (!ok) {
        problem("event #%lld has no pid/tid of a core lane", (long long)order);
        return;
    }
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(e, "pid");
    if (!l->named || !proc_named[pid->valueint - 1])
        problem("event #%lld is on a lane or process without a name", (long long)order);
    if (p == 'X') {
        const cJSON *dur = cJSON_GetObjectItemCaseSensitive(e, "dur");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
        if (!cJSON_IsNumber(dur) || dur->valuedouble < 0 || !cJSON_IsString(name))
            problem("slice #%lld has no duration or name", (long long)order);
        else
            push_slice(l, t, t + ns_of(dur->valuedouble), order);
        n->slices++;
    } else if (p == 'i') {
        push_instant(l, t);
        n->instants++;
    } else if (p == 's' || p == 'f') {
        read_flow_end(e, p, t, order);
    } else {
        problem("unexpected phase %c (event #%lld)", p, (long long)order);
    }
}

static void read_events(const cJSON *events, totals *n)
{
    const cJSON *e;
    size_t order = 0;
    cJSON_ArrayForEach(e, events)
    {
        n->events++;
        order++;
        const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
        if (!cJSON_IsString(ph) || !ph->valuestring[0] || ph->valuestring[1]) {
            problem("event #%lld has no phase", (long long)order);
            continue;
        }
        char p = ph->valuestring[0];
        if (p == 'M')
            continue;
        const cJSON *ts = cJSON_GetObjectItemCaseSensitive(e, "ts");
        if (!cJSON_IsNumber(ts) || ts->valuedouble < 0) {
            problem("event #%lld has no timestamp", (long long)order);
            continue;
        }
        if (p == 'C') {
            read_counter(e, order);
            n->counters++;
        } else {
            read_lane_event(e, p, ns_of(ts->valuedouble), order, n);
        }
    }
}

/* No two slices of a lane overlap. */
static void check_lanes(totals *n)
{
    for (int c = 0; c < MAX_CORES; c++) {
        for (int k = 0; k < LANES; k++) {
            lane *l = &lanes[c][k];
            if (!l->n)
                continue;
            n->lanes++;
            qsort(l->s, l->n, sizeof *l->s, cmp_slice);
            for (size_t i = 1; i < l->n; i++)
                if (l->s[i].ts < l->s[i - 1].end) {
                    problem("core %d lane %d: two slices overlap at %lld ns", c, k, l->s[i].ts);
                    break;
                }
        }
    }
}

/* Flows: both ends, in order, each inside a slice of its lane. */
static void check_flows(totals *n)
{
    for (size_t i = 0; i < nflows; i++) {
        flow *f = &flows[i];
        if (!f->starts && !f->ends)
            continue;
        if (f->starts != 1 || f->ends != 1) {
            problem("flow #%lld does not have exactly one start and one end", f->id);
            continue;
        }
        n->flow_pairs++;
        if (f->s_ts > f->f_ts)
            problem("flow #%lld ends before it starts", f->id);
        if (!inside(&lanes[f->s_pid - 1][f->s_tid % 100], f->s_ts))
            problem("flow #%lld starts outside any slice of its lane", f->id);
        if (!inside(&lanes[f->f_pid - 1][f->f_tid % 100], f->f_ts))
            problem("flow #%lld ends outside any slice of its lane", f->id);
    }
}

static double stat_value(const cJSON *st, const char *key, bool *have)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(st, key), "value");
    *have = cJSON_IsNumber(v);
    return *have ? v->valuedouble : 0;
}

/* The end of the last launch, in ns. */
static double d_total_ns(const cJSON *st, unsigned launches, double mhz)
{
    double cycles = 0;
    for (unsigned i = 0; i < launches; i++) {
        char key[64];
        bool have;
        snprintf(key, sizeof key, "op.launch%u.cycles", i);
        cycles += stat_value(st, key, &have);
    }
    return (double)(long long)(cycles * 1000 / mhz);
}

/* A run of several launches (op.launches > 1): each launch's slices lie
 * after the launches before it on the time axis (op.launch<i>.cycles at
 * otherData.clock_mhz), and their count over every pipe lane of every core
 * is op.launch<i>.instructions (the per-core figures are the last launch's
 * only).  A slice at a boundary can be either launch's (the last set or
 * wait of one sits at the cycle it ends, the first instruction of the next
 * at that same cycle), so each launch's count lies between the slices
 * strictly inside its span and those on its closed span, and the total is
 * exact. */
static void check_launches(const cJSON *st, unsigned launches, double mhz, totals *n)
{
    double base = 0;
    long long total = 0, want_total = 0, end_ns = (long long)d_total_ns(st, launches, mhz);
    for (unsigned i = 0; i < launches; i++) {
        char key[64];
        bool have_c, have_i;
        snprintf(key, sizeof key, "op.launch%u.cycles", i);
        double cycles = stat_value(st, key, &have_c);
        snprintf(key, sizeof key, "op.launch%u.instructions", i);
        long long want = (long long)stat_value(st, key, &have_i);
        if (!have_c || !have_i) {
            problem("%s or its cycles missing from the statistics", key);
            return;
        }
        long long lo = (long long)(base * 1000 / mhz), hi = (long long)((base + cycles) * 1000 / mhz);
        long long inside = 0, closed = 0;
        for (int c = 0; c < MAX_CORES; c++)
            for (int k = 0; k < NPIPES && k < LANES; k++)
                for (size_t j = 0; j < lanes[c][k].n; j++) {
                    long long ts = lanes[c][k].s[j].ts;
                    inside += ts > lo && ts < hi;
                    closed += ts >= lo && ts <= hi;
                    total += i == 0 && ts <= end_ns;
                }
        if (want < inside || want > closed)
            problem("%s = %lld but the trace has %lld to %lld slices in [%lld, %lld] ns", key, want, inside,
                    closed, lo, hi);
        else
            n->launches_matched++;
        want_total += want;
        base += cycles;
    }
    if (total != want_total)
        problem("the launches' instructions sum to %lld but the trace has %lld slices within the run",
                want_total, total);
}

/* Slices per lane against the run's statistics; false if unreadable. */
static bool check_stats(const char *stats_path, double mhz, totals *n)
{
    cJSON *st = load_json(stats_path);
    if (!st) {
        fprintf(stderr, "trace_check: cannot read %s\n", stats_path);
        return false;
    }
    bool have;
    double launches = stat_value(st, "op.launches", &have);
    if (have && launches > 1) {
        check_launches(st, (unsigned)launches, mhz > 0 ? mhz : 1000, n);
        cJSON_Delete(st);
        return true;
    }
    for (int c = 0; c < MAX_CORES; c++) {
        for (int k = 0; k < NPIPES; k++) {
            char key[64];
            snprintf(key, sizeof key, "core%d.%s.instructions", c, pipe_keys[k]);
            const cJSON *item = cJSON_GetObjectItemCaseSensitive(st, key);
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, "value");
            long long want = cJSON_IsNumber(v) ? (long long)v->valuedouble : 0;
            if (!item && lanes[c][k].n)
                problem("%zu slices of a lane without %s in the statistics", lanes[c][k].n, key);
            else if (item && (long long)lanes[c][k].n != want)
                problem("%s = %lld but the trace has %zu slices", key, want, lanes[c][k].n);
            else if (item)
                n->matched++;
        }
    }
    cJSON_Delete(st);
    return true;
}

/* The trace as one JSON document with its three top-level members, or NULL. */
static cJSON *load_trace(const char *path)
{
    size_t len;
    char *text = gunzip_one_member(path, &len);
    if (!text)
        return NULL;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, true);
    if (!root) {
        size_t at = end ? (size_t)(end - text) : 0;
        fprintf(stderr, "trace_check: %s: not one JSON document (error near byte %zu of %zu)\n", path, at,
                len);
        free(text);
        return NULL;
    }
    free(text);
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "traceEvents")) ||
        !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "otherData")) ||
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "displayTimeUnit"))) {
        fprintf(stderr, "trace_check: %s: traceEvents, displayTimeUnit or otherData missing\n", path);
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

static void free_lanes(void)
{
    for (int c = 0; c < MAX_CORES; c++)
        for (int k = 0; k < LANES; k++) {
            free(lanes[c][k].s);
            free(lanes[c][k].inst);
        }
    free(flows);
}

int main(int argc, char **argv)
{
    const char *path = NULL, *stats_path = NULL, *want_stop = NULL;
    bool usage = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--stats") == 0 && i + 1 < argc)
            stats_path = argv[++i];
        else if (strcmp(argv[i], "--stop") == 0 && i + 1 < argc)
            want_stop = argv[++i];
        else if (!path)
            path = argv[i];
        else
            usage = true;
    }
    if (!path || usage) {
        fprintf(stderr, "usage: trace_check TRACE.json.gz [--stats stats.json] [--stop NAME]\n");
        return 2;
    }
    cJSON *root = load_trace(path);
    if (!root)
        return 1;
    totals n = {0};
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    read_names(events);
    read_events(events, &n);
    check_lanes(&n);
    check_flows(&n);
    const cJSON *stop =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "otherData"), "stop");
    if (want_stop && (!cJSON_IsString(stop) || strcmp(stop->valuestring, want_stop) != 0))
        problem("the run's stop is '%s', not '%s'", cJSON_IsString(stop) ? stop->valuestring : "?",
                want_stop);
    const cJSON *mhz =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "otherData"), "clock_mhz");
    if (stats_path && !check_stats(stats_path, cJSON_IsNumber(mhz) ? mhz->valuedouble : 1000, &n))
        return 1;
    printf("%s: %s: %zu events, %zu slices on %zu lanes, %zu flows, %zu counter samples, %zu instants",
           problems ? "trace_check FAILED" : "trace ok", path, n.events, n.slices, n.lanes, n.flow_pairs,
           n.counters, n.instants);
    if (stats_path)
        printf(n.launches_matched ? "; %zu launches match %s" : "; %zu lanes match %s",
               n.launches_matched ? n.launches_matched : n.matched, stats_path);
    if (cJSON_IsString(stop))
        printf("; stop: %s", stop->valuestring);
    printf("\n");
    cJSON_Delete(root);
    free_lanes();
    return problems ? 1 : 0;
}
