/* operator.c - the life of one operator run: parse the request against
 * the operator's declaration, let its host part prepare the simulation,
 * snapshot the inputs, and compare the outputs with the reference. */
#include "dv_file.h"
#include "dv_kernel_blob.h"
#include "dv_mem.h"
#include "dv_num.h"
#include "dv_operator.h"
#include "dv_text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dv_status input_error(dv_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static dv_status input_error(dv_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err) {
        err->status = DV_ERR_INPUT;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    va_end(ap);
    return DV_ERR_INPUT;
}

static void list_names(const char *const *names, char *buf, size_t size)
{
    buf[0] = '\0';
    for (unsigned i = 0; names[i]; i++) {
        strncat(buf, i ? ", " : "", size - strlen(buf) - 1);
        strncat(buf, names[i], size - strlen(buf) - 1);
    }
}

/* "M=128,N=64": every name declared, every value a number in its range. */
static dv_status parse_shape(const dv_operator *op, uint64_t *params, const char *shape, dv_error *err)
{
    for (unsigned i = 0; op->params[i].name; i++)
        params[i] = op->params[i].def;
    if (!shape || !*shape)
        return DV_OK;
    char *copy = strdup(shape);
    if (!copy)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    dv_status st = DV_OK;
    char *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t && st == DV_OK; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (!eq) {
            st = input_error(err, "--shape: '%s' is not NAME=VALUE", DV_ESC(t));
            break;
        }
        *eq = '\0';
        int i = dv_operator_param_index(op, t);
        if (i < 0) {
            char names[256] = "";
            for (unsigned k = 0; op->params[k].name; k++) {
                strncat(names, k ? ", " : "", sizeof names - strlen(names) - 1);
                strncat(names, op->params[k].name, sizeof names - strlen(names) - 1);
            }
            st =
                input_error(err, "--shape: %s has no parameter '%s' (it has %s)", op->name, DV_ESC(t), names);
            break;
        }
        uint64_t v;
        const dv_operator_param *p = &op->params[i];
        if (!dv_parse_u64(eq + 1, &v))
            st = input_error(err, "--shape: %s=%s is not a number (decimal or 0x hex)", t, DV_ESC(eq + 1));
        else if (v < p->min || v > p->max)
            st = input_error(err, "--shape: %s=%llu is out of range [%llu, %llu]", t, (unsigned long long)v,
                             (unsigned long long)p->min, (unsigned long long)p->max);
        else
            params[i] = v;
    }
    free(copy);
    return st;
}

static dv_status pick(const dv_operator *op, const char *what, const char *const *names, const char *want,
                      unsigned *index, dv_error *err)
{
    *index = 0;
    if (!want)
        return DV_OK;
    for (unsigned i = 0; names[i]; i++)
        if (strcmp(names[i], want) == 0) {
            *index = i;
            return DV_OK;
        }
    char list[256];
    list_names(names, list, sizeof list);
    return input_error(err, "%s has no %s '%s' (it has %s)", op->name, what, DV_ESC(want), list);
}

static dv_status load_input_file(dv_opr_run *r, const char *name, const char *path, dv_error *err)
{
    const dv_opr_tensor *t = dv_opr_tensor_find(r, name);
    if (!t || t->output)
        return input_error(err, "--input %s: %s has no input tensor of that name", DV_ESC(name), r->op->name);
    FILE *f = dv_open_input(path, err);
    if (!f)
        return err ? err->status : DV_ERR_MISSING;
    uint8_t *dst = dv_opr_gm(r, (unsigned)(t - r->t));
    size_t got = fread(dst, 1, (size_t)t->bytes, f);
    int extra = fgetc(f);
    fclose(f);
    if (got != t->bytes || extra != EOF)
        return input_error(err, "--input %s: %s must hold exactly %llu bytes", name, path,
                           (unsigned long long)t->bytes);
    return DV_OK;
}

dv_status dv_opr_parse_request(const dv_operator *op, const dv_opr_request *req, unsigned *variant,
                               unsigned *dtype, uint64_t params[DV_OPR_MAX_PARAMS], dv_error *err)
{
    dv_status st = pick(op, "variant", op->variants, req->variant, variant, err);
    if (st == DV_OK)
        st = pick(op, "dtype", op->dtypes, req->dtype, dtype, err);
    if (st == DV_OK)
        st = parse_shape(op, params, req->shape, err);
    return st;
}

/* The operators' kernels are assembled once, with their buffers laid out at
 * the coarsest alignment of the built-in chips (davinci-facts #30, #31):
 * 32 bytes in UB and L1, a 512-byte fractal in L0A/L0B and L0C.  A chip
 * config that asks for coarser alignment would make them fault on their
 * first access, so it is refused before anything runs (finer is fine). */
