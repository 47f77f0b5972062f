/* viz.c - the SDL front end: window or headless surface, input, the pacer
 * that interleaves simulation slices and frames, frame timing, PNG output. */
#include "dv_png.h"
#include "dv_profile.h"
#include "dv_viz.h"
#include "viz_canvas_sdl.h"
#include "viz_costs.h"
#include "viz_draw.h"
#include "viz_model.h"

#include <SDL.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_FRAME_TIMES = 1 << 16 };

struct dv_viz {
    dv_viz_options o;
    SDL_Window *win;
    SDL_Surface *surface; /* headless */
    SDL_Renderer *ren;
    bool sdl_video;
    viz_canvas canvas;
    viz_model model;
    dv_sim_hooks pacer; /* its pace() between slices */
    viz_view view;
    char title[256];
    dv_sim *sim;
    /* run control */
    bool quit, paused, stepping_insn;
    uint64_t step_mark, step_until;
    uint64_t frame_target;
    uint64_t pos, next_pos; /* the simulation has fired every event up to cycle pos */
    uint64_t chunk;         /* cycles per slice when a host-time budget applies */
    double frame_t0, slice_t0;
    unsigned frames;
    bool dragging;
    int drag_x;
    /* frame times while the simulation runs (ms) */
    double *times;
    unsigned ntimes;
    const char *keys_at; /* the rest of --keys */
    bool jumped;         /* key s moved the view to the stall at jump_at (view end jump_end) */
    uint64_t jump_at, jump_end;
};

/* Host time, for the budget and the frame times. A window is paced by what
 * its user sees: wall time. Headless there is nobody to see it, and on a
 * shared host wall time mostly measures the other processes: the thread's
 * CPU clock is the time the frame loop itself costs. */
static double now_ms(const dv_viz *v)
{
    if (v->o.headless) {
        struct timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
    }
    return (double)SDL_GetPerformanceCounter() * 1000.0 / (double)SDL_GetPerformanceFrequency();
}

void dv_viz_defaults(dv_viz_options *o)
{
    memset(o, 0, sizeof *o);
    o->width = 1280;
    o->height = 720;
    o->cycles_per_frame = 1000;
    o->span = 4000;
    o->period = 200;
    o->hover_x = o->hover_y = -1;
}

dv_viz *dv_viz_create(const dv_viz_options *o, dv_error *err)
{
    dv_viz *v = calloc(1, sizeof *v);
    if (!v) {
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        return NULL;
    }
    v->o = *o;
    if (!v->o.width || !v->o.height)
        v->o.width = 1280, v->o.height = 720;
    if (!v->o.cycles_per_frame)
        v->o.cycles_per_frame = 1000;
    if (!v->o.headless && v->o.budget_ms <= 0)
        v->o.budget_ms = 8;
    v->times = malloc(MAX_FRAME_TIMES * sizeof *v->times);
    if (!v->times) {
        free(v);
        dv_error_set(err, DV_ERR_NOMEM, "out of memory");
        return NULL;
    }
    /* The CLI owns Ctrl-C (it stops the run and completes its outputs). */
    SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
    if (v->o.headless) {
        /* No display: the dummy video driver, and the software renderer
         * drawing into a surface (which needs no video at all). */
        SDL_setenv("SDL_VIDEODRIVER", "dummy", 0);
        v->sdl_video = SDL_InitSubSystem(SDL_INIT_VIDEO) == 0;
        v->surface =
            SDL_CreateRGBSurfaceWithFormat(0, (int)v->o.width, (int)v->o.height, 32, SDL_PIXELFORMAT_RGB888);
        v->ren = v->surface ? SDL_CreateSoftwareRenderer(v->surface) : NULL;
    } else {
        /* Without a display SDL would warn and fall back to a video driver
         * that shows nothing (offscreen, dummy): a window nobody sees, held
         * open until closed.  Say so instead, before SDL prints anything. */
        const char *drv = getenv("SDL_VIDEODRIVER"), *x11 = getenv("DISPLAY"),
                   *wl = getenv("WAYLAND_DISPLAY");
        if (!(drv && *drv) && !(x11 && *x11) && !(wl && *wl)) {
            dv_error_set(err, DV_ERR_IO,
                         "cannot open a window: no display (DISPLAY and WAYLAND_DISPLAY are "
                         "unset; use --headless)");
            free(v->times);
            free(v);
            return NULL;
        }
        if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0) {
            dv_error_set(err, DV_ERR_IO, "cannot open a window: %s (try --headless)", SDL_GetError());
            free(v->times);
            free(v);
            return NULL;
        }
        const char *cur = SDL_GetCurrentVideoDriver();
        if (cur && (strcmp(cur, "offscreen") == 0 || strcmp(cur, "dummy") == 0)) {
            dv_error_set(err, DV_ERR_IO,
                         "cannot open a window: SDL found only its '%s' video driver, which "
                         "shows nothing (use --headless)",
                         cur);
            SDL_QuitSubSystem(SDL_INIT_VIDEO);
            free(v->times);
            free(v);
            return NULL;
        }
        v->sdl_video = true;
        v->win =
            SDL_CreateWindow("dvsim viz", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, (int)v->o.width,
                             (int)v->o.height, SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
        if (v->win) {
            v->ren = SDL_CreateRenderer(v->win, -1, SDL_RENDERER_PRESENTVSYNC);
            if (!v->ren)
                v->ren = SDL_CreateRenderer(v->win, -1, SDL_RENDERER_SOFTWARE);
        }
    }
    if (!v->ren) {
        dv_error_set(err, DV_ERR_IO, "SDL: %s", SDL_GetError());
        dv_viz_destroy(v);
        return NULL;
    }
    v->canvas.r = v->ren;
    v->canvas.scale = 1;
    v->view.core = v->o.core;
    v->view.span = v->o.span ? v->o.span : 4000;
    v->view.follow = true;
    v->view.mouse_x = v->o.headless ? v->o.hover_x : -1;
    v->view.mouse_y = v->o.headless ? v->o.hover_y : -1;
    v->view.show_host_time = !v->o.headless;
    v->view.step_cycles = 100;
    v->view.sel_lane = -1;
    v->paused = v->o.paused && !v->o.headless;
    v->keys_at = v->o.headless ? v->o.keys : NULL;
    v->chunk = 64;
    viz_model_init(&v->model, v->o.period);
    return v;
}

