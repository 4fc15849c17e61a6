/*
** svg.c -- the timeline as an SVG picture.
**
** Top to bottom: the title, the legend, one row per task (its name at the
** left, its marks along the time axis), and the axis in seconds. The marks
** are drawn in layers, so that the small ones stay visible: the spans
** (ready, waiting, sleeping, running, callbacks), then the points (ends,
** timers, slow steps, wakes by the loop), then the arrows of wakes by a
** task, which cross the rows between the waker and the woken.
**
** The file stands alone: one <style> element, no fonts or scripts to
** fetch. Widths of text are estimated from a monospace font's character
** width, which is why the names and the axis use one. Every mark carries a
** <title>, which a browser shows as a tooltip: hover over a wait to see
** what the task waited on.
*/
#include "timeline.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum {
    PLOT_W = 760,   /* px of the time axis */
    ROW_H = 26,     /* px per row */
    BAR_H = 14,     /* px: the height of a run */
    THIN_H = 6,     /* px: the height of a wait or a sleep */
    LABEL_MAX = 24, /* characters of a name shown in the label column */
    LEGEND_H = 20,  /* px per line of the legend */
};
#define CHAR_W 7.2  /* px of one character of the 12 px monospace font */
#define SMALL_W 6.6 /* px of one character of the 11 px one */

/* Where things go on the page. */
typedef struct page {
    double left;   /* x of the start of the time axis */
    double top;    /* y of the top of the first row */
    double width;  /* of the whole picture */
    double height; /* of the whole picture */
    double axis_y; /* y of the time axis, under the rows */
    int label_cols;
} page;

static const char style[] =
    "<style>\n"
    "text { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px;"
    " fill: #222; }\n"
    ".title { font-family: 'DejaVu Sans', Helvetica, Arial, sans-serif; font-size: 16px;"
    " font-weight: bold; }\n"
    ".small { font-size: 11px; fill: #444; }\n"
    ".stripe { fill: #f2f4f7; }\n"
    ".grid { stroke: #dfe3e8; stroke-width: 1; }\n"
    ".axis { stroke: #555; stroke-width: 1; }\n"
    ".run { fill: #2f6fd0; }\n"
    ".wait { fill: #f0a830; }\n"
    ".sleep { fill: #9d8bdc; }\n"
    ".ready { fill: #b3b9c0; }\n"
    ".callback { fill: #5cbf93; stroke: #fff; stroke-width: 0.5; }\n"
    ".wake { stroke: #333; stroke-width: 1.2; }\n"
    ".loopwake { fill: #333; }\n"
    ".timer { stroke: #1f5c43; stroke-width: 1.5; }\n"
    ".mark { stroke: #333; stroke-width: 1.5; }\n"
    ".failed { stroke: #d0312d; stroke-width: 2.2; fill: none; }\n"
    ".failtext { font-size: 11px; fill: #d0312d; }\n"
    ".slow { fill: #d0312d; }\n"
    ".bang { font-size: 9px; font-weight: bold; fill: #fff; }\n"
    ".cut { stroke: #d0312d; stroke-width: 1.5; stroke-dasharray: 4 3; }\n"
    "</style>\n";

/* ---- text -------------------------------------------------------------------- */

/* Writes text that is already safe (see text_fit) with XML's five
 * special characters escaped. */
static void put_escaped(FILE *out, const char *s)
{
    for (; *s != '\0'; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default: fputc(*s, out);
        }
    }
}

/* A string from the trace, made safe and at most `cols` wide. */
static const char *safe(const char *s, int cols, char *buf, size_t size)
{
    text_fit(s, cols, "…", buf, size);
    return buf;
}

static const char *row_name(const trace *t, int row, char *buf, size_t size)
{
    return safe(trace_string(t, t->rows[row].name), 40, buf, size);
}

static bool is_ok(const char *status)
{
    return status[0] == '\0' || strcmp(status, "ok") == 0;
}

/* ---- shapes ---------------------------------------------------------------------- */

/*
** Each shape writes one whole element. `tip`, if not NULL, becomes its
** <title>, which a browser shows as a tooltip.
*/
static void end_element(FILE *out, const char *tag, const char *tip)
{
    if (tip == NULL) {
        fputs("/>\n", out);
        return;
    }
    fputs("><title>", out);
    put_escaped(out, tip);
    fprintf(out, "</title></%s>\n", tag);
}

