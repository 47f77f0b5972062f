/* viz_font.h - the window's bitmap font: 5 x 9 glyphs (7 rows above the
 * baseline, 2 below for descenders) in a 6 x 10 cell, ASCII 32..126.
 * Built in so that frames are the same pixels everywhere (no font files,
 * no SDL2_ttf, no anti-aliasing).  No SDL here. */
#ifndef DV_VIZ_FONT_H
#define DV_VIZ_FONT_H

#include <stdint.h>

enum { VIZ_FONT_W = 6, VIZ_FONT_H = 10, VIZ_GLYPH_W = 5, VIZ_GLYPH_ROWS = 9 };

/* Row r (0 = top) of the glyph of ch: bit 4 is the leftmost pixel.
 * Characters outside 32..126 draw as '?'. */
uint8_t viz_font_row(unsigned char ch, int r);

#endif
