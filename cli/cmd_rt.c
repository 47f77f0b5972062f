/* cmd_rt.c - dvsim rt SCRIPT: a script of streams, events and launches run
 * by the host runtime (runtime/dv_rt.h) on one chip; a table of the
 * launches (stream, what, core set, start, cycles, end) and the end-to-end
 * time, or --json; --trace, --sanitize (the launch-level race check). */
#include "cli.h"
#include "dv_config.h"
#include "dv_rt.h"
#include "rt_script.h"
#include "rt_trace.h"
#include "run_trace.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

void cmd_rt_help(FILE *out)
{
    fputs("usage: dvsim rt SCRIPT [--chip NAME | --config FILE.ini] [--json] [--trace FILE.json[.gz]]\n"
          "                [--sanitize] [--no-data] [--no-launch-overhead] [--max-cycles N] [-I DIR]\n\n"
          "Runs a script of streams and launches on one chip through the host runtime: kernels of\n"
          "several streams run at once on the chip's cores (each launch on its core set, or any free\n"
          "core), sharing its L2 and HBM.  One command a line (# comments):\n\n"
          "  stream NAME                      an in-order stream\n"
          "  event NAME                       an event\n"
          "  buf NAME BYTES [zeros|random[:SEED]|file=PATH]   device memory (buf NAME file=PATH: its size)\n"
          "  op STREAM OPERATOR [P=V ...] [variant=V] [dtype=D] [seed=S] [blocks=N] [cores=SET] [check]\n"
          "     [TENSOR=BUF ...]              an operator (dvsim ops); tensors not given are its own\n"
          "  kernel STREAM FILE.dvs|.o ENTRY [ARG ...] [blocks=N] [cores=SET]   ARG: N, BUF or BUF+N\n"
          "  record STREAM EVENT              the event completes when STREAM's work so far has ended\n"
          "  wait STREAM EVENT                STREAM's later work waits for the event\n"
          "  callback STREAM [repeat=N] CMD   a host function on STREAM runs CMD (op, kernel, record,\n"
          "                                   wait, callback) when STREAM reaches it; repeat=N: a chain\n"
          "  sync [STREAM|EVENT]              the host waits (for everything when none is named)\n"
          "  dump BUF FILE                    the host waits, then writes BUF's bytes to FILE\n\n"
          "SET is a list of AI cores, \"0-9,12\".  Every launch pays chip.launch_cycles from when its\n"
          "stream issues it (--no-launch-overhead: not).  docs/runtime.md has the details.\n\n"
          "  --chip NAME, --config FILE.ini   the chip (default ascend910)\n"
          "  --json                           the launches and the totals as JSON on stdout\n"
          "  --trace FILE.json[.gz]           a Chrome trace: a lane per stream, and the cores' pipes\n"
          "  --sanitize                       report launches that race on GM (no stream order, event\n"
          "                                   or synchronise orders them): exit 1 if any\n"
          "  --no-data                        timing only (no arithmetic; op checks are skipped)\n"
          "  --max-cycles N                   stop the chip at cycle N (exit 1)\n"
          "  -I DIR                           a folder for .include of the scripts' .dvs kernels\n\n"
          "Exit: 0 done; 1 a launch faulted, hit the limit or failed its check, or a race was found;\n"
          "64 usage; 65 a bad script (its line named); 66 a missing file; 74 I/O.\n",
          out);
}

typedef struct rt_opts {
    const char *script, *chip, *config, *trace;
    bool json, sanitize, no_data, no_overhead;
    uint64_t max_cycles;
    cli_asm_path incs;
} rt_opts;

enum { OPT_CHIP = CLI_OPT_FIRST, OPT_CONFIG, OPT_JSON, OPT_TRACE, OPT_SAN, OPT_NODATA, OPT_NOOVER, OPT_MAX };