void dv_viz_destroy(dv_viz *v)
{
    if (!v)
        return;
    viz_model_free(&v->model);
    dv_profile_destroy(v->model.prof);
    if (v->ren)
        SDL_DestroyRenderer(v->ren);
    if (v->win)
        SDL_DestroyWindow(v->win);
    if (v->surface)
        SDL_FreeSurface(v->surface);
    if (v->sdl_video)
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
    SDL_Quit();
    free(v->times);
    free(v);
}

/* ---- drawing ---- */

static void draw_frame(dv_viz *v, const char *state)
{
    int w = (int)v->o.width, h = (int)v->o.height;
    if (v->win)
        SDL_GetRendererOutputSize(v->ren, &w, &h);
    v->canvas.scale = (w >= 2400 && h >= 1350) ? 2 : 1;
    v->view.now = v->pos;
    v->view.cycles_per_frame = v->o.cycles_per_frame;
    snprintf(v->view.state, sizeof v->view.state, "%s", state);
    viz_draw(&v->canvas, w, h, &v->model, &v->view);
    SDL_RenderPresent(v->ren);
    v->frames++;
    if (v->o.frame_log)
        printf("frame %u: cycle %llu %s, core %u, %llu instructions\n", v->frames, (unsigned long long)v->pos,
               state, v->view.core,
               (unsigned long long)(v->model.ncores ? v->model.cores[v->view.core].insns : 0));
    double t = now_ms(v);
    v->view.frame_ms = t - v->frame_t0;
    v->frame_t0 = t;
}

/* Draws a frame while the simulation runs, and times it. */
static void running_frame(dv_viz *v)
{
    double start = v->frame_t0;
    draw_frame(v, v->stepping_insn || v->step_until ? "stepping" : "running");
    if (v->ntimes < MAX_FRAME_TIMES)
        v->times[v->ntimes++] = v->frame_t0 - start;
}

/* ---- input ---- */

static void pan(dv_viz *v, int64_t cycles)
{
    uint64_t t1 = v->view.follow ? v->view.now : v->view.end;
    if (cycles < 0 && (uint64_t)-cycles > t1)
        t1 = 0;
    else
        t1 = (uint64_t)((int64_t)t1 + cycles);
    if (t1 < v->view.span)
        t1 = v->view.span;
    v->view.follow = t1 >= v->view.now;
    v->view.end = t1;
}

static void pick_core(dv_viz *v, int delta)
{
    unsigned n = v->model.ncores ? v->model.ncores : 1;
    v->view.core = (unsigned)(((int)v->view.core + delta + (int)n) % (int)n);
}

