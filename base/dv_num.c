/* dv_num.c - the strict number parser (dv_num.h). */
#include "dv_num.h"

#include <math.h>
#include <string.h>

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

bool dv_parse_u64n(const char *s, size_t n, uint64_t *v)
{
    unsigned base = 10;
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        n -= 2;
    }
    if (n == 0)
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        int d = digit_value(s[i]);
        if (d >= (int)base || x > (UINT64_MAX - (uint64_t)d) / base)
            return false;
        x = x * base + (uint64_t)d;
    }
    *v = x;
    return true;
}

bool dv_parse_u64(const char *s, uint64_t *v)
{
    return dv_parse_u64n(s, strlen(s), v);
}

bool dv_parse_u64_scaled(const char *s, uint64_t *v)
{
    size_t n = strlen(s);
    unsigned shift = 0;
    if (n > 1) {
        switch (s[n - 1]) {
        case 'K':
        case 'k': shift = 10; break;
        case 'M':
        case 'm': shift = 20; break;
        case 'G':
        case 'g': shift = 30; break;
        default: break;
        }
    }
    uint64_t x;
    if (!dv_parse_u64n(s, shift ? n - 1 : n, &x) || x > (UINT64_MAX >> shift))
        return false;
    *v = x << shift;
    return true;
}

bool dv_parse_s64(const char *s, int64_t *v)
{
    bool neg = s[0] == '-';
    uint64_t x;
    if (!dv_parse_u64(s + neg, &x))
        return false;
    if (neg ? x > (uint64_t)INT64_MAX + 1 : x > (uint64_t)INT64_MAX)
        return false;
    *v = neg ? (int64_t)(0 - x) : (int64_t)x; /* 0 - x in uint64_t: INT64_MIN without overflow */
    return true;
}

bool dv_u64_of_double(double d, uint64_t max, uint64_t *v)
{
    /* 2^64 as a double is exact; every double below it converts defined. */
    if (!isfinite(d) || d < 0 || d >= 18446744073709551616.0 || d != floor(d))
        return false;
    uint64_t x = (uint64_t)d;
    if (x > max)
        return false;
    *v = x;
    return true;
}