static void shape_rect(FILE *out, const char *class, double x, double y, double w,
                       double h, const char *tip)
{
    fprintf(out,
            "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"",
            class, x, y, w, h);
    end_element(out, "rect", tip);
}

/* A vertical line from y1 to y2, with an arrowhead at y2 if `arrow`. */
static void shape_line(FILE *out, const char *class, double x, double y1, double y2,
                       bool arrow, const char *tip)
{
    fprintf(out, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"%s",
            class, x, y1, x, y2, arrow ? " marker-end=\"url(#arrow)\"" : "");
    end_element(out, "line", tip);
}

/* A small triangle pointing down at (x, y): a wake by the loop. */
static void shape_triangle(FILE *out, double x, double y, const char *tip)
{
    fprintf(out, "<path class=\"loopwake\" d=\"M%.1f,%.1f l-4,-6 h8 z\"", x, y);
    end_element(out, "path", tip);
}

/* A red cross centred on (x, y): a task that failed. */
static void shape_cross(FILE *out, double x, double y, const char *tip)
{
    fprintf(out, "<path class=\"failed\" d=\"M%.1f,%.1f l8,8 m0,-8 l-8,8\"", x - 4,
            y - 4);
    end_element(out, "path", tip);
}

/* A red dot with a "!" centred on (x, y): a slow step. */
static void shape_alert(FILE *out, double x, double y, const char *tip)
{
    fputs("<g>", out);
    if (tip != NULL) {
        fputs("<title>", out);
        put_escaped(out, tip);
        fputs("</title>", out);
    }
    fprintf(out, "<circle class=\"slow\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\"/>", x, y);
    fprintf(out,
            "<text class=\"bang\" x=\"%.1f\" y=\"%.1f\" "
            "text-anchor=\"middle\">!</text></g>\n",
            x, y + 3);
}

/* ---- the page -------------------------------------------------------------------- */

static double row_middle(const page *p, int row)
{
    return p->top + row * ROW_H + ROW_H / 2.0;
}

/* The room a failed task's status needs to the right of the axis. */
static double status_overhang(const trace *t, const layout *l)
{
    double most = 0;
    for (size_t i = 0; i < l->count; i++) {
        const mark *m = &l->marks[i];
        const char *status = trace_string(t, m->event->text);
        char buf[256];
        if (m->kind != MARK_END || is_ok(status))
            continue;
        double right = m->x0 + 14 + text_fit(status, 40, "…", buf, sizeof buf) * SMALL_W;
        most = right - PLOT_W > most ? right - PLOT_W : most;
    }
    return most;
}

/* ---- the legend ---------------------------------------------------------------- */

enum {
    KEY_RUN,
    KEY_WAIT,
    KEY_SLEEP,
    KEY_READY,
    KEY_TASK_WAKE,
    KEY_LOOP_WAKE,
    KEY_CALLBACK,
    KEY_TIMER,
    KEY_FAILED,
    KEY_SLOW,
    KEY_COUNT
};

static const char *const key_text[KEY_COUNT] = {
    "running",           "waiting",  "sleeping", "ready",  "woken by a task",
    "woken by the loop", "callback", "timer",    "failed", "slow step"};

static double key_width(int key)
{
    return 18 + 5 + strlen(key_text[key]) * SMALL_W + 16;
}

/* How many lines the legend takes in a picture `width` wide. */
static int legend_lines(double width)
{
    int lines = 1;
    double x = 12;
    for (int key = 0; key < KEY_COUNT; key++) {
        if (x + key_width(key) > width - 12 && x > 12) {
            lines++;
            x = 12;
        }
        x += key_width(key);
    }
    return lines;
}

/* The little picture of one legend entry: 18 px wide from x, centred on y. */
static void draw_key(FILE *out, int key, double x, double y)
{
    switch (key) {
    case KEY_RUN: shape_rect(out, "run", x, y - 6, 18, 12, NULL); break;
    case KEY_WAIT: shape_rect(out, "wait", x, y - THIN_H / 2.0, 18, THIN_H, NULL); break;
    case KEY_SLEEP:
        shape_rect(out, "sleep", x, y - THIN_H / 2.0, 18, THIN_H, NULL);
        break;
    case KEY_READY: shape_rect(out, "ready", x, y - 1, 18, 2, NULL); break;
    case KEY_TASK_WAKE: shape_line(out, "wake", x + 9, y - 7, y + 6, true, NULL); break;
    case KEY_LOOP_WAKE: shape_triangle(out, x + 9, y + 3, NULL); break;
    case KEY_CALLBACK: shape_rect(out, "callback", x, y - 6, 18, 12, NULL); break;
    case KEY_TIMER: shape_line(out, "timer", x + 9, y - 7, y + 7, false, NULL); break;
    case KEY_FAILED: shape_cross(out, x + 9, y, NULL); break;
    case KEY_SLOW: shape_alert(out, x + 9, y, NULL); break;
    }
}

