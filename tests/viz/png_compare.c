/* png_compare.c - compares the pixels of two PNG files (8-bit RGB or RGBA,
 * not interlaced, any filter): the golden-frame test's checker.
 *
 * usage: png_compare ACTUAL.png GOLDEN.png
 * Prints how many pixels differ (and the first); exit 0 if none, 1 if any,
 * 2 if a file cannot be read. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct image {
    uint32_t w, h;
    uint8_t *rgb; /* w * h * 3 */
} image;

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

static bool load(const char *path, image *img)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n);
    bool ok = buf && n > 8 && fread(buf, 1, (size_t)n, f) == (size_t)n;
    fclose(f);
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (!ok || memcmp(buf, sig, 8) != 0) {
        free(buf);
        return false;
    }
    uint8_t *idat = NULL;
    size_t idat_len = 0, pos = 8;
    unsigned bpp = 0;
    while (pos + 12 <= (size_t)n) {
        uint32_t len = be32(buf + pos);
        const uint8_t *type = buf + pos + 4, *data = buf + pos + 8;
        if (pos + 12 + len > (size_t)n)
            break;
        if (memcmp(type, "IHDR", 4) == 0 && len == 13) {
            img->w = be32(data);
            img->h = be32(data + 4);
            if (data[8] != 8 || (data[9] != 2 && data[9] != 6) || data[12] != 0)
                break;
            bpp = data[9] == 2 ? 3 : 4;
        } else if (memcmp(type, "IDAT", 4) == 0) {
            uint8_t *p = realloc(idat, idat_len + len);
            if (!p)
                break;
            idat = p;
            memcpy(idat + idat_len, data, len);
            idat_len += len;
        } else if (memcmp(type, "IEND", 4) == 0) {
            break;
        }
        pos += 12 + len;
    }
    free(buf);
    if (!bpp || !idat || !img->w || !img->h || img->w > 16384 || img->h > 16384) {
        free(idat);
        return false;
    }
    size_t stride = (size_t)img->w * bpp, rawlen = (stride + 1) * img->h;
    uint8_t *raw = malloc(rawlen);
    uLongf got = (uLongf)rawlen;
    ok = raw && uncompress(raw, &got, idat, (uLong)idat_len) == Z_OK && got == rawlen;
    free(idat);
    img->rgb = ok ? malloc((size_t)img->w * img->h * 3) : NULL;
    if (!img->rgb) {
        free(raw);
        return false;
    }
    /* undo the filters in place, row by row */
    for (uint32_t y = 0; y < img->h; y++) {
        uint8_t *row = raw + y * (stride + 1) + 1, *prev = y ? raw + (y - 1) * (stride + 1) + 1 : NULL;
        uint8_t ft = row[-1];
        for (size_t x = 0; x < stride; x++) {
            int a = x >= bpp ? row[x - bpp] : 0, b = prev ? prev[x] : 0,
                c = prev && x >= bpp ? prev[x - bpp] : 0;
            switch (ft) {
            case 1: row[x] = (uint8_t)(row[x] + a); break;
            case 2: row[x] = (uint8_t)(row[x] + b); break;
            case 3: row[x] = (uint8_t)(row[x] + (a + b) / 2); break;
            case 4: row[x] = (uint8_t)(row[x] + paeth(a, b, c)); break;
            default: break;
            }
        }
        for (uint32_t x = 0; x < img->w; x++)
            memcpy(img->rgb + ((size_t)y * img->w + x) * 3, row + (size_t)x * bpp, 3);
    }
    free(raw);
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
        fprintf(stderr, "png_compare: cannot read %s\n", a.rgb ? argv[2] : argv[1]);
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
