/* fuzz_sweepspec.c - fuzz harness for dvsim sweep's spec parser (INI or
 * JSON, cli/sweep_spec.h) and its expansion.
 *
 * Properties: a rejected spec gives one printable line and an input or
 * config status (or out of memory); an accepted one has workloads with one
 * of op and kernel, axes with a target, values and a group no later than
 * their place, a job count within the limit; its canonical JSON (what the
 * sweep folder keeps) parses back, writes the same JSON again, and expands
 * to the same jobs with the same hashes (for specs of up to 4096 jobs). */
#include "fuzz.h"
#include "fuzz_tmpfile.h"
#include "sweep_spec.h"

static void check_spec(const sweep_spec *s)
{
    FUZZ_CHECK(s->nworkloads >= 1 && s->nworkloads <= SWEEP_MAX_WORKLOADS, "%zu workloads", s->nworkloads);
    FUZZ_CHECK(s->chips.count >= 1 && s->metrics.count >= 1, "no chip or no metric");
    for (size_t i = 0; i < s->nworkloads; i++)
        FUZZ_CHECK(!s->workloads[i].op != !s->workloads[i].kernel, "workload %zu: op and kernel", i);
    for (size_t i = 0; i < s->naxes; i++) {
        const sweep_axis *a = &s->axes[i];
        FUZZ_CHECK(a->target && a->values.count >= 1, "axis %zu without target or values", i);
        FUZZ_CHECK(a->group >= 0 && (size_t)a->group <= i, "axis %zu in group %d", i, a->group);
    }
    FUZZ_CHECK(sweep_spec_count(s) >= 1, "no jobs");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sweep_spec s;
    dv_error err = {DV_OK, ""};
    dv_status st = sweep_spec_parse((const char *)data, size, "spec", &s, &err);
    if (st != DV_OK) {
        FUZZ_CHECK(st == DV_ERR_INPUT || st == DV_ERR_CONFIG || st == DV_ERR_NOMEM, "status %d", (int)st);
        fuzz_check_line(err.msg);
        sweep_spec_free(&s);
        return 0;
    }
    check_spec(&s);
    char *json = NULL, *json2 = NULL;
    FUZZ_CHECK(sweep_spec_json(&s, &json, &err) == DV_OK, "canonical JSON: %s", err.msg);
    sweep_spec back;
    st = sweep_spec_parse(json, strlen(json), "sweep.json", &back, &err);
    FUZZ_CHECK(st == DV_OK, "the canonical JSON does not parse: %s\n%s", err.msg, json);
    FUZZ_CHECK(sweep_spec_json(&back, &json2, &err) == DV_OK && strcmp(json, json2) == 0,
               "the canonical JSON is not a fixed point:\n%s\n%s", json, json2 ? json2 : "");
    size_t n = sweep_spec_count(&s);
    FUZZ_CHECK(n == sweep_spec_count(&back), "%zu jobs, read back %zu", n, sweep_spec_count(&back));
    if (n <= 4096) {
        sweep_jobs a, b;
        FUZZ_CHECK(sweep_expand(&s, &a, &err) == DV_OK && sweep_expand(&back, &b, &err) == DV_OK,
                   "expand: %s", err.msg);
        for (size_t i = 0; i < n; i++) {
            FUZZ_CHECK(strcmp(a.jobs[i].hash, b.jobs[i].hash) == 0, "job %zu: hash %s, read back %s", i,
                       a.jobs[i].hash, b.jobs[i].hash);
            FUZZ_CHECK(a.jobs[i].primary <= i && !strcmp(a.jobs[a.jobs[i].primary].hash, a.jobs[i].hash),
                       "job %zu: primary %zu", i, a.jobs[i].primary);
        }
        sweep_jobs_free(&a);
        sweep_jobs_free(&b);
    }
    free(json);
    free(json2);
    sweep_spec_free(&back);
    sweep_spec_free(&s);
    return 0;
}
