/*
** lab.h -- what lab 05's tests share: a loop on the virtual clock whose
** reports are kept for checking, a count of what the loop still holds, a
** trace of events, and a task that sleeps and says how its sleep ended.
** (Chapter 05's own tests have their support.h; the lab keeps its own, so
** that it tests the chapter from outside, through taal.h alone.)
**
** Most tests drive the loop one iteration at a time with taal_run_once(),
** and look at the task, the timer heap or the primitive right after each
** call, so that a wrong answer fails on the line where it goes wrong. A
** task that waits for what never comes ends in a reported deadlock, at
** once, not in a hang; every loop in a test is bounded.
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
static char trace[1024];

static inline void note(const char *s)
{
    size_t n = strlen(trace);
    snprintf(trace + n, sizeof trace - n, "%s", s);
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

/* The number of tasks waiting in a primitive's line. */
static inline int in_line(const taal_waiters *w)
{
    int n = 0;
    for (const taal_link *l = w->future.waiters.next; l != &w->future.waiters;
         l = l->next)
        n++;
    return n;
}

/* Runs `n` iterations, at most: fewer if one fails (a deadlock). */
static inline void iterations(taal_loop *loop, int n)
{
    for (int i = 0; i < n; i++)
        if (taal_run_once(loop) != TAAL_OK)
            return;
}

/* Runs the loop until `task` is done, keeping it; returns its status, or
 * TAAL_EINVAL if it was never made. */
static inline int run_to_end(taal_loop *loop, taal_task *task)
{
    if (task == NULL)
        return TAAL_EINVAL;
    return taal_run_until_complete(loop, taal_task_future(task));
}

/*
** A sleeper: notes "<name>", sleeps `seconds`, and notes how the sleep
** ended: "." if it ran to its end, "x" if it was cancelled. Cancelled, it
** cleans up for `cleanup` seconds (0: none), noting "c." if the cleanup
** ran to its end and "cx" if it was cancelled too; then it re-raises the
** cancellation, or, if `swallow` is set, returns normally with its answer,
** 42. The loop time of each note is kept in `at`.
*/
typedef struct sleeper {
    taal_coro co;
    const char *name;
    double seconds, cleanup;
    bool swallow;
    int st, answer;
    double at[3]; /* when the sleep ended, when the cleanup ended */
} sleeper;

static inline int sleeper_body(taal_coro *self)
{
    sleeper *f = (sleeper *)self;
    TAAL_BEGIN(f);
    note(f->name);
    TAAL_SLEEP_STATUS(f->st, f->seconds);
    f->at[0] = taal_loop_time(taal_running_loop());
    if (f->st == TAAL_OK) {
        note(".");
        TAAL_RETURN();
    }
    note("x");
    if (f->st != TAAL_ECANCELLED)
        TAAL_FAIL(f->st);
    if (f->cleanup > 0) {
        TAAL_SLEEP_STATUS(f->st, f->cleanup);
        f->at[1] = taal_loop_time(taal_running_loop());
        note(f->st == TAAL_OK ? "c." : "cx");
    }
    if (!f->swallow)
        TAAL_FAIL(TAAL_ECANCELLED);
    f->answer = 42;
    TAAL_RETURN_VALUE(&f->answer);
    TAAL_END();
}

/* A sleeper task, kept; NULL if it could not be made. */
static inline taal_task *spawn_sleeper(taal_loop *loop, sleeper frame)
{
    taal_task *task = NULL;
    if (taal_task_create(loop, sleeper_body, &frame, sizeof frame, frame.name, &task) !=
        TAAL_OK)
        return NULL;
    return task;
}

static inline sleeper *sleeper_of(taal_task *task)
{
    return taal_task_frame(task);
}

#endif /* LAB_H */
