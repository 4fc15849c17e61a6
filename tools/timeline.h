/*
** timeline.h -- read a taal trace and draw it as a timeline.
**
** The loop can write a trace of what every task did: a Chrome/Perfetto
** trace-event file, one JSON object per event (tools/README.md is the
** contract). The timeline program reads such a file and draws it, in
** stages, one source file each:
**
**   trace.c    JSON text -> a checked list of events and one row per task
**   layout.c   events    -> marks: spans and points at x positions, ticks
**   svg.c      marks     -> an SVG picture
**   ascii.c    marks     -> lines of text for a terminal
**
** with text.c for what both pictures do with names (their width, cutting
** them to fit) and timeline.c for the command line. Each stage only reads
** what the one before it made, so a test can stop after any of them.
** Nothing here keeps global state.
*/
#ifndef TIMELINE_H
#define TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ---- limits ------------------------------------------------------------ */

/*
** Every input is bounded, so that no file can make the program run out of
** stack, memory or time. A trace that goes over a limit is refused with a
** message that names the limit; the limits are far above what a readable
** timeline holds.
*/
enum {
    TRACE_MAX_BYTES = 64 << 20, /* the whole file: 64 MiB */
    TRACE_MAX_DEPTH = 32,       /* JSON objects and arrays inside each other */
    TRACE_MAX_STRING = 1024,    /* bytes in one string, after its escapes */
    TRACE_MAX_NUMBER = 64,      /* characters in one number */
    TRACE_MAX_ROWS = 4096,      /* distinct tids: tasks and the loop */
    TRACE_MAX_EVENTS = 1000000, /* events that are drawn */
    TRACE_MAX_TID = 2147483647, /* the largest tid (and args.by) */
};
#define TRACE_MAX_TS 1e15 /* the latest time, in µs: about 31 years */

/* ---- the trace: what trace.c reads ------------------------------------- */

/* What an event means for the drawing. Events of other names are checked
 * for their JSON shape and then left out. */
typedef enum trace_kind {
    EV_CREATE,   /* "create": the task exists from here on */
    EV_BEGIN,    /* "step" B: the task's coroutine is resumed */
    EV_END,      /* "step" E: it returned to the loop; `then` says why */
    EV_WAKE,     /* "wake": a waiting or sleeping task is made ready */
    EV_CALLBACK, /* "callback" X: a plain callback ran on the loop for `dur` */
    EV_TIMER,    /* "timer.arm", "timer.fire", "timer.stop" on the loop */
    EV_SLOW,     /* "slow_step": debug mode saw a step hold the loop too long */
} trace_kind;

/* What a task does after a step: args.then of a step's E event. */
typedef enum trace_then {
    THEN_YIELD, /* ready again at once */
    THEN_PARK,  /* waits for something (args.on says what) */
    THEN_SLEEP, /* sleeps on its timer (until args.until) */
    THEN_DONE,  /* finished (args.status says how) */
} trace_then;

typedef struct trace_event {
    trace_kind kind;
    trace_then then; /* EV_END only */
    int row;         /* the row the event is drawn on */
    int by;          /* EV_WAKE, EV_CREATE: the doer's row, or -1 for the loop */
    double ts;       /* when, in µs of loop time */
    double dur;      /* EV_CALLBACK: how long, in µs */
    double value;    /* EV_END sleep: until (µs); EV_TIMER: deadline (µs);
                        EV_SLOW: seconds; otherwise 0 */
    size_t text;     /* a string in the pool, 0 (the empty string) if none:
                        park: args.on; done: args.status; wake: args.why;
                        timer: "arm", "fire" or "stop" */
} trace_event;

/* One row of the picture: a task, or the loop (tid 0). */
typedef struct trace_row {
    long tid;
    size_t name; /* the display name, in the pool */
} trace_row;

/*
** A whole trace. Rows are in drawing order: the loop first if it has
** events of its own, then the tasks in the order they first appear. The
** strings of all events live in one pool, a run of NUL-terminated strings
** that events point into by offset (offsets stay valid when it grows).
*/
typedef struct trace {
    trace_event *events;
    size_t count, cap;
    trace_row *rows;
    int row_count, row_cap;
    char *pool;
    size_t pool_len, pool_cap;
    bool truncated; /* the file ended early; these are its complete events */
} trace;

typedef enum trace_status {
    TRACE_OK,        /* the whole file was read */
    TRACE_TRUNCATED, /* the file ended early; what it held is in the trace */
    TRACE_ERROR,     /* the file is not a valid trace (or memory ran out) */
} trace_status;

