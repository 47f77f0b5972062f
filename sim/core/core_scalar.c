/* core_scalar.c - the Scalar unit: fetch, scalar instructions, CSRs, and
 * dispatch of everything else into the pipe queues. */
#include "core_scalar.h"

#include "core_async.h"
#include "core_base.h"
#include "core_cc.h"
#include "core_pipes.h"
#include "core_trace.h"
#include "dv_text.h"

#include <string.h>

static uint64_t sx32(int64_t v)
{
    return (uint64_t)(int64_t)(int32_t)v;
}

static bool scalar_mem(dv_core *c, const dv_insn *in, uint64_t addr, unsigned size, bool write, uint8_t **out)
{
    dv_access_fault f = {DV_FAULT_NONE, DV_MEM_GM, 0, 0, 0};
    uint8_t *p = NULL;
    switch ((dv_space)in->f[DV_F_SPACE]) {
    case DV_SPACE_GM: p = dv_gm_span(c->gm, addr, size, &f); break;
    case DV_SPACE_UB: p = dv_mem_span(&c->mem[DV_MEM_UB], addr, size, size, &f); break;
    case DV_SPACE_L1: p = dv_mem_span(&c->mem[DV_MEM_L1], addr, size, size, &f); break;
    case DV_SPACE_SDATA: p = dv_mem_span(&c->sdata, addr, size, size, &f); break;
    default: break;
    }
    if (!p) {
        char what[256];
        dv_access_fault_describe(&f, what, sizeof what);
        core_fault(c, DV_PIPE_S, c->pc, "%s: %s", dv_isa_info(in->op)->mnemonic, what);
        return false;
    }
    *out = p;
    if (in->f[DV_F_SPACE] != DV_SPACE_SDATA) /* after the work in flight it overlaps */
        core_async_touch(c,
                         in->f[DV_F_SPACE] == DV_SPACE_GM   ? DV_MEM_GM
                         : in->f[DV_F_SPACE] == DV_SPACE_UB ? DV_MEM_UB
                                                            : DV_MEM_L1,
                         addr, size, write);
    if (c->hooks && c->hooks->access && in->f[DV_F_SPACE] != DV_SPACE_SDATA)
        core_trace_scalar_access(c,
                                 in->f[DV_F_SPACE] == DV_SPACE_GM   ? DV_MEM_GM
                                 : in->f[DV_F_SPACE] == DV_SPACE_UB ? DV_MEM_UB
                                                                    : DV_MEM_L1,
                                 addr, size, write);
    return true;
}

static uint64_t load_le(const uint8_t *p, unsigned size)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static bool csr_read(dv_core *c, unsigned csr, uint64_t *v)
{
    switch (csr) {
    case DV_CSR_COREID: *v = c->core_id; return true;
    case DV_CSR_BLOCKIDX: *v = c->block_idx; return true;
    case DV_CSR_BLOCKDIM: *v = c->block_dim; return true;
    case DV_CSR_CORETYPE: *v = c->core_type; return true;
    case DV_CSR_SUBIDX: *v = c->sub_idx; return true;
    case DV_CSR_SUBDIM: *v = c->sub_dim; return true;
    case DV_CSR_CYCLE: *v = c->q->now; return true;
    case DV_CSR_INSTRET: *v = c->instret; return true;
    default: return false;
    }
}

/* A latency of 0 in a chip config still takes a cycle. */
static uint64_t cycles_of(uint64_t lat)
{
    return lat ? lat : 1;
}

static void write_rd(dv_core *c, const dv_insn *in, uint64_t r)
{
    if (in->f[DV_F_R0] != 0)
        c->regs[in->f[DV_F_R0]] = r;
}

/* The arithmetic and logic instructions: *r and *lat, or false if `in` is
 * none of them.  Division by zero and INT64_MIN / -1 give RISC-V's results. */
