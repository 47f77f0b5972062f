/* dv_isa.h - the dvsim instruction set: opcodes, formats, encoding.
 *
 * Every instruction is one 64-bit little-endian word.  Bits [7:0] hold the
 * opcode; the format of the instruction (isa_formats.c) places its operand
 * fields in the remaining bits.  Bits a format does not use must be zero, so
 * every valid word has exactly one decoding and one encoding.
 *
 * Everything here is generated from the tables isa.def (instructions),
 * isa_params.def (packed parameter layouts) and isa_csr.def (CSRs). */
#ifndef DV_ISA_H
#define DV_ISA_H

#include "dv_status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    DV_INSN_BYTES = 8,
    DV_NUM_REGS = 32,
    DV_MAX_OPERANDS = 10,
    DV_MAX_EVENT_IDS = 16, /* flag ids per pipe pair: the 4-bit id field (a chip may have fewer) */
    /* A vector repeat: 8 blocks of 32 bytes per operand (facts #12).  The
     * vrep strides count those blocks, the 128-bit mask covers a repeat's
     * 16-bit lanes and a group reduction gives one result per block, so the
     * size is the ISA's, not a chip parameter. */
    DV_VEC_BLOCK_BYTES = 32,
    DV_VEC_REPEAT_BLOCKS = 8,
    DV_VEC_REPEAT_BYTES = DV_VEC_BLOCK_BYTES * DV_VEC_REPEAT_BLOCKS,
};

/* Opcode values (bits [7:0]). */
typedef enum dv_opcode {
#define DV_INSN(id, opc, mn, fmt, pipe, cls, types, doc) DV_OP_##id = opc,
#include "isa.def"
#undef DV_INSN
} dv_opcode;

/* Pipes: the in-order queues of a core (pipes.def).  DV_PIPE_ALL only
 * appears in barriers; DV_PIPE_DYN only in the table, for instructions that
 * name their pipe in a field. */
typedef enum dv_pipe {
#define DV_PIPE_ROW(id, ev, asm_name, lane, key, busy) DV_PIPE_##id,
#include "pipes.def"
#undef DV_PIPE_ROW
    DV_PIPE_ALL,
    DV_PIPE_DYN,
} dv_pipe;
enum { DV_PIPE_COUNT = DV_PIPE_ALL }; /* real queues: S .. FIX */

/* Data paths (paths.def), for bytes-moved statistics and bandwidth figures. */
typedef enum dv_path {
    DV_PATH_NONE,
#define DV_PATH_ROW(id, ev, name, key, src, dst, min, v910, v910b, v310, v910b1, v910b3, doc) DV_PATH_##id,
#include "paths.def"
#undef DV_PATH_ROW
    DV_PATH_COUNT
} dv_path;

/* Timing classes: the chip config gives each one its cost. */
typedef enum dv_tclass {
    DV_TC_CTRL,
    DV_TC_ALU,
    DV_TC_MUL,
    DV_TC_DIV,
    DV_TC_SMEM,
    DV_TC_BRANCH,
    DV_TC_CSR,
    DV_TC_DMA,
    DV_TC_CUBE,
    DV_TC_FIX,
    DV_TC_VBIN,
    DV_TC_VMUL,
    DV_TC_VDIV,
    DV_TC_VUN,
    DV_TC_VEXP,
    DV_TC_VRED,
    DV_TC_VCMP,
    DV_TC_VCONV,
    DV_TC_MASK,
    DV_TC_SYNC,
    DV_TC_COUNT
} dv_tclass;

/* Operand formats. */
typedef enum dv_fmt {
    DV_FMT_NONE,
    DV_FMT_R,
    DV_FMT_I,
    DV_FMT_LI,
    DV_FMT_LIH,
    DV_FMT_LOAD,
    DV_FMT_STORE,
    DV_FMT_BRANCH,
    DV_FMT_JAL,
    DV_FMT_JALR,
    DV_FMT_CSRR,
    DV_FMT_CSRW,
    DV_FMT_MTE,
    DV_FMT_ND2NZ,
    DV_FMT_LOAD2D,
    DV_FMT_SETFM,
    DV_FMT_LOAD3D,
    DV_FMT_MMAD,
    DV_FMT_FIXP,
    DV_FMT_L0CUB,
    DV_FMT_VBIN,
    DV_FMT_VSCAL,
    DV_FMT_VUN,
    DV_FMT_VRED,
    DV_FMT_VCMP,
    DV_FMT_VSEL,
    DV_FMT_VDUP,
    DV_FMT_VCONV,
    DV_FMT_VQUANT,
    DV_FMT_VTRANS,
    DV_FMT_SETMASK,
    DV_FMT_MASKMODE,
    DV_FMT_FLAG,
    DV_FMT_BARRIER,
    DV_FMT_CCSET,
    DV_FMT_CCWAIT,
    DV_FMT_COUNT
} dv_fmt;