/* Key p: the next pipe the selected core has. */
static void pick_lane(dv_viz *v)
{
    dv_core_info ci;
    if (!v->model.ncores || !dv_sim_core_info(v->sim, v->view.core, &ci))
        return;
    for (int i = 1; i <= DV_PIPE_COUNT; i++) {
        int lane = (v->view.sel_lane + i + DV_PIPE_COUNT) % DV_PIPE_COUNT;
        if (ci.has_pipe[lane]) {
            v->view.sel_lane = lane;
            return;
        }
    }
}

/* Key s: the view centred on the next stall of the selected pipe after the
 * centre of the view (the view stops following). */
static void jump_to_stall(dv_viz *v)
{
    if (v->view.sel_lane < 0)
        pick_lane(v);
    /* after the last stall jumped to while the view stays there; else from
     * the view's left edge */
    uint64_t t1 = v->view.follow ? v->pos : v->view.end, half = v->view.span / 2;
    uint64_t centre = t1 > v->view.span ? t1 - v->view.span : 0, start;
    if (!v->view.follow && v->jumped && v->view.end == v->jump_end)
        centre = v->jump_at;
    char what[96];
    if (!viz_next_stall(&v->model, v->view.core, v->view.sel_lane, centre, &start, what, sizeof what)) {
        snprintf(v->view.note, sizeof v->view.note, "no stall of %s after cycle %llu",
                 v->view.sel_lane >= 0 ? dv_lane_name((unsigned)v->view.sel_lane) : "a pipe",
                 (unsigned long long)centre);
    } else {
        v->view.follow = false;
        v->view.end = start + half > v->view.span ? start + half : v->view.span;
        v->jumped = true;
        v->jump_at = start;
        v->jump_end = v->view.end;
        snprintf(v->view.note, sizeof v->view.note, "cycle %llu: %s", (unsigned long long)start, what);
    }
    if (v->o.frame_log)
        printf("jump: %s\n", v->view.note);
}

static void on_key(dv_viz *v, SDL_Keycode k)
{
    switch (k) {
    case SDLK_l: v->view.show_costs = !v->view.show_costs; break;
    case SDLK_p: pick_lane(v); break;
    case SDLK_s: jump_to_stall(v); break;
    case SDLK_SPACE:
        v->paused = !v->paused;
        v->stepping_insn = false;
        v->step_until = 0;
        break;
    case SDLK_n:
        if (v->model.ncores) {
            v->stepping_insn = true;
            v->step_mark = v->model.cores[v->view.core].insns;
        }
        break;
    case SDLK_c: v->step_until = v->pos + v->view.step_cycles; break;
    case SDLK_LEFTBRACKET:
        if (v->view.step_cycles > 1)
            v->view.step_cycles /= 2;
        break;
    case SDLK_RIGHTBRACKET: v->view.step_cycles *= 2; break;
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS:
        if (v->view.span > 32)
            v->view.span /= 2;
        break;
    case SDLK_MINUS:
    case SDLK_KP_MINUS: v->view.span *= 2; break;
    case SDLK_LEFT: pan(v, -(int64_t)(v->view.span / 4)); break;
    case SDLK_RIGHT: pan(v, (int64_t)(v->view.span / 4)); break;
    case SDLK_f:
    case SDLK_END: v->view.follow = true; break;
    case SDLK_HOME:
        v->view.follow = false;
        v->view.end = v->view.span;
        break;
    case SDLK_UP: pick_core(v, -1); break;
    case SDLK_DOWN:
    case SDLK_TAB: pick_core(v, 1); break;
    case SDLK_COMMA:
        if (v->o.cycles_per_frame > 1)
            v->o.cycles_per_frame /= 2;
        break;
    case SDLK_PERIOD: v->o.cycles_per_frame *= 2; break;
    case SDLK_q:
    case SDLK_ESCAPE: v->quit = true; break;
    default: break;
    }
}

static void handle_event(dv_viz *v, const SDL_Event *e)
{
    int w = 0, h = 0;
    SDL_GetRendererOutputSize(v->ren, &w, &h);
    switch (e->type) {
    case SDL_QUIT: v->quit = true; break;
    case SDL_KEYDOWN: on_key(v, e->key.keysym.sym); break;
    case SDL_MOUSEWHEEL:
        if (e->wheel.y > 0 && v->view.span > 32)
            v->view.span /= 2;
        else if (e->wheel.y < 0)
            v->view.span *= 2;
        break;
    case SDL_MOUSEBUTTONDOWN: {
        int core = viz_core_at(&v->canvas, w, h, &v->model, e->button.x, e->button.y);
        uint64_t cycle;
        if (core >= 0)
            v->view.core = (unsigned)core;
        else if (viz_cycle_at(&v->canvas, w, h, &v->view, e->button.x, e->button.y, &cycle)) {
            v->dragging = true;
            v->drag_x = e->button.x;
        }
        break;
    }
    case SDL_MOUSEBUTTONUP: v->dragging = false; break;
    case SDL_MOUSEMOTION:
        v->view.mouse_x = e->motion.x;
        v->view.mouse_y = e->motion.y;
        if (v->dragging) {
            int pw = viz_plot_width(&v->canvas, w, h);
            int64_t dx = v->drag_x - e->motion.x;
            v->drag_x = e->motion.x;
            if (pw > 0)
                pan(v, dx * (int64_t)v->view.span / pw);
        }
        break;
    case SDL_WINDOWEVENT:
        if (e->window.event == SDL_WINDOWEVENT_LEAVE)
            v->view.mouse_x = v->view.mouse_y = -1;
        break;
    default: break;
    }
}

