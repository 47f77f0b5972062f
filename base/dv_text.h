/* dv_text.h - THE escaping of text that came from an input (a kernel, file
 * or event name, a --shape or config value) before it is printed: on a
 * terminal, in a one-line error, in a listing.  Bytes outside printable
 * ASCII and the backslash become \xNN, so a hostile name cannot forge
 * lines, move the cursor or end a listing's comment; a long text is cut
 * with "...".  The result is all printable ASCII. */
#ifndef DV_TEXT_H
#define DV_TEXT_H

#include <stdbool.h>
#include <stddef.h>

enum { DV_ESCAPE_MAX = 256 }; /* DV_ESC's buffer: a shown text is at most 255 bytes */

/* Writes the escaped s into out (size bytes, at least 8) and returns out. */
const char *dv_escape(const char *s, char *out, size_t size);
/* The same for n bytes (which may hold NUL). */
const char *dv_escape_n(const char *s, size_t n, char *out, size_t size);
/* True if s has no byte that dv_escape escapes. */
bool dv_is_printable(const char *s);

/* dv_escape into a buffer that lives until the end of the enclosing block,
 * for a printf argument: printf("'%s'", DV_ESC(name)). */
#define DV_ESC(s) dv_escape((s), (char[DV_ESCAPE_MAX]){0}, DV_ESCAPE_MAX)

#endif
