/*
** layout.c -- where each event goes on the x axis.
**
** Time maps to x in a straight line, with one twist. Under the virtual
** clock a step takes no time at all, so every step of one instant would
** land on the same x, and the steps of three tasks that run one after the
** other would look like one. So every run (and every callback) gets at
** least `min_run` units, and everything after it moves right by the width
** that was added: the steps of one instant come out side by side, in the
** order they ran. A tick on the axis sits where its time begins, before
** the steps of that instant.
**
** The room for that is set aside first: with n runs, the straight-line
** part of the axis gets width - n * min_run units, so that the picture
** fits whatever the runs add (a run that lasts longer than min_run adds
** nothing, and leaves its share unused at the right). If there are so many
** runs that they would take more than half the width, min_run shrinks.
**
** One walk over the events, in order, makes the marks. Each row has at
** most one open span (running, waiting, sleeping or ready); an event on
** the row closes it at the event's x and opens the next one.
*/
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

/* The span a row is in, since when, and the event that began it. */
typedef struct open_span {
    bool open;
    mark_kind kind;
    double since;
    const trace_event *event;
} open_span;

typedef struct walker {
    const trace *t;
    const layout_options *o;
    layout *l;
    double t0, t1;    /* the axis, in µs: from the first tick to the last event */
    double scale;     /* units per µs */
    double min_run;   /* the narrowest run, in units */
    double shift;     /* room added so far by narrow runs, in units */
    bool whole;       /* snap times to whole units (see layout_make) */
    open_span *spans; /* one per row */
    double tick_us[LAYOUT_MAX_TICKS];
    int next_tick; /* the first tick not placed yet */
} walker;

/* ---- whole numbers without libm ------------------------------------------ */

/* floor() for the non-negative values used here (at most about 2e15), so
 * that the program needs no maths library. */
static double floor_pos(double v)
{
    return (double)(long long)v;
}

/* ---- ticks ------------------------------------------------------------------ */

/*
** The label of tick `i` when ticks are `m` * 10^k seconds apart, written
** from whole numbers so that no rounding shows: i * m, then the decimal
** point moved k places, then trailing zeros dropped ("1.50" -> "1.5").
*/
static void tick_label(long long i, int m, int k, char *buf, size_t size)
{
    long long v = i * m;
    if (v == 0 || k == 0) {
        snprintf(buf, size, "%lld", v);
        return;
    }
    if (k > 0) {
        snprintf(buf, size, "%lld%.*s", v, k, "000000000000000000");
        return;
    }
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%0*lld", 1 - k, v); /* a digit before '.' */
    int point = n + k;
    while (n > point && digits[n - 1] == '0')
        n--;
    snprintf(buf, size, "%.*s%s%.*s", point, digits, n > point ? "." : "", n - point,
             digits + point);
}

/*
** Chooses the tick step: the smallest of 1, 2 and 5 times a power of ten
** seconds (from 1 µs to 5e9 s) whose ticks are at least o->min_gap apart
** and leave room between their labels. The axis runs from the tick at or
** before `first` to `last` itself, not to the next tick, which could be
** almost a whole step of nothing.
*/
static void choose_ticks(walker *w, double first, double last, double lin)
{
    static const int mantissas[] = {1, 2, 5};
    double power = 1; /* 10^(k+6): the step in µs for m = 1 */
    for (int k = -6; k <= 9; k++, power *= 10) {
        for (int j = 0; j < 3; j++) {
            double step = mantissas[j] * power;
            double i0 = floor_pos(first / step), i1 = floor_pos(last / step);
            if (i1 - i0 + 1 > LAYOUT_MAX_TICKS)
                continue;
            char a[32], b[32];
            tick_label((long long)i0, mantissas[j], k, a, sizeof a);
            tick_label((long long)i1, mantissas[j], k, b, sizeof b);
            size_t chars = strlen(a) > strlen(b) ? strlen(a) : strlen(b);
            double gap = lin / (last - i0 * step) * step;
            bool last_choice = k == 9 && j == 2;
            if (!last_choice &&
                (gap < w->o->min_gap || gap < ((double)chars + 2) * w->o->char_w))
                continue;
            w->t0 = i0 * step;
            w->t1 = last;
            w->scale = lin / (w->t1 - w->t0);
            w->l->tick_count = (int)(i1 - i0) + 1;
            for (int i = 0; i < w->l->tick_count; i++) {
                w->tick_us[i] = (i0 + i) * step;
                tick_label((long long)i0 + i, mantissas[j], k, w->l->ticks[i].label,
                           sizeof w->l->ticks[i].label);
            }
            return;
        }
    }
}