/* The next key of --keys: a name (space, tab, left, right, up, down, home,
 * end, esc, comma) or one character; 0 when there are none left. */
static SDL_Keycode next_key(dv_viz *v)
{
    static const struct {
        const char *name;
        SDL_Keycode key;
    } names[] = {{"space", SDLK_SPACE}, {"tab", SDLK_TAB},    {"left", SDLK_LEFT}, {"right", SDLK_RIGHT},
                 {"up", SDLK_UP},       {"down", SDLK_DOWN},  {"home", SDLK_HOME}, {"end", SDLK_END},
                 {"esc", SDLK_ESCAPE},  {"comma", SDLK_COMMA}};
    const char *k = v->keys_at;
    if (!k || !*k)
        return 0;
    size_t n = strcspn(k, ",");
    v->keys_at = k[n] ? k + n + 1 : k + n;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == n && strncmp(k, names[i].name, n) == 0)
            return names[i].key;
    return n == 1 ? (SDL_Keycode)(unsigned char)k[0] : SDLK_UNKNOWN;
}

static void poll_input(dv_viz *v)
{
    if (v->o.headless) {
        bool any = v->keys_at && *v->keys_at;
        if (any)
            on_key(v, next_key(v));
        else if (v->paused)
            v->paused = false; /* the script is over: let the run go on */
        return;
    }
    SDL_Event e;
    while (SDL_PollEvent(&e))
        handle_event(v, &e);
}

/* ---- the pacer: between slices of the simulation ---- */

static uint64_t pace(void *user, dv_sim *sim)
{
    dv_viz *v = user;
    v->pos = v->next_pos; /* every event up to it has fired */
    /* adapt the slice so that one takes about half a millisecond of host
     * time: a frame overshoots its budget by at most about one slice */
    double took = 0;
    if (v->o.budget_ms > 0) {
        took = now_ms(v) - v->slice_t0;
        if (took < 0.25 && v->chunk < (1u << 20))
            v->chunk *= 2;
        else if (took > 1 && v->chunk > 1)
            v->chunk /= 2;
    }
    uint64_t until;
    for (;;) {
        poll_input(v);
        if (v->quit) {
            dv_sim_interrupt(sim);
            return v->pos;
        }
        if (v->stepping_insn) {
            if (v->model.ncores && v->model.cores[v->view.core].insns != v->step_mark) {
                v->stepping_insn = false;
                v->paused = true;
                continue;
            }
            draw_frame(v, "stepping");
            until = dv_sim_next_cycle(sim); /* every event of the next cycle */
            if (until == UINT64_MAX)
                until = v->pos;
            break;
        }
        if (v->step_until) {
            if (v->pos >= v->step_until) {
                v->step_until = 0;
                v->paused = true;
                continue;
            }
            until = v->step_until;
            break;
        }
        if (v->paused) {
            draw_frame(v, "paused");
            if (!v->o.headless)
                SDL_WaitEventTimeout(NULL, 30);
            continue;
        }
        /* draw now if the next slice would end past the budget */
        bool over_budget = v->o.budget_ms > 0 && now_ms(v) - v->frame_t0 + took >= v->o.budget_ms;
        if (v->pos >= v->frame_target || over_budget) {
            if (v->frames) /* the first call comes before any event: nothing to time */
                running_frame(v);
            else
                draw_frame(v, "running");
            v->frame_target = v->pos + v->o.cycles_per_frame;
            if (v->o.headless && v->o.frames && v->frames >= v->o.frames) {
                v->quit = true;
                continue;
            }
        }
        /* fire the events up to the frame's target cycle (or a chunk of
         * them), so that a frame shows the state at a whole cycle */
        until = v->frame_target;
        if (v->o.budget_ms > 0 && v->pos + v->chunk < until)
            until = v->pos + v->chunk;
        break;
    }
    v->next_pos = until;
    v->slice_t0 = now_ms(v);
    return until;
}

