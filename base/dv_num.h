/* dv_num.h - THE number parser for everything dvsim reads from outside (the
 * command line, chip config files and --set, operator shapes, GM specs,
 * baseline JSON), and checked cycle arithmetic.
 *
 * One syntax everywhere: decimal digits, or 0x/0X and hex digits.  No sign,
 * no space before or after, no octal ("0100" is one hundred, as a person
 * reads it), nothing after the digits, and it fits 64 bits.  strtoull alone
 * is none of that: it skips spaces, takes a '-' and negates, and reads a
 * leading 0 as octal. */
#ifndef DV_NUM_H
#define DV_NUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The n bytes at s as a number (the syntax above); false if they are not
 * one or it does not fit 64 bits.  s need not be NUL-terminated. */
bool dv_parse_u64n(const char *s, size_t n, uint64_t *v);
/* The string s as a number. */
bool dv_parse_u64(const char *s, uint64_t *v);
/* A number with an optional binary suffix K, M or G (x 2^10, 2^20, 2^30;
 * either case), as chip configs write sizes: "512K", "0x40M". */
bool dv_parse_u64_scaled(const char *s, uint64_t *v);
/* A signed number: an optional '-' then the syntax above; in int64_t. */
bool dv_parse_s64(const char *s, int64_t *v);
/* A JSON number (cJSON hands them over as doubles) as an integer: finite,
 * whole, and 0 <= d <= max.  Casting a double outside uint64_t's range to
 * it is undefined behaviour, so every JSON integer goes through here. */
bool dv_u64_of_double(double d, uint64_t max, uint64_t *v);

#endif
