/*
** ascii.c -- the timeline as lines of text, for a terminal.
**
**   greet.json
**   seconds 0          0.2         0.4   ...
**           +----------+-----------+---- ...
**   main    #--------------------------- ...  -------^#
**   Alice    #.......................... ...  ......*#
**
** One line per row, one character cell per slice of time: layout.c works
** in cells here, and gives every run at least one whole cell. Each mark
** paints the cells it covers, and where two marks share a cell the one
** that says more wins (a run over a wake, a wake over a wait). A wake is
** painted in the last cell of the wait it ends, so that "-----^#" reads:
** waited, was woken by a task, ran.
**
** The output depends on nothing but the trace and the options, so tests
** can compare it byte for byte.
*/
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

/* The glyph of each kind of cell, from the least to the most important;
 * a cell keeps the most important glyph painted on it. */
static const char glyphs[] = " .-t*^=#!X";
enum {
    G_NONE,      /* not alive, or ready */
    G_SLEEP,     /* . sleeping */
    G_WAIT,      /* - waiting */
    G_TIMER,     /* t a timer armed, fired or stopped (loop row) */
    G_LOOP_WAKE, /* * woken by the loop */
    G_TASK_WAKE, /* ^ woken by a task */
    G_CALLBACK,  /* = a callback (loop row) */
    G_RUN,       /* # running */
    G_SLOW,      /* ! a slow step */
    G_FAILED,    /* X finished with a status other than "ok" */
};

static const char *const legend[] = {
    "# running",  "- waiting", ". sleeping",  "^ woken by a task", "* woken by the loop",
    "= callback", "t timer",   "! slow step", "X failed",
};

enum { MIN_LABEL = 7, MAX_LABEL = 20 }; /* "seconds" .. the widest name shown */

/* The cells of the picture: `cols` per row, each a G_ value. */
typedef struct grid {
    unsigned char *cells;
    int rows, cols;
} grid;

/* ---- painting ---------------------------------------------------------------- */

/* The cell that holds position x (clamped to the grid). */
static int cell_at(const grid *g, double x)
{
    int c = x <= 0 ? 0 : x >= g->cols ? g->cols - 1 : (int)x;
    return c;
}

/* The last cell that a span ending at x covers: the one before x, or the
 * one holding x if x is not on a cell's edge. */
static int cell_before(const grid *g, double x)
{
    int c = cell_at(g, x);
    return c > 0 && (double)c == x ? c - 1 : c;
}

static void paint(grid *g, int row, int first, int last, int glyph)
{
    unsigned char *line = g->cells + (size_t)row * (size_t)g->cols;
    for (int c = first; c <= last; c++)
        if (line[c] < glyph)
            line[c] = (unsigned char)glyph;
}

static bool is_failure(const trace *t, const mark *m)
{
    const char *status = trace_string(t, m->event->text);
    return m->kind == MARK_END && status[0] != '\0' && strcmp(status, "ok") != 0;
}

static void paint_mark(grid *g, const trace *t, const mark *m)
{
    static const int span_glyph[] = {G_RUN, G_WAIT, G_SLEEP, G_NONE, G_CALLBACK};
    int at = cell_at(g, m->x0);
    switch (m->kind) {
    case MARK_RUN:
    case MARK_WAIT:
    case MARK_SLEEP:
    case MARK_READY:
    case MARK_CALLBACK:
        paint(g, m->row, at, cell_before(g, m->x1), span_glyph[m->kind]);
        break;
    case MARK_WAKE:
        at = cell_before(g, m->x0);
        paint(g, m->row, at, at, m->from >= 0 ? G_TASK_WAKE : G_LOOP_WAKE);
        break;
    case MARK_END:
        if (is_failure(t, m))
            paint(g, m->row, at, at, G_FAILED);
        break;
    case MARK_SLOW: paint(g, m->row, at, at, G_SLOW); break;
    case MARK_TIMER: paint(g, m->row, at, at, G_TIMER); break;
    case MARK_CREATE: break;
    }
}

/* ---- lines ------------------------------------------------------------------- */

/* Prints `s` cut to `cols` columns and padded with spaces to exactly that. */
static void put_padded(FILE *out, const char *s, int cols)
{
    char buf[256];
    int used = text_fit(s, cols, "~", buf, sizeof buf);
    fprintf(out, "%s%*s", buf, cols - used, "");
}

/* Prints the `n` bytes of `line` without its trailing spaces, and a newline. */
static void put_trimmed(FILE *out, const char *line, int n)
{
    while (n > 0 && line[n - 1] == ' ')
        n--;
    fprintf(out, "%.*s\n", n, line);
}

/* The tick labels, each starting at its tick's cell; a label that would
 * touch the one before it is left out, and the last one may move left to
 * stay inside the line. */
static void put_tick_labels(FILE *out, const layout *l, const grid *g, int label_cols,
                            char *line)
{
    int free_from = 0; /* the first cell a label may use */
    memset(line, ' ', (size_t)g->cols);
    for (int i = 0; i < l->tick_count; i++) {
        int len = (int)strlen(l->ticks[i].label);
        int at = cell_at(g, l->ticks[i].x);
        if (at + len > g->cols)
            at = g->cols - len;
        if (at < free_from || at < 0)
            continue;
        memcpy(line + at, l->ticks[i].label, (size_t)len);
        free_from = at + len + 1;
    }
    put_padded(out, "seconds", label_cols);
    fputc(' ', out);
    put_trimmed(out, line, g->cols);
}