static bool alu_op(const dv_chip_config *cfg, const dv_insn *in, const uint64_t *x, uint64_t *r,
                   uint64_t *lat)
{
    uint64_t a = x[in->f[DV_F_R1]], b = x[in->f[DV_F_R2]];
    int64_t imm = in->f[DV_F_IMM];
    bool overflow = (int64_t)a == INT64_MIN && (int64_t)b == -1;
    switch (in->op) {
    case DV_OP_ADD: *r = a + b; break;
    case DV_OP_SUB: *r = a - b; break;
    case DV_OP_MUL: *r = a * b, *lat = cfg->s_mul_cycles; break;
    case DV_OP_MULH:
        *r = (uint64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64), *lat = cfg->s_mul_cycles;
        break;
    case DV_OP_DIV:
        *r = b == 0 ? ~0ull : overflow ? a : (uint64_t)((int64_t)a / (int64_t)b), *lat = cfg->s_div_cycles;
        break;
    case DV_OP_DIVU: *r = b == 0 ? ~0ull : a / b, *lat = cfg->s_div_cycles; break;
    case DV_OP_REM:
        *r = b == 0 ? a : overflow ? 0 : (uint64_t)((int64_t)a % (int64_t)b), *lat = cfg->s_div_cycles;
        break;
    case DV_OP_REMU: *r = b == 0 ? a : a % b, *lat = cfg->s_div_cycles; break;
    case DV_OP_AND: *r = a & b; break;
    case DV_OP_OR: *r = a | b; break;
    case DV_OP_XOR: *r = a ^ b; break;
    case DV_OP_SLL: *r = a << (b & 63); break;
    case DV_OP_SRL: *r = a >> (b & 63); break;
    case DV_OP_SRA: *r = (uint64_t)((int64_t)a >> (b & 63)); break;
    case DV_OP_SLT: *r = (int64_t)a < (int64_t)b; break;
    case DV_OP_SLTU: *r = a < b; break;
    case DV_OP_MIN: *r = (int64_t)a < (int64_t)b ? a : b; break;
    case DV_OP_MAX: *r = (int64_t)a > (int64_t)b ? a : b; break;
    case DV_OP_MINU: *r = a < b ? a : b; break;
    case DV_OP_MAXU: *r = a > b ? a : b; break;
    case DV_OP_ADDI: *r = a + (uint64_t)imm; break;
    case DV_OP_MULI: *r = a * (uint64_t)imm, *lat = cfg->s_mul_cycles; break;
    case DV_OP_ANDI: *r = a & (uint64_t)imm; break;
    case DV_OP_ORI: *r = a | (uint64_t)imm; break;
    case DV_OP_XORI: *r = a ^ (uint64_t)imm; break;
    case DV_OP_SLLI: *r = a << (imm & 63); break;
    case DV_OP_SRLI: *r = a >> (imm & 63); break;
    case DV_OP_SRAI: *r = (uint64_t)((int64_t)a >> (imm & 63)); break;
    case DV_OP_SLTI: *r = (int64_t)a < imm; break;
    case DV_OP_SLTIU: *r = a < (uint64_t)imm; break;
    case DV_OP_LI: *r = sx32(imm); break;
    case DV_OP_LIH: *r = (x[in->f[DV_F_R0]] & 0xffffffffull) | ((uint64_t)in->f[DV_F_UIMM] << 32); break;
    default: return false;
    }
    return true;
}

/* lb .. ld: little-endian, sign- or zero-extended. */
static uint64_t exec_load(dv_core *c, const dv_insn *in)
{
    static const unsigned size[] = {1, 1, 2, 2, 4, 4, 8};
    unsigned k = (unsigned)(in->op - DV_OP_LB), n = size[k];
    uint8_t *p;
    if (!scalar_mem(c, in, c->regs[in->f[DV_F_R1]] + (uint64_t)in->f[DV_F_IMM], n, false, &p))
        return 0;
    uint64_t r = load_le(p, n);
    bool sign = k == 0 || k == 2 || k == 4;
    if (sign && n < 8 && (r >> (8 * n - 1)) & 1)
        r |= ~0ull << (8 * n);
    write_rd(c, in, r);
    return cycles_of(c->cfg->s_mem_cycles);
}

/* sb .. sd: the low bytes of rs, little-endian. */
static uint64_t exec_store(dv_core *c, const dv_insn *in)
{
    unsigned n = 1u << (in->op - DV_OP_SB);
    uint8_t *p;
    if (!scalar_mem(c, in, c->regs[in->f[DV_F_R1]] + (uint64_t)in->f[DV_F_IMM], n, true, &p))
        return 0;
    uint64_t v = c->regs[in->f[DV_F_R0]];
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return cycles_of(c->cfg->s_mem_cycles);
}