static void draw_legend(FILE *out, const page *p)
{
    double x = 12, y = 44;
    fputs("<g id=\"legend\">\n", out);
    for (int key = 0; key < KEY_COUNT; key++) {
        if (x + key_width(key) > p->width - 12 && x > 12) {
            x = 12;
            y += LEGEND_H;
        }
        draw_key(out, key, x, y);
        fprintf(out, "<text class=\"small\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + 23,
                y + 4, key_text[key]);
        x += key_width(key);
    }
    fputs("</g>\n", out);
}

/* ---- rows, grid and axis ---------------------------------------------------- */

static void draw_rows(FILE *out, const trace *t, const page *p)
{
    char name[256], full_name[1024];
    fputs("<g id=\"rows\">\n", out);
    for (int row = 0; row < t->row_count; row++) {
        const char *full = trace_string(t, t->rows[row].name);
        if (row % 2 == 1)
            shape_rect(out, "stripe", 0, p->top + row * ROW_H, p->width, ROW_H, NULL);
        text_fit(full, p->label_cols, "…", name, sizeof name);
        fprintf(out, "<text x=\"12\" y=\"%.1f\">", row_middle(p, row) + 4);
        put_escaped(out, name);
        if (text_width(full) > p->label_cols) { /* cut: the whole name as a tooltip */
            fputs("<title>", out);
            put_escaped(out, safe(full, 200, full_name, sizeof full_name));
            fputs("</title>", out);
        }
        fputs("</text>\n", out);
    }
    fputs("</g>\n", out);
}

static void draw_grid(FILE *out, const layout *l, const page *p)
{
    fputs("<g id=\"grid\">\n", out);
    for (int i = 0; i < l->tick_count; i++)
        shape_line(out, "grid", p->left + l->ticks[i].x, p->top, p->axis_y, false, NULL);
    fputs("</g>\n", out);
}

static void draw_axis(FILE *out, const layout *l, const page *p)
{
    fputs("<g id=\"axis\">\n", out);
    fprintf(out,
            "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
            p->left, p->axis_y, p->left + l->end, p->axis_y);
    for (int i = 0; i < l->tick_count; i++) {
        double x = p->left + l->ticks[i].x;
        shape_line(out, "axis", x, p->axis_y, p->axis_y + 5, false, NULL);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x,
                p->axis_y + 18, l->ticks[i].label);
    }
    fprintf(out, "<text x=\"12\" y=\"%.1f\">seconds</text>\n", p->axis_y + 18);
    fputs("</g>\n", out);
}

/* ---- marks ------------------------------------------------------------------- */

/* The words a tooltip is made of, each made safe to show. */
typedef struct words {
    char name[256];  /* the mark's row */
    char other[256]; /* the waker or creator, or "the loop" */
    char text[256];  /* the event's string: on, why, status, timer */
    char at[32];     /* the event's time, in seconds */
    char value[32];  /* until, deadline, duration or seconds held */
} words;

static void find_words(const trace *t, const mark *m, words *w)
{
    const trace_event *e = m->event;
    row_name(t, m->row, w->name, sizeof w->name);
    if (m->from >= 0)
        row_name(t, m->from, w->other, sizeof w->other);
    else
        snprintf(w->other, sizeof w->other, "the loop");
    safe(trace_string(t, e->text), 80, w->text, sizeof w->text);
    format_seconds(e->ts, w->at, sizeof w->at);
    format_seconds(e->kind == EV_SLOW       ? e->value * 1e6
                   : e->kind == EV_CALLBACK ? e->dur
                                            : e->value,
                   w->value, sizeof w->value);
}

