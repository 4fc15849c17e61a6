#include "steps_trace.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/*
** steps_trace.c -- the trace of awaitable_steps, for the tutorial's
** picture of the two sends.
**
** From chapter 02 on, the event loop writes a trace of every step when
** TAAL_TRACE names a file, in the format of tools/README.md, and
** tools/timeline draws it. Chapter 01 has no loop, so this driver writes
** one itself, in the same format: a row for main and one for each frame.
** There is no clock either, so the time is logical: every run of a body
** (or of main, between two sends) lasts one second.
**
** The driver cannot see inside a send (the bodies above stay exactly as
** the macros would write them), but it holds the frames, and their
** headers tell. A header changes only when its frame is initialised or
** stepped, and only the frame above does that (use_custom_awaitable
** awaits custom_awaitable, embedded in it). So a send went down as far as
** the deepest frame whose header changed, then came back up through every
** level, as C calls return; each frame's point says whether it is
** suspended or finished. The format has one row running at a time, so a
** caller whose send has not returned yet is drawn waiting on it, and a
** suspended frame waits for the next send.
*/
enum { ROWS = 3 };                       /* main, then each frame, outermost first */
static const long long SECOND = 1000000; /* the trace's unit is the microsecond */

static struct {
    FILE *out;              /* the trace file; NULL when not tracing */
    const char *separator;  /* what goes before the next event */
    long long now;          /* logical time, in microseconds */
    taal_coro *frame[ROWS]; /* each row's frame (main has none) */
    taal_coro before[ROWS]; /* their headers before the current send */
} trace;

static const char *const row_name[ROWS] = {"main", "use_custom_awaitable",
                                           "custom_awaitable"};

/* One event of row `row` (trace id row + 1), now. `args` is what goes in
 * the event's args object, printf-style, or NULL for none; no string in
 * this trace needs escaping. */
static void trace_event(int row, const char *name, const char *ph, const char *args, ...)
{
    if (ph[0] == 'E')
        trace.now += SECOND; /* a run ends one second after it began */
    fprintf(trace.out, "%s{\"name\":\"%s\",\"ph\":\"%s\"", trace.separator, name, ph);
    if (ph[0] == 'i')
        fputs(",\"s\":\"t\"", trace.out);
    fprintf(trace.out, ",\"pid\":1,\"tid\":%d", row + 1);
    if (ph[0] != 'M')
        fprintf(trace.out, ",\"ts\":%lld", trace.now);
    if (args != NULL) {
        va_list ap;
        va_start(ap, args);
        fputs(",\"args\":{", trace.out);
        vfprintf(trace.out, args, ap);
        fputs("}", trace.out);
        va_end(ap);
    }
    fputs("}", trace.out);
    trace.separator = ",\n";
}

static void trace_create(int row, int by)
{
    trace_event(row, "create", "i", "\"by\":%d", by + 1);
}

static void trace_begin(int row)
{
    trace_event(row, "step", "B", NULL);
}

/* Row `row` calls taal_send on row `on`'s frame, and waits for it to return. */
static void trace_send_down(int row, int on)
{
    trace_event(row, "step", "E",
                "\"then\":\"park\",\"on\":\"taal_send(%s)\",\"on_tid\":%d", row_name[on],
                on + 1);
}

static void trace_suspended(int row)
{
    trace_event(row, "step", "E", "\"then\":\"park\",\"on\":\"the next send\"");
}

static void trace_done(int row, int status)
{
    trace_event(row, "step", "E", "\"then\":\"done\",\"status\":\"%s\"",
                taal_strerror(status));
}

/* Row `row` goes on: row `by` sent to it, or returned to it, saying `why`. */
static void trace_wake(int row, int by, const char *why)
{
    trace_event(row, "wake", "i", "\"by\":%d,\"why\":\"%s\"", by + 1, why);
}

void trace_open(taal_coro *outer, taal_coro *inner)
{
    const char *path = getenv("TAAL_TRACE");
    if (path == NULL || path[0] == '\0')
        return;
    trace.out = fopen(path, "w");
    if (trace.out == NULL) {
        fprintf(stderr, "awaitable_steps: cannot write the trace to %s\n", path);
        return;
    }
    trace.frame[1] = outer; /* use_custom_awaitable */
    trace.frame[2] = inner; /* custom_awaitable, inside it */
    trace.separator = "";
    fputs("{\"traceEvents\":[\n", trace.out);
    for (int row = 0; row < ROWS; row++)
        trace_event(row, "thread_name", "M", "\"name\":\"%s\"", row_name[row]);
    trace_create(0, -1); /* main: created by no one */
    trace_begin(0);
    trace_create(1, 0); /* main has just initialised use_custom_awaitable */
}

/* Before a send: the headers, to compare with afterwards. */
void trace_before_send(void)
{
    if (trace.out == NULL)
        return;
    for (int row = 1; row < ROWS; row++)
        trace.before[row] = *trace.frame[row];
}

static bool header_changed(const taal_coro *before, const taal_coro *after)
{
    return before->body != after->body || before->point != after->point ||
           before->status != after->status;
}

/* After a send that returned `rc`: how far down it went, and back up. */
void trace_after_send(int rc)
{
    if (trace.out == NULL)
        return;
    int depth = 0; /* the deepest row whose frame the send stepped */
    for (int row = 1; row < ROWS; row++)
        if (header_changed(&trace.before[row], trace.frame[row]))
            depth = row;
    for (int row = 1; row <= depth; row++) { /* down: each level sends to the next */
        const taal_coro *before = &trace.before[row];
        if (before->body == NULL) /* initialised in this send, by the row above */
            trace_create(row, row - 1);
        trace_send_down(row - 1, row);
        if (before->body != NULL && before->point != 0) /* it was suspended */
            trace_wake(row, row - 1, "send");
        trace_begin(row);
    }
    for (int row = depth; row >= 1; row--) { /* up: each send returns */
        const taal_coro *co = trace.frame[row];
        bool done = co->point == TAAL_POINT_DONE;
        if (done)
            trace_done(row, co->status);
        else
            trace_suspended(row);
        trace_wake(row - 1, row, done ? taal_strerror(co->status) : "suspended");
        trace_begin(row - 1);
    }
    if (rc != TAAL_SUSPENDED) { /* main is done: so is the trace */
        trace_done(0, rc);
        fputs("\n],\"displayTimeUnit\":\"ms\"}\n", trace.out);
        if (fclose(trace.out) != 0)
            fputs("awaitable_steps: the trace could not be written\n", stderr);
        trace.out = NULL;
    }
}