dv_status dv_viz_attach(dv_viz *v, dv_sim *sim, const char *title, dv_error *err)
{
    v->sim = sim;
    snprintf(v->title, sizeof v->title, "%s", title ? title : "");
    v->view.title = v->title;
    if (v->win) {
        char wt[300];
        snprintf(wt, sizeof wt, "dvsim viz - %s", v->title);
        SDL_SetWindowTitle(v->win, wt);
    }
    v->pacer = (dv_sim_hooks){.user = v, .pace = pace};
    if (!v->model.prof && !(v->model.prof = dv_profile_create(err)))
        return err->status;
    dv_status st = dv_profile_attach(v->model.prof, sim, err);
    if (st == DV_OK)
        st = dv_sim_add_hooks(sim, &v->model.hooks, err);
    if (st == DV_OK)
        st = dv_sim_add_hooks(sim, &v->pacer, err);
    if (st != DV_OK)
        return st;
    v->frame_t0 = now_ms(v);
    return DV_OK;
}

static dv_status write_png(dv_viz *v, dv_error *err)
{
    SDL_Surface *s = v->surface;
    uint8_t *rgb = malloc((size_t)s->w * (size_t)s->h * 3);
    if (!rgb)
        return dv_error_set(err, DV_ERR_NOMEM, "out of memory");
    if (SDL_MUSTLOCK(s))
        SDL_LockSurface(s);
    for (int y = 0; y < s->h; y++) {
        const uint32_t *row = (const uint32_t *)((const uint8_t *)s->pixels + (size_t)y * (size_t)s->pitch);
        for (int x = 0; x < s->w; x++) {
            uint8_t r, g, b;
            SDL_GetRGB(row[x], s->format, &r, &g, &b);
            uint8_t *p = rgb + ((size_t)y * (size_t)s->w + (size_t)x) * 3;
            p[0] = r, p[1] = g, p[2] = b;
        }
    }
    if (SDL_MUSTLOCK(s))
        SDL_UnlockSurface(s);
    dv_status st = dv_png_write(v->o.png, rgb, (unsigned)s->w, (unsigned)s->h, err);
    free(rgb);
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void print_frame_stats(dv_viz *v)
{
    if (!v->ntimes) {
        printf("viz: no frame was drawn while the simulation ran\n");
        return;
    }
    qsort(v->times, v->ntimes, sizeof *v->times, cmp_double);
    double p50 = v->times[v->ntimes / 2], p95 = v->times[(v->ntimes * 95 + 99) / 100 - 1];
    double max = v->times[v->ntimes - 1];
    printf("viz: %u frames while the simulation ran, %llu cycles per frame, budget %.1f ms: "
           "frame time p50 %.2f ms, p95 %.2f ms, max %.2f ms (%s)\n",
           v->ntimes, (unsigned long long)v->o.cycles_per_frame, v->o.budget_ms, p50, p95, max,
           v->o.headless ? "thread CPU time" : "wall time");
}

dv_status dv_viz_end(dv_viz *v, const dv_run_result *res, dv_error *err)
{
    viz_model_finish(&v->model, res->cycles);
    v->pos = res->cycles;
    char state[96];
    if (res->stop == DV_STOP_INTERRUPTED && v->quit) /* stopped from here, not by Ctrl-C */
        snprintf(state, sizeof state, "stopped after %u frames", v->frames);
    else
        snprintf(state, sizeof state, "%s at cycle %llu", dv_stop_name(res->stop),
                 (unsigned long long)res->cycles);
    if (v->o.headless) {
        draw_frame(v, state);
        dv_status st = v->o.png ? write_png(v, err) : DV_OK;
        if (v->o.frame_stats)
            print_frame_stats(v);
        return st;
    }
    if (v->o.frame_stats)
        print_frame_stats(v);
    /* The run ended by itself: the window stays until closed.  A run
     * stopped from the window (or by Ctrl-C) ends here. */
    if (res->stop == DV_STOP_INTERRUPTED)
        return DV_OK;
    char held[128];
    snprintf(held, sizeof held, "%s - q closes", state);
    /* ... or until a stop signal (Ctrl-C, SIGTERM: the CLI's handler sets
     * the run's interrupt flag; SDL installs none) */
    while (!v->quit && !(v->sim && dv_sim_interrupted(v->sim))) {
        SDL_Event e;
        if (SDL_WaitEventTimeout(&e, 100)) {
            handle_event(v, &e);
            while (SDL_PollEvent(&e))
                handle_event(v, &e);
        }
        draw_frame(v, held);
    }
    return DV_OK;
}
