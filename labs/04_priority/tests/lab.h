/*
** lab.h -- what lab 04's tests share: a loop on the virtual clock whose
** reports are kept for checking, a count of what the loop still holds, a
** trace of events, and small tasks that note a letter and yield. (Chapter
** 04's own tests have their support.h; the lab keeps its own, so that it
** tests the chapter from outside, through taal.h alone.)
**
** Most tests drive the loop one iteration at a time with taal_run_once(),
** so that what runs in which iteration is exact. A task that waits for
** what never comes ends in a reported deadlock, at once, not in a hang;
** every loop in a test is bounded.
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

/* note() as a loop callback. */
static inline void note_callback(void *arg)
{
    note(arg);
}

/* A loop on the virtual clock that reports into `reports`, with `aging`
 * (0: strict priority); the trace is cleared too. */
static inline void open_loop_aging(taal_loop *loop, unsigned aging)
{
    taal_loop_options options = {
        .clock = TAAL_CLOCK_VIRTUAL, .report = keep_report, .aging = aging};
    reports[0] = '\0';
    trace[0] = '\0';
    taal_loop_init(loop, &options);
}

static inline void open_loop(taal_loop *loop)
{
    open_loop_aging(loop, 0);
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

/* Notes `letter`, then yields (sleep(0)), `n` times. */
typedef struct spinner {
    taal_coro co;
    const char *letter;
    int i, n;
} spinner;

static inline int spinner_body(taal_coro *self)
{
    spinner *f = (spinner *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->n; f->i++) {
        note(f->letter);
        TAAL_SLEEP(0);
    }
    TAAL_END();
}

/* A spinner at `priority`; NULL if it could not be made. */
static inline taal_task *spawn_spinner(taal_loop *loop, const char *letter, int n,
                                       int priority)
{
    taal_task *task = NULL;
    if (taal_task_create(loop, spinner_body, &(spinner){.letter = letter, .n = n},
                         sizeof(spinner), letter, &task) != TAAL_OK)
        return NULL;
    taal_task_set_priority(task, priority);
    return task;
}

/* Runs each task to its end, keeping it, so that its frame can still be
 * read. True if every one ended with TAAL_OK. */
static inline bool complete(taal_loop *loop, taal_task **tasks, int n)
{
    bool ok = true;
    for (int i = 0; i < n; i++) {
        if (tasks[i] == NULL ||
            taal_run_until_complete(loop, taal_task_future(tasks[i])) != TAAL_OK)
            ok = false;
    }
    return ok;
}

/* Releases each task (its frame is gone after this). True if the loop then
 * holds nothing. */
static inline bool release_all(taal_loop *loop, taal_task **tasks, int n)
{
    for (int i = 0; i < n; i++)
        taal_task_release(tasks[i]);
    return live_objects(loop) == 0;
}

/* Runs each task to its end and releases it. True if every one ended with
 * TAAL_OK and the loop then holds nothing. */
static inline bool finish(taal_loop *loop, taal_task **tasks, int n)
{
    bool ok = complete(loop, tasks, n);
    return release_all(loop, tasks, n) && ok;
}

/* Runs `n` iterations, at most: fewer if one fails (a deadlock). */
static inline void iterations(taal_loop *loop, int n)
{
    for (int i = 0; i < n; i++)
        if (taal_run_once(loop) != TAAL_OK)
            return;
}

#endif /* LAB_H */
