/*
** trace.c -- chapter 02: a record of what every task did.
**
** With tracing on (TAAL_TRACE=FILE, or taal_loop_options.trace), the loop
** writes Chrome's trace-event JSON, the format that chrome://tracing and
** Perfetto (ui.perfetto.dev) open, and that tools/timeline draws: one row
** per task ("tid" is the task's id, 0 the loop itself), a "step" slice for
** every time it ran, and instants for its creation and every wake-up. The
** format and every event are described in tools/README.md.
**
** Events are formatted into one buffer, allocated when the loop opens, and
** written out when it fills and when the loop closes: tracing allocates
** nothing per event. If the buffer cannot be allocated or the file cannot
** be written, tracing turns itself off with a report, and the program goes
** on untraced.
*/
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { TRACE_BUFFER = 64 * 1024, TRACE_EVENT_MAX = 1024 };

struct taal_trace {
    FILE *out;   /* the trace file */
    bool first;  /* no event written yet: no comma before the next */
    size_t used; /* bytes of buf in use */
    char buf[TRACE_BUFFER];
};

/* Tracing cannot go on: say why, and stop (the loop runs on untraced). */
static void trace_fail(taal_loop *loop, const char *why)
{
    struct taal_trace *trace = loop->trace;
    loop->trace = NULL;
    if (trace != NULL) {
        fclose(trace->out);
        taal__free(trace);
    }
    taal__report(loop, TAAL_REPORT_TRACE, NULL, TAAL_OK, "tracing turned off: %s", why);
}

static bool flush(taal_loop *loop)
{
    struct taal_trace *trace = loop->trace;
    if (fwrite(trace->buf, 1, trace->used, trace->out) != trace->used) {
        trace_fail(loop, "the trace file could not be written");
        return false;
    }
    trace->used = 0;
    return true;
}