static int parse(int argc, char **argv, rt_opts *o)
{
    static const struct option longopts[] = {{"chip", required_argument, NULL, OPT_CHIP},
                                             {"config", required_argument, NULL, OPT_CONFIG},
                                             {"json", no_argument, NULL, OPT_JSON},
                                             {"trace", required_argument, NULL, OPT_TRACE},
                                             {"sanitize", no_argument, NULL, OPT_SAN},
                                             {"no-data", no_argument, NULL, OPT_NODATA},
                                             {"no-launch-overhead", no_argument, NULL, OPT_NOOVER},
                                             {"max-cycles", required_argument, NULL, OPT_MAX},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    cli_getopt g;
    cli_getopt_init(&g, "rt", argc, argv, "hI:", longopts, false);
    for (int c; (c = cli_getopt_next(&g)) != -1;) {
        switch (c) {
        case 'h': cmd_rt_help(stdout); return -1;
        case 'I':
            if (cli_asm_path_add(&o->incs, "rt", g.arg))
                return EXIT_USAGE;
            break;
        case OPT_CHIP: o->chip = g.arg; break;
        case OPT_CONFIG: o->config = g.arg; break;
        case OPT_JSON: o->json = true; break;
        case OPT_TRACE:
            if (!*g.arg)
                return cli_usage_error("rt", "--trace needs a file name");
            o->trace = g.arg;
            break;
        case OPT_SAN: o->sanitize = true; break;
        case OPT_NODATA: o->no_data = true; break;
        case OPT_NOOVER: o->no_overhead = true; break;
        case OPT_MAX:
            if (!cli_parse_u64(g.arg, &o->max_cycles))
                return cli_usage_error("rt", "--max-cycles needs a number, not '%s'", g.arg);
            break;
        case CLI_ARG:
            if (o->script)
                return cli_usage_error("rt", "one script, not '%s' too", g.arg);
            o->script = g.arg;
            break;
        default: return EXIT_USAGE;
        }
    }
    if (!o->script)
        return cli_usage_error("rt", "a script is needed");
    if (o->chip && o->config)
        return cli_usage_error("rt", "--chip and --config both name a chip; use one");
    return 0;
}

static const char *stop_word(dv_stop s)
{
    return s == DV_STOP_NONE ? "not run" : s == DV_STOP_DONE ? "done" : dv_stop_name(s);
}

static const char *script_stream(const void *user, unsigned i)
{
    return rt_script_stream_name(user, i);
}

/* The end of the last launch (the end-to-end time). */
static uint64_t end_to_end(const dv_rt_device *d)
{
    uint64_t end = 0;
    for (unsigned i = 0; i < dv_rt_record_count(d); i++) {
        const dv_rt_record *r = dv_rt_record_at(d, i);
        if (r->stop != DV_STOP_NONE && r->end_cycle > end)
            end = r->end_cycle;
    }
    return end;
}

static void print_table(const dv_rt_device *d, const rt_script *s)
{
    const dv_chip_config *cfg = dv_rt_device_config(d);
    printf("%-4s %-8s %-16s %-24s %-8s %-8s %7s %10s %10s %10s  %s\n", "#", "stream", "launch", "shape",
           "cores", "ran on", "blocks", "start", "cycles", "end", "outcome");
    for (unsigned i = 0; i < dv_rt_record_count(d); i++) {
        const dv_rt_record *r = dv_rt_record_at(d, i);
        char asked[64], used[64];
        dv_coreset_format(&r->cores, asked, sizeof asked);
        dv_coreset_format(&r->cores_used, used, sizeof used);
        const char *outcome = stop_word(r->stop);
        char buf[64];
        if (r->stop == DV_STOP_DONE && r->checked) {
            snprintf(buf, sizeof buf, "done, %s", r->passed ? "check passed" : "CHECK FAILED");
            outcome = buf;
        }
        bool ran = r->stop != DV_STOP_NONE;
        printf("%-4u %-8s %-16s %-24s %-8s %-8s %7llu %10llu %10llu %10llu  %s\n", i,
               rt_script_stream_name(s, r->stream), r->label, r->shape[0] ? r->shape : "-",
               asked[0] ? asked : "any", used[0] ? used : "-", (unsigned long long)r->blocks,
               (unsigned long long)(ran ? r->start_cycle : 0),
               (unsigned long long)(ran ? r->end_cycle - r->start_cycle : 0),
               (unsigned long long)(ran ? r->end_cycle : 0), outcome);
    }
    uint64_t end = end_to_end(d);
    printf("end to end: %llu cycles = %.2f us at %llu MHz on %s (%u launch%s on %u stream%s; launch overhead "
           "%llu "
           "cycles each)\n",
           (unsigned long long)end, (double)end / (double)cfg->clock_mhz, (unsigned long long)cfg->clock_mhz,
           cfg->name, dv_rt_record_count(d), dv_rt_record_count(d) == 1 ? "" : "es", rt_script_streams(s),
           rt_script_streams(s) == 1 ? "" : "s", (unsigned long long)cfg->launch_cycles);
}

static cJSON *record_json(const dv_rt_device *d, const rt_script *s, unsigned i)
{
    const dv_rt_record *r = dv_rt_record_at(d, i);
    char asked[64], used[64];
    dv_coreset_format(&r->cores, asked, sizeof asked);
    dv_coreset_format(&r->cores_used, used, sizeof used);
    cJSON *o = cJSON_CreateObject();
    bool ok = o && cli_json_add_u64(o, "record", i) &&
              cJSON_AddStringToObject(o, "stream", rt_script_stream_name(s, r->stream)) &&
              cJSON_AddStringToObject(o, "kind", r->kind == DV_RT_OP ? "op" : "kernel") &&
              cJSON_AddStringToObject(o, "launch", r->label) &&
              cJSON_AddStringToObject(o, "shape", r->shape) && cJSON_AddStringToObject(o, "cores", asked) &&
              cJSON_AddStringToObject(o, "cores_used", used) && cli_json_add_u64(o, "units", r->units) &&
              cli_json_add_u64(o, "blocks", r->blocks) && cli_json_add_u64(o, "enqueue", r->enqueue_cycle) &&
              cli_json_add_u64(o, "issue", r->issue_cycle) && cli_json_add_u64(o, "start", r->start_cycle) &&
              cli_json_add_u64(o, "end", r->end_cycle) &&
              cli_json_add_u64(o, "cycles", r->stop != DV_STOP_NONE ? r->end_cycle - r->start_cycle : 0) &&
              cli_json_add_u64(o, "gm_read", r->gm_read) && cli_json_add_u64(o, "gm_write", r->gm_write) &&
              cJSON_AddStringToObject(o, "outcome", stop_word(r->stop)) &&
              cJSON_AddStringToObject(o, "message", r->message);
    if (ok && r->checked)
        ok = cJSON_AddBoolToObject(o, "check_passed", r->passed) &&
             cli_json_add_u64(o, "mismatches", r->mismatches);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static int print_json(const dv_rt_device *d, const rt_script *s, const dv_rt_race *races, unsigned nraces,
                      bool sanitize)
{
    const dv_chip_config *cfg = dv_rt_device_config(d);
    cJSON *root = cJSON_CreateObject(), *list = cJSON_CreateArray();
    bool ok = root && list && cJSON_AddItemToObject(root, "launches", list);
    if (!ok)
        cJSON_Delete(list);
    uint64_t end = end_to_end(d);
    ok = ok && cJSON_AddStringToObject(root, "chip", cfg->name) && cli_json_add_u64(root, "cycles", end) &&
         cJSON_AddNumberToObject(root, "us", (double)end / (double)cfg->clock_mhz) &&
         cli_json_add_u64(root, "launch_cycles", cfg->launch_cycles) &&
         cli_json_add_u64(root, "streams", rt_script_streams(s));
    for (unsigned i = 0; ok && i < dv_rt_record_count(d); i++) {
        cJSON *o = record_json(d, s, i);
        ok = o && cJSON_AddItemToArray(list, o);
    }
    if (ok && sanitize) {
        cJSON *rl = cJSON_CreateArray();
        ok = rl && cJSON_AddItemToObject(root, "races", rl);
        for (unsigned i = 0; ok && i < nraces; i++) {
            cJSON *o = cJSON_CreateObject();
            ok = o && cJSON_AddItemToArray(rl, o) && cli_json_add_u64(o, "first", races[i].first) &&
                 cli_json_add_u64(o, "second", races[i].second) &&
                 cli_json_add_u64(o, "addr", races[i].addr) && cli_json_add_u64(o, "bytes", races[i].len) &&
                 cJSON_AddBoolToObject(o, "first_writes", races[i].first_writes) &&
                 cJSON_AddBoolToObject(o, "second_writes", races[i].second_writes);
        }
    }
    return cli_print_json(root, ok);
}

static void print_races(const dv_rt_device *d, const rt_script *s, const dv_rt_race *races, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const dv_rt_race *r = &races[i];
        const dv_rt_record *a = dv_rt_record_at(d, r->first), *b = dv_rt_record_at(d, r->second);
        printf("race: GM [0x%llx,+%llu) %s by launch %u (%s on stream %s) and %s by launch %u (%s on stream "
               "%s): "
               "no stream order, event or synchronise orders them\n",
               (unsigned long long)r->addr, (unsigned long long)r->len, r->first_writes ? "written" : "read",
               r->first, a->label, rt_script_stream_name(s, a->stream), r->second_writes ? "written" : "read",
               r->second, b->label, rt_script_stream_name(s, b->stream));
    }
    printf("sanitizer: %u race%s between launches\n", n, n == 1 ? "" : "s");
}

static int run(const rt_opts *o, const dv_chip_config *cfg)
{
    dv_error err = {DV_OK, ""};
    cli_asm_path incs = o->incs;
    rt_script *s = rt_script_parse(o->script, (unsigned)cfg->cores, &incs, &err);
    if (!s)
        return cli_fail(&err);
    dv_rt_options opt = {.data = !o->no_data,
                         .max_cycles = o->max_cycles,
                         .no_launch_overhead = o->no_overhead,
                         .race_check = o->sanitize};
    dv_rt_device *d;
    if (dv_rt_device_open(cfg, &opt, &d, &err) != DV_OK) {
        rt_script_free(s);
        return cli_fail(&err);
    }
    dv_sim_set_interrupt_flag(dv_rt_device_sim(d), run_signal_flag());
    rt_trace *tr = o->trace ? rt_trace_create(o->trace, d, &err) : NULL;
    int rc = o->trace && !tr ? cli_fail(&err) : 0;
    if (!rc && rt_script_run(s, d, &err) != DV_OK) {
        rc = cli_fail(&err);
        rt_trace_discard(tr);
        tr = NULL;
    }
    if (!rc && tr) {
        dv_status st = rt_trace_finish(tr, d, script_stream, s, rt_script_streams(s), &err);
        tr = NULL;
        if (st != DV_OK)
            rc = cli_fail(&err);
    }
    rt_trace_discard(tr);
    dv_rt_race *races = NULL;
    unsigned nraces = 0;
    if (!rc && o->sanitize && dv_rt_races(d, &races, &nraces, &err) != DV_OK)
        rc = cli_fail(&err);
    if (!rc) {
        if (o->json) {
            rc = print_json(d, s, races, nraces, o->sanitize);
        } else {
            print_table(d, s);
            if (o->sanitize)
                print_races(d, s, races, nraces);
        }
        const dv_rt_record *bad = dv_rt_failed(d);
        bool check_failed = false;
        for (unsigned i = 0; i < dv_rt_record_count(d); i++)
            check_failed |= dv_rt_record_at(d, i)->checked && !dv_rt_record_at(d, i)->passed;
        if (!rc && bad) {
            fprintf(stderr, "dvsim rt: launch %u (%s) did not finish: %s: %s\n",
                    (unsigned)(bad - dv_rt_record_at(d, 0)), bad->label, dv_stop_name(bad->stop),
                    bad->message);
            rc = run_signal() ? 128 + run_signal() : 1;
        } else if (!rc && check_failed) {
            fprintf(stderr, "dvsim rt: an operator's outputs did not match its reference\n");
            rc = 1;
        } else if (!rc && nraces) {
            fprintf(stderr, "dvsim rt: the sanitizer found %u race%s between launches (above)\n", nraces,
                    nraces == 1 ? "" : "s");
            rc = 1;
        }
    }
    free(races);
    dv_rt_device_close(d);
    rt_script_free(s);
    return rc;
}

int cmd_rt(int argc, char **argv)
{
    rt_opts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    dv_error err = {DV_OK, ""};
    dv_chip_config cfg;
    if (o.config ? dv_config_load_ini(o.config, &cfg, &err) != DV_OK
                 : dv_config_builtin(o.chip ? o.chip : dv_config_default_name(), &cfg, &err) != DV_OK)
        return cli_fail(&err);
    run_signals_begin();
    rc = run(&o, &cfg);
    run_signals_end();
    return rc;
}
