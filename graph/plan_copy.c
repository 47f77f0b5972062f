/* plan_copy.c - a permute step computed from its parameters alone (the
 * plain N-D index mapping of kernels/permute, written again here from the
 * operator's declaration, `dvsim ops permute`): y[.., CO + i_CA, ..] =
 * x[O + i] with the outer dims in PERM's order.  y outside the window keeps
 * what earlier steps wrote (the inputs of a Concat, one step each), 0 if
 * none did. */
#include "plan_priv.h"

#include <stdlib.h>
#include <string.h>

static int64_t key(const char *params, const char *k)
{
    size_t n = strlen(k);
    for (const char *p = params; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, k, n) == 0 && p[n] == '=')
            return strtoll(p + n + 1, NULL, 10);
    return 0;
}

dv_status plan_exec_permute(pref *r, const dv_plan_step *s, double *const *in)
{
    static const char *const nk[] = {"N0", "N1", "N2", "N3"}, *const ok[] = {"O0", "O1", "O2", "O3"},
                             *const ek[] = {"E0", "E1", "E2", "E3"};
    int64_t N[4], O[4], E[4], B[4], Y[4], perm = key(s->params, "PERM"), P[4];
    if (!strstr(s->params, "PERM="))
        perm = 123;
    for (int k = 3; k >= 0; k--, perm /= 10)
        P[k] = perm % 10;
    for (int d = 0; d < 4; d++) {
        N[d] = key(s->params, nk[d]);
        O[d] = key(s->params, ok[d]);
        E[d] = key(s->params, ek[d]);
        E[d] = E[d] ? E[d] : N[d] - O[d];
    }
    for (int k = 0; k < 4; k++)
        B[k] = Y[k] = E[P[k]];
    int64_t ca = key(s->params, "CA"), cn = key(s->params, "CN"), co = key(s->params, "CO");
    Y[ca] = cn ? cn : B[ca];
    int64_t ny = Y[0] * Y[1] * Y[2] * Y[3];
    const dv_plan_tensor *t = &r->p->t[s->out[0]];
    int64_t have = 1;
    for (int d = 0; d < t->rank; d++)
        have *= t->dims[d];
    if (have != ny)
        return dv_error_set(r->err, DV_ERR_INTERNAL,
                            "plan step permute (%s): its parameters make %lld elements, "
                            "'%s' has %lld",
                            s->params, (long long)ny, t->name, (long long)have);
    double **slot = t->gt >= 0 ? &r->v->t[t->gt].data : &r->pv[s->out[0]];
    if (!*slot && !(*slot = calloc((size_t)(ny ? ny : 1), sizeof **slot)))
        return dv_error_set(r->err, DV_ERR_NOMEM, "out of memory");
    double *y = *slot;
    int64_t i[4];
    for (i[0] = 0; i[0] < B[0]; i[0]++)
        for (i[1] = 0; i[1] < B[1]; i[1]++)
            for (i[2] = 0; i[2] < B[2]; i[2]++)
                for (i[3] = 0; i[3] < B[3]; i[3]++) {
                    int64_t xi[4], yi[4], xo = 0, yo = 0;
                    for (int k = 0; k < 4; k++) {
                        xi[P[k]] = O[P[k]] + i[k];
                        yi[k] = i[k] + (k == ca ? co : 0);
                    }
                    for (int d = 0; d < 4; d++) {
                        xo = xo * N[d] + xi[d];
                        yo = yo * Y[d] + yi[d];
                    }
                    y[yo] = in[0][xo];
                }
    return DV_OK;
}