/* A conditional branch costs an ALU cycle, taken the branch latency. */
static uint64_t exec_branch(dv_core *c, const dv_insn *in, uint64_t *next_pc)
{
    uint64_t s1 = c->regs[in->f[DV_F_R0]], s2 = c->regs[in->f[DV_F_R1]];
    bool t;
    switch (in->op) {
    case DV_OP_BEQ: t = s1 == s2; break;
    case DV_OP_BNE: t = s1 != s2; break;
    case DV_OP_BLT: t = (int64_t)s1 < (int64_t)s2; break;
    case DV_OP_BGE: t = (int64_t)s1 >= (int64_t)s2; break;
    case DV_OP_BLTU: t = s1 < s2; break;
    default: t = s1 >= s2; break;
    }
    if (!t)
        return cycles_of(c->cfg->s_alu_cycles);
    *next_pc = c->pc + (uint64_t)in->f[DV_F_TARGET];
    return cycles_of(c->cfg->s_branch_cycles);
}

/* csrr: the core's identity and clocks, then the PMU's registers. */
static uint64_t exec_csrr(dv_core *c, const dv_insn *in)
{
    unsigned csr = (unsigned)in->f[DV_F_CSR];
    uint64_t r;
    if (!csr_read(c, csr, &r) && !dv_pmu_read(&c->pmu, csr, &r)) {
        core_fault(c, DV_PIPE_S, c->pc, "csrr: CSR 0x%03x does not exist", csr);
        return 0;
    }
    write_rd(c, in, r);
    return cycles_of(c->cfg->s_alu_cycles);
}

/* csrw: only the writable CSRs of the table, which are the PMU's. */
static uint64_t exec_csrw(dv_core *c, const dv_insn *in)
{
    unsigned csr = (unsigned)in->f[DV_F_CSR];
    const dv_csr_info *ci = dv_csr_by_number(csr);
    char why[160] = "not writable";
    if (!ci || !ci->writable || !dv_pmu_write(&c->pmu, csr, c->regs[in->f[DV_F_R1]], why, sizeof why)) {
        core_fault(c, DV_PIPE_S, c->pc, "csrw: %s: %s", ci ? ci->name : "CSR", ci ? why : "does not exist");
        return 0;
    }
    return cycles_of(c->cfg->s_alu_cycles);
}

/* Runs one scalar instruction; returns its latency, or 0 after a fault. */
static uint64_t exec_scalar(dv_core *c, const dv_insn *in, uint64_t *next_pc)
{
    uint64_t r = 0, lat = c->cfg->s_alu_cycles;
    if (alu_op(c->cfg, in, c->regs, &r, &lat)) {
        write_rd(c, in, r);
        return cycles_of(lat);
    }
    switch (in->op) {
    case DV_OP_NOP: return cycles_of(lat);
    case DV_OP_LB:
    case DV_OP_LBU:
    case DV_OP_LH:
    case DV_OP_LHU:
    case DV_OP_LW:
    case DV_OP_LWU:
    case DV_OP_LD: return exec_load(c, in);
    case DV_OP_SB:
    case DV_OP_SH:
    case DV_OP_SW:
    case DV_OP_SD: return exec_store(c, in);
    case DV_OP_BEQ:
    case DV_OP_BNE:
    case DV_OP_BLT:
    case DV_OP_BGE:
    case DV_OP_BLTU:
    case DV_OP_BGEU: return exec_branch(c, in, next_pc);
    case DV_OP_JAL:
    case DV_OP_JALR:
        /* the target first: jalr's base may be its link register */
        *next_pc = in->op == DV_OP_JAL ? c->pc + (uint64_t)in->f[DV_F_TARGET]
                                       : c->regs[in->f[DV_F_R1]] + (uint64_t)in->f[DV_F_IMM];
        write_rd(c, in, c->pc + DV_INSN_BYTES);
        return cycles_of(c->cfg->s_branch_cycles);
    case DV_OP_CSRR: return exec_csrr(c, in);
    case DV_OP_CSRW: return exec_csrw(c, in);
    default:
        core_fault(c, DV_PIPE_S, c->pc, "%s is not a scalar instruction", dv_isa_info(in->op)->mnemonic);
        return 0;
    }
}

