/* dv_png.h - headless frames as PNG files (8-bit RGB, encoded by libpng;
 * no SDL and no libpng in this header). */
#ifndef DV_PNG_H
#define DV_PNG_H

#include "dv_status.h"

#include <stdint.h>

/* Writes w x h pixels (rgb: 3 bytes per pixel, rows top to bottom) to path
 * through a temporary name and a rename (dv_write_file_atomic).  DV_ERR_IO
 * with the reason if it cannot (libpng's message when encoding fails: it
 * is never printed), DV_ERR_NOMEM. */
dv_status dv_png_write(const char *path, const uint8_t *rgb, unsigned w, unsigned h, dv_error *err);

#endif