static dv_status check_alignment(const dv_operator *op, const dv_chip_config *cfg, dv_error *err)
{
    const struct {
        const char *key;
        uint64_t have, laid_out;
    } rules[] = {{"align.ub", cfg->align_ub, 32},
                 {"align.l1", cfg->align_l1, 32},
                 {"align.l0ab", cfg->align_l0ab, 512},
                 {"align.l0c", cfg->align_l0c, 512}};
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i].have > rules[i].laid_out)
            return dv_error_set(err, DV_ERR_CONFIG,
                                "%s: %s = %llu is coarser than the %llu bytes its kernels are laid out for "
                                "(the built-in chips' alignment)",
                                op->name, rules[i].key, (unsigned long long)rules[i].have,
                                (unsigned long long)rules[i].laid_out);
    return DV_OK;
}

static char *dup_or_null(const char *s, bool *ok)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    *ok &= d != NULL;
    return d;
}

/* The request with strings of its own (the inputs are made again from it). */
static dv_status copy_request(dv_opr_request *to, const dv_opr_request *from)
{
    bool ok = true;
    *to = *from;
    to->variant = dup_or_null(from->variant, &ok);
    to->dtype = dup_or_null(from->dtype, &ok);
    to->shape = dup_or_null(from->shape, &ok);
    for (unsigned i = 0; i < from->ninputs && i < DV_OPR_MAX_INPUTS; i++) {
        to->input_name[i] = dup_or_null(from->input_name[i], &ok);
        to->input_file[i] = dup_or_null(from->input_file[i], &ok);
    }
    return ok ? DV_OK : DV_ERR_NOMEM;
}

/* The request's tensors given on a target: each name one of the operator's. */
static dv_status check_bound(const dv_opr_run *r, const dv_opr_target *target, dv_error *err)
{
    for (unsigned i = 0; i < target->nbound; i++)
        if (!dv_opr_tensor_find(r, target->name[i]))
            return input_error(err, "%s has no tensor '%s' (%s)", r->op->name, DV_ESC(target->name[i]),
                               r->op->tensors);
    return DV_OK;
}

static dv_status create(const dv_operator *op, const dv_opr_request *req, const dv_chip_config *cfg,
                        bool data, const dv_opr_target *target, dv_opr_run **out, dv_error *err)
{
    dv_status ast = check_alignment(op, cfg, err);
    if (ast != DV_OK) {
        *out = NULL;
        return ast;
    }
    *out = NULL;
    dv_opr_run *r = calloc(1, sizeof *r);
    if (!r)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    r->op = op;
    r->cfg = cfg;
    r->data = data;
    r->seed = req->seed;
    r->blocks_request = req->blocks;
    dv_status cst = copy_request(&r->req, req);
    r->launches = 1;
    /* DVSIM_REFERENCE=plain: the plain loops, to compare and to time them */
    const char *ref = getenv("DVSIM_REFERENCE");
    r->plain_reference = ref && strcmp(ref, "plain") == 0;
    dv_status st = cst != DV_OK ? dv_error_set(err, DV_ERR_NOMEM, "out of memory")
                                : dv_opr_parse_request(op, req, &r->variant, &r->dtype, r->p, err);
    r->target = target;
    if (st == DV_OK && target) {
        r->target_gm = target->gm;
    } else if (st == DV_OK) {
        r->sim = dv_sim_create(cfg, data, err);
        st = r->sim ? DV_OK : err->status;
    }
    if (st == DV_OK)
        st = op->prepare(r, err);
    if (st == DV_OK && target)
        st = check_bound(r, target, err);
    r->target = NULL; /* the caller's, read by prepare() alone */
    if (st == DV_OK &&
        (r->launches < 1 || r->launches > DV_OPR_MAX_LAUNCHES || (r->launches > 1 && !op->next_launch)))
        st = dv_error_set(err, DV_ERR_INTERNAL, "%s: %u launches (1..%d, more than one needs next_launch)",
                          op->name, r->launches, DV_OPR_MAX_LAUNCHES);
    for (unsigned i = 0; st == DV_OK && i < req->ninputs; i++)
        st = load_input_file(r, req->input_name[i], req->input_file[i], err);
    if (st != DV_OK) {
        dv_opr_destroy(r);
        return st;
    }
    *out = r;
    return DV_OK;
}

