/* dv_text.c - escaping text from inputs for printing (dv_text.h). */
#include "dv_text.h"

#include <string.h>

static bool plain(unsigned char c)
{
    return c >= 0x20 && c < 0x7f && c != '\\';
}

const char *dv_escape_n(const char *s, size_t n, char *out, size_t size)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (o + 8 > size) { /* room for one "\xNN", or "..." and the NUL */
            memcpy(out + o, "...", 4);
            return out;
        }
        if (plain(c)) {
            out[o++] = (char)c;
        } else {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
    return out;
}

const char *dv_escape(const char *s, char *out, size_t size)
{
    return dv_escape_n(s, strlen(s), out, size);
}

bool dv_is_printable(const char *s)
{
    for (; *s; s++)
        if (!plain((unsigned char)*s))
            return false;
    return true;
}
