/* rt_trace.c - dvsim rt --trace (rt_trace.h). */
#include "rt_trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { PID_STREAMS = 1, PID_CORE0 = 100 };

struct rt_trace {
    char path[512];
    gzFile gz; /* NULL: plain */
    FILE *f;
    dv_rt_device *d;
    double mhz;
    bool first, failed;
    uint8_t *seen; /* [unit][pipe]: a slice was written */
    unsigned units;
    uint64_t events;
};

static void out(rt_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(rt_trace *t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || t->failed)
        return;
    size_t len = (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
    const char *sep = t->first ? "\n" : ",\n";
    t->first = false;
    bool ok = t->gz ? gzputs(t->gz, sep) >= 0 && gzwrite(t->gz, buf, (unsigned)len) == (int)len
                    : fputs(sep, t->f) >= 0 && fwrite(buf, 1, len, t->f) == len;
    t->failed |= !ok;
    t->events++;
}

static double us(const rt_trace *t, uint64_t cycle)
{
    return (double)cycle / t->mhz;
}

static void on_insn(void *user, const dv_trace_insn *ev)
{
    rt_trace *t = user;
    if (ev->core >= t->units || !ev->insn)
        return;
    const dv_insn_info *info = dv_isa_info(ev->insn->op);
    unsigned launch = 0;
    dv_sim_unit_launch(dv_rt_device_sim(t->d), ev->core, &launch);
    t->seen[ev->core * DV_PIPE_COUNT + ev->lane] = 1;
    out(t,
        "{\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":%.4f,\"dur\":%.4f,\"name\":\"%s\",\"args\":{\"pc\":%llu,"
        "\"launch\":%u}}",
        PID_CORE0 + ev->core, (unsigned)ev->lane, us(t, ev->start), us(t, ev->end - ev->start),
        info ? info->mnemonic : "?", (unsigned long long)ev->pc, launch);
}

static bool begin(rt_trace *t)
{
    const char *head = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
    return t->gz ? gzputs(t->gz, head) >= 0 : fputs(head, t->f) >= 0;
}

rt_trace *rt_trace_create(const char *path, dv_rt_device *d, dv_error *err)
{
    rt_trace *t = calloc(1, sizeof *t);
    const dv_chip_config *cfg = dv_rt_device_config(d);
    if (t) {
        t->units = dv_sim_units(dv_rt_device_sim(d));
        t->seen = calloc((size_t)t->units * DV_PIPE_COUNT, 1);
    }
    if (!t || !t->seen) {
        if (t)
            free(t);
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        return NULL;
    }
    snprintf(t->path, sizeof t->path, "%s", path);
    t->d = d;
    t->mhz = (double)cfg->clock_mhz;
    t->first = true;
    size_t n = strlen(path);
    if (n > 3 && strcmp(path + n - 3, ".gz") == 0)
        t->gz = gzopen(path, "wb");
    else
        t->f = fopen(path, "w");
    if ((!t->gz && !t->f) || !begin(t)) {
        dv_error_set(err, DV_ERR_IO, "cannot write the trace %s", path);
        rt_trace_discard(t);
        return NULL;
    }
    dv_sim_hooks h = {.user = t, .insn = on_insn};
    if (dv_sim_add_hooks(dv_rt_device_sim(d), &h, err) != DV_OK) {
        rt_trace_discard(t);
        return NULL;
    }
    return t;
}

static bool close_file(rt_trace *t)
{
    bool ok = t->gz ? gzclose(t->gz) == Z_OK : fclose(t->f) == 0;
    t->gz = NULL;
    t->f = NULL;
    return ok;
}

void rt_trace_discard(rt_trace *t)
{
    if (!t)
        return;
    if (t->gz || t->f) {
        close_file(t);
        remove(t->path);
    }
    free(t->seen);
    free(t);
}

void rt_trace_mark(rt_trace *t, unsigned stream, uint64_t cycle, const char *name)
{
    out(t, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%u,\"ts\":%.4f,\"name\":\"%s\",\"cat\":\"host\"}",
        PID_STREAMS, stream, us(t, cycle), name);
}

dv_status rt_trace_finish(rt_trace *t, const dv_rt_device *d,
                          const char *(*name)(const void *user, unsigned i), const void *user,
                          unsigned nstreams, dv_error *err)
{
    out(t, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":\"streams\"}}",
        PID_STREAMS);
    for (unsigned i = 0; i < nstreams; i++)
        out(t,
            "{\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":\"stream %s\"}}",
            PID_STREAMS, i, name(user, i));
    for (unsigned i = 0; i < dv_rt_record_count(d); i++) {
        const dv_rt_record *r = dv_rt_record_at(d, i);
        if (r->stop == DV_STOP_NONE)
            continue;
        char cores[96];
        dv_coreset_format(&r->cores_used, cores, sizeof cores);
        if (r->start_cycle > r->issue_cycle)
            out(t,
                "{\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":%.4f,\"dur\":%.4f,\"name\":\"launch\",\"cat\":"
                "\"overhead\"}",
                PID_STREAMS, r->stream, us(t, r->issue_cycle), us(t, r->start_cycle - r->issue_cycle));
        out(t,
            "{\"ph\":\"X\",\"pid\":%d,\"tid\":%u,\"ts\":%.4f,\"dur\":%.4f,\"name\":\"%s\",\"args\":{"
            "\"record\":%u,"
            "\"launch\":%llu,\"cores\":\"%s\",\"blocks\":%llu,\"shape\":\"%s\"}}",
            PID_STREAMS, r->stream, us(t, r->start_cycle), us(t, r->end_cycle - r->start_cycle), r->label, i,
            (unsigned long long)r->launch_id, cores, (unsigned long long)r->blocks, r->shape);
    }
    const dv_chip_config *cfg = dv_rt_device_config(d);
    for (unsigned u = 0; u < t->units; u++) {
        bool any = false;
        for (unsigned p = 0; p < DV_PIPE_COUNT; p++)
            if (t->seen[u * DV_PIPE_COUNT + p]) {
                any = true;
                out(t,
                    "{\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":\"%s\"}"
                    "}",
                    PID_CORE0 + u, p, dv_pipe_trace_name((dv_pipe)p));
            }
        if (!any)
            continue;
        const char *kind = !cfg->split ? "core" : u < cfg->cores ? "AIC" : "AIV";
        unsigned index = !cfg->split || u < cfg->cores ? u : u - (unsigned)cfg->cores;
        out(t, "{\"ph\":\"M\",\"pid\":%u,\"name\":\"process_name\",\"args\":{\"name\":\"%s %u\"}}",
            PID_CORE0 + u, kind, index);
    }
    const char *tail = "\n]}\n";
    if (!t->failed)
        t->failed = t->gz ? gzputs(t->gz, tail) < 0 : fputs(tail, t->f) < 0;
    bool ok = close_file(t) && !t->failed;
    if (!ok)
        remove(t->path);
    free(t->seen);
    free(t);
    return ok ? DV_OK : dv_error_set(err, DV_ERR_IO, "writing the trace failed");
}