/* Where reading stopped, and why, for a one-line message. */
typedef struct trace_error {
    size_t offset;        /* bytes from the start of the text */
    unsigned long line;   /* 1-based */
    unsigned long column; /* 1-based, in characters (UTF-8 code points) */
    char message[240];
} trace_error;

/*
** Reads `len` bytes of trace text (need not end in NUL) into `t`, which the
** caller frees with trace_free() whatever the result. On TRACE_TRUNCATED
** and TRACE_ERROR, `err` says where and why; on TRACE_TRUNCATED `t` holds
** every complete event before the end, ready to draw.
*/
trace_status trace_read(const char *text, size_t len, trace *t, trace_error *err);

/* Frees what trace_read() allocated, and zeroes `t`. */
void trace_free(trace *t);

/* The string at `offset` in the pool ("" for offset 0). */
const char *trace_string(const trace *t, size_t offset);

/* ---- the layout: what layout.c makes of a trace ------------------------ */

/* What a mark shows. Spans go from x0 to x1; points have x0 == x1. */
typedef enum mark_kind {
    MARK_RUN,      /* span: the task is running */
    MARK_WAIT,     /* span: parked, waiting for something */
    MARK_SLEEP,    /* span: sleeping on its timer */
    MARK_READY,    /* span: ready to run, not running yet */
    MARK_CALLBACK, /* span: a callback on the loop's row */
    MARK_CREATE,   /* point: the task was created */
    MARK_WAKE,     /* point: the task was woken (by the row `from`, or the loop) */
    MARK_END,      /* point: the task finished */
    MARK_SLOW,     /* point: a slow step */
    MARK_TIMER,    /* point: a timer was armed, fired or stopped */
} mark_kind;

/*
** One mark. `event` is the event that says what the mark is about: for a
** run, the step's E (what came next; or its B if the trace ends first); for
** a wait or a sleep, the E that began it (its args.on or args.until); for a
** ready span, the event that began it; for a point, the event itself.
*/
typedef struct mark {
    mark_kind kind;
    int row;
    int from; /* MARK_WAKE: the waker's row, or -1 for the loop */
    double x0, x1;
    const trace_event *event;
} mark;

enum { LAYOUT_MAX_TICKS = 128 };

typedef struct tick {
    double x;
    char label[32]; /* in seconds, e.g. "0", "0.5", "12" */
} tick;

/* How to lay out: in pixels for SVG, in character cells for ASCII. */
typedef struct layout_options {
    double width;     /* the plot's width, in units */
    double min_run;   /* the narrowest run or callback, in units */
    double min_gap;   /* the least room between two ticks, in units */
    double char_w;    /* the width of one character of a tick label, in units */
    bool whole_units; /* snap times to whole units (ASCII cells), while
                         runs are at least one unit wide */
} layout_options;

typedef struct layout {
    mark *marks;
    size_t count, cap;
    tick ticks[LAYOUT_MAX_TICKS];
    int tick_count;
    double end;         /* x of the end of the time axis */
    double truncated_x; /* where a truncated trace stops, or -1 */
} layout;

/*
** Lays `t` out on an axis of o->width units. Returns 0, or -1 if memory ran
** out. The caller frees `l` with layout_free() either way.
*/
int layout_make(const trace *t, const layout_options *o, layout *l);

/* Frees what layout_make() allocated, and zeroes `l`. */
void layout_free(layout *l);

/* Writes `us` microseconds as seconds, shortest form: "1", "0.25". */
void format_seconds(double us, char *buf, size_t size);

/*
** Copies `s` into `out` (of `size` bytes), sanitised for one line of
** output and cut to at most `max_cols` display columns: control characters
** and broken UTF-8 become '?', and a cut string ends in `ellipsis`. Returns
** the display width of what it wrote. text_width() is the width alone.
*/
int text_fit(const char *s, int max_cols, const char *ellipsis, char *out, size_t size);
int text_width(const char *s);

/* ---- the drawings ------------------------------------------------------- */

typedef struct draw_options {
    const char *title;
    int width; /* ASCII: the whole line, in columns */
} draw_options;

/* Write the picture of `t` to `out`. Each returns 0, or -1 if memory ran
 * out; write errors are left in `out` for the caller to see. */
int svg_draw(FILE *out, const trace *t, const draw_options *o);
int ascii_draw(FILE *out, const trace *t, const draw_options *o);

#endif
