/* viz_canvas.c - filled rectangles and bitmap text on an SDL renderer. */
#include "viz_canvas_sdl.h"
#include "viz_font.h"

#include <string.h>

static void set_colour(viz_canvas *c, uint32_t rgb)
{
    SDL_SetRenderDrawColor(c->r, (Uint8)(rgb >> 16), (Uint8)(rgb >> 8), (Uint8)rgb, 255);
}

void viz_fill(viz_canvas *c, int x, int y, int w, int h, uint32_t rgb)
{
    if (w <= 0 || h <= 0)
        return;
    set_colour(c, rgb);
    SDL_Rect r = {x, y, w, h};
    SDL_RenderFillRect(c->r, &r);
}

int viz_text_scale(const viz_canvas *c)
{
    return c->scale;
}

int viz_text_w(const viz_canvas *c, const char *s)
{
    return (int)strlen(s) * VIZ_FONT_W * c->scale;
}

int viz_line_h(const viz_canvas *c)
{
    return VIZ_FONT_H * c->scale;
}

int viz_text(viz_canvas *c, int x, int y, int x_max, const char *s, uint32_t rgb)
{
    enum { MAX_RECTS = 512 };
    SDL_Rect rects[MAX_RECTS];
    int n = 0, k = c->scale;
    set_colour(c, rgb);
    for (; *s && x + VIZ_GLYPH_W * k <= x_max; s++, x += VIZ_FONT_W * k) {
        for (int row = 0; row < VIZ_GLYPH_ROWS; row++) {
            uint8_t bits = viz_font_row((unsigned char)*s, row);
            /* one rectangle per run of set pixels in the row */
            for (int col = 0; col < VIZ_GLYPH_W;) {
                if (!(bits & (0x10 >> col))) {
                    col++;
                    continue;
                }
                int run = col;
                while (run < VIZ_GLYPH_W && (bits & (0x10 >> run)))
                    run++;
                if (n == MAX_RECTS) {
                    SDL_RenderFillRects(c->r, rects, n);
                    n = 0;
                }
                rects[n++] = (SDL_Rect){x + col * k, y + row * k, (run - col) * k, k};
                col = run;
            }
        }
    }
    if (n)
        SDL_RenderFillRects(c->r, rects, n);
    return x;
}
