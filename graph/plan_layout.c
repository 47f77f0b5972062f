/* plan_layout.c - an activation's f16 bytes in GM, in its plan layout, to
 * its logical values and back: what the graph runner's host steps and
 * layout conversions do on the host (the layouts as compile_layout.c sizes
 * them: ND16 rows padded to 16 elements, matmul's ldc; NC1HWC0 [N, C1, H,
 * W, 16], conv2d's activations).  Padding is written as zero: the device
 * operators that read the padded lanes (conv2d's C0, matmul's ldc) expect
 * zeros there. */
#include "dv_fp.h"
#include "plan_sched.h"

#include <string.h>

int64_t playout_count(const dv_plan_tensor *t)
{
    int64_t c = 1;
    for (int d = 0; d < t->rank; d++)
        c *= t->dims[d];
    return c;
}

/* The GM element index of logical element e, or -1 for a layout it does not convert. */
static int64_t gm_index(const dv_plan_tensor *t, int64_t e)
{
    switch (t->layout) {
    case DV_TL_ND: return e;
    case DV_TL_ND16: {
        int64_t cols = t->rank ? t->dims[t->rank - 1] : 1, ld = (cols + 15) / 16 * 16;
        return cols ? e / cols * ld + e % cols : 0;
    }
    case DV_TL_NC1HWC0: {
        if (t->rank != 4)
            return -1;
        int64_t C = t->dims[1], H = t->dims[2], W = t->dims[3], hw = H * W, c1 = (C + 15) / 16;
        int64_t w = e % W, h = e / W % H, c = e / hw % C, n = e / (hw * C);
        return (((n * c1 + c / 16) * H + h) * W + w) * 16 + c % 16;
    }
    default: return -1;
    }
}

static dv_status unsupported(const dv_plan_tensor *t, dv_error *err)
{
    return dv_error_set(err, DV_ERR_INTERNAL, "graph run: tensor '%s' is an activation in layout %s", t->name,
                        dv_tlayout_name(t->layout));
}

dv_status playout_to_logical(const dv_plan_tensor *t, const uint8_t *gm, double *out, dv_error *err)
{
    int64_t n = playout_count(t);
    const float *tab = dv_fp16_table();
    for (int64_t e = 0; e < n; e++) {
        int64_t i = gm_index(t, e);
        if (i < 0 || (uint64_t)i * 2 + 2 > t->bytes)
            return unsupported(t, err);
        uint16_t h;
        memcpy(&h, gm + 2 * i, 2);
        out[e] = tab[h];
    }
    return DV_OK;
}

dv_status playout_from_logical(const dv_plan_tensor *t, const double *in, uint8_t *gm, dv_error *err)
{
    int64_t n = playout_count(t);
    memset(gm, 0, t->bytes);
    for (int64_t e = 0; e < n; e++) {
        int64_t i = gm_index(t, e);
        if (i < 0 || (uint64_t)i * 2 + 2 > t->bytes)
            return unsupported(t, err);
        uint16_t h = dv_f64_to_fp16(in[e]);
        memcpy(gm + 2 * i, &h, 2);
    }
    return DV_OK;
}
