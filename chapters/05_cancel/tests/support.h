/*
** support.h -- what chapter 05's test files share: loops on the virtual
** clock whose reports are collected for checking, a trace of events, and
** running tasks to their end.
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
static char trace[512];

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

#endif /* TAAL_TEST_SUPPORT_H */
