/*
** support.h -- what chapter 02's test files share: loops on the virtual
** clock whose reports are collected for checking, and a trace of events.
*/
#ifndef TAAL_TEST_SUPPORT_H
#define TAAL_TEST_SUPPORT_H

#include "taal.h"
#include "taal_check.h"

/* The reports of the loop under test, one line each. */
static char reports[4096];

static inline void collect_report(void *ctx, const char *line)
{
    (void)ctx;
    size_t used = strlen(reports);
    snprintf(reports + used, sizeof reports - used, "%s\n", line);
}

/* A loop on the virtual clock that reports into `reports`. */
static inline void open_loop(taal_loop *loop)
{
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = collect_report};
    reports[0] = '\0';
    taal_loop_init(loop, &options);
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

#endif /* TAAL_TEST_SUPPORT_H */
