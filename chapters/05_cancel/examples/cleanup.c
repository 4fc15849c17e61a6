/*
** cleanup.c -- cleanup that awaits, and a second cancel that arrives
** during it.
**
** Two writers, A and B, are cancelled while they write. Each catches the
** cancellation (its sleep returns TAAL_ECANCELLED) and flushes what it
** wrote, which takes a second of awaiting: the cancellation was delivered,
** so the task is back to normal and may await as it likes. Halfway through
** B's flush, main cancels B again: that second cancellation is delivered at
** the flush's await, which B catches too, before giving up. Both re-raise
** (TAAL_FAIL(TAAL_ECANCELLED)), so both end cancelled; cancelling() counts
** the requests: 1 for A, 2 for B. docs/seeds/cleanup.py is the Python
** twin; CPython 3.12 and 3.13 print the same lines.
*/
#include "taal.h"

#include <stdio.h>

static double start;

static double at(void)
{
    return taal_loop_time(taal_running_loop()) - start;
}

typedef struct writer {
    taal_coro co;
    const char *name;
    int st;
} writer;

static int writer_body(taal_coro *self)
{
    writer *f = (writer *)self;
    TAAL_BEGIN(f);
    printf("%.1f s: %s: writing\n", at(), f->name);
    TAAL_SLEEP_STATUS(f->st, 10);
    if (f->st == TAAL_OK) {
        printf("%.1f s: %s: wrote everything\n", at(), f->name);
        TAAL_RETURN();
    }
    /* except CancelledError: the cleanup, which awaits */
    printf("%.1f s: %s: cancelled; flushing what it wrote (1 s)\n", at(), f->name);
    TAAL_SLEEP_STATUS(f->st, 1);
    if (f->st == TAAL_OK)
        printf("%.1f s: %s: flushed\n", at(), f->name);
    else
        printf("%.1f s: %s: cancelled again during the flush: gives up\n", at(), f->name);
    TAAL_FAIL(TAAL_ECANCELLED); /* raise */
    TAAL_END();
}

typedef struct main_frame {
    taal_coro co;
    taal_task *writers[2];
    int i, st;
} main_frame;

static const char *const names[] = {"A", "B"};

static int main_body(taal_coro *self)
{
    main_frame *f = (main_frame *)self;
    taal_loop *loop = taal_running_loop();
    int rc = TAAL_OK;
    TAAL_BEGIN(f);
    start = taal_loop_time(loop);
    for (int i = 0; i < 2 && rc == TAAL_OK; i++)
        rc = taal_task_create(loop, writer_body, &(writer){.name = names[i]},
                              sizeof(writer), names[i], &f->writers[i]);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc); /* a writer made before the failure ends with the loop */
    TAAL_SLEEP(1);
    printf("%.1f s: main: cancels A and B\n", at());
    taal_task_cancel(f->writers[0]);
    taal_task_cancel(f->writers[1]);
    TAAL_SLEEP(0.5);
    printf("%.1f s: main: cancels B again\n", at());
    taal_task_cancel(f->writers[1]);
    for (f->i = 0; f->i < 2; f->i++) {
        TAAL_AWAIT_TASK_STATUS(f->st, f->writers[f->i]);
        if (f->st == TAAL_ECANCELLED)
            printf("%.1f s: main: %s ended cancelled (cancel requests: %d)\n", at(),
                   names[f->i], taal_task_cancelling(f->writers[f->i]));
        taal_task_release(f->writers[f->i]);
    }
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = taal_run(main_body, NULL, sizeof(main_frame), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "cleanup: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