/* The fault of a word that does not decode, with the decoder's reason
 * (decoded again: the cache keeps only that it failed). */
static void illegal_instruction(dv_core *c, size_t idx)
{
    uint64_t w = 0;
    for (int b = 0; b < 8; b++)
        w |= (uint64_t)c->obj->text[idx * 8 + (size_t)b] << (8 * b);
    dv_insn in;
    dv_error e = {DV_OK, ""};
    dv_isa_decode(w, &in, &e);
    core_fault(c, DV_PIPE_S, c->pc, "%s", e.msg); /* "illegal instruction 0x...: why" */
}

/* Non-scalar instructions: sync handled here or queued, tensor work queued;
 * `at` is the cycle: now, or later for a dispatch run ahead of the queue. */
static bool issue_to_pipe(dv_core *c, const dv_insn *in, uint64_t *lat, uint64_t at)
{
    dv_pipe pipe = dv_insn_pipe(in);
    *lat = c->cfg->s_dispatch_cycles;
    if (in->op == DV_OP_CC_SET_FLAG || in->op == DV_OP_CC_WAIT_FLAG) {
        if (!core_cc_check(c, in))
            return false;
    }
    if (pipe != DV_PIPE_S && pipe != DV_PIPE_ALL && !core_has_pipe(c, pipe)) {
        static const char *const kinds[] = {"a coupled", "an AIC", "an AIV"};
        core_fault(c, DV_PIPE_S, c->pc, "%s: %s core has no %s pipe", dv_isa_info(in->op)->mnemonic,
                   kinds[c->core_type], dv_pipe_trace_name(pipe));
        return false;
    }
    if (in->op == DV_OP_SET_FLAG || in->op == DV_OP_WAIT_FLAG) {
        if (in->f[DV_F_SRC] == DV_PIPE_ALL || in->f[DV_F_DST] == DV_PIPE_ALL ||
            (uint64_t)in->f[DV_F_ID] >= c->cfg->event_ids) {
            core_fault(c, DV_PIPE_S, c->pc,
                       "%s: id %lld of pipes %s->%s does not exist on this chip (event ids 0..%llu)",
                       dv_isa_info(in->op)->mnemonic, (long long)in->f[DV_F_ID],
                       dv_pipe_name((dv_pipe)in->f[DV_F_SRC]), dv_pipe_name((dv_pipe)in->f[DV_F_DST]),
                       (unsigned long long)c->cfg->event_ids - 1);
            return false;
        }
    }
    if (pipe == DV_PIPE_S) {
        if (in->op == DV_OP_SET_FLAG) { /* the scalar work before it is done */
            core_set_flag(c, in);
            if (c->hooks)
                core_trace_flag(c, DV_TRACE_FLAG_SET, DV_PIPE_S, in, c->pc);
        } else if (in->op == DV_OP_WAIT_FLAG) {
            uint8_t *f = &c->flags[in->f[DV_F_SRC]][DV_PIPE_S][in->f[DV_F_ID]];
            if (!*f) {
                if (c->scalar_flag_wait < 0)
                    c->scalar_wait_since = c->q->now;
                c->scalar_flag_wait = (int)(in->f[DV_F_SRC] * 256 + in->f[DV_F_ID]);
                return false; /* retried when the flag is set */
            }
            *f = 0;
            if (c->hooks) {
                if (c->scalar_flag_wait >= 0)
                    core_trace_stall(c, DV_TRACE_STALL_FLAG, (dv_pipe)in->f[DV_F_SRC],
                                     (unsigned)in->f[DV_F_ID], c->scalar_wait_since);
                core_trace_flag(c, DV_TRACE_FLAG_WAIT, DV_PIPE_S, in, c->pc);
            }
            if (c->scalar_flag_wait >= 0)
                c->stats.pipe[DV_PIPE_S].wait_cycles += c->q->now - c->scalar_wait_since;
            c->scalar_flag_wait = -1;
        }
        return true;
    }
    if (pipe == DV_PIPE_ALL) { /* pipe_barrier pipe=all */
        if (!core_pipes_idle(c)) {
            if (!c->barrier_wait)
                c->scalar_wait_since = c->q->now;
            c->barrier_wait = true;
            return false;
        }
        if (c->barrier_wait && c->hooks)
            core_trace_stall(c, DV_TRACE_STALL_BARRIER, DV_PIPE_ALL, 0, c->scalar_wait_since);
        if (c->barrier_wait)
            c->stats.pipe[DV_PIPE_S].wait_cycles += c->q->now - c->scalar_wait_since;
        c->barrier_wait = false;
        *lat = c->cfg->barrier_cycles;
        return true;
    }
    if (!core_dispatch(c, pipe, in, at)) {
        c->stalled_on = (int)pipe;
        c->stall_since = at;
        return false; /* retried when the queue has room */
    }
    return true;
}