/* ---- marks --------------------------------------------------------------------- */

static int add_mark(layout *l, mark_kind kind, int row, int from, double x0, double x1,
                    const trace_event *event)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        mark *marks = realloc(l->marks, cap * sizeof *marks);
        if (marks == NULL)
            return -1;
        l->marks = marks;
        l->cap = cap;
    }
    l->marks[l->count++] = (mark){kind, row, from, x0, x1, event};
    return 0;
}

/* x of time `us`, before the room that runs at that time add. */
static double linear(const walker *w, double us)
{
    double x = w->scale * (us - w->t0);
    return w->whole ? floor_pos(x + 1e-9) : x;
}

/* Ends the open span of `row` at x. A span without width is dropped,
 * except a run, which always has min_run. */
static int close_span(walker *w, int row, double x)
{
    open_span *s = &w->spans[row];
    if (!s->open)
        return 0;
    s->open = false;
    if (x <= s->since)
        return 0;
    return add_mark(w->l, s->kind, row, -1, s->since, x, s->event);
}

static void open_span_at(walker *w, int row, mark_kind kind, double x,
                         const trace_event *e)
{
    w->spans[row] = (open_span){true, kind, x, e};
}

/* step E: the run gets at least min_run, and what comes next begins. */
static int end_run(walker *w, const trace_event *e, double x)
{
    static const mark_kind next[] = {MARK_READY, MARK_WAIT, MARK_SLEEP};
    open_span *run = &w->spans[e->row];
    double x1 = x > run->since + w->min_run ? x : run->since + w->min_run;
    w->shift += x1 - x;
    run->event = e; /* a run's mark tells what came after it */
    if (close_span(w, e->row, x1) < 0)
        return -1;
    if (e->then == THEN_DONE)
        return add_mark(w->l, MARK_END, e->row, -1, x1, x1, e);
    open_span_at(w, e->row, next[e->then], x1, e);
    return 0;
}

/*
** wake: the woken row's wait ends here. A task wakes another while it runs,
** so the wake is drawn in the middle of the waker's (narrowest) run, and
** the arrow leaves from the run itself.
*/
static int wake(walker *w, const trace_event *e, double x)
{
    if (e->by >= 0 && w->spans[e->by].open && w->spans[e->by].kind == MARK_RUN) {
        double middle = w->spans[e->by].since + w->min_run / 2;
        x = x > middle ? x : middle;
    }
    if (close_span(w, e->row, x) < 0 ||
        add_mark(w->l, MARK_WAKE, e->row, e->by, x, x, e) < 0)
        return -1;
    open_span_at(w, e->row, MARK_READY, x, e);
    return 0;
}

/* callback: a span on the loop's row, at least min_run wide. */
static int callback(walker *w, const trace_event *e, double x)
{
    double natural = linear(w, e->ts + e->dur) + w->shift;
    double x1 = natural > x + w->min_run ? natural : x + w->min_run;
    w->shift += x1 - natural;
    return add_mark(w->l, MARK_CALLBACK, e->row, -1, x, x1, e);
}

/* Places the ticks whose time has come: before the first event at or after
 * their time, so before any room that event's instant adds. */