/* Operand fields.  A decoded instruction holds one value per field; the
 * simulator reads insn->f[DV_F_DTYPE] and so on.  R0..R4 are the register
 * slots (bits 8, 13, 18, 23, 28; five bits each). */
typedef enum dv_field {
    DV_F_R0,
    DV_F_R1,
    DV_F_R2,
    DV_F_R3,
    DV_F_R4,
    DV_F_IMM,    /* signed 32-bit immediate or memory offset */
    DV_F_UIMM,   /* unsigned 32-bit immediate (lih) */
    DV_F_TARGET, /* PC-relative byte offset of a branch or jump */
    DV_F_CSR,    /* CSR number */
    DV_F_SPACE,
    DV_F_DTYPE,
    DV_F_INIT,
    DV_F_TRANSPOSE,
    DV_F_OUT,
    DV_F_QUANT,
    DV_F_RELU,
    DV_F_NZ2ND,
    DV_F_CMP,
    DV_F_FROM,
    DV_F_TO,
    DV_F_ROUND,
    DV_F_MASKMODE,
    DV_F_SRC,
    DV_F_DST,
    DV_F_PIPE,
    DV_F_ID,
    DV_F_CCMODE,
    DV_F_COUNT
} dv_field;

/* Value sets of enumerated fields.  Order is the encoding. */
typedef enum dv_dtype {
    DV_DT_F16,
    DV_DT_BF16,
    DV_DT_F32,
    DV_DT_S32,
    DV_DT_S16,
    DV_DT_S8,
    DV_DT_U8,
    DV_DT_U16,
    DV_DT_U32,
    DV_DT_COUNT
} dv_dtype;
typedef enum dv_space { DV_SPACE_GM, DV_SPACE_UB, DV_SPACE_L1, DV_SPACE_SDATA, DV_SPACE_COUNT } dv_space;
typedef enum dv_cmp { DV_CMP_LT, DV_CMP_GT, DV_CMP_LE, DV_CMP_GE, DV_CMP_EQ, DV_CMP_NE, DV_CMP_COUNT } dv_cmp;
typedef enum dv_round {
    DV_RND_RNE,
    DV_RND_RZ,
    DV_RND_RD,
    DV_RND_RU,
    DV_RND_RNA,
    DV_RND_ODD,
    DV_RND_COUNT
} dv_round;
typedef enum dv_quant {
    DV_Q_NONE,
    DV_Q_F16,
    DV_Q_BF16,
    DV_Q_DEQ,
    DV_Q_VDEQ,
    DV_Q_REQ,
    DV_Q_VREQ,
    DV_Q_COUNT
} dv_quant;
typedef enum dv_out { DV_OUT_GM, DV_OUT_L1, DV_OUT_COUNT } dv_out;

/* Sets of element types, for the type rules (isa_types.def). */
enum {
    DV_TS_F16 = 1u << DV_DT_F16,
    DV_TS_BF16 = 1u << DV_DT_BF16,
    DV_TS_F32 = 1u << DV_DT_F32,
    DV_TS_S32 = 1u << DV_DT_S32,
    DV_TS_S16 = 1u << DV_DT_S16,
    DV_TS_S8 = 1u << DV_DT_S8,
    DV_TS_U8 = 1u << DV_DT_U8,
    DV_TS_U16 = 1u << DV_DT_U16,
    DV_TS_U32 = 1u << DV_DT_U32,
    DV_TS_FLOAT = DV_TS_F16 | DV_TS_BF16 | DV_TS_F32,
    DV_TS_CONV = DV_TS_FLOAT | DV_TS_S32 | DV_TS_S16 | DV_TS_S8 | DV_TS_U8,
};
typedef enum dv_types {
#define DV_TYPES(id, dtype, from, to, distinct) DV_TYPES_##id,
#include "isa_types.def"
#undef DV_TYPES
    DV_TYPES_COUNT
} dv_types;
typedef enum dv_maskmode { DV_MASK_NORM, DV_MASK_COUNT_MODE, DV_MASKMODE_COUNT } dv_maskmode;

