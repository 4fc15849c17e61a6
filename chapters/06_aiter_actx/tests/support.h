/*
** support.h -- what chapter 06's test files share: loops on the virtual
** clock whose reports are collected for checking, a trace of events,
** running tasks to their end, and (new) a task that runs one coroutine
** body of a test and keeps its frame for reading.
*/
#ifndef TAAL_TEST_SUPPORT_H
#define TAAL_TEST_SUPPORT_H

#include "taal.h"
#include "taal_check.h"

/* The reports of the loop under test, one line each. */
static char reports[4096];

static inline void collect_report(void *ctx, const taal_report *report)
{
    (void)ctx;
    size_t used = strlen(reports);
    snprintf(reports + used, sizeof reports - used, "%s\n", report->message);
}

/* A loop on the virtual clock that reports into `reports`. */
static inline void open_loop(taal_loop *loop)
{
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = collect_report};
    reports[0] = '\0';
    taal_loop_init(loop, &options);
}

/* Nothing the loop allocated is still alive: every task, gather and wait
 * was released and finished, so the loop freed it. A test checks this
 * before closing, where a reference-counting mistake would otherwise hide
 * (closing frees whatever is left). */
static inline bool loop_is_empty(const taal_loop *loop)
{
    return loop->objects.next == &loop->objects;
}

/* What happened, in order: tests append to it and compare. */
static char trace[1024];

static inline void note(const char *s)
{
    size_t n = strlen(trace);
    snprintf(trace + n, sizeof trace - n, "%s", s);
}

/* note() as a loop callback. */
static inline void note_callback(void *arg)
{
    note(arg);
}

/* note() as a done-callback. */
static inline void note_done(taal_future *future, void *arg)
{
    (void)future;
    note(arg);
}

/* Runs the loop until `task` is done, then releases it; returns its
 * status (TAAL_EINVAL for NULL: it was never created). */
static inline int finish_task(taal_loop *loop, taal_task *task)
{
    if (task == NULL)
        return TAAL_EINVAL;
    int rc = taal_run_until_complete(loop, taal_task_future(task));
    taal_task_release(task);
    return rc;
}

/* Runs the loop until nothing is ready and no timer is set, at most `n`
 * iterations (a bound, so that a wrong answer fails instead of spinning).
 * Returns true if it got there: the loop is then idle. */
static inline bool run_out(taal_loop *loop, int n)
{
    while (n-- > 0) {
        if (taal_run_once(loop) == TAAL_EDEADLOCK)
            return true;
    }
    return false;
}

/* note() with a number: "name" or "name=n". */
static inline void notef(const char *format, int n)
{
    char buf[64];
    snprintf(buf, sizeof buf, format, n);
    note(buf);
}

/* The loop time in tenths of a second, as an int (virtual clock). */
static inline int tenths(void)
{
    double t = taal_loop_time(taal_running_loop()) * 10.0;
    return (int)(t + 0.5);
}

/* Opens a loop, runs `body` as its only task from `frame` (copied), to the
 * end, and checks that nothing is left; the task's status goes to
 * `*status` and its frame is copied back into `frame` before it goes.
 * Returns false if the loop could not run it to its end. */
static inline bool run_task(taal_body_fn body, void *frame, size_t size, int *status)
{
    taal_loop loop;
    taal_task *task = NULL;
    open_loop(&loop);
    trace[0] = '\0';
    bool ok = taal_task_create(&loop, body, frame, size, "main", &task) == TAAL_OK;
    if (ok) {
        *status = taal_run_until_complete(&loop, taal_task_future(task));
        memcpy(frame, taal_task_frame(task), size);
    }
    taal_task_release(task);
    ok = ok && loop_is_empty(&loop);
    taal_loop_close(&loop);
    return ok;
}

static inline void cancel_task(void *task)
{
    taal_task_cancel(task);
}

/* Runs `fr` as a task, cancels it at `when` seconds, and runs it out;
 * its frame is copied back into `fr`. Returns the task's status, or
 * TAAL_EBUSY if the loop still held something at the end. */
static inline int cancelled_at(taal_body_fn body, void *fr, size_t size, double when)
{
    taal_loop loop;
    taal_task *task = NULL;
    open_loop(&loop);
    trace[0] = '\0';
    int rc = taal_task_create(&loop, body, fr, size, "consumer", &task);
    if (rc != TAAL_OK) {
        taal_loop_close(&loop);
        return rc;
    }
    taal_timer timer = {0};
    taal_call_later(&loop, &timer, when, cancel_task, task);
    rc = taal_run_until_complete(&loop, taal_task_future(task));
    memcpy(fr, taal_task_frame(task), size);
    taal_task_release(task);
    if (!loop_is_empty(&loop))
        rc = TAAL_EBUSY;
    taal_loop_close(&loop);
    return rc;
}

#endif /* TAAL_TEST_SUPPORT_H */
