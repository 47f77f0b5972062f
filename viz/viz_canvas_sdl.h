/* viz_canvas_sdl.h - the canvas behind viz_canvas.h (the SDL side). */
#ifndef DV_VIZ_CANVAS_SDL_H
#define DV_VIZ_CANVAS_SDL_H

#include "viz_canvas.h"

#include <SDL.h>

struct viz_canvas {
    SDL_Renderer *r;
    int scale; /* text scale */
};

#endif