/* The Scalar unit: fetch, execute or dispatch one instruction, then come
 * back after its latency.  It goes on in the same firing, without the
 * event queue's cost, when the next instruction may run ahead of the queue
 * (may_run_ahead) or when no other event can fire before it
 * (dv_evq_run_ahead).  An instruction runs ahead at its own cycle, whatever
 * other cores' events come first, when nothing can see it or change what
 * it does before then:
 *   - a private instruction (ALU, multiply, divide, branch: the unit's
 *     registers and pc only), always;
 *   - a dispatch to a pipe's queue, while none of the core's pipes has an
 *     event due by then or waits for a cross-core flag (another core's set
 *     could wake it first); a pipe it wakes takes the unit's place in the
 *     queue (core_dispatch).
 * The unit's event has a rank of its own (core.c), so the one it schedules
 * at the end has the place among equal cycles it would have had if
 * scheduled one instruction at a time.  Running ahead stops at the queue's
 * horizon (an observer's tick, the end of the slice: sim_set_horizon),
 * when hooks watch the core and after CORE_AHEAD_MAX instructions (each
 * noted in c->ahead, so that a run stopped by a fault or an interruption
 * undoes those past its last event: core_scalar_rewind); a firing ends
 * after RUN_AHEAD instructions, so that a run stays responsive to
 * interrupts.  The cycles and the order of everything are those of one
 * event per instruction. */
enum { RUN_AHEAD = 4096 };

/* Instructions that read and write only the Scalar unit's registers and
 * pc: no memory, CSR, flag or queue. */
static bool scalar_private(const dv_insn_info *info)
{
    return info->pipe == DV_PIPE_S && (info->tclass == DV_TC_ALU || info->tclass == DV_TC_MUL ||
                                       info->tclass == DV_TC_DIV || info->tclass == DV_TC_BRANCH);
}

static core_text_state text_state(const dv_insn *in)
{
    if (scalar_private(dv_isa_info(in->op)))
        return CORE_TEXT_PRIVATE;
    dv_pipe pipe = dv_insn_pipe(in);
    if (pipe != DV_PIPE_S && pipe != DV_PIPE_ALL && in->op != DV_OP_CC_SET_FLAG &&
        in->op != DV_OP_CC_WAIT_FLAG)
        return CORE_TEXT_DISPATCH;
    return CORE_TEXT_DECODED;
}

/* The word at pc may run: the core runs, pc is in .text and in the kernel,
 * and the word decodes (decoded here on first fetch); else the core stops
 * (a fault) or has stopped. */
static bool fetch_slow(dv_core *c, size_t idx)
{
    if (c->stop != DV_STOP_NONE || c->ended)
        return false;
    if ((c->pc % DV_INSN_BYTES) || idx >= c->ninsns) {
        core_fault(c, DV_PIPE_S, c->pc, "the program counter 0x%llx is outside .text (%zu bytes)",
                   (unsigned long long)c->pc, c->ninsns * DV_INSN_BYTES);
        return false;
    }
    /* The kernel is the bytes its object declares (entry, size): running
     * on into the next kernel or past the last is a fault, not more code. */
    if (c->pc - c->kernel->entry >= c->kernel->size) {
        core_fault(c, DV_PIPE_S, c->pc,
                   "the program counter 0x%llx is outside kernel %s (0x%llx, %llu bytes)",
                   (unsigned long long)c->pc, DV_ESC(c->kernel->name), (unsigned long long)c->kernel->entry,
                   (unsigned long long)c->kernel->size);
        return false;
    }
    if (!c->text_ok[idx]) {
        uint64_t w = 0;
        for (int b = 0; b < 8; b++)
            w |= (uint64_t)c->obj->text[idx * 8 + (size_t)b] << (8 * b);
        c->text_ok[idx] =
            dv_isa_decode(w, &c->text[idx], NULL) == DV_OK ? text_state(&c->text[idx]) : CORE_TEXT_ILLEGAL;
    }
    if (c->text_ok[idx] == CORE_TEXT_ILLEGAL) {
        illegal_instruction(c, idx);
        return false;
    }
    return true;
}

