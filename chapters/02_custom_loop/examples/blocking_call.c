/*
** blocking_call.c -- one blocking call stops every task.
**
** A ticker task prints a tick every 0.1 s. Beside it, a worker waits
** 0.25 s, twice: first with a blocking call (nanosleep, Python's
** time.sleep), which holds the whole thread, so the loop cannot run the
** ticker until the worker is done; then with TAAL_SLEEP (asyncio.sleep),
** which gives the loop back, so the ticks go on while the worker waits.
*/
#define _POSIX_C_SOURCE 200809L

#include "taal.h"

#include <stdio.h>
#include <time.h>

typedef struct ticker {
    taal_coro co;
    int tick;
} ticker;

static int ticker_body(taal_coro *self)
{
    ticker *f = (ticker *)self;
    TAAL_BEGIN(f);
    for (f->tick = 1; f->tick <= 3; f->tick++) {
        TAAL_SLEEP(0.1);
        printf("tick %d\n", f->tick);
    }
    TAAL_END();
}

typedef struct worker {
    taal_coro co;
    bool blocking;
} worker;

static int worker_body(taal_coro *self)
{
    worker *f = (worker *)self;
    TAAL_BEGIN(f);
    if (f->blocking) {
        puts("worker: time.sleep(0.25) holds the thread, and the loop with it");
        struct timespec quarter = {0, 250000000};
        nanosleep(&quarter, NULL);
    } else {
        puts("worker: await asyncio.sleep(0.25) gives the loop back");
        TAAL_SLEEP(0.25);
    }
    puts("worker: done");
    TAAL_END();
}

/* Runs the ticker and one worker side by side until both are done. */
static int run_round(bool blocking)
{
    taal_loop loop;
    taal_task *tasks[2] = {NULL, NULL};
    taal_future *futures[2];
    taal_future *both = NULL;
    int rc = taal_loop_init(&loop, NULL);
    if (rc == TAAL_OK)
        rc = taal_task_create(&loop, ticker_body, sizeof(ticker), &tasks[0]);
    if (rc == TAAL_OK)
        rc = taal_task_create(&loop, worker_body, sizeof(worker), &tasks[1]);
    if (rc == TAAL_OK) {
        ((worker *)taal_task_frame(tasks[1]))->blocking = blocking;
        futures[0] = taal_task_future(tasks[0]);
        futures[1] = taal_task_future(tasks[1]);
        rc = taal_gather(&loop, 2, futures, &both);
    }
    if (rc == TAAL_OK)
        rc = taal_run_until_complete(&loop, both);
    taal_loop_close(&loop);
    return rc;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    puts("-- a blocking call inside a task --");
    int rc = run_round(true);
    if (rc == TAAL_OK) {
        puts("-- the same wait, awaited --");
        rc = run_round(false);
    }
    if (rc != TAAL_OK)
        fprintf(stderr, "blocking_call: %s\n", taal_strerror(rc));
    return rc == TAAL_OK ? 0 : 1;
}
