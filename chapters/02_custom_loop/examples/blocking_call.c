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
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif

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
#ifdef _WIN32
        Sleep(250); /* Windows has no nanosleep */
#else
        struct timespec quarter = {0, 250000000};
        nanosleep(&quarter, NULL);
#endif
    } else {
        puts("worker: await asyncio.sleep(0.25) gives the loop back");
        TAAL_SLEEP(0.25);
    }
    puts("worker: done");
    TAAL_END();
}

/* One round: the ticker and a worker side by side, until both are done. */
typedef struct round {
    taal_coro co;
    bool blocking;
    taal_future *both[2];
    taal_future *gathered;
} round;

static int round_body(taal_coro *self)
{
    round *f = (round *)self;
    taal_loop *loop = taal_running_loop();
    taal_task *ticker_task, *worker_task;
    int rc;
    TAAL_BEGIN(f);
    rc =
        taal_task_create(loop, ticker_body, NULL, sizeof(ticker), "ticker", &ticker_task);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    rc = taal_task_create(loop, worker_body, &(worker){.blocking = f->blocking},
                          sizeof(worker), "worker", &worker_task);
    if (rc != TAAL_OK) {
        taal_task_release(ticker_task);
        TAAL_FAIL(rc);
    }
    f->both[0] = taal_task_future(ticker_task);
    f->both[1] = taal_task_future(worker_task);
    rc = taal_gather(loop, 2, f->both, &f->gathered);
    taal_task_release(ticker_task); /* the gather holds them now */
    taal_task_release(worker_task);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_FUTURE(f->gathered);
    taal_future_release(f->gathered);
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    round blocking = {.blocking = true}, awaited = {.blocking = false};
    puts("-- a blocking call inside a task --");
    int rc = taal_run(round_body, &blocking, sizeof(round), NULL, NULL);
    if (rc == TAAL_OK) {
        puts("-- the same wait, awaited --");
        rc = taal_run(round_body, &awaited, sizeof(round), NULL, NULL);
    }
    if (rc != TAAL_OK)
        fprintf(stderr, "blocking_call: %s\n", taal_strerror(rc));
    return rc == TAAL_OK ? 0 : 1;
}
