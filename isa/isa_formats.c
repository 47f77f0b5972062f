/* isa_formats.c - operand fields and formats: where each operand of each
 * instruction format sits in the 64-bit word. */
#include "dv_isa.h"

static const char *const dtype_names[] = {"f16", "bf16", "f32", "s32", "s16", "s8", "u8", "u16", "u32"};
static const char *const space_names[] = {"gm", "ub", "l1", "sdata"};
static const char *const cmp_names[] = {"lt", "gt", "le", "ge", "eq", "ne"};
static const char *const round_names[] = {"rne", "rz", "rd", "ru", "rna", "odd"};
static const char *const quant_names[] = {"none", "f16", "bf16", "deq", "vdeq", "req", "vreq"};
static const char *const out_names[] = {"gm", "l1"};
static const char *const maskmode_names[] = {"norm", "count"};
static const char *const pipe_names[] = {
#define DV_PIPE_ROW(id, ev, asm_name, lane, key, busy) asm_name,
#include "pipes.def"
#undef DV_PIPE_ROW
    "all"};

#define ENUM(arr) arr, (unsigned)(sizeof arr / sizeof arr[0])

static const dv_field_info fields[DV_F_COUNT] = {
    [DV_F_R0] = {"r0", DV_FK_REG, NULL, 0, "register"},
    [DV_F_R1] = {"r1", DV_FK_REG, NULL, 0, "register"},
    [DV_F_R2] = {"r2", DV_FK_REG, NULL, 0, "register"},
    [DV_F_R3] = {"r3", DV_FK_REG, NULL, 0, "register"},
    [DV_F_R4] = {"r4", DV_FK_REG, NULL, 0, "register"},
    [DV_F_IMM] = {"imm", DV_FK_SIMM, NULL, 0, "signed 32-bit immediate"},
    [DV_F_UIMM] = {"imm", DV_FK_UIMM, NULL, 0, "unsigned 32-bit immediate"},
    [DV_F_TARGET] = {"target", DV_FK_TARGET, NULL, 0,
                     "label; encoded as a signed 32-bit PC-relative byte offset"},
    [DV_F_CSR] = {"csr", DV_FK_CSR, NULL, 0, "CSR name or number (12 bits)"},
    [DV_F_SPACE] = {"space", DV_FK_ENUM, ENUM(space_names), "address space of a scalar access"},
    [DV_F_DTYPE] = {"dtype", DV_FK_ENUM, ENUM(dtype_names), "element type"},
    [DV_F_INIT] = {"init", DV_FK_UINT, NULL, 0, "1: C = A*B, 0: C += A*B"},
    [DV_F_TRANSPOSE] = {"transpose", DV_FK_UINT, NULL, 0, "1: transpose each fractal"},
    [DV_F_OUT] = {"out", DV_FK_ENUM, ENUM(out_names), "destination buffer"},
    [DV_F_QUANT] = {"quant", DV_FK_ENUM, ENUM(quant_names), "conversion on the output path"},
    [DV_F_RELU] = {"relu", DV_FK_UINT, NULL, 0, "1: apply ReLU"},
    [DV_F_NZ2ND] = {"nz2nd", DV_FK_UINT, NULL, 0, "1: write row-major ND instead of NZ fractals"},
    [DV_F_CMP] = {"cmp", DV_FK_ENUM, ENUM(cmp_names), "comparison"},
    [DV_F_FROM] = {"from", DV_FK_ENUM, ENUM(dtype_names), "source element type"},
    [DV_F_TO] = {"to", DV_FK_ENUM, ENUM(dtype_names), "destination element type"},
    [DV_F_ROUND] = {"round", DV_FK_ENUM, ENUM(round_names),
                    "rounding: nearest-even, toward zero, down, up, nearest-away, odd"},
    [DV_F_MASKMODE] = {"mode", DV_FK_ENUM, ENUM(maskmode_names), "mask mode"},
    [DV_F_SRC] = {"src", DV_FK_ENUM, ENUM(pipe_names), "source pipe"},
    [DV_F_DST] = {"dst", DV_FK_ENUM, ENUM(pipe_names), "destination pipe"},
    [DV_F_PIPE] = {"pipe", DV_FK_ENUM, ENUM(pipe_names), "pipe"},
    [DV_F_ID] = {"id", DV_FK_UINT, NULL, 0, "event id (0-15; the chip config sets how many exist)"},
    [DV_F_CCMODE] = {"mode", DV_FK_UINT, NULL, 0, "cross-core mode 0, 1 or 2"},
};

/* Register slots and common fields. */
#define R(slot, nm)                                                                                          \
    {                                                                                                        \
        DV_F_R##slot, (uint8_t)(8 + 5 * (slot)), 5, nm, true, false                                          \
    }
#define IMM32(nm)                                                                                            \
    {                                                                                                        \
        DV_F_IMM, 32, 32, nm, true, false                                                                    \
    }