/* How a field is written in assembly. */
typedef enum dv_field_kind {
    DV_FK_REG,    /* positional: x0..x31 or an alias */
    DV_FK_SIMM,   /* positional: expression, signed */
    DV_FK_UIMM,   /* positional: expression, unsigned */
    DV_FK_TARGET, /* positional: label or expression (absolute address) */
    DV_FK_CSR,    /* positional: CSR name or number */
    DV_FK_ENUM,   /* keyed: key=name */
    DV_FK_UINT,   /* keyed: key=number */
} dv_field_kind;

typedef struct dv_field_info {
    const char *key; /* keyword for keyed fields, else a short name */
    dv_field_kind kind;
    const char *const *names; /* DV_FK_ENUM: value names, index = encoding */
    unsigned count;           /* DV_FK_ENUM: number of names */
    const char *doc;
} dv_field_info;

/* One operand of a format: where its field sits in the word. */
typedef struct dv_opspec {
    dv_field field;
    uint8_t lo, width;
    const char *name; /* shown in docs and usage, e.g. "dst" */
    bool required;    /* keyed fields: must be given (otherwise default 0) */
    bool mem_base;    /* this IMM operand is written "imm(reg)" with base in R1 */
} dv_opspec;

typedef struct dv_format {
    const char *name;
    unsigned nops;
    dv_opspec ops[DV_MAX_OPERANDS];
} dv_format;

typedef struct dv_insn_info {
    dv_opcode opcode;
    const char *mnemonic;
    dv_fmt fmt;
    dv_pipe pipe;
    dv_tclass tclass;
    dv_types types; /* the element types it accepts */
    const char *doc;
} dv_insn_info;

/* A decoded instruction: one value per field (unused fields are 0). */
typedef struct dv_insn {
    dv_opcode op;
    int64_t f[DV_F_COUNT];
} dv_insn;

/* ---- tables ---- */
/* isa.def's rows, and opcode -> row + 1 (0 = unassigned): read through
 * dv_isa_info, inline because every simulated instruction asks it. */
extern const dv_insn_info dv_isa_rows[];
extern const unsigned char dv_isa_opcode_rows[256];

static inline const dv_insn_info *dv_isa_info(unsigned opcode) /* NULL if unassigned */
{
    unsigned char i = opcode > 255 ? 0 : dv_isa_opcode_rows[opcode];
    return i ? &dv_isa_rows[i - 1] : NULL;
}
const dv_insn_info *dv_isa_lookup(const char *mnemonic); /* NULL if unknown */
const dv_insn_info *dv_isa_lookup_n(const char *mnemonic, size_t len);
size_t dv_isa_count(void);
const dv_insn_info *dv_isa_at(size_t index); /* table order */
const dv_format *dv_isa_format(dv_fmt fmt);
const dv_field_info *dv_isa_field(dv_field field);
/* The names of pipes.def and paths.def (one column each). */
const char *dv_pipe_name(dv_pipe pipe);       /* in assembly (and "all") */
const char *dv_pipe_trace_name(dv_pipe pipe); /* msprof's lane name (and "ALL") */
const char *dv_pipe_key(dv_pipe pipe);        /* in events and statistics */
const char *dv_path_name(dv_path p);          /* as msprof writes it; "none" */
const char *dv_path_key(dv_path p);           /* in the config, events and statistics */
const char *dv_tclass_name(dv_tclass tc);
const char *dv_dtype_name(dv_dtype dt);
unsigned dv_dtype_size(dv_dtype dt); /* bytes per element */

