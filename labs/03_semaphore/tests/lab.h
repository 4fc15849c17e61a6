/*
** lab.h -- what lab 03's tests share: a loop on the virtual clock whose
** reports are kept for checking, a count of what the loop still holds, a
** trace of events, and a few small tasks. (Chapter 03's own tests have
** their support.h; the lab keeps its own, so that it tests the chapter from
** outside, through taal.h alone.)
**
** No test here arms a timer: the tasks yield with sleep(0), or the test
** drives the loop one iteration at a time with taal_run_once(), so that
** what happens in which iteration is exact. A task that waits for what
** never comes ends in a reported deadlock, at once, not in a hang.
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

/* A loop on the virtual clock that reports into `reports`; the trace is
 * cleared too. */
static char trace[256];

static inline void open_loop(taal_loop *loop)
{
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = keep_report};
    reports[0] = '\0';
    trace[0] = '\0';
    taal_loop_init(loop, &options);
}

/* How many tasks, gathers and waits the loop still holds: each one that
 * was released and has finished must be gone. Tests count before closing
 * the loop, since closing frees everything and would hide a leak. */
static inline int live_objects(const taal_loop *loop)
{
    int n = 0;
    for (const taal_link *l = loop->objects.next; l != &loop->objects; l = l->next)
        n++;
    return n;
}

/* What happened, in order: tests append to it and compare. */
static inline void note(const char *s)
{
    size_t n = strlen(trace);
    snprintf(trace + n, sizeof trace - n, "%s", s);
}

/* The frame of a task that keeps nothing across an await. */
typedef struct plain {
    taal_coro co;
} plain;

/* Creates a task of `body` with a copy of `frame`; NULL if it could not. */
static inline taal_task *spawn(taal_loop *loop, taal_body_fn body, const void *frame,
                               size_t size, const char *name)
{
    taal_task *task = NULL;
    if (taal_task_create(loop, body, frame, size, name, &task) != TAAL_OK)
        return NULL;
    return task;
}

/* Runs each task to its end and releases it. True if every one ended with
 * TAAL_OK and the loop then holds nothing. */
static inline bool finish(taal_loop *loop, taal_task **tasks, int n)
{
    bool ok = true;
    for (int i = 0; i < n; i++) {
        if (tasks[i] == NULL) {
            ok = false;
            continue;
        }
        if (taal_run_until_complete(loop, taal_task_future(tasks[i])) != TAAL_OK)
            ok = false;
        taal_task_release(tasks[i]);
    }
    return ok && live_objects(loop) == 0;
}

#endif /* LAB_H */
