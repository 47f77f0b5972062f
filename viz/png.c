/* png.c - headless frames as PNG files, written by libpng (8-bit RGB, no
 * interlace) into a temporary file that is renamed into place. */
#include "dv_png.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libpng reports errors through callbacks: by default it prints them and
 * a library must not, so they are kept here for the dv_error and the error
 * callback jumps back to dv_png_write's setjmp. */
typedef struct png_failure {
    jmp_buf jump;
    char msg[256];
} png_failure;

static void on_error(png_structp png, png_const_charp msg)
{
    png_failure *f = png_get_error_ptr(png);
    snprintf(f->msg, sizeof f->msg, "%s", msg);
    longjmp(f->jump, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg; /* nothing a frame's writer can act on */
}

/* Encodes the frame into f; false with the reason in fail->msg. */
static bool encode(FILE *f, const uint8_t *rgb, unsigned w, unsigned h, png_failure *fail)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, fail, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        snprintf(fail->msg, sizeof fail->msg, "out of memory");
        png_destroy_write_struct(&png, NULL);
        return false;
    }
    /* Nothing the longjmp skips is modified after setjmp: png and info are
     * set before it, the rows are libpng's to read. */
    if (setjmp(fail->jump)) {
        png_destroy_write_struct(&png, &info);
        return false;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 9);
    png_write_info(png, info);
    for (unsigned y = 0; y < h; y++)
        png_write_row(png, rgb + (size_t)y * w * 3);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return true;
}

dv_status dv_png_write(const char *path, const uint8_t *rgb, unsigned w, unsigned h, dv_error *err)
{
    if (w == 0 || h == 0 || w > PNG_USER_WIDTH_MAX || h > PNG_USER_HEIGHT_MAX)
        return dv_error_set(err, DV_ERR_IO, "%s: a PNG cannot be %ux%u pixels", path, w, h);
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (!tmp)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    /* a unique temporary name next to the file, so that rename is atomic
     * and two writers of the same path do not share one */
    snprintf(tmp, n, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        dv_status st = dv_error_set(err, DV_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        free(tmp);
        return st;
    }
    /* mkstemp creates 0600; give the file the mode a plain fopen would */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    png_failure fail = {.msg = ""};
    bool ok = encode(f, rgb, w, h, &fail);
    if (fclose(f) != 0 && ok) {
        ok = false;
        snprintf(fail.msg, sizeof fail.msg, "%s", strerror(errno));
    }
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        snprintf(fail.msg, sizeof fail.msg, "%s", strerror(errno));
    }
    if (!ok) {
        dv_status st = dv_error_set(err, DV_ERR_IO, "%s: write failed: %s", path, fail.msg);
        unlink(tmp);
        free(tmp);
        return st;
    }
    free(tmp);
    return DV_OK;
}