dv_status dv_opr_create(const dv_operator *op, const dv_opr_request *req, const dv_chip_config *cfg,
                        bool data, dv_opr_run **out, dv_error *err)
{
    return create(op, req, cfg, data, NULL, out, err);
}

dv_status dv_opr_create_on(const dv_operator *op, const dv_opr_request *req, const dv_chip_config *cfg,
                           bool data, const dv_opr_target *target, dv_opr_run **out, dv_error *err)
{
    return create(op, req, cfg, data, target, out, err);
}

dv_status dv_opr_next_launch(dv_opr_run *r, unsigned i, dv_error *err)
{
    if (!r->target_gm || i == 0 || i >= r->launches)
        return dv_error_set(err, DV_ERR_USAGE, "%s: no launch %u to set up on a target", r->op->name, i);
    return r->op->next_launch(r, i, err);
}

void dv_opr_set_threads(dv_opr_run *r, unsigned threads)
{
    r->sim_threads = threads;
    dv_sim_set_threads(r->sim, threads);
}

dv_sim *dv_opr_sim(dv_opr_run *r)
{
    return r->sim;
}

/* A 64-bit hash of an input's bytes, four lanes of 8 bytes (a multiply and
 * a shift each: every change of one word changes its lane, and the lanes
 * go through a full avalanche at the end), at memory speed. */
static uint64_t bytes_hash(const uint8_t *p, uint64_t n)
{
    uint64_t h[4] = {0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull,
                     0x2545f4914f6cdd1dull};
    uint64_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (unsigned k = 0; k < 4; k++) {
            uint64_t w;
            memcpy(&w, p + i + 8 * k, 8);
            h[k] = (h[k] ^ w) * 0xff51afd7ed558ccdull;
            h[k] ^= h[k] >> 29;
        }
    uint64_t x = n;
    for (; i < n; i++)
        x = (x ^ p[i]) * 0x100000001b3ull;
    for (unsigned k = 0; k < 4; k++) {
        x = (x ^ h[k]) * 0xc4ceb9fe1a85ec53ull;
        x ^= x >> 33;
    }
    return x;
}

/* The reference needs the inputs as they were before the run.  A copy of
 * each (what this did first) is as large as the inputs, two thirds of GM
 * for a matmul; instead each input's hash is kept, and at the check the
 * input in GM is used when its hash has not changed, which it has not
 * unless the kernel wrote its own input (a change the hash misses is a
 * 2^-64 chance).  Then the inputs are made again, as dv_opr_create made
 * them (the same request, seed and files), and copied. */
dv_status dv_opr_before_run(dv_opr_run *r, dv_error *err)
{
    (void)err;
    if (!r->data)
        return DV_OK;
    for (unsigned i = 0; i < r->ntensors; i++) {
        dv_opr_tensor *t = &r->t[i];
        if (t->output || t->host || t->hashed)
            continue;
        t->hash = bytes_hash(dv_opr_gm(r, i), t->bytes);
        t->hashed = true;
    }
    return DV_OK;
}

static dv_status inputs_as_before(dv_opr_run *r, dv_error *err)
{
    dv_opr_run *again = NULL;
    for (unsigned i = 0; i < r->ntensors; i++) {
        dv_opr_tensor *t = &r->t[i];
        if (t->output || t->host || !t->hashed)
            continue;
        if (bytes_hash(dv_opr_gm(r, i), t->bytes) == t->hash) {
            t->host = dv_opr_gm(r, i); /* unchanged: read in place */
            continue;
        }
        if (r->target_gm) /* the caller's bytes: nothing can make them again */
            return dv_error_set(err, DV_ERR_INPUT, "%s: input %s changed during the run; no reference check",
                                r->op->name, t->name);
        if (!again) {
            dv_status st = dv_opr_create(r->op, &r->req, r->cfg, true, &again, err);
            if (st != DV_OK)
                return st;
        }
        if (i >= again->ntensors || again->t[i].bytes != t->bytes) {
            dv_opr_destroy(again);
            return dv_error_set(err, DV_ERR_INTERNAL, "%s: input %s was not made again the same", r->op->name,
                                t->name);
        }
        t->host = malloc((size_t)t->bytes ? (size_t)t->bytes : 1);
        if (!t->host) {
            dv_opr_destroy(again);
            return dv_error_set(err, DV_ERR_NOMEM, "out of memory for a copy of %s", t->name);
        }
        memcpy(t->host, dv_opr_gm(again, i), (size_t)t->bytes);
        t->host_owned = true;
    }
    dv_opr_destroy(again);
    return DV_OK;
}

