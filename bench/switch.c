/*
** switch.c -- the cost of a task switch, two ways.
**
** (a) One task yields M times (TAAL_SLEEP(0), asyncio.sleep(0)): the loop
**     takes it off the ready queue, resumes it, and queues it again.
**
**   for _ in range(m):
**       await asyncio.sleep(0)
**
** (b) Two tasks play ping-pong through plain futures, S switches in all:
**     each completes the future the other awaits, then awaits a fresh one
**     of its own (a done plain future is made fresh again with
**     taal_future_init(); Python makes a new one).
**
**   async def ping(m):                     async def pong(m):
**       for _ in range(m):                     for _ in range(m):
**           box.to_pong.set_result(None)           await box.to_pong
**           await box.to_ping                      box.to_pong = loop.create_future()
**           box.to_ping = loop.create_future()     box.to_ping.set_result(None)
**
** A counting allocator is installed for the whole run: the allocations
** made while the tasks switch (after they were created) are printed, and
** must be 0: no await and no wake-up allocates.
**
** Usage: bench_switch [M [S]]; S defaults to M.
*/
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

/* ---- (a) sleep(0) ---------------------------------------------------------- */

typedef struct yielder {
    taal_coro co;
    long m;        /* yields to make */
    long i;        /* yields made */
    int64_t start; /* when the first yield was made */
    long allocs;   /* the allocation count then */
} yielder;

static int yielder_body(taal_coro *self)
{
    yielder *f = (yielder *)self;
    TAAL_BEGIN(f);
    f->allocs = bench_allocs;
    f->start = bench_now_ns();
    for (f->i = 0; f->i < f->m; f->i++)
        TAAL_SLEEP(0);
    bench_metric("yield_ns", (double)(bench_now_ns() - f->start) / (double)f->m, "ns");
    bench_metric("yield_allocs", (double)(bench_allocs - f->allocs), "allocs");
    TAAL_END();
}

/* ---- (b) ping-pong --------------------------------------------------------- */

typedef struct player {
    taal_coro co;
    long rounds;         /* round trips: two switches each */
    long i;              /* round trips made */
    taal_future *mine;   /* what this player awaits */
    taal_future *theirs; /* what the other player awaits */
} player;

static int ping_body(taal_coro *self)
{
    player *f = (player *)self;
    int rc;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->rounds; f->i++) {
        rc = taal_future_set_result(f->theirs, NULL);
        if (rc != TAAL_OK)
            TAAL_FAIL(rc);
        TAAL_AWAIT_FUTURE(f->mine);
        taal_future_init(f->mine, taal_running_loop());
    }
    TAAL_END();
}

static int pong_body(taal_coro *self)
{
    player *f = (player *)self;
    int rc;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->rounds; f->i++) {
        TAAL_AWAIT_FUTURE(f->mine);
        taal_future_init(f->mine, taal_running_loop());
        rc = taal_future_set_result(f->theirs, NULL);
        if (rc != TAAL_OK)
            TAAL_FAIL(rc);
    }
    TAAL_END();
}

/* Creates a task running `body` with a frame of type T and returns the
 * frame; NULL if it could not. */
static void *start(taal_body_fn body, size_t frame_size, taal_task **task)
{
    if (taal_task_create(taal_running_loop(), body, NULL, frame_size, NULL, task) !=
        TAAL_OK)
        return NULL;
    return taal_task_frame(*task);
}

typedef struct switch_main {
    taal_coro co;
    long m;                 /* sleep(0) yields */
    long s;                 /* ping-pong switches */
    taal_task *yield_task;  /* (a) */
    taal_task *ping, *pong; /* (b) */
    taal_future to_ping, to_pong;
    int64_t start;
    long allocs;
} switch_main;

static int switch_main_body(taal_coro *self)
{
    switch_main *f = (switch_main *)self;
    yielder *y;
    player *a, *b;
    TAAL_BEGIN(f);
    /* (a) */
    y = start(yielder_body, sizeof(yielder), &f->yield_task);
    if (y == NULL)
        TAAL_FAIL(TAAL_ENOMEM);
    y->m = f->m;
    TAAL_AWAIT_TASK(f->yield_task);
    taal_task_release(f->yield_task);

    /* (b) */
    taal_future_init(&f->to_ping, taal_running_loop());
    taal_future_init(&f->to_pong, taal_running_loop());
    a = start(ping_body, sizeof(player), &f->ping);
    if (a == NULL)
        TAAL_FAIL(TAAL_ENOMEM);
    b = start(pong_body, sizeof(player), &f->pong);
    if (b == NULL)
        TAAL_FAIL(TAAL_ENOMEM);
    *a = (player){a->co, f->s / 2, 0, &f->to_ping, &f->to_pong};
    *b = (player){b->co, f->s / 2, 0, &f->to_pong, &f->to_ping};
    f->allocs = bench_allocs;
    f->start = bench_now_ns();
    TAAL_AWAIT_TASK(f->ping);
    TAAL_AWAIT_TASK(f->pong);
    bench_metric("pingpong_ns",
                 (double)(bench_now_ns() - f->start) / (double)(f->s / 2 * 2), "ns");
    bench_metric("pingpong_allocs", (double)(bench_allocs - f->allocs), "allocs");
    taal_task_release(f->ping);
    taal_task_release(f->pong);
    TAAL_END();
}

int main(int argc, char **argv)
{
    switch_main frame = {0};
    frame.m = bench_arg(argc, argv, 1, 50000000, 1, 1000000000);
    frame.s = bench_arg(argc, argv, 2, frame.m, 2, 1000000000);
    printf("# switch: %ld sleep(0) yields, %ld ping-pong switches\n", frame.m, frame.s);
    bench_install_counting_allocator();
    int status = bench_main("bench_switch", switch_main_body, &frame, sizeof frame);
    taal_set_allocator(NULL);
    return status;
}
