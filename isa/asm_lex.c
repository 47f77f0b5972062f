/* asm_lex.c - tokens of one assembly line. */
#include "asm_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lex_init(lexer *lx, const char *line)
{
    lx->line = line;
    lx->p = line;
    lx->err[0] = '\0';
    lex_next(lx);
}

static bool ident_start(int c)
{
    return isalpha(c) || c == '_' || c == '.' || c == '$';
}

static bool ident_char(int c)
{
    return isalnum(c) || c == '_' || c == '.' || c == '$';
}

static void lex_number(lexer *lx, token *t)
{
    const char *s = lx->p;
    bool is_float = false;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X' || s[1] == 'b' || s[1] == 'B')) {
        int base = (s[1] == 'x' || s[1] == 'X') ? 16 : 2;
        const char *q = s + 2;
        uint64_t v = 0;
        bool any = false, overflow = false;
        for (;; q++) {
            int c = (unsigned char)*q, d;
            if (c == '_')
                continue;
            if (isdigit(c))
                d = c - '0';
            else if (base == 16 && isxdigit(c))
                d = tolower(c) - 'a' + 10;
            else
                break;
            if (d >= base)
                break;
            if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
                overflow = true;
            v = v * (uint64_t)base + (uint64_t)d;
            any = true;
        }
        if (!any || ident_char((unsigned char)*q) || overflow) {
            t->kind = TK_ERROR;
            snprintf(lx->err, sizeof lx->err,
                     overflow ? "number does not fit in 64 bits" : "malformed number");
            while (ident_char((unsigned char)*q))
                q++;
        } else {
            t->kind = TK_INT;
            t->ival = (int64_t)v;
        }
        lx->p = q;
        return;
    }
    const char *q = s;
    while (isdigit((unsigned char)*q))
        q++;
    if (*q == '.' && isdigit((unsigned char)q[1])) {
        is_float = true;
        q++;
        while (isdigit((unsigned char)*q))
            q++;
    }
    if ((*q == 'e' || *q == 'E') &&
        (isdigit((unsigned char)q[1]) || ((q[1] == '-' || q[1] == '+') && isdigit((unsigned char)q[2])))) {
        is_float = true;
        q += 2;
        while (isdigit((unsigned char)*q))
            q++;
    }
    if (ident_char((unsigned char)*q)) {
        t->kind = TK_ERROR;
        snprintf(lx->err, sizeof lx->err, "malformed number");
        while (ident_char((unsigned char)*q))
            q++;
        lx->p = q;
        return;
    }
    errno = 0;
    if (is_float) {
        t->kind = TK_FLOAT;
        t->fval = strtod(s, NULL);
    } else {
        uint64_t v = strtoull(s, NULL, 10);
        if (errno == ERANGE) {
            t->kind = TK_ERROR;
            snprintf(lx->err, sizeof lx->err, "number does not fit in 64 bits");
        } else {
            t->kind = TK_INT;
            t->ival = (int64_t)v;
        }
    }
    lx->p = q;
}

void lex_next(lexer *lx)
{
    token *t = &lx->tok;
    while (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r')
        lx->p++;
    memset(t, 0, sizeof *t);
    t->start = lx->p;
    t->col = (int)(lx->p - lx->line) + 1;
    int c = (unsigned char)*lx->p;
    if (c == '\0' || c == '\n') {
        t->kind = TK_EOL;
    } else if (ident_start(c)) {
        while (ident_char((unsigned char)*lx->p))
            lx->p++;
        t->kind = TK_IDENT;
    } else if (isdigit(c)) {
        lex_number(lx, t);
    } else if (c == '"') {
        lx->p++;
        while (*lx->p && *lx->p != '"' && *lx->p != '\n')
            lx->p++;
        if (*lx->p != '"') {
            t->kind = TK_ERROR;
            snprintf(lx->err, sizeof lx->err, "unterminated string");
        } else {
            lx->p++;
            t->kind = TK_STRING;
        }
    } else if ((c == '<' || c == '>') && lx->p[1] == c) {
        t->kind = TK_PUNCT;
        t->punct = (c << 8) | c;
        lx->p += 2;
    } else if (strchr(",():=+-*/%&|^~!", c)) {
        t->kind = TK_PUNCT;
        t->punct = c;
        lx->p++;
    } else {
        t->kind = TK_ERROR;
        if (isprint(c))
            snprintf(lx->err, sizeof lx->err, "unexpected character '%c'", c);
        else
            snprintf(lx->err, sizeof lx->err, "unexpected byte 0x%02x", (unsigned)c);
        lx->p++;
    }
    t->len = (size_t)(lx->p - t->start);
}

bool lex_is(const lexer *lx, int punct)
{
    return lx->tok.kind == TK_PUNCT && lx->tok.punct == punct;
}

bool lex_ident_is(const lexer *lx, const char *word)
{
    return lx->tok.kind == TK_IDENT && strlen(word) == lx->tok.len &&
           memcmp(lx->tok.start, word, lx->tok.len) == 0;
}
