/* paths.c - names and bandwidths of the data paths. */
#include "dv_unit.h"

const char *dv_path_name(dv_path p)
{
    static const char *const names[DV_PATH_COUNT] = {"none",    "GM->L1",  "GM->UB",  "UB->GM",
                                                     "UB->L1",  "L1->UB",  "L1->L0A", "L1->L0B",
                                                     "L0C->UB", "L0C->GM", "L0C->L1"};
    return (unsigned)p < DV_PATH_COUNT ? names[p] : "?";
}

uint64_t dv_path_bw(const dv_chip_config *cfg, dv_path p)
{
    switch (p) {
    case DV_PATH_GM_L1: return cfg->bw_gm_l1;
    case DV_PATH_GM_UB: return cfg->bw_gm_ub;
    case DV_PATH_UB_GM: return cfg->bw_ub_gm;
    case DV_PATH_UB_L1: return cfg->bw_ub_l1;
    case DV_PATH_L1_UB: return cfg->bw_l1_ub;
    case DV_PATH_L1_L0A: return cfg->bw_l1_l0a;
    case DV_PATH_L1_L0B: return cfg->bw_l1_l0b;
    case DV_PATH_L0C_UB: return cfg->bw_l0c_ub;
    case DV_PATH_L0C_GM: return cfg->bw_l0c_gm;
    case DV_PATH_L0C_L1: return cfg->bw_l0c_l1;
    default: return 0;
    }
}