#define MEM                                                                                                  \
    {                                                                                                        \
        DV_F_IMM, 32, 32, "offset(base)", true, true                                                         \
    }
#define KEY(f, lo, w)                                                                                        \
    {                                                                                                        \
        DV_F_##f, lo, w, NULL, false, false                                                                  \
    }
#define KEYREQ(f, lo, w)                                                                                     \
    {                                                                                                        \
        DV_F_##f, lo, w, NULL, true, false                                                                   \
    }
/* Keyed tensor fields start at bit 33, above the five register slots. */
#define DTYPE KEY(DTYPE, 33, 4)

static const dv_format formats[DV_FMT_COUNT] = {
    [DV_FMT_NONE] = {"none", 0, {{0}}},
    [DV_FMT_R] = {"r", 3, {R(0, "rd"), R(1, "rs1"), R(2, "rs2")}},
    [DV_FMT_I] = {"i", 3, {R(0, "rd"), R(1, "rs1"), IMM32("imm")}},
    [DV_FMT_LI] = {"li", 2, {R(0, "rd"), IMM32("imm")}},
    [DV_FMT_LIH] = {"lih", 2, {R(0, "rd"), {DV_F_UIMM, 32, 32, "imm", true, false}}},
    /* The base register sits in slot R1; the space in bits [19:18]. */
    [DV_FMT_LOAD] = {"load", 3, {R(0, "rd"), MEM, KEY(SPACE, 18, 2)}},
    [DV_FMT_STORE] = {"store", 3, {R(0, "rs"), MEM, KEY(SPACE, 18, 2)}},
    [DV_FMT_BRANCH] = {"branch", 3, {R(0, "rs1"), R(1, "rs2"), {DV_F_TARGET, 32, 32, "target", true, false}}},
    [DV_FMT_JAL] = {"jal", 2, {R(0, "rd"), {DV_F_TARGET, 32, 32, "target", true, false}}},
    [DV_FMT_JALR] = {"jalr", 3, {R(0, "rd"), R(1, "rs1"), IMM32("imm")}},
    [DV_FMT_CSRR] = {"csrr", 2, {R(0, "rd"), {DV_F_CSR, 32, 12, "csr", true, false}}},
    [DV_FMT_CSRW] = {"csrw", 2, {{DV_F_CSR, 32, 12, "csr", true, false}, R(1, "rs")}},
    [DV_FMT_MTE] = {"mte", 3, {R(0, "dst"), R(1, "src"), R(2, "burst")}},
    [DV_FMT_ND2NZ] = {"nd2nz", 5, {R(0, "dst"), R(1, "src"), R(2, "nd2nz0"), R(3, "nd2nz1"), DTYPE}},
    [DV_FMT_LOAD2D] = {"load2d", 5, {R(0, "dst"), R(1, "src"), R(2, "load2d"), DTYPE, KEY(TRANSPOSE, 37, 1)}},
    [DV_FMT_SETFM] = {"setfm", 1, {R(0, "fmatrix")}},
    [DV_FMT_LOAD3D] = {"load3d", 5, {R(0, "dst"), R(1, "src"), R(2, "img2col"), R(3, "img2colpos"), DTYPE}},
    [DV_FMT_MMAD] = {"mmad", 6, {R(0, "c"), R(1, "a"), R(2, "b"), R(3, "mmad"), DTYPE, KEY(INIT, 37, 1)}},
    [DV_FMT_FIXP] = {"fixp",
                     8,
                     {R(0, "dst"), R(1, "src"), R(2, "fixp"), R(3, "q"), KEY(OUT, 33, 1), KEY(QUANT, 34, 3),
                      KEY(RELU, 37, 1), KEY(NZ2ND, 38, 1)}},
    [DV_FMT_L0CUB] = {"l0cub",
                      6,
                      {R(0, "dst"), R(1, "src"), R(2, "burst"), R(3, "q"), KEY(QUANT, 34, 3),
                       KEY(RELU, 37, 1)}},
    [DV_FMT_VBIN] = {"vbin", 5, {R(0, "dst"), R(1, "src0"), R(2, "src1"), R(3, "vrep"), DTYPE}},
    [DV_FMT_VSCAL] = {"vscal", 5, {R(0, "dst"), R(1, "src"), R(2, "scalar"), R(3, "vrep"), DTYPE}},
    [DV_FMT_VUN] = {"vun", 4, {R(0, "dst"), R(1, "src"), R(2, "vrep"), DTYPE}},
    [DV_FMT_VRED] = {"vred", 4, {R(0, "dst"), R(1, "src"), R(2, "vrep"), DTYPE}},
    [DV_FMT_VCMP] = {"vcmp",
                     6,
                     {R(0, "dst"), R(1, "src0"), R(2, "src1"), R(3, "vrep"), DTYPE, KEYREQ(CMP, 37, 3)}},
    [DV_FMT_VSEL] = {"vsel", 6, {R(0, "dst"), R(1, "src0"), R(2, "src1"), R(3, "vrep"), R(4, "sel"), DTYPE}},
    [DV_FMT_VDUP] = {"vdup", 4, {R(0, "dst"), R(1, "scalar"), R(2, "vrep"), DTYPE}},
    [DV_FMT_VCONV] = {"vconv",
                      6,
                      {R(0, "dst"), R(1, "src"), R(2, "vrep"), KEYREQ(FROM, 33, 4), KEYREQ(TO, 37, 4),
                       KEY(ROUND, 41, 3)}},
    [DV_FMT_VQUANT] = {"vquant",
                       7,
                       {R(0, "dst"), R(1, "src"), R(2, "scale"), R(3, "vrep"), KEYREQ(FROM, 33, 4),
                        KEYREQ(TO, 37, 4), KEY(ROUND, 41, 3)}},
    [DV_FMT_VTRANS] = {"vtrans", 3, {R(0, "dst"), R(1, "src"), DTYPE}},
    [DV_FMT_SETMASK] = {"setmask", 2, {R(0, "hi"), R(1, "lo")}},
    [DV_FMT_MASKMODE] = {"maskmode", 1, {KEYREQ(MASKMODE, 33, 1)}},
    [DV_FMT_FLAG] = {"flag", 3, {KEYREQ(SRC, 33, 3), KEYREQ(DST, 36, 3), KEYREQ(ID, 39, 4)}},
    [DV_FMT_BARRIER] = {"barrier", 1, {KEYREQ(PIPE, 33, 3)}},
    [DV_FMT_CCSET] = {"ccset", 3, {KEYREQ(PIPE, 33, 3), KEYREQ(CCMODE, 36, 2), KEYREQ(ID, 39, 4)}},
    [DV_FMT_CCWAIT] = {"ccwait", 2, {KEYREQ(PIPE, 33, 3), KEYREQ(ID, 39, 4)}},
};

