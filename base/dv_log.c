/* dv_log.c - the log: levels per category, a sink, messages formatted only when they pass. */
#include "dv_log.h"

#include <stdio.h>

/* The gates follow the levels while there is a sink, and are shut without. */
static void update_gates(dv_log *log)
{
    for (int i = 0; i < DV_LOG_CAT_COUNT; i++)
        log->gate[i] = log->sink ? (unsigned char)(log->level[i] + 1) : 0;
}

void dv_log_init(dv_log *log)
{
    log->sink = NULL;
    log->user = NULL;
    for (int i = 0; i < DV_LOG_CAT_COUNT; i++)
        log->level[i] = DV_LOG_WARN;
    update_gates(log);
}

void dv_log_set_sink(dv_log *log, dv_log_sink_fn sink, void *user)
{
    log->sink = sink;
    log->user = user;
    update_gates(log);
}

void dv_log_set_level(dv_log *log, dv_log_cat cat, dv_log_level level)
{
    if ((unsigned)cat < DV_LOG_CAT_COUNT && (unsigned)level <= DV_LOG_TRACE) {
        log->level[cat] = level;
        update_gates(log);
    }
}

void dv_log_emit(const dv_log *log, dv_log_cat cat, dv_log_level level, const char *fmt, ...)
{
    if (!dv_log_enabled(log, cat, level))
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    log->sink(log->user, cat, level, buf);
}

const char *dv_log_cat_name(dv_log_cat cat)
{
    static const char *const names[DV_LOG_CAT_COUNT] = {"asm", "elf", "sim", "mem", "pmu"};
    return (unsigned)cat < DV_LOG_CAT_COUNT ? names[cat] : "?";
}

const char *dv_log_level_name(dv_log_level level)
{
    static const char *const names[] = {"error", "warn", "info", "debug", "trace"};
    return (unsigned)level <= DV_LOG_TRACE ? names[level] : "?";
}
