/* png.c - PNG: the signature, IHDR, one IDAT (filter 0 on every row,
 * deflated by zlib), IEND; each chunk with its CRC-32. */
#include "dv_png.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static bool chunk(FILE *f, const char *type, const uint8_t *data, uint32_t len)
{
    uint8_t head[8], crc[4];
    be32(head, len);
    memcpy(head + 4, type, 4);
    uLong c = crc32(0L, Z_NULL, 0);
    c = crc32(c, head + 4, 4);
    if (len)
        c = crc32(c, data, len);
    be32(crc, (uint32_t)c);
    return fwrite(head, 1, 8, f) == 8 && (!len || fwrite(data, 1, len, f) == len) &&
           fwrite(crc, 1, 4, f) == 4;
}

dv_status dv_png_write(const char *path, const uint8_t *rgb, unsigned w, unsigned h, dv_error *err)
{
    size_t row = (size_t)w * 3 + 1, rawlen = row * h;
    uint8_t *raw = malloc(rawlen ? rawlen : 1);
    uLongf zlen = compressBound((uLong)rawlen);
    uint8_t *z = malloc(zlen);
    if (!raw || !z) {
        free(raw);
        free(z);
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory for a %ux%u PNG", w, h);
    }
    for (unsigned y = 0; y < h; y++) {
        raw[y * row] = 0; /* filter: none */
        memcpy(raw + y * row + 1, rgb + (size_t)y * w * 3, (size_t)w * 3);
    }
    int zrc = compress2(z, &zlen, raw, (uLong)rawlen, 9);
    free(raw);
    if (zrc != Z_OK) {
        free(z);
        return dv_error_set(err, DV_ERR_NOMEM, "zlib: cannot compress the frame");
    }
    size_t n = strlen(path);
    char *tmp = malloc(n + 8);
    if (!tmp) {
        free(z);
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    }
    snprintf(tmp, n + 8, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        dv_status st = dv_error_set(err, DV_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        free(z);
        free(tmp);
        return st;
    }
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    be32(ihdr, w);
    be32(ihdr + 4, h);
    ihdr[8] = 8;  /* bits per channel */
    ihdr[9] = 2;  /* RGB */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* adaptive filtering */
    ihdr[12] = 0; /* no interlace */
    bool ok = fwrite(sig, 1, 8, f) == 8 && chunk(f, "IHDR", ihdr, 13) &&
              chunk(f, "IDAT", z, (uint32_t)zlen) && chunk(f, "IEND", NULL, 0);
    ok = fclose(f) == 0 && ok;
    free(z);
    if (!ok || rename(tmp, path) != 0) {
        dv_status st = dv_error_set(err, DV_ERR_IO, "%s: write failed: %s", path, strerror(errno));
        remove(tmp);
        free(tmp);
        return st;
    }
    free(tmp);
    return DV_OK;
}