const dv_format *dv_isa_format(dv_fmt fmt)
{
    return (unsigned)fmt < DV_FMT_COUNT ? &formats[fmt] : NULL;
}

const dv_field_info *dv_isa_field(dv_field field)
{
    return (unsigned)field < DV_F_COUNT ? &fields[field] : NULL;
}

const char *dv_pipe_name(dv_pipe pipe)
{
    return (unsigned)pipe <= DV_PIPE_ALL ? pipe_names[pipe] : (pipe == DV_PIPE_DYN ? "(field)" : "?");
}

const char *dv_pipe_trace_name(dv_pipe pipe)
{
    static const char *const names[] = {
#define DV_PIPE_ROW(id, ev, asm_name, lane, key, busy) lane,
#include "pipes.def"
#undef DV_PIPE_ROW
        "ALL"};
    return (unsigned)pipe <= DV_PIPE_ALL ? names[pipe] : "?";
}

const char *dv_pipe_key(dv_pipe pipe)
{
    static const char *const keys[] = {
#define DV_PIPE_ROW(id, ev, asm_name, lane, key, busy) key,
#include "pipes.def"
#undef DV_PIPE_ROW
    };
    return (unsigned)pipe < DV_PIPE_COUNT ? keys[pipe] : "?";
}

static const struct {
    const char *name, *key;
} paths[DV_PATH_COUNT] = {
    {"none", "none"},
#define DV_PATH_ROW(id, ev, name, key, src, dst, min, v910, v910b, v310, v910b1, v910b3, doc) {name, key},
#include "paths.def"
#undef DV_PATH_ROW
};

const char *dv_path_name(dv_path p)
{
    return (unsigned)p < DV_PATH_COUNT ? paths[p].name : "?";
}

const char *dv_path_key(dv_path p)
{
    return (unsigned)p < DV_PATH_COUNT ? paths[p].key : "?";
}

const char *dv_dtype_name(dv_dtype dt)
{
    return (unsigned)dt < DV_DT_COUNT ? dtype_names[dt] : "?";
}

unsigned dv_dtype_size(dv_dtype dt)
{
    static const unsigned sizes[DV_DT_COUNT] = {2, 2, 4, 4, 2, 1, 1, 2, 4};
    return (unsigned)dt < DV_DT_COUNT ? sizes[dt] : 0;
}

const char *dv_tclass_name(dv_tclass tc)
{
    static const char *const names[DV_TC_COUNT] = {"ctrl", "alu",  "mul",  "div",   "smem", "branch", "csr",
                                                   "dma",  "cube", "fix",  "vbin",  "vmul", "vdiv",   "vun",
                                                   "vexp", "vred", "vcmp", "vconv", "mask", "sync"};
    return (unsigned)tc < DV_TC_COUNT ? names[tc] : "?";
}
