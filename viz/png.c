/* png.c - headless frames as PNG files: libpng's simplified API encodes the
 * frame in memory (8-bit RGB), dv_write_file_atomic writes it through a
 * temporary name renamed into place. */
#include "dv_file.h"
#include "dv_png.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

dv_status dv_png_write(const char *path, const uint8_t *rgb, unsigned w, unsigned h, dv_error *err)
{
    if (w == 0 || h == 0 || w > PNG_USER_WIDTH_MAX || h > PNG_USER_HEIGHT_MAX)
        return dv_error_set(err, DV_ERR_IO, "%s: a PNG cannot be %ux%u pixels", path, w, h);
    /* The simplified API keeps its errors and warnings in image.message and
     * prints nothing (a library must not). */
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = w;
    image.height = h;
    image.format = PNG_FORMAT_RGB;
    /* an upper bound: one encoding pass, never a buffer too small */
    png_alloc_size_t size = PNG_IMAGE_PNG_SIZE_MAX(image);
    void *png = malloc(size);
    if (!png)
        return dv_error_set(err, DV_ERR_NOMEM, "%s: out of memory for the PNG", path);
    dv_status st;
    if (!png_image_write_to_memory(&image, png, &size, 0, rgb, 0, NULL))
        st = dv_error_set(err, DV_ERR_IO, "%s: write failed: %s", path, image.message);
    else
        st = dv_write_file_atomic(path, png, size, err);
    png_image_free(&image);
    free(png);
    return st;
}
