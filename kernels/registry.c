/* registry.c - the one list of operators.  A new operator adds its
 * dv_operator here and its folder to kernels/meson.build. */
#include "dv_operator.h"

#include <string.h>


extern const dv_operator dv_op_matmul;
extern const dv_operator dv_op_add;
extern const dv_operator dv_op_relu;
extern const dv_operator dv_op_softmax;
extern const dv_operator dv_op_layernorm;




extern const dv_operator dv_op_conv2d;
extern const dv_operator dv_op_conv2d_bias_relu;
extern const dv_operator dv_op_attention;

static const dv_operator *const operators[] = {
    &dv_op_matmul,
    &dv_op_add,
    &dv_op_relu,
    &dv_op_softmax,
    &dv_op_layernorm,
    &dv_op_conv2d,
    &dv_op_conv2d_bias_relu,
    &dv_op_attention,
};

unsigned dv_operator_count(void)
{
    return sizeof operators / sizeof operators[0];
}

const dv_operator *dv_operator_at(unsigned i)
{
    return i < dv_operator_count() ? operators[i] : NULL;
}

const dv_operator *dv_operator_find(const char *name)
{
    for (unsigned i = 0; i < dv_operator_count(); i++)
        if (strcmp(operators[i]->name, name) == 0)
            return operators[i];
    return NULL;
}

static int index_of(const char *const *names, const char *name)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

int dv_operator_param_index(const dv_operator *op, const char *name)
{
    for (int i = 0; op->params[i].name; i++)
        if (strcmp(op->params[i].name, name) == 0)
            return i;
    return -1;
}

int dv_operator_variant_index(const dv_operator *op, const char *name)
{
    return index_of(op->variants, name);
}

int dv_operator_dtype_index(const dv_operator *op, const char *name)
{
    return index_of(op->dtypes, name);
}
