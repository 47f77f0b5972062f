/* png_compare.c - compares the pixels of two PNG files: the golden-frame
 * test's checker.  Both are read by libpng (any PNG: palette, grey, 16-bit,
 * alpha, interlaced) as 8-bit RGB, so what is compared is the picture, not
 * how the encoder packed it.
 *
 * usage: png_compare ACTUAL.png GOLDEN.png
 * Prints how many pixels differ (and the first); exit 0 if none, 1 if any,
 * 2 if a file cannot be read. */
#include <png.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct image {
    uint32_t w, h;
    uint8_t *rgb; /* w * h * 3 */
} image;

/* Reads path as 8-bit RGB (an alpha channel is composed over black, as a
 * window shows it); false with a message on stderr if it cannot. */
static bool load(const char *path, image *img)
{
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&pi, path)) {
        fprintf(stderr, "png_compare: %s: %s\n", path, pi.message);
        return false;
    }
    pi.format = PNG_FORMAT_RGB;
    if (pi.width == 0 || pi.height == 0 || pi.width > 16384 || pi.height > 16384) {
        fprintf(stderr, "png_compare: %s: %ux%u is not a frame\n", path, pi.width, pi.height);
        png_image_free(&pi);
        return false;
    }
    img->w = pi.width;
    img->h = pi.height;
    img->rgb = malloc(PNG_IMAGE_SIZE(pi));
    if (!img->rgb || !png_image_finish_read(&pi, NULL, img->rgb, 0, NULL)) {
        fprintf(stderr, "png_compare: %s: %s\n", path, img->rgb ? pi.message : "out of memory");
        png_image_free(&pi);
        free(img->rgb);
        img->rgb = NULL;
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: png_compare ACTUAL.png GOLDEN.png\n");
        return 2;
    }
    image a = {0, 0, NULL}, g = {0, 0, NULL};
    if (!load(argv[1], &a) || !load(argv[2], &g)) {
        free(a.rgb);
        return 2;
    }
    if (a.w != g.w || a.h != g.h) {
        printf("png_compare: %s is %ux%u, %s is %ux%u\n", argv[1], a.w, a.h, argv[2], g.w, g.h);
        free(a.rgb);
        free(g.rgb);
        return 1;
    }
    uint64_t diff = 0;
    long first = -1;
    for (size_t i = 0; i < (size_t)a.w * a.h; i++) {
        if (memcmp(a.rgb + i * 3, g.rgb + i * 3, 3) != 0) {
            if (first < 0)
                first = (long)i;
            diff++;
        }
    }
    if (diff)
        printf("png_compare: %llu of %u pixels differ; the first at (%ld, %ld)\n", (unsigned long long)diff,
               a.w * a.h, first % (long)a.w, first / (long)a.w);
    else
        printf("png_compare: %ux%u, every pixel the same\n", a.w, a.h);
    free(a.rgb);
    free(g.rgb);
    return diff ? 1 : 0;
}
