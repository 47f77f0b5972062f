/* compile_opsize.c - buffers sized as the operators size them: a device
 * step's operator may ask for more bytes than a tensor's layout takes (an
 * input padded to 32 bytes, softmax's and layernorm's 32 more, attention's
 * slack of a whole tile after Q, K and V, read when a last tile is
 * partial).  Each plan tensor a device step binds grows to the most any of
 * its operators asks (dv_opr_create without data: the operator's own
 * prepare()), so the memory plan keeps those bytes out of every other
 * buffer and the device run finds them mapped.  A step's gm_bytes (its
 * tensors' layout bytes, the conversion costs) is left as it was. */
#include "compile_priv.h"
#include "dv_operator.h"

#include <string.h>

/* The operator's tensor names for a device step's inputs and its output, in
 * the order compile_lower.c / compile_ops.c give them (the kernels' own
 * dv_opr_tensor_add names). */
static const struct {
    const char *op;
    const char *in[3];
    const char *out;
} op_names[] = {
    {"matmul", {"a", "b", "bias"}, "c"},
    {"conv2d", {"x", "w", NULL}, "y"},
    {"conv2d_bias_relu", {"x", "w", "bias"}, "y"},
    {"attention", {"q", "k", "v"}, "o"},
    {"add", {"x", "y", NULL}, "z"},
    {"relu", {"x", NULL, NULL}, "y"},
    {"softmax", {"x", NULL, NULL}, "y"},
    {"layernorm", {"x", "gamma", "beta"}, "y"},
    {"rmsnorm", {"x", "gamma", NULL}, "y"},
    {"permute", {"x", NULL, NULL}, "y"},
};

const char *dv_plan_op_tensor(const char *op, bool output, unsigned k)
{
    for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
        if (strcmp(op_names[i].op, op) == 0)
            return output ? (k == 0 ? op_names[i].out : NULL) : k < 3 ? op_names[i].in[k] : NULL;
    return NULL;
}

static void grow(dv_plan *p, int t, const dv_opr_run *run, const char *name)
{
    const dv_opr_tensor *ot = name ? dv_opr_tensor_find(run, name) : NULL;
    if (ot && ot->bytes > p->t[t].bytes)
        p->t[t].bytes = ot->bytes;
}

dv_status cc_operator_sizes(cctx *c)
{
    dv_plan *p = c->p;
    for (unsigned i = 0; i < p->nsteps; i++) {
        const dv_plan_step *s = &p->s[i];
        if (s->kind != DV_STEP_DEVICE)
            continue;
        const dv_operator *o = dv_operator_find(s->op);
        dv_opr_request req = {.variant = s->variant, .dtype = s->dtype, .shape = s->params};
        dv_opr_run *run = NULL;
        dv_error e = {0};
        if (!o || dv_opr_create(o, &req, c->cfg, false, &run, &e) != DV_OK)
            return dv_error_set(c->err, DV_ERR_INTERNAL, "step %u (%s %s): the operator refuses it: %s", i,
                                s->op, s->params, o ? e.msg : "no such operator");
        for (unsigned k = 0; k < s->nin; k++)
            grow(p, s->in[k], run, dv_plan_op_tensor(s->op, false, k));
        grow(p, s->out[0], run, dv_plan_op_tensor(s->op, true, 0));
        dv_opr_destroy(run);
    }
    return DV_OK;
}
