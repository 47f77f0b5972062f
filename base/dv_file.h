/* dv_file.h - writing a file whole, atomically: the bytes go to a unique
 * temporary file beside it, which is then renamed into place, so that a
 * reader sees the old file or the new one, never a part of one, a failed
 * write leaves nothing behind, and two writers of one path never share a
 * temporary file. */
#ifndef DV_FILE_H
#define DV_FILE_H

#include "dv_status.h"

#include <stddef.h>
#include <stdio.h>

/* Writes len bytes of data to path (replacing it).  The file gets the mode
 * a plain fopen gives (0666 less the umask; nothing process-wide is changed
 * for it).  Errors: DV_ERR_IO "PATH: cannot create: REASON" (no temporary
 * file could be made beside path) or "PATH: write failed: REASON" (writing,
 * closing or renaming; the temporary file is removed and path is as it
 * was), DV_ERR_NOMEM. */
dv_status dv_write_file_atomic(const char *path, const void *data, size_t len, dv_error *err);

/* Opens the file at path for reading an input, as a descriptor or a stdio
 * stream.  One answer for every input flag: a path that cannot be opened,
 * or that is a directory, is DV_ERR_MISSING "PATH: cannot open: REASON"
 * ("Is a directory"); the caller reads nothing from a directory that it
 * would then report as empty, short or not of its format.  -1 / NULL on
 * error. */
int dv_open_input_fd(const char *path, dv_error *err);
FILE *dv_open_input(const char *path, dv_error *err);

/* Reads the whole file at path into *data (malloc'd, NUL-terminated, so a
 * text is a string; *len bytes without the NUL).  Errors: DV_ERR_MISSING
 * "PATH: cannot open: REASON", DV_ERR_IO "PATH: read failed: REASON",
 * DV_ERR_NOMEM. */
dv_status dv_read_file(const char *path, char **data, size_t *len, dv_error *err);

#endif