struct taal_trace *taal__trace_open(taal_loop *loop, const char *path)
{
    struct taal_trace *trace = taal__alloc(sizeof *trace);
    if (trace == NULL) {
        trace_fail(loop, "out of memory for the trace buffer");
        return NULL;
    }
    trace->out = fopen(path, "w");
    if (trace->out == NULL) {
        taal__free(trace);
        trace_fail(loop, "the trace file could not be opened");
        return NULL;
    }
    trace->first = true;
    trace->used = (size_t)snprintf(trace->buf, TRACE_BUFFER,
                                   "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
    return trace;
}

void taal__trace_close(taal_loop *loop)
{
    struct taal_trace *trace = loop->trace;
    static const char end[] = "\n]}\n";
    if (trace->used + sizeof end > TRACE_BUFFER && !flush(loop))
        return;
    memcpy(trace->buf + trace->used, end, sizeof end - 1);
    trace->used += sizeof end - 1;
    if (!flush(loop))
        return;
    loop->trace = NULL;
    if (fclose(trace->out) != 0)
        taal__report(loop, TAAL_REPORT_TRACE, NULL, TAAL_OK,
                     "tracing: the trace file could not be written");
    taal__free(trace);
}

/* Appends one event: `fields` is the inside of the JSON object. */
static void emit(taal_loop *loop, const char *fields, ...) TAAL__PRINTF(2, 3);

static void emit(taal_loop *loop, const char *fields, ...)
{
    struct taal_trace *trace = loop->trace;
    if (trace == NULL)
        return; /* turned off by a failure earlier in this event's caller */
    if (trace->used + TRACE_EVENT_MAX > TRACE_BUFFER && !flush(loop))
        return;
    char *at = trace->buf + trace->used;
    size_t room = TRACE_EVENT_MAX;
    int n = snprintf(at, room, "%s{", trace->first ? "" : ",\n");
    va_list args;
    va_start(args, fields);
    n += vsnprintf(at + n, room - (size_t)n, fields, args);
    va_end(args);
    if (n < 0 || (size_t)n + 2 > room)
        return; /* cannot happen with the bounded fields below */
    at[n++] = '}';
    trace->used += (size_t)n;
    trace->first = false;
}

/* The loop's time since it opened, in microseconds, as the format wants. */
static double ts(taal_loop *loop)
{
    return (double)(taal__now(loop) - loop->start) / 1e3;
}

/* A deadline in microseconds since the loop's start. A timer due at minus
 * infinity (taal_call_at(-inf)) is due at INT64_MIN nanoseconds, and on the
 * monotonic clock the start is after 0: subtracting in 64 bits would
 * overflow, so that one difference is taken in doubles. */
static double since_start(const taal_loop *loop, int64_t deadline)
{
    if (loop->start > 0 && deadline < INT64_MIN + loop->start)
        return ((double)deadline - (double)loop->start) / 1e3;
    return (double)(deadline - loop->start) / 1e3;
}

/* A JSON string's inside: quotes, backslashes and control characters
 * escaped; UTF-8 passes through. At most `size` - 1 bytes. */
static const char *escape(const char *s, char *buf, size_t size)
{
    size_t n = 0;
    for (; *s != '\0' && n + 7 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            n += (size_t)snprintf(buf + n, size - n, "\\%c", c);
        else if (c < 0x20)
            n += (size_t)snprintf(buf + n, size - n, "\\u%04x", c);
        else
            buf[n++] = (char)c;
    }
    buf[n] = '\0';
    return buf;
}

static unsigned current_id(const taal_loop *loop)
{
    return loop->current != NULL ? (unsigned)loop->current->id : 0;
}

void taal__trace_task_named(taal_loop *loop, const taal_task *task)
{
    char name[64], json[200];
    taal_task_name(task, name, sizeof name);
    emit(loop,
         "\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,"
         "\"args\":{\"name\":\"%s\"}",
         (unsigned)task->id, escape(name, json, sizeof json));
}

void taal__trace_task_created(taal_loop *loop, const taal_task *task)
{
    taal__trace_task_named(loop, task);
    emit(loop,
         "\"name\":\"create\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,"
         "\"args\":{\"by\":%u}",
         (unsigned)task->id, ts(loop), current_id(loop));
}

void taal__trace_step_begin(taal_loop *loop, const taal_task *task)
{
    emit(loop, "\"name\":\"step\",\"ph\":\"B\",\"pid\":1,\"tid\":%u,\"ts\":%.3f",
         (unsigned)task->id, ts(loop));
}

/* What the task does next, from the state its step left it in. */
void taal__trace_step_end(taal_loop *loop, const taal_task *task, int rc)
{
    char args[300], what[160], json[200];
    const taal_handle *step = &task->step.handle;
    if (rc != TAAL_SUSPENDED) {
        snprintf(args, sizeof args, "\"then\":\"done\",\"status\":\"%s\"",
                 escape(taal_strerror(rc), json, sizeof json));
    } else if (task->step.index != 0) {
        double until = since_start(loop, loop->heap[task->step.index - 1].deadline);
        snprintf(args, sizeof args, "\"then\":\"sleep\",\"until\":%.3f", until);
    } else if (step->future != NULL) {
        taal__future_describe(step->future, what, sizeof what);
        int n = snprintf(args, sizeof args, "\"then\":\"park\",\"on\":\"%s\"",
                         escape(what, json, sizeof json));
        if (step->future->kind == TAAL_FUTURE_TASK && n > 0 && (size_t)n < sizeof args)
            snprintf(args + n, sizeof args - (size_t)n, ",\"on_tid\":%u",
                     (unsigned)((const taal_task *)step->future)->id);
    } else {
        snprintf(args, sizeof args, "\"then\":\"yield\"");
    }
    emit(loop,
         "\"name\":\"step\",\"ph\":\"E\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"args\":{%s}",
         (unsigned)task->id, ts(loop), args);
}

/* Why a future woke its waiters: by its kind, or "cancel" when it ended
 * cancelled (chapter 05), which is what a reader of the timeline wants
 * to see. */
static const char *why(const taal_future *by)
{
    if (by->kind != TAAL_FUTURE_WAITERS && by->status == TAAL_ECANCELLED)
        return "cancel";
    switch (by->kind) {
    case TAAL_FUTURE_TASK: return "task";
    case TAAL_FUTURE_GATHER: return "gather";
    case TAAL_FUTURE_WAIT: return "wait";
    case TAAL_FUTURE_SHIELD: return "shield";
    case TAAL_FUTURE_WAITERS: return taal__waiters_what(by);
    default: return "future";
    }
}

static void wake(taal_loop *loop, const taal_task *task, unsigned by, const char *reason)
{
    emit(loop,
         "\"name\":\"wake\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,"
         "\"args\":{\"by\":%u,\"why\":\"%s\"}",
         (unsigned)task->id, ts(loop), by, reason);
}

/* A primitive handed it what it waited for: woken by whoever released,
 * set or put. */
void taal__trace_handed(taal_loop *loop, const taal_task *task,
                        const taal_future *waiters)
{
    wake(loop, task, current_id(loop), why(waiters));
}

/* Its timer fired: the loop woke it. */
void taal__trace_wake(taal_loop *loop, const taal_task *task)
{
    wake(loop, task, 0, "timer");
}

/* It was taken off its sleep or its primitive to be cancelled: woken by
 * whoever cancelled it (0: the loop, as a timeout scope's timer does). */
void taal__trace_cancel(taal_loop *loop, const taal_task *task)
{
    wake(loop, task, current_id(loop), "cancel");
}

/* A future is done: every task parked on it is woken, by the task that
 * finished (if it is a task) or the one that completed it. */
void taal__trace_wakes(taal_loop *loop, const taal_future *future)
{
    unsigned by = future->kind == TAAL_FUTURE_TASK
                      ? (unsigned)((const taal_task *)future)->id
                      : current_id(loop);
    for (const taal_link *l = future->waiters.next; l != &future->waiters; l = l->next) {
        const taal_handle *handle = TAAL_CONTAINER_OF(l, taal_handle, link);
        if (taal__is_task_step(handle))
            wake(loop, handle->data, by, why(future));
    }
}

void taal__trace_timer(taal_loop *loop, const char *what, const taal_timer *timer)
{
    double deadline = timer->index != 0
                          ? since_start(loop, loop->heap[timer->index - 1].deadline)
                          : ts(loop);
    emit(loop,
         "\"name\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":0,\"ts\":%.3f,"
         "\"args\":{\"deadline\":%.3f}",
         what, ts(loop), deadline);
}

void taal__trace_callback(taal_loop *loop, int64_t began)
{
    if (loop->trace == NULL)
        return; /* the callback closed the trace (it could not be written) */
    emit(
        loop,
        "\"name\":\"callback\",\"ph\":\"X\",\"pid\":1,\"tid\":0,\"ts\":%.3f,\"dur\":%.3f",
        (double)(began - loop->start) / 1e3, (double)(taal__now(loop) - began) / 1e3);
}

void taal__trace_slow_step(taal_loop *loop, const taal_task *task, int64_t ns)
{
    emit(loop,
         "\"name\":\"slow_step\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":%u,\"ts\":%."
         "3f,"
         "\"args\":{\"seconds\":%.3f}",
         (unsigned)task->id, ts(loop), (double)ns / 1e9);
}
