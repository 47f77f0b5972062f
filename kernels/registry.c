/* registry.c - the operators of the registry (the `operators` list of
 * kernels/meson.build, generated into registry_list.h), in its order. */
#include "dv_operator.h"

#include <string.h>

#define DV_OPERATOR_FOLDER(folder) extern const dv_operator *const dv_operators_##folder[];
#include "registry_list.h"
#undef DV_OPERATOR_FOLDER

static const dv_operator *const *const folders[] = {
#define DV_OPERATOR_FOLDER(folder) dv_operators_##folder,
#include "registry_list.h"
#undef DV_OPERATOR_FOLDER
};
enum { NFOLDERS = sizeof folders / sizeof folders[0] };

unsigned dv_operator_count(void)
{
    unsigned n = 0;
    for (unsigned f = 0; f < NFOLDERS; f++)
        for (unsigned i = 0; folders[f][i]; i++)
            n++;
    return n;
}

const dv_operator *dv_operator_at(unsigned index)
{
    for (unsigned f = 0; f < NFOLDERS; f++)
        for (unsigned i = 0; folders[f][i]; i++)
            if (index-- == 0)
                return folders[f][i];
    return NULL;
}

const dv_operator *dv_operator_find(const char *name)
{
    for (unsigned i = 0; i < dv_operator_count(); i++)
        if (strcmp(dv_operator_at(i)->name, name) == 0)
            return dv_operator_at(i);
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
