/*
** memory.c -- the memory a pending task costs: N tasks all await one
** plain future; once every one of them is parked on it, the growth of the
** peak resident set size, shared out per task, is what a pending task
** costs, everything included (its header, its frame, the allocator's own
** overhead). Then the future is set and they all finish.
**
**   gate = loop.create_future()
**
**   async def waiter():
**       await gate
**
**   for _ in range(n):
**       asyncio.create_task(waiter())
**   await asyncio.sleep(0)     # every waiter runs once and parks on gate
**   # measure
**   gate.set_result(None)
**
** Usage: bench_memory [N [EXTRA]]. EXTRA bytes of the frame's own follow
** its coroutine header (0 by default: a bare header, 56 bytes since chapter
** 06): issue 24's "32-byte frame" was chapter 02's 32-byte header, so
** `bench_memory N 32` measures a frame with 32 bytes of its own as well.
*/
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

static taal_future *gate; /* what every waiter awaits */
static long finished;     /* waiters done */

typedef struct waiter {
    taal_coro co;
} waiter;

static int waiter_body(taal_coro *self)
{
    waiter *f = (waiter *)self;
    TAAL_BEGIN(f);
    TAAL_AWAIT_FUTURE(gate);
    finished++;
    TAAL_END();
}

typedef struct memory_main {
    taal_coro co;
    long n;
    long extra; /* bytes of each waiter's frame beyond its header */
    taal_future gate;
    double rss_before;
} memory_main;

static int memory_main_body(taal_coro *self)
{
    memory_main *f = (memory_main *)self;
    TAAL_BEGIN(f);
    taal_future_init(&f->gate, taal_running_loop());
    gate = &f->gate;
    f->rss_before = bench_maxrss_bytes();
    for (long i = 0; i < f->n; i++) {
        int rc = taal_task_create(taal_running_loop(), waiter_body, NULL,
                                  sizeof(waiter) + (size_t)f->extra, NULL, NULL);
        if (rc != TAAL_OK)
            TAAL_FAIL(rc);
    }
    TAAL_SLEEP(0); /* every waiter runs its first step and parks on the gate */
    bench_metric("bytes_per_pending_task",
                 (bench_maxrss_bytes() - f->rss_before) / (double)f->n, "B");
    bench_metric("task_header_bytes", (double)sizeof(taal_task), "B");
    bench_metric("frame_bytes", (double)(sizeof(waiter) + (size_t)f->extra), "B");
    taal_future_set_result(&f->gate, NULL);
    TAAL_SLEEP(0); /* every waiter finishes, and is freed */
    if (finished != f->n) {
        fprintf(stderr, "bench_memory: %ld of %ld waiters finished\n", finished, f->n);
        TAAL_FAIL(TAAL_EUSER);
    }
    TAAL_END();
}

int main(int argc, char **argv)
{
    memory_main frame = {0};
    frame.n = bench_arg(argc, argv, 1, 1000000, 1, 100000000);
    frame.extra = bench_arg(argc, argv, 2, 0, 0, 4096);
    printf("# memory: %ld pending tasks\n", frame.n);
    return bench_main("bench_memory", memory_main_body, &frame, sizeof frame);
}