/* The same, the common case inline: a decoded word of the kernel. */
static inline bool fetch(dv_core *c, size_t idx)
{
    if (c->stop == DV_STOP_NONE && !c->ended && !(c->pc % DV_INSN_BYTES) && idx < c->ninsns &&
        c->pc - c->kernel->entry < c->kernel->size && c->text_ok[idx] != CORE_TEXT_UNDECODED &&
        c->text_ok[idx] != CORE_TEXT_ILLEGAL)
        return true;
    return fetch_slow(c, idx);
}

/* A pipe of the core waits for a cross-core flag: another core's set can
 * wake it (core_cc.c), and through it the core's other pipes.  That is the
 * only way into a core from outside. */
static bool cc_waiting(const dv_core *c)
{
    for (int i = DV_PIPE_V; c->cc && i < DV_PIPE_COUNT; i++) {
        const dv_pipe_state *p = &c->pipes[i];
        if (p->waiting && p->count && p->queue[p->head].insn->op == DV_OP_CC_WAIT_FLAG)
            return true;
    }
    return false;
}

/* A dispatch can run ahead to cycle `at`: it would not fault (issue_to_pipe's
 * checks) or stall, none of the core's pipes has an event due by then, and
 * no other core can wake one. */
static bool dispatch_may_run_ahead(const dv_core *c, const dv_insn *in, uint64_t at)
{
    dv_pipe pipe = dv_insn_pipe(in);
    if (!core_has_pipe(c, pipe) || c->pipes[pipe].count == c->pipes[pipe].depth || cc_waiting(c))
        return false;
    if ((in->op == DV_OP_SET_FLAG || in->op == DV_OP_WAIT_FLAG) &&
        (in->f[DV_F_SRC] == DV_PIPE_ALL || in->f[DV_F_DST] == DV_PIPE_ALL ||
         (uint64_t)in->f[DV_F_ID] >= c->cfg->event_ids))
        return false;
    for (int i = 0; i < DV_PIPE_COUNT; i++)
        if (c->pipe_due[i] <= at)
            return false;
    return true;
}

/* The instruction at pc, already decoded and in the kernel, may run at
 * cycle `at` ahead of the queue (which also passes fetch's checks). */
static bool may_run_ahead(const dv_core *c, uint64_t pc, uint64_t at)
{
    size_t idx = (size_t)(pc / DV_INSN_BYTES);
    if (c->hooks || at > c->q->limit || c->nahead >= c->ahead_cap || pc % DV_INSN_BYTES || idx >= c->ninsns ||
        pc - c->kernel->entry >= c->kernel->size)
        return false;
    return c->text_ok[idx] == CORE_TEXT_PRIVATE ||
           (c->text_ok[idx] == CORE_TEXT_DISPATCH && dispatch_may_run_ahead(c, &c->text[idx], at));
}

