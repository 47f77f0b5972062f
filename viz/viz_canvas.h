/* viz_canvas.h - the few drawing operations the view needs: opaque filled
 * rectangles and text in the built-in font, on an SDL renderer (a window's,
 * or a software renderer on a surface for headless frames).  Only opaque
 * colours, no lines at angles and no blending, so a frame is the same
 * pixels on any SDL version.  The view (viz_draw.c) sees no SDL type. */
#ifndef DV_VIZ_CANVAS_H
#define DV_VIZ_CANVAS_H

#include <stdint.h>

typedef struct viz_canvas viz_canvas;

/* Colours are 0xRRGGBB. */
void viz_fill(viz_canvas *c, int x, int y, int w, int h, uint32_t rgb);
/* Draws s with its top-left at (x, y), stopping before x_max; returns the x
 * after the last glyph drawn. */
int viz_text(viz_canvas *c, int x, int y, int x_max, const char *s, uint32_t rgb);
/* Text is drawn at this integer scale (1 at 1280 x 720). */
int viz_text_scale(const viz_canvas *c);
int viz_text_w(const viz_canvas *c, const char *s);
int viz_line_h(const viz_canvas *c);

#endif