/* What a span means, in words, for its tooltip. */
static void describe_span(const mark *m, const words *w, char *tip, size_t size)
{
    static const char *const then[] = {"yields", "parks", "sleeps", "finishes"};
    const trace_event *e = m->event;
    if (m->kind == MARK_RUN && e->kind == EV_BEGIN)
        snprintf(tip, size, "%s runs from %s s, and the trace ends first", w->name,
                 w->at);
    else if (m->kind == MARK_RUN)
        snprintf(tip, size, "%s runs; at %s s it %s", w->name, w->at, then[e->then]);
    else if (m->kind == MARK_WAIT)
        snprintf(tip, size, "%s waits%s%s", w->name, w->text[0] ? " on " : "", w->text);
    else if (m->kind == MARK_SLEEP)
        snprintf(tip, size, "%s sleeps until %s s", w->name, w->value);
    else if (m->kind == MARK_READY)
        snprintf(tip, size, "%s is ready", w->name);
    else
        snprintf(tip, size, "a callback at %s s, for %s s", w->at, w->value);
}

/* What a point means, in words, for its tooltip. */
static void describe_point(const mark *m, const words *w, char *tip, size_t size)
{
    const char *open = w->text[0] ? " (" : "", *close = w->text[0] ? ")" : "";
    if (m->kind == MARK_CREATE)
        snprintf(tip, size, "%s is created at %s s by %s", w->name, w->at, w->other);
    else if (m->kind == MARK_WAKE)
        snprintf(tip, size, "%s is woken by %s at %s s%s%s%s", w->name, w->other, w->at,
                 open, w->text, close);
    else if (m->kind == MARK_END)
        snprintf(tip, size, "%s finishes at %s s: %s", w->name, w->at,
                 w->text[0] ? w->text : "ok");
    else if (m->kind == MARK_SLOW)
        snprintf(tip, size, "%s held the loop for %s s (a slow step, seen at %s s)",
                 w->name, w->value, w->at);
    else
        snprintf(tip, size, "timer.%s at %s s, deadline %s s", w->text, w->at, w->value);
}

/* What a mark means, in words, for its tooltip. */
static void describe(const trace *t, const mark *m, char *tip, size_t size)
{
    words w;
    find_words(t, m, &w);
    if (m->kind <= MARK_CALLBACK)
        describe_span(m, &w, tip, size);
    else
        describe_point(m, &w, tip, size);
}

static void draw_span(FILE *out, const trace *t, const mark *m, const page *p)
{
    static const char *const classes[] = {"run", "wait", "sleep", "ready", "callback"};
    static const double height[] = {BAR_H, THIN_H, THIN_H, 2, BAR_H};
    char tip[1024];
    describe(t, m, tip, sizeof tip);
    shape_rect(out, classes[m->kind], p->left + m->x0,
               row_middle(p, m->row) - height[m->kind] / 2, m->x1 - m->x0,
               height[m->kind], tip);
}

/* A point: a tick for a create, an end or a timer (a tall one for an end
 * and a timer that fires); a cross and the status for a failed end; a
 * triangle over the bar for a wake by the loop; an alert for a slow step. */
static void draw_point(FILE *out, const trace *t, const mark *m, const page *p)
{
    double x = p->left + m->x0, middle = row_middle(p, m->row);
    double top = middle - BAR_H / 2.0;
    const char *text = trace_string(t, m->event->text);
    char tip[1024], status[256];
    describe(t, m, tip, sizeof tip);
    if (m->kind == MARK_WAKE) {
        shape_triangle(out, x, top - 1, tip);
    } else if (m->kind == MARK_SLOW) {
        shape_alert(out, x, top - 5, tip);
    } else if (m->kind == MARK_END && !is_ok(text)) {
        shape_cross(out, x + 7, middle, tip);
        fprintf(out, "<text class=\"failtext\" x=\"%.1f\" y=\"%.1f\">", x + 14,
                middle + 4);
        put_escaped(out, safe(text, 40, status, sizeof status));
        fputs("</text>\n", out);
    } else {
        bool tall =
            m->kind == MARK_END || (m->kind == MARK_TIMER && strcmp(text, "fire") == 0);
        double half = tall ? BAR_H / 2.0 + 2 : BAR_H / 4.0;
        shape_line(out, m->kind == MARK_TIMER ? "timer" : "mark", x, middle - half,
                   middle + half, false, tip);
    }
}

