/* dv_log.h - logging by category and level through a caller-supplied sink.
 *
 * There is no global logger: each simulator object owns a dv_log.  A message
 * whose category/level is disabled costs a test of the log pointer and one
 * compare, and formats nothing. */
#ifndef DV_LOG_H
#define DV_LOG_H

#include <stdarg.h>
#include <stdbool.h>

typedef enum dv_log_level { DV_LOG_ERROR, DV_LOG_WARN, DV_LOG_INFO, DV_LOG_DEBUG, DV_LOG_TRACE } dv_log_level;

typedef enum dv_log_cat {
    DV_LOG_CAT_ASM,
    DV_LOG_CAT_ELF,
    DV_LOG_CAT_SIM,
    DV_LOG_CAT_MEM,
    DV_LOG_CAT_PMU,
    DV_LOG_CAT_COUNT
} dv_log_cat;

typedef void (*dv_log_sink_fn)(void *user, dv_log_cat cat, dv_log_level level, const char *msg);

typedef struct dv_log {
    dv_log_sink_fn sink; /* NULL: logging off */
    void *user;
    dv_log_level level[DV_LOG_CAT_COUNT]; /* most verbose level per category (default warn) */
    /* What passes: levels below gate[cat] (level + 1 with a sink, 0 without),
     * kept in step by the setters, so that a disabled message costs one
     * compare of a byte, with no test of the sink or the levels. */
    unsigned char gate[DV_LOG_CAT_COUNT];
} dv_log;

/* Everything off (no sink; every category at warn once there is one). */
void dv_log_init(dv_log *log);
/* sink NULL turns logging off; the levels are kept. */
void dv_log_set_sink(dv_log *log, dv_log_sink_fn sink, void *user);
void dv_log_set_level(dv_log *log, dv_log_cat cat, dv_log_level level);

/* log NULL: nothing is enabled (code with no log to hand passes NULL). */
static inline bool dv_log_enabled(const dv_log *log, dv_log_cat cat, dv_log_level level)
{
    return log && (unsigned)level < log->gate[cat];
}

/* Formats the message (at most 1023 bytes; longer ones are cut) and hands
 * it to the sink, if its category and level are enabled (never for a NULL
 * log). */
void dv_log_emit(const dv_log *log, dv_log_cat cat, dv_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

const char *dv_log_cat_name(dv_log_cat cat);
const char *dv_log_level_name(dv_log_level level);

#define DV_LOG(log, cat, level, ...)                                                                         \
    do {                                                                                                     \
        if (dv_log_enabled((log), (cat), (level)))                                                           \
            dv_log_emit((log), (cat), (level), __VA_ARGS__);                                                 \
    } while (0)

#endif
