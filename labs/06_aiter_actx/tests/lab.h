/*
** lab.h -- what lab 06's tests share: a loop on the virtual clock whose
** reports are kept for checking, a trace of events, a count of what the
** loop still holds, and running one coroutine as a task to its end. (The
** chapter's own tests have their support.h; the lab keeps its own, so
** that it tests the chapter from outside, through taal.h alone.)
**
** Every loop in a test is bounded: a task that waits for what never comes
** ends in a reported deadlock, at once, not in a hang.
*/
#ifndef LAB_H
#define LAB_H

#include "taal.h"
#include "taal_check.h"

/* The reports of the loop under test, one line each. */
static char reports[4096];

static inline void keep_report(void *ctx, const taal_report *report)
{
    (void)ctx;
    size_t used = strlen(reports);
    snprintf(reports + used, sizeof reports - used, "%s\n", report->message);
}

/* What happened, in order: tests append to it and compare. */
static char trace[2048];

static inline void note(const char *s)
{
    size_t n = strlen(trace);
    snprintf(trace + n, sizeof trace - n, "%s", s);
}

/* note() of a formatted number: notef("v%d ", 3) notes "v3 ". */
static inline void notef(const char *format, int n)
{
    char buf[64];
    snprintf(buf, sizeof buf, format, n);
    note(buf);
}

/* The loop time in tenths of a second (0 outside a loop). */
static inline int tenths(void)
{
    double t = taal_loop_time(taal_running_loop()) * 10.0;
    return (int)(t + 0.5);
}

/* A loop on the virtual clock that reports into `reports`; the trace is
 * cleared too. */
static inline void open_loop(taal_loop *loop)
{
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = keep_report};
    reports[0] = '\0';
    trace[0] = '\0';
    taal_loop_init(loop, &options);
}

/* How many tasks, gathers and waits the loop still holds. */
static inline int live_objects(const taal_loop *loop)
{
    int n = 0;
    for (const taal_link *l = loop->objects.next; l != &loop->objects; l = l->next)
        n++;
    return n;
}

static void cancel_it(void *task)
{
    taal_task_cancel(task);
}

/* Runs `body` as a task, its frame a copy of `frame` (`size` bytes), to its
 * end: cancelled at `cancel_at` seconds if that is not negative. Its frame
 * is copied back into `frame`, its status goes to `*status`. Returns false
 * if it could not run, or if the loop still held anything afterwards. */
static inline bool run_task_cancelled_at(taal_body_fn body, void *frame, size_t size,
                                         double cancel_at, int *status)
{
    taal_loop loop;
    taal_task *task = NULL;
    taal_timer timer = {0};
    open_loop(&loop);
    bool ok = taal_task_create(&loop, body, frame, size, "main", &task) == TAAL_OK;
    if (ok && cancel_at >= 0)
        taal_call_later(&loop, &timer, cancel_at, cancel_it, task);
    if (ok) {
        *status = taal_run_until_complete(&loop, taal_task_future(task));
        memcpy(frame, taal_task_frame(task), size);
    }
    taal_task_release(task);
    taal_timer_cancel(&loop, &timer);
    ok = ok && live_objects(&loop) == 0;
    taal_loop_close(&loop);
    return ok;
}

static inline bool run_task(taal_body_fn body, void *frame, size_t size, int *status)
{
    return run_task_cancelled_at(body, frame, size, -1, status);
}

/* ---- a generator of 1..n, and an __anext__ range --------------------------- */

/* Yields 1..n, noting "y<i>" as it yields; sleeps `nap` before each value
 * if > 0; fails with TAAL_EUSER instead of yielding `fail_at`; its cleanup
 * notes "cleanup(<exit>)", sleeps `cleanup_nap` if > 0, and, if
 * `yield_in_cleanup`, yields 99 first. */
typedef struct counter {
    taal_aiter gen;
    int n, fail_at;
    double nap, cleanup_nap;
    bool yield_in_cleanup;
    int i, cleanups;
} counter;

static inline int counter_body(taal_coro *self)
{
    counter *f = (counter *)self;
    TAAL_AGEN_BEGIN(&f->gen);
    for (f->i = 1; f->i <= f->n; f->i++) {
        if (f->nap > 0)
            TAAL_SLEEP(f->nap);
        if (f->i == f->fail_at)
            TAAL_FAIL(TAAL_EUSER);
        notef("y%d ", f->i);
        TAAL_AGEN_YIELD(&f->i);
    }
    TAAL_AGEN_FINALLY();
    f->cleanups++;
    notef("cleanup(%d) ", f->gen.exit);
    if (f->yield_in_cleanup) {
        f->i = 99;
        TAAL_AGEN_YIELD(&f->i);
    }
    if (f->cleanup_nap > 0)
        TAAL_SLEEP(f->cleanup_nap);
    TAAL_AGEN_END();
}

/* The seed's AsyncRange: values start..stop-1, each after `nap` seconds. */
typedef struct range {
    taal_aiter it;
    int start, stop, value, calls;
    double nap;
} range;

static inline int range_anext(taal_coro *self)
{
    range *f = (range *)self;
    TAAL_BEGIN(&f->it);
    f->calls++;
    if (f->start >= f->stop)
        TAAL_FAIL(TAAL_STOP);
    f->value = f->start++;
    if (f->nap > 0)
        TAAL_SLEEP(f->nap);
    TAAL_RETURN_VALUE(&f->value);
    TAAL_END();
}

#endif /* LAB_H */