void core_scalar_event(dv_event *ev, void *ctx)
{
    (void)ctx;
    dv_core *c = (dv_core *)((char *)ev - offsetof(dv_core, scalar_ev));
    uint64_t ahead = 0;  /* cycles the instructions ran ahead of the queue's now */
    uint64_t at;         /* the next instruction's cycle */
    bool vetted = false; /* the word at pc passed fetch's checks (may_run_ahead) */
    c->nahead = 0;       /* the last firing's are all in the past */
    for (unsigned n = 0;; n++) {
        size_t idx = (size_t)(c->pc / DV_INSN_BYTES);
        if (!vetted && !fetch(c, idx))
            return;
        const dv_insn *in = &c->text[idx];
        const dv_insn_info *info = dv_isa_info(in->op);
        uint64_t next = c->pc + DV_INSN_BYTES, lat;
        if (in->op == DV_OP_END) {
            c->ended = true;
            c->instret++;
            c->stats.scalar_insns++;
            core_check_drained(c);
            return;
        }
        core_ahead_insn *a = NULL; /* how to undo it (core_scalar_rewind) */
        if (ahead) {
            if (!c->nahead)
                c->ahead_from = c->q->now + ahead;
            a = &c->ahead[c->nahead++];
            a->idx = (uint32_t)idx;
            a->old_r0 = c->regs[in->f[DV_F_R0]];
        }
        if (info->pipe == DV_PIPE_S) {
            lat = exec_scalar(c, in, &next);
            if (!lat)
                return;
            c->stats.scalar_insns++;
        } else if (!issue_to_pipe(c, in, &lat, c->q->now + ahead)) {
            return; /* stalled (woken later) or faulted: never when run ahead */
        }
        if (a)
            a->lat = (uint32_t)lat;                  /* fits: ahead_cap */
        c->stats.pipe[DV_PIPE_S].busy_cycles += lat; /* executing, dispatching or in a barrier */
        c->stats.pipe[DV_PIPE_S].insns++;
        if (c->hooks) {
            if (c->hooks->scalar)
                c->hooks->scalar(c->hooks->user, c->net_index, in, c->pc, c->q->now, c->q->now + lat);
            else
                core_trace_insn(c, DV_PIPE_S, in, NULL, c->pc, c->q->now, c->q->now + lat);
        }
        c->instret++;
        c->pc = next;
        at = c->q->now + ahead + lat;
        if (n + 1 >= RUN_AHEAD || c->stop != DV_STOP_NONE)
            break;
        if (dv_evq_run_ahead(c->q, at)) { /* the cheaper of the two, and nothing to undo */
            ahead = 0;
            c->nahead = 0; /* nothing can come before them now */
            vetted = false;
            continue;
        }
        if (!may_run_ahead(c, next, at))
            break;
        vetted = true;
        ahead += lat;
    }
    core_schedule(c, &c->scalar_ev, at, DV_PRIO_SCALAR);
}

void core_scalar_rewind(dv_core *c)
{
    const dv_evq *q = c->q;
    uint64_t from = 0, cycle = c->ahead_from; /* the cycle the last entry ran at */
    for (unsigned i = 0; i + 1 < c->nahead; i++)
        cycle += c->ahead[i].lat;
    for (; c->nahead > 0; c->nahead--) {
        const core_ahead_insn *a = &c->ahead[c->nahead - 1];
        /* it ran at (cycle, scalar, the unit's rank): after the last event? */
        bool after = cycle != q->now                  ? cycle > q->now
                     : q->last_prio != DV_PRIO_SCALAR ? q->last_prio < DV_PRIO_SCALAR
                                                      : q->last_rank < c->scalar_ev.rank;
        if (!after)
            break;
        const dv_insn *in = &c->text[a->idx];
        c->regs[in->f[DV_F_R0]] = a->old_r0;
        c->pc = (uint64_t)a->idx * DV_INSN_BYTES;
        c->instret--;
        c->stats.pipe[DV_PIPE_S].busy_cycles -= a->lat;
        c->stats.pipe[DV_PIPE_S].insns--;
        if (c->text_ok[a->idx] == CORE_TEXT_PRIVATE) {
            c->stats.scalar_insns--;
        } else { /* a dispatch, the last one its queue took: no pipe event has come since */
            dv_pipe_state *p = &c->pipes[dv_insn_pipe(in)];
            p->count--;
            /* the pipe it woke, in the unit's place (core_dispatch) */
            if (dv_event_queued(&p->ev) && p->ev.prio == DV_PRIO_SCALAR && p->ev.cycle == cycle) {
                dv_evq_cancel(c->q, &p->ev);
                dv_event_set_rank(&p->ev, 0);
                c->pipe_due[p->id] = UINT64_MAX;
            }
        }
        from = cycle;
        if (c->nahead > 1)
            cycle -= c->ahead[c->nahead - 2].lat;
    }
    if (from && dv_event_queued(&c->scalar_ev)) /* where the unit is, one event per instruction */
        core_schedule(c, &c->scalar_ev, from, DV_PRIO_SCALAR);
}