static void place_ticks(walker *w, double until_us)
{
    while (w->next_tick < w->l->tick_count && w->tick_us[w->next_tick] <= until_us) {
        w->l->ticks[w->next_tick].x = linear(w, w->tick_us[w->next_tick]) + w->shift;
        w->next_tick++;
    }
}

static int place(walker *w, const trace_event *e)
{
    place_ticks(w, e->ts);
    double x = linear(w, e->ts) + w->shift;
    switch (e->kind) {
    case EV_CREATE:
        open_span_at(w, e->row, MARK_READY, x, e);
        return add_mark(w->l, MARK_CREATE, e->row, e->by, x, x, e);
    case EV_BEGIN:
        if (close_span(w, e->row, x) < 0)
            return -1;
        open_span_at(w, e->row, MARK_RUN, x, e);
        return 0;
    case EV_END: return end_run(w, e, x);
    case EV_WAKE: return wake(w, e, x);
    case EV_CALLBACK: return callback(w, e, x);
    case EV_TIMER: return add_mark(w->l, MARK_TIMER, e->row, -1, x, x, e);
    case EV_SLOW: return add_mark(w->l, MARK_SLOW, e->row, -1, x, x, e);
    }
    return 0;
}

/* ---- the whole layout ------------------------------------------------------ */

/* The time the events cover, in µs; an instant is stretched to a second so
 * that the axis has a length. Also counts the runs and callbacks. */
static size_t measure(const trace *t, double *first, double *last)
{
    size_t runs = 0;
    *first = t->count ? t->events[0].ts : 0;
    *last = *first;
    for (size_t i = 0; i < t->count; i++) {
        const trace_event *e = &t->events[i];
        double end = e->ts + e->dur;
        *first = e->ts < *first ? e->ts : *first;
        *last = end > *last ? end : *last;
        runs += e->kind == EV_BEGIN || e->kind == EV_CALLBACK;
    }
    if (*last <= *first)
        *last = *first + 1e6;
    return runs;
}

/* At the end of the trace, what is still open runs to the end of the axis
 * (a run that never ended is a step the trace stopped in). */
static int close_all(walker *w)
{
    for (int row = 0; row < w->t->row_count; row++) {
        open_span *s = &w->spans[row];
        double end = w->l->end;
        if (s->open && s->kind == MARK_RUN && end < s->since + w->min_run)
            end = s->since + w->min_run;
        if (close_span(w, row, end) < 0)
            return -1;
    }
    return 0;
}

int layout_make(const trace *t, const layout_options *o, layout *l)
{
    *l = (layout){.truncated_x = -1};
    walker w = {.t = t, .o = o, .l = l};
    double first, last;
    size_t runs = measure(t, &first, &last);
    w.min_run = o->min_run;
    if (runs > 0 && (double)runs * w.min_run > o->width / 2)
        w.min_run = o->width / 2 / (double)runs;
    /* Snapping keeps whole-cell runs on whole cells. Once runs are thinner
     * than a cell it would do harm: the snapped times would stand still
     * and then jump while the room that runs add grows smoothly, leaving a
     * gap every other cell. */
    w.whole = o->whole_units && w.min_run == o->min_run;
    choose_ticks(&w, first, last, o->width - (double)runs * w.min_run);
    w.spans = calloc(t->row_count > 0 ? (size_t)t->row_count : 1, sizeof *w.spans);
    if (w.spans == NULL)
        return -1;
    int rc = 0;
    double x = 0;
    for (size_t i = 0; rc == 0 && i < t->count; i++) {
        rc = place(&w, &t->events[i]);
        x = linear(&w, t->events[i].ts) + w.shift;
    }
    place_ticks(&w, w.t1);
    l->end = linear(&w, w.t1) + w.shift;
    if (t->truncated)
        l->truncated_x = x;
    if (rc == 0)
        rc = close_all(&w);
    free(w.spans);
    return rc;
}

void layout_free(layout *l)
{
    free(l->marks);
    *l = (layout){0};
}