dv_status dv_opr_check_outputs(dv_opr_run *r, dv_error *err)
{
    memset(&r->check, 0, sizeof r->check);
    if (!r->data)
        return DV_OK;
    dv_status ist = inputs_as_before(r, err);
    if (ist != DV_OK)
        return ist;
    r->check.done = true;
    dv_status st = r->op->check(r, err);
    if (!r->check.reference[0])
        snprintf(r->check.reference, sizeof r->check.reference, "plain loops in double, one thread");
    return st;
}

void dv_opr_destroy(dv_opr_run *r)
{
    if (!r)
        return;
    if (r->op->release)
        r->op->release(r);
    for (unsigned i = 0; i < r->ntensors; i++) {
        if (r->t[i].host_owned)
            free(r->t[i].host);
        if (r->target_gm && !r->t[i].bound)
            dv_gm_free(r->target_gm, r->t[i].addr);
    }
    free((char *)r->req.variant);
    free((char *)r->req.dtype);
    free((char *)r->req.shape);
    for (unsigned i = 0; i < r->req.ninputs && i < DV_OPR_MAX_INPUTS; i++) {
        free((char *)r->req.input_name[i]);
        free((char *)r->req.input_file[i]);
    }
    dv_sim_destroy(r->sim);
    dv_obj_destroy(r->obj);
    free(r);
}

const dv_opr_tensor *dv_opr_tensor_find(const dv_opr_run *r, const char *name)
{
    for (unsigned i = 0; i < r->ntensors; i++)
        if (strcmp(r->t[i].name, name) == 0)
            return &r->t[i];
    return NULL;
}

uint64_t dv_opr_param(const dv_opr_run *r, const char *name)
{
    int i = dv_operator_param_index(r->op, name);
    return i < 0 ? 0 : r->p[i];
}

const char *dv_opr_variant(const dv_opr_run *r)
{
    return r->op->variants[r->variant];
}

const char *dv_opr_dtype(const dv_opr_run *r)
{
    return r->op->dtypes[r->dtype];
}

dv_status dv_opr_use_kernel(dv_opr_run *r, const dv_kernel_blob *blob, const char *kernel, dv_error *err)
{
    dv_obj_destroy(r->obj);
    r->obj = NULL;
    if (dv_obj_read_elf(blob->elf, blob->size, &r->obj, err) != DV_OK)
        return err->status;
    if (!r->sim) { /* on a target: the caller launches it */
        r->kernel = kernel ? dv_obj_find_kernel(r->obj, kernel) : &r->obj->kernels[0];
        if (!r->kernel || r->obj->nkernels == 0)
            return dv_error_set(err, DV_ERR_INTERNAL, "%s: its object has no kernel '%s'", r->op->name,
                                kernel ? kernel : "");
        return DV_OK;
    }
    dv_status st = dv_sim_load(r->sim, r->obj, kernel, err);
    r->kernel = dv_sim_kernel(r->sim);
    return st;
}

dv_status dv_opr_tensor_add(dv_opr_run *r, const char *name, bool output, uint64_t bytes, unsigned *index,
                            dv_error *err)
{
    if (r->ntensors == DV_OPR_MAX_TENSORS)
        return dv_error_set(err, DV_ERR_INTERNAL, "%s: more than %d tensors", r->op->name,
                            DV_OPR_MAX_TENSORS);
    dv_opr_tensor *t = &r->t[r->ntensors];
    *t = (dv_opr_tensor){.name = name, .output = output, .bytes = bytes ? bytes : 1};
    const dv_opr_target *tg = r->target;
    for (unsigned i = 0; tg && i < tg->nbound; i++) {
        if (strcmp(tg->name[i], name) != 0)
            continue;
        dv_access_fault f;
        if (!dv_gm_span(tg->gm, tg->addr[i], t->bytes, &f))
            return input_error(
                err, "%s: tensor %s needs %llu bytes at 0x%llx; the device buffer there is smaller",
                r->op->name, name, (unsigned long long)t->bytes, (unsigned long long)tg->addr[i]);
        t->addr = tg->addr[i];
        t->bound = true;
    }
    if (!t->bound &&
        dv_gm_alloc(r->target_gm ? r->target_gm : dv_sim_gm(r->sim), t->bytes, &t->addr, err) != DV_OK)
        return err->status;
    if (index)
        *index = r->ntensors;
    r->ntensors++;
    return DV_OK;
}

uint8_t *dv_opr_gm(dv_opr_run *r, unsigned index)
{
    dv_access_fault f;
    return dv_gm_span(r->target_gm ? r->target_gm : dv_sim_gm(r->sim), r->t[index].addr, r->t[index].bytes,
                      &f);
}

