/* dv_png.h - a minimal PNG writer (8-bit RGB, zlib), for headless frames.
 * No SDL here. */
#ifndef DV_PNG_H
#define DV_PNG_H

#include "dv_status.h"

#include <stdint.h>

/* Writes w x h pixels (rgb: 3 bytes per pixel, rows top to bottom) to path
 * through a temporary name and a rename.  DV_ERR_IO if it cannot. */
dv_status dv_png_write(const char *path, const uint8_t *rgb, unsigned w, unsigned h, dv_error *err);

#endif
