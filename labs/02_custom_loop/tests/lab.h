/*
** lab.h -- what lab 02's tests share: a loop on the virtual clock whose
** reports are kept for checking, a count of what the loop still holds, and
** a trace of events. (Chapter 02's own tests have their support.h; the lab
** keeps its own, so that it tests the chapter from outside, through
** taal.h alone.)
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

/* A loop on the virtual clock that reports into `reports`. */
static inline void open_loop(taal_loop *loop)
{
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = keep_report};
    reports[0] = '\0';
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
static char trace[256];

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

#endif /* LAB_H */
