/*
** timeout.c -- the cost of a timeout that does not fire, the common case:
** an operation that finishes in time (one yield, sleep(0)) awaited M times,
** four ways.
**
**   async def op():
**       await asyncio.sleep(0)
**
**   bare:      await op()
**   scope:     async with asyncio.timeout(10):
**                  await op()
**   task:      await asyncio.create_task(op())
**   wait_for:  await asyncio.wait_for(asyncio.create_task(op()), 10)
**
** `scope` is TAAL_AWAIT_TIMEOUT_STATUS around `op` embedded in the frame
** (asyncio 3.12's wait_for of a coroutine is this same scope); `wait_for`
** is TAAL_WAIT_FOR_STATUS on a task made for each use. The difference
** between scope and bare, and between wait_for and task, is what the
** timeout costs: a timer armed at the open and taken out of the heap at
** the close. Figures: ns per use each way, and the allocations made
** during the scope and wait_for loops (a counting allocator is installed
** for the whole run; a task's block comes from the loop's free list).
**
** Usage: bench_timeout [M].
*/
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

/* op(): one yield. */
typedef struct op {
    taal_coro co;
} op;

static int op_body(taal_coro *self)
{
    op *f = (op *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(0);
    TAAL_END();
}

typedef struct timeout_main {
    taal_coro co;
    long m, i;
    op child;
    taal_timeout scope;
    taal_task *task;
    int st;
    int64_t start;
    long allocs;
} timeout_main;

static double per_use(const timeout_main *f)
{
    return (double)(bench_now_ns() - f->start) / (double)f->m;
}

static void begin(timeout_main *f)
{
    f->allocs = bench_allocs;
    f->start = bench_now_ns();
}

static int new_task(timeout_main *f)
{
    return taal_task_create(taal_running_loop(), op_body, NULL, sizeof(op), NULL,
                            &f->task);
}

static int timeout_main_body(taal_coro *self)
{
    timeout_main *f = (timeout_main *)self;
    TAAL_BEGIN(f);
    begin(f);
    for (f->i = 0; f->i < f->m; f->i++) {
        taal_coro_init(&f->child.co, op_body);
        TAAL_AWAIT(&f->child);
    }
    bench_metric("bare_ns", per_use(f), "ns");

    /* One use first, untimed: the timer heap's array is allocated by the
     * first timer ever armed, once. */
    taal_coro_init(&f->child.co, op_body);
    TAAL_AWAIT_TIMEOUT_STATUS(f->st, &f->scope, 10, &f->child);
    begin(f);
    for (f->i = 0; f->i < f->m; f->i++) {
        taal_coro_init(&f->child.co, op_body);
        TAAL_AWAIT_TIMEOUT_STATUS(f->st, &f->scope, 10, &f->child);
        if (f->st != TAAL_OK)
            TAAL_FAIL(f->st);
    }
    bench_metric("scope_ns", per_use(f), "ns");
    bench_metric("scope_allocs", (double)(bench_allocs - f->allocs), "allocs");

    begin(f);
    for (f->i = 0; f->i < f->m; f->i++) {
        f->st = new_task(f);
        if (f->st != TAAL_OK)
            TAAL_FAIL(f->st);
        TAAL_AWAIT_TASK(f->task);
        taal_task_release(f->task);
    }
    bench_metric("task_ns", per_use(f), "ns");

    begin(f);
    for (f->i = 0; f->i < f->m; f->i++) {
        f->st = new_task(f);
        if (f->st != TAAL_OK)
            TAAL_FAIL(f->st);
        TAAL_WAIT_FOR_STATUS(f->st, &f->scope, taal_task_future(f->task), 10);
        taal_task_release(f->task);
        if (f->st != TAAL_OK)
            TAAL_FAIL(f->st);
    }
    bench_metric("wait_for_ns", per_use(f), "ns");
    bench_metric("wait_for_allocs", (double)(bench_allocs - f->allocs), "allocs");
    TAAL_END();
}

int main(int argc, char **argv)
{
    timeout_main frame = {0};
    frame.m = bench_arg(argc, argv, 1, 5000000, 1, 1000000000);
    printf("# timeout: an operation of one yield, awaited %ld times each way\n", frame.m);
    bench_install_counting_allocator();
    int status = bench_main("bench_timeout", timeout_main_body, &frame, sizeof frame);
    taal_set_allocator(NULL);
    return status;
}
