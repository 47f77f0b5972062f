/* asm_expr.c - constant expressions of the assembler.
 *
 * Integers are 64-bit two's complement.  Floating-point literals are allowed
 * only inside f16(), bf16() and f32(), which give the bit pattern of the
 * value in that format (for vector scalar operands). */
#include "asm_internal.h"
#include "dv_fp.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct val {
    bool is_float;
    int64_t i;
    double f;
} val;

static bool parse_or(lexer *lx, expr_ctx *ctx, val *v);

static bool fail(expr_ctx *ctx, const lexer *lx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool fail(expr_ctx *ctx, const lexer *lx, const char *fmt, ...)
{
    if (!ctx->err[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
        va_end(ap);
        ctx->err_col = lx->tok.col;
    }
    return false;
}

static double as_double(val v)
{
    return v.is_float ? v.f : (double)v.i;
}

static bool need_int(lexer *lx, expr_ctx *ctx, val v, const char *op)
{
    if (v.is_float)
        return fail(ctx, lx,
                    "operator '%s' needs integers; floating-point values belong in f16(), bf16() or f32()",
                    op);
    return true;
}

static bool parse_primary(lexer *lx, expr_ctx *ctx, val *v)
{
    token t = lx->tok;
    switch (t.kind) {
    case TK_INT:
        *v = (val){false, t.ival, 0};
        lex_next(lx);
        return true;
    case TK_FLOAT:
        *v = (val){true, 0, t.fval};
        lex_next(lx);
        return true;
    case TK_IDENT: {
        static const char *const fns[] = {"f16", "bf16", "f32"};
        for (int k = 0; k < 3; k++) {
            if (!lex_ident_is(lx, fns[k]))
                continue;
            lex_next(lx);
            if (!lex_is(lx, '('))
                return fail(ctx, lx, "expected '(' after %s", fns[k]);
            lex_next(lx);
            val a;
            if (!parse_or(lx, ctx, &a))
                return false;
            if (!lex_is(lx, ')'))
                return fail(ctx, lx, "expected ')' to close %s(", fns[k]);
            lex_next(lx);
            double d = as_double(a);
            uint64_t bits = k == 0 ? dv_f64_to_fp16(d) : k == 1 ? dv_f64_to_bf16(d) : dv_f32_bits((float)d);
            *v = (val){false, (int64_t)bits, 0};
            return true;
        }
        int64_t value = 0;
        bool pending = false;
        if (ctx->lookup && ctx->lookup(ctx->user, t.start, t.len, &value, &pending)) {
            if (pending && !ctx->allow_undefined) {
                char name[96];
                snprintf(name, sizeof name, "%.*s", (int)(t.len < 80 ? t.len : 80), t.start);
                return fail(ctx, lx, "the value of '%s' is circular or needs an undefined symbol", name);
            }
            if (pending)
                ctx->undefined = true;
        } else {
            if (!ctx->allow_undefined) {
                char name[96];
                snprintf(name, sizeof name, "%.*s", (int)(t.len < 80 ? t.len : 80), t.start);
                return fail(ctx, lx, "undefined symbol '%s'", name);
            }
            ctx->undefined = true;
        }
        *v = (val){false, value, 0};
        lex_next(lx);
        return true;
    }
    case TK_PUNCT:
        if (t.punct == '(') {
            lex_next(lx);
            if (!parse_or(lx, ctx, v))
                return false;
            if (!lex_is(lx, ')'))
                return fail(ctx, lx, "expected ')'");
            lex_next(lx);
            return true;
        }
        if (t.punct == '-' || t.punct == '~' || t.punct == '!' || t.punct == '+') {
            lex_next(lx);
            if (!parse_primary(lx, ctx, v))
                return false;
            if (t.punct == '-') {
                if (v->is_float)
                    v->f = -v->f;
                else
                    v->i = (int64_t)(0 - (uint64_t)v->i);
            } else if (t.punct == '~') {
                if (!need_int(lx, ctx, *v, "~"))
                    return false;
                v->i = ~v->i;
            } else if (t.punct == '!') {
                if (!need_int(lx, ctx, *v, "!"))
                    return false;
                v->i = !v->i;
            }
            return true;
        }
        return fail(ctx, lx, "expected a value, found '%s'",
                    t.punct == ','   ? ","
                    : t.punct == ')' ? ")"
                                     : "operator");
    case TK_EOL: return fail(ctx, lx, "expected a value at end of line");
    case TK_STRING: return fail(ctx, lx, "a string is not a number");
    case TK_ERROR: return fail(ctx, lx, "%s", lx->err);
    }
    return false;
}

/* Binary operator levels, loosest first. */
static const int levels[][4] = {
    {'|', 0}, {'^', 0}, {'&', 0}, {P_SHL, P_SHR, 0}, {'+', '-', 0}, {'*', '/', '%', 0},
};
enum { NLEVELS = sizeof levels / sizeof levels[0] };

static int op_at(const lexer *lx, int level)
{
    if (lx->tok.kind != TK_PUNCT)
        return 0;
    for (int k = 0; levels[level][k]; k++)
        if (lx->tok.punct == levels[level][k])
            return levels[level][k];
    return 0;
}

static bool apply(lexer *lx, expr_ctx *ctx, int op, val *a, val b)
{
    char opname[3] = {(char)(op > 255 ? op >> 8 : op), (char)(op > 255 ? op & 0xff : 0), 0};
    if (a->is_float || b.is_float) {
        double x = as_double(*a), y = as_double(b);
        switch (op) {
        case '+': *a = (val){true, 0, x + y}; return true;
        case '-': *a = (val){true, 0, x - y}; return true;
        case '*': *a = (val){true, 0, x * y}; return true;
        case '/': *a = (val){true, 0, x / y}; return true;
        default: return need_int(lx, ctx, (val){true, 0, 0}, opname);
        }
    }
    uint64_t x = (uint64_t)a->i, y = (uint64_t)b.i;
    switch (op) {
    case '|': a->i = (int64_t)(x | y); break;
    case '^': a->i = (int64_t)(x ^ y); break;
    case '&': a->i = (int64_t)(x & y); break;
    case P_SHL: a->i = y >= 64 ? 0 : (int64_t)(x << y); break;
    case P_SHR: a->i = y >= 64 ? 0 : (int64_t)(x >> y); break; /* logical */
    case '+': a->i = (int64_t)(x + y); break;
    case '-': a->i = (int64_t)(x - y); break;
    case '*': a->i = (int64_t)(x * y); break;
    case '/':
    case '%':
        if (b.i == 0 && ctx->undefined) {
            a->i = 0; /* the divisor is not known yet; the next pass sees it */
            break;
        }
        if (b.i == 0)
            return fail(ctx, lx, "division by zero in expression");
        if (a->i == INT64_MIN && b.i == -1)
            a->i = op == '/' ? INT64_MIN : 0;
        else
            a->i = op == '/' ? a->i / b.i : a->i % b.i;
        break;
    }
    return true;
}

static bool parse_level(lexer *lx, expr_ctx *ctx, int level, val *v)
{
    if (level == NLEVELS)
        return parse_primary(lx, ctx, v);
    if (!parse_level(lx, ctx, level + 1, v))
        return false;
    int op;
    while ((op = op_at(lx, level)) != 0) {
        lex_next(lx);
        val rhs;
        if (!parse_level(lx, ctx, level + 1, &rhs))
            return false;
        if (!apply(lx, ctx, op, v, rhs))
            return false;
    }
    return true;
}

static bool parse_or(lexer *lx, expr_ctx *ctx, val *v)
{
    return parse_level(lx, ctx, 0, v);
}

bool expr_eval(lexer *lx, expr_ctx *ctx, int64_t *value)
{
    int col = lx->tok.col;
    val v;
    if (!parse_or(lx, ctx, &v))
        return false;
    if (v.is_float) {
        ctx->err_col = col;
        snprintf(ctx->err, sizeof ctx->err,
                 "floating-point value where an integer is expected; write f16(x), bf16(x) or f32(x)");
        return false;
    }
    *value = v.i;
    return true;
}
