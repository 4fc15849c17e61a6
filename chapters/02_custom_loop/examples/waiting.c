/*
** waiting.c -- asyncio.wait, which the seed names but never shows.
**
**   async def fetch(name, seconds):
**       await asyncio.sleep(seconds)
**       if name == "broken":
**           raise ConnectionRefusedError("connection refused")
**       return name
**
**   async def main():
**       jobs = [("broken", 2), ("fast", 1), ("medium", 2.5), ("slow", 3)]
**       tasks = [asyncio.create_task(fetch(n, s), name=n) for n, s in jobs]
**       done, pending = await asyncio.wait(tasks, return_when=FIRST_COMPLETED)
**       done, pending = await asyncio.wait(pending, return_when=FIRST_EXCEPTION)
**       done, pending = await asyncio.wait(pending, timeout=0.2)
**       done, pending = await asyncio.wait(pending)
**
** printing after each wait the time since the start and the two sets
** (docs/seeds/waiting.py is the whole twin; CPython 3.12 and 3.13 print
** the same).
** A wait cancels nothing and never fails: it only says what is done. A
** failed task's error is a status code, which this program names with
** taal_set_strerror(), as Python names its exception classes.
*/
#include "taal.h"

#include <stdio.h>
#include <string.h>

enum { E_REFUSED = TAAL_EUSER - 1, JOBS = 4 };

static const char *name_errors(int status)
{
    return status == E_REFUSED ? "connection refused" : NULL;
}

typedef struct fetch {
    taal_coro co;
    const char *name;
    double seconds;
} fetch;

static int fetch_body(taal_coro *self)
{
    fetch *f = (fetch *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(f->seconds);
    if (strcmp(f->name, "broken") == 0)
        TAAL_FAIL(E_REFUSED);
    TAAL_RETURN_VALUE((void *)f->name);
    TAAL_END();
}

static const fetch jobs[JOBS] = {
    {.name = "broken", .seconds = 2},
    {.name = "fast", .seconds = 1},
    {.name = "medium", .seconds = 2.5},
    {.name = "slow", .seconds = 3},
};

/* When the program began, as its twin's `start = loop.time()`: the loop's
 * clock counts from an arbitrary moment (on the real clock, boot), and the
 * times printed are seconds since the start. */
static double started;

/* Prints "done a, b; pending c" for the sets of a finished wait. */
static void print_sets(const char *what, taal_future *waited)
{
    void *result;
    taal_future_result(waited, &result);
    const taal_wait_sets *sets = result;
    char name[32];
    printf("%.1f s: %s: done ", taal_loop_time(taal_running_loop()) - started, what);
    for (size_t i = 0; i < sets->done_count; i++)
        printf("%s%s", i ? ", " : "",
               taal_task_name(taal_future_task(sets->done[i]), name, 32));
    printf("%s; pending ", sets->done_count ? "" : "-");
    for (size_t i = 0; i < sets->pending_count; i++)
        printf("%s%s", i ? ", " : "",
               taal_task_name(taal_future_task(sets->pending[i]), name, 32));
    printf("%s\n", sets->pending_count ? "" : "-");
}

/* Prints the error of every failed future among a wait's done ones. */
static void print_failures(taal_future *waited)
{
    void *result;
    taal_future_result(waited, &result);
    const taal_wait_sets *sets = result;
    char name[32];
    for (size_t i = 0; i < sets->done_count; i++) {
        int status = taal_future_result(sets->done[i], NULL); /* t.exception() */
        if (status != TAAL_OK)
            printf("  %s failed: %s\n",
                   taal_task_name(taal_future_task(sets->done[i]), name, 32),
                   taal_strerror(status));
    }
}

typedef struct waiting {
    taal_coro co;
    taal_future *tasks[JOBS];
    taal_future *previous, *waited;
} waiting;

/* Waits again on what the previous wait left pending, then lets the
 * previous wait go: the new one holds those futures now. */
static int wait_on_pending(waiting *f, taal_wait_mode mode, double timeout)
{
    void *result;
    taal_future_result(f->previous, &result);
    const taal_wait_sets *sets = result;
    int rc = taal_wait(taal_running_loop(), sets->pending_count, sets->pending, mode,
                       timeout, &f->waited);
    taal_future_release(f->previous);
    f->previous = rc == TAAL_OK ? f->waited : NULL;
    return rc;
}

static int waiting_body(taal_coro *self)
{
    waiting *f = (waiting *)self;
    taal_loop *loop = taal_running_loop();
    int rc = TAAL_OK;
    TAAL_BEGIN(f);
    started = taal_loop_time(loop);
    for (int i = 0; i < JOBS && rc == TAAL_OK; i++) {
        taal_task *task;
        rc = taal_task_create(loop, fetch_body, &jobs[i], sizeof jobs[i], jobs[i].name,
                              &task);
        f->tasks[i] = taal_task_future(task);
    }
    if (rc == TAAL_OK)
        rc = taal_wait(loop, JOBS, f->tasks, TAAL_FIRST_COMPLETED, TAAL_NO_TIMEOUT,
                       &f->waited);
    for (int i = 0; i < JOBS && f->tasks[i] != NULL; i++)
        taal_future_release(f->tasks[i]); /* the wait holds them now */
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_FUTURE(f->waited);
    print_sets("first completed", f->waited);

    f->previous = f->waited;
    if ((rc = wait_on_pending(f, TAAL_FIRST_EXCEPTION, TAAL_NO_TIMEOUT)) != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_FUTURE(f->waited);
    print_sets("first exception", f->waited);
    print_failures(f->waited);

    if ((rc = wait_on_pending(f, TAAL_ALL_COMPLETED, 0.2)) != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_FUTURE(f->waited);
    print_sets("after a 0.2 s timeout", f->waited);

    if ((rc = wait_on_pending(f, TAAL_ALL_COMPLETED, TAAL_NO_TIMEOUT)) != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_FUTURE(f->waited);
    print_sets("all completed", f->waited);
    taal_future_release(f->waited);
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    taal_set_strerror(name_errors);
    int rc = taal_run(waiting_body, NULL, sizeof(waiting), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "waiting: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