/* The pipe an instruction is queued in (resolves DV_PIPE_DYN from its fields). */
static inline dv_pipe dv_insn_pipe(const dv_insn *insn)
{
    const dv_insn_info *info = dv_isa_info(insn->op);
    if (!info)
        return DV_PIPE_S;
    if (info->pipe != DV_PIPE_DYN)
        return info->pipe;
    switch (insn->op) {
    case DV_OP_SET_FLAG: return (dv_pipe)insn->f[DV_F_SRC];
    case DV_OP_WAIT_FLAG: return (dv_pipe)insn->f[DV_F_DST];
    default: return (dv_pipe)insn->f[DV_F_PIPE];
    }
}
/* Whether the instruction's dtype / from / to fields obey its type rule
 * (isa_types.def); false with a one-line reason ("dtype u8 is not one of
 * f16, bf16, f32, s32, s16") in why. */
bool dv_isa_types_ok(const dv_insn *insn, char *why, size_t size);
/* The accepted types of a rule in words, made from its sets in dv_dtype
 * order ("f16, bf16, s8, u8", "s32 to f16 or f32"), for docs.  Returns buf. */
const char *dv_types_doc(dv_types t, char *buf, size_t size);

/* ---- encoding ---- */
/* Fails with DV_ERR_INPUT when a field value does not fit its width or enum. */
dv_status dv_isa_encode(const dv_insn *insn, uint64_t *word, dv_error *err);
/* Fails with DV_ERR_INPUT for unassigned opcodes, non-zero unused bits and
 * out-of-range enum values. */
dv_status dv_isa_decode(uint64_t word, dv_insn *insn, dv_error *err);

/* ---- CSRs ---- */
typedef struct dv_csr_info {
    unsigned number;
    const char *name;
    bool writable;
    const char *doc;
} dv_csr_info;
typedef enum dv_csr_id {
#define DV_CSR(id, num, name, wr, doc) DV_CSR_##id = num,
#include "isa_csr.def"
#undef DV_CSR
} dv_csr_id;
const dv_csr_info *dv_csr_by_number(unsigned number); /* NULL if none */
const dv_csr_info *dv_csr_by_name(const char *name);
size_t dv_csr_count(void);
const dv_csr_info *dv_csr_at(size_t index);

/* ---- packed parameter layouts ---- */
typedef enum dv_layout_id {
#define DV_LAYOUT(id, name, doc) DV_LAYOUT_##id,
#define DV_LFIELD(l, key, lo, w, doc)
#include "isa_params.def"
#undef DV_LAYOUT
#undef DV_LFIELD
    DV_LAYOUT_COUNT
} dv_layout_id;

typedef struct dv_lfield {
    const char *key;
    uint8_t lo, width;
    const char *doc;
} dv_lfield;

enum { DV_LAYOUT_MAX_FIELDS = 8 };
typedef struct dv_layout {
    const char *name;
    const char *doc;
    unsigned nfields;
    dv_lfield fields[DV_LAYOUT_MAX_FIELDS];
} dv_layout;

const dv_layout *dv_layout_get(dv_layout_id id);
const dv_layout *dv_layout_find(const char *name); /* NULL if unknown */
/* Value of field `key` (must exist) packed in `word`. */
uint64_t dv_layout_extract(const dv_layout *layout, uint64_t word, const char *key);
/* Field by index, for hot paths: (word >> lo) & mask. */
static inline uint64_t dv_lfield_get(const dv_lfield *f, uint64_t word)
{
    return (word >> f->lo) & ((f->width >= 64) ? ~0ull : ((1ull << f->width) - 1));
}

/* ---- text ---- */
/* Formats one instruction in the assembler's syntax.  `pc` is its address;
 * label_of (may be NULL) names branch targets, else they print as absolute
 * addresses.  Returns the length written (truncated to size). */
typedef const char *(*dv_label_fn)(void *user, uint64_t address);
size_t dv_isa_format_insn(const dv_insn *insn, uint64_t pc, dv_label_fn label_of, void *user, char *buf,
                          size_t size);

/* "vadd dst, src0, src1, vrep, dtype=f16|bf16|..." - the operand syntax of an
 * instruction, for usage messages and docs. */
size_t dv_isa_syntax(const dv_insn_info *info, char *buf, size_t size);

/* Writes the Markdown reference page to buf (malloc'd, NUL-terminated). */
dv_status dv_isa_markdown(char **out, dv_error *err);

#endif