dv_status dv_opr_arg(dv_opr_run *r, unsigned i, uint64_t value, dv_error *err)
{
    if (i >= DV_MAX_KERNEL_ARGS)
        return dv_error_set(err, DV_ERR_USAGE, "argument index %u out of range", i);
    r->args[i] = value;
    return r->sim ? dv_sim_set_arg(r->sim, i, value, err) : DV_OK;
}

dv_status dv_opr_set_blocks(dv_opr_run *r, uint64_t block_dim, dv_error *err)
{
    r->block_dim = block_dim;
    if (!r->sim && (block_dim == 0 || block_dim > 65535))
        return dv_error_set(err, DV_ERR_USAGE, "block_dim must be 1 to 65535, not %llu",
                            (unsigned long long)block_dim);
    return r->sim ? dv_sim_set_blocks(r->sim, block_dim, err) : DV_OK;
}

void dv_opr_plan(dv_opr_run *r, const char *key, const char *doc, double v)
{
    if (r->nplan >= DV_OPR_MAX_PLAN)
        return;
    r->plan[r->nplan].key = key;
    r->plan[r->nplan].doc = doc;
    r->plan[r->nplan++].v = v;
}

/* The cores a path of the work runs on: on a split chip UB's paths are the
 * AIVs', the others (L1, L0C) the AICs' (on coupled chips both counts are
 * every core). */
static double path_cores(dv_path p, double cube_cores, double vec_cores)
{
    return dv_path_src(p) == DV_MEM_UB || dv_path_dst(p) == DV_MEM_UB ? vec_cores : cube_cores;
}

void dv_opr_roofline_of(const dv_opr_run *r, const dv_run_result *res, dv_opr_roofline *out)
{
    const dv_chip_config *cfg = r->cfg;
    const dv_opr_work *w = &r->work;
    /* The work is the whole operator's, so the time is every launch's
     * (a split-K matmul, conv2d's unfused bias and relu), and the cores of
     * each kind the most any launch had (res is the last launch alone). */
    double cores = res->ncores, cube_cores = 0, vec_cores = 0, cycles = 0;
    for (unsigned i = 0; i < r->nlaunched; i++) {
        const dv_opr_launch *l = &r->launch[i];
        cycles += (double)l->cycles;
        cores = l->ncores > cores ? l->ncores : cores;
        cube_cores = l->cube_cores > cube_cores ? l->cube_cores : cube_cores;
        vec_cores = l->vec_cores > vec_cores ? l->vec_cores : vec_cores;
    }
    if (!r->nlaunched) {
        cycles = (double)res->cycles;
        cube_cores = vec_cores = cores;
    }
    cores = cores ? cores : 1;
    cube_cores = cube_cores ? cube_cores : cores;
    vec_cores = vec_cores ? vec_cores : cores;
    double rbw = (double)dv_path_bw(cfg, w->read_path) * path_cores(w->read_path, cube_cores, vec_cores);
    double wbw = (double)dv_path_bw(cfg, w->write_path) * path_cores(w->write_path, cube_cores, vec_cores);
    *out = (dv_opr_roofline){
        .cube_cycles = w->macs / (dv_config_core_macs_fp16(cfg) * cube_cores),
        .vec_cycles = w->vec_cycles / vec_cores,
        .read_cycles = rbw > 0 ? w->read_bytes / rbw : 0,
        .write_cycles = wbw > 0 ? w->write_bytes / wbw : 0,
        /* Reads, and the outputs the write-back L2 cannot keep
         * (memory.l2_bytes): those go on to HBM while the run lasts. */
        .hbm_cycles =
            (w->read_bytes +
             (w->write_bytes > (double)cfg->l2_bytes ? w->write_bytes - (double)cfg->l2_bytes : 0)) /
            (double)cfg->hbm_bytes_per_cycle,
    };
    struct {
        double c;
        const char *by;
    } all[] = {
        {out->cube_cycles, dv_pipe_key(DV_PIPE_M)},
        {out->vec_cycles, dv_pipe_key(DV_PIPE_V)},
        {out->read_cycles, dv_path_name(w->read_path)},
        {out->write_cycles, dv_path_name(w->write_path)},
        {out->hbm_cycles, "HBM"},
    };
    out->bound_by = dv_pipe_key(DV_PIPE_M);
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i].c > out->bound_cycles) {
            out->bound_cycles = all[i].c;
            out->bound_by = all[i].by;
        }
    out->achieved = cycles > 0 ? out->bound_cycles / cycles : 0;
    out->cores = (unsigned)cores;
}