/* A wake by a task: an arrow from the waker's bar to the woken one's. */
static void draw_arrow(FILE *out, const trace *t, const mark *m, const page *p)
{
    double down = m->from < m->row ? 1 : -1; /* the woken row is below */
    double y1 = row_middle(p, m->from) + down * BAR_H / 2.0;
    double y2 = row_middle(p, m->row) - down * (BAR_H / 2.0 + 1);
    char tip[1024];
    describe(t, m, tip, sizeof tip);
    shape_line(out, "wake", p->left + m->x0, y1, y2, true, tip);
}

static bool is_arrow(const mark *m)
{
    return m->kind == MARK_WAKE && m->from >= 0;
}

static void draw_marks(FILE *out, const trace *t, const layout *l, const page *p)
{
    fputs("<g id=\"spans\">\n", out);
    for (size_t i = 0; i < l->count; i++)
        if (l->marks[i].kind <= MARK_CALLBACK)
            draw_span(out, t, &l->marks[i], p);
    fputs("</g>\n<g id=\"points\">\n", out);
    for (size_t i = 0; i < l->count; i++)
        if (l->marks[i].kind > MARK_CALLBACK && !is_arrow(&l->marks[i]))
            draw_point(out, t, &l->marks[i], p);
    fputs("</g>\n<g id=\"wakes\">\n", out);
    for (size_t i = 0; i < l->count; i++)
        if (is_arrow(&l->marks[i]))
            draw_arrow(out, t, &l->marks[i], p);
    fputs("</g>\n", out);
}

/* A truncated trace: a dashed line where it stops. */
static void draw_cut(FILE *out, const layout *l, const page *p)
{
    double x = p->left + l->truncated_x;
    bool text_left = l->truncated_x > PLOT_W / 2.0;
    shape_line(out, "cut", x, p->top - 14, p->axis_y, false, NULL);
    fprintf(out,
            "<text class=\"failtext\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">"
            "the trace is truncated here</text>\n",
            x + (text_left ? -4 : 4), p->top - 6, text_left ? "end" : "start");
}

/* ---- the whole picture --------------------------------------------------------- */

static void measure_page(const trace *t, const layout *l, page *p)
{
    int widest = 7; /* "seconds", under the names */
    for (int row = 0; row < t->row_count; row++) {
        int w = text_width(trace_string(t, t->rows[row].name));
        widest = w > widest ? w : widest;
    }
    p->label_cols = widest < LABEL_MAX ? widest : LABEL_MAX;
    p->left = 12 + p->label_cols * CHAR_W + 16;
    p->width = (double)(long)(p->left + PLOT_W + 16 + status_overhang(t, l) + 0.999);
    p->top = 44 + legend_lines(p->width) * LEGEND_H + 10;
    p->axis_y = p->top + t->row_count * ROW_H + 6;
    p->height = p->axis_y + 30;
}

static void draw_head(FILE *out, const page *p, const char *title, bool truncated)
{
    char text[512];
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\""
            " viewBox=\"0 0 %.0f %.0f\">\n",
            p->width, p->height, p->width, p->height);
    fputs("<title>", out);
    put_escaped(out, safe(title, 200, text, sizeof text));
    fputs(truncated ? " (truncated)</title>\n" : "</title>\n", out);
    fputs(style, out);
    fputs("<defs><marker id=\"arrow\" viewBox=\"0 0 8 8\" refX=\"8\" refY=\"4\""
          " markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">"
          "<path d=\"M0,0 L8,4 L0,8 z\" fill=\"#333\"/></marker></defs>\n",
          out);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n",
            p->width, p->height);
    fputs("<text class=\"title\" x=\"12\" y=\"26\">", out);
    put_escaped(out, safe(title, (int)((p->width - 24) / 9), text, sizeof text));
    if (truncated)
        fputs(" (truncated)", out);
    fputs("</text>\n", out);
}

int svg_draw(FILE *out, const trace *t, const draw_options *o)
{
    layout l;
    layout_options lo = {.width = PLOT_W, .min_run = 6, .min_gap = 80, .char_w = CHAR_W};
    if (layout_make(t, &lo, &l) != 0) {
        layout_free(&l);
        return -1;
    }
    page p;
    measure_page(t, &l, &p);
    draw_head(out, &p, o->title, t->truncated);
    draw_legend(out, &p);
    draw_rows(out, t, &p);
    draw_grid(out, &l, &p);
    draw_marks(out, t, &l, &p);
    draw_axis(out, &l, &p);
    if (l.truncated_x >= 0)
        draw_cut(out, &l, &p);
    fputs("</svg>\n", out);
    layout_free(&l);
    return 0;
}