/* The axis: '-' along the time the picture covers, '+' at each tick. */
static void put_axis(FILE *out, const layout *l, const grid *g, int label_cols, int used)
{
    fprintf(out, "%*s", label_cols + 1, "");
    for (int c = 0; c < used; c++) {
        bool on_tick = false;
        for (int i = 0; i < l->tick_count && !on_tick; i++)
            on_tick = cell_at(g, l->ticks[i].x) == c;
        fputc(on_tick ? '+' : '-', out);
    }
    fputc('\n', out);
}

static void put_rows(FILE *out, const trace *t, const grid *g, int label_cols, char *line)
{
    for (int row = 0; row < g->rows; row++) {
        const unsigned char *cells = g->cells + (size_t)row * (size_t)g->cols;
        for (int c = 0; c < g->cols; c++)
            line[c] = glyphs[cells[c]];
        put_padded(out, trace_string(t, t->rows[row].name), label_cols);
        fputc(' ', out);
        put_trimmed(out, line, g->cols);
    }
}

/* The legend, its entries wrapped to the width. */
static void put_legend(FILE *out, int width)
{
    int used = 0;
    for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++) {
        int len = (int)strlen(legend[i]);
        if (used > 0 && used + 2 + len > width) {
            fputc('\n', out);
            used = 0;
        }
        fprintf(out, "%s%s", used > 0 ? "  " : "", legend[i]);
        used += (used > 0 ? 2 : 0) + len;
    }
    fputc('\n', out);
}

/* What the cells cannot say: how a task failed, how long a step held the
 * loop, where a truncated trace stops. */
static void put_notes(FILE *out, const trace *t, const layout *l)
{
    for (size_t i = 0; i < l->count; i++) {
        const mark *m = &l->marks[i];
        char name[256], text[256], at[32], seconds[32];
        if (m->kind != MARK_SLOW && !is_failure(t, m))
            continue;
        text_fit(trace_string(t, t->rows[m->row].name), 40, "~", name, sizeof name);
        text_fit(trace_string(t, m->event->text), 60, "~", text, sizeof text);
        format_seconds(m->event->ts, at, sizeof at);
        format_seconds(m->event->value * 1e6, seconds, sizeof seconds);
        if (m->kind == MARK_SLOW)
            fprintf(out, "! %s held the loop for %s s (at %s s)\n", name, seconds, at);
        else
            fprintf(out, "X %s finished at %s s: %s\n", name, at, text);
    }
    if (t->truncated && t->count > 0) {
        char at[32];
        format_seconds(t->events[t->count - 1].ts, at, sizeof at);
        fprintf(out, "the trace is truncated: it stops at %s s\n", at);
    }
}

/* ---- the whole picture --------------------------------------------------------- */

static int label_width(const trace *t, int width)
{
    int widest = MIN_LABEL;
    for (int row = 0; row < t->row_count; row++) {
        int w = text_width(trace_string(t, t->rows[row].name));
        widest = w > widest ? w : widest;
    }
    widest = widest < MAX_LABEL ? widest : MAX_LABEL;
    return widest < width / 3 ? widest : width / 3;
}

/* How many cells the picture uses: up to the end of the axis, or the last
 * mark if one goes further. */
static int used_cells(const layout *l, const grid *g)
{
    double end = l->end;
    for (size_t i = 0; i < l->count; i++)
        end = l->marks[i].x1 > end ? l->marks[i].x1 : end;
    int used = cell_at(g, end) + 1;
    return used;
}

static void put_title(FILE *out, const trace *t, const char *title, int width)
{
    char buf[1024];
    const char *suffix = t->truncated ? " (truncated)" : "";
    text_fit(title, width - (int)strlen(suffix), "~", buf, sizeof buf);
    fprintf(out, "%s%s\n", buf, suffix);
}

int ascii_draw(FILE *out, const trace *t, const draw_options *o)
{
    int label_cols = label_width(t, o->width);
    grid g = {NULL, t->row_count, o->width - label_cols - 1};
    /* One cell fewer for the layout, so that the last tick has a cell. */
    layout_options lo = {.width = g.cols - 1,
                         .min_run = 1,
                         .min_gap = 10,
                         .char_w = 1,
                         .whole_units = true};
    layout l = {0};
    g.cells = calloc(g.rows > 0 ? (size_t)g.rows * (size_t)g.cols : 1, 1);
    char *line = malloc((size_t)g.cols);
    int rc = g.cells != NULL && line != NULL ? layout_make(t, &lo, &l) : -1;
    if (rc == 0) {
        for (size_t i = 0; i < l.count; i++)
            paint_mark(&g, t, &l.marks[i]);
        int used = used_cells(&l, &g);
        put_title(out, t, o->title, o->width);
        put_tick_labels(out, &l, &g, label_cols, line);
        put_axis(out, &l, &g, label_cols, used);
        put_rows(out, t, &g, label_cols, line);
        put_axis(out, &l, &g, label_cols, used);
        put_legend(out, o->width);
        put_notes(out, t, &l);
    }
    free(line);
    free(g.cells);
    layout_free(&l);
    return rc;
}
