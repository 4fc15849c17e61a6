/*
** priority.c -- the cost of a task switch when tasks have priorities.
**
** The switch scenario's sleep(0) yields (switch.c), M in all, four ways:
**
**   fifo    one task, at priority 0: the switch scenario itself, plain FIFO
**   spread  K tasks at K different priorities, M/K yields each: strict
**           priority runs the highest one's yields, one per iteration, while
**           the K-1 below it wait with work (their bits set in the map)
**   aging   the same with aging on (taal_loop_options.aging = 8): every
**           8th iteration or so a lower priority gets its turn
**   fifo_k  K tasks, all at priority 0, M/K yields each (each iteration runs
**           all K: the per-iteration cost is shared by K switches)
**
**   async def yielder(m):                  # asyncio has no priorities:
**       for _ in range(m):                 # its twin, priority.py, runs
**           await asyncio.sleep(0)         # fifo and fifo_k only
**
** The figure is the time per yield. `spread` against `fifo` is the price
** of priorities: the same one switch per iteration, with K levels in the
** ready queue instead of one (target: at most 2 ns more). A counting
** allocator checks that no yield allocates.
**
** Usage: bench_priority [M [K]]; K (2 to 32) defaults to 8.
*/
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

typedef struct yielder {
    taal_coro co;
    long m; /* yields to make */
    long i; /* yields made */
} yielder;

static int yielder_body(taal_coro *self)
{
    yielder *f = (yielder *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->m; f->i++)
        TAAL_SLEEP(0);
    TAAL_END();
}

enum { MAX_TASKS = TAAL_PRIORITY_LEVELS };

/* One way of running: `tasks` tasks of `yields` yields each; `spread` puts
 * task i at priority MIN + i * (LEVELS / tasks), else all are at 0. */
typedef struct way {
    taal_coro co;
    long tasks, yields;
    bool spread;
    taal_future *all[MAX_TASKS];
    taal_future *gathered;
    int64_t start;
    long allocs;
    double ns;      /* out: per yield */
    long allocated; /* out: allocations while yielding */
} way;

static int way_body(taal_coro *self)
{
    way *f = (way *)self;
    taal_loop *loop = taal_running_loop();
    int rc = TAAL_OK;
    long started = 0;
    TAAL_BEGIN(f);
    for (; rc == TAAL_OK && started < f->tasks; started++) {
        taal_task *task = NULL;
        rc = taal_task_create(loop, yielder_body, &(yielder){.m = f->yields},
                              sizeof(yielder), NULL, &task);
        if (rc == TAAL_OK && f->spread)
            rc = taal_task_set_priority(
                task,
                TAAL_PRIORITY_MIN + (int)(started * (TAAL_PRIORITY_LEVELS / f->tasks)));
        f->all[started] = taal_task_future(task);
    }
    if (rc == TAAL_OK)
        rc = taal_gather(loop, (size_t)f->tasks, f->all, &f->gathered);
    for (long i = 0; i < started; i++)
        taal_future_release(f->all[i]); /* the gather holds them */
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    f->allocs = bench_allocs;
    f->start = bench_now_ns();
    TAAL_AWAIT_FUTURE(f->gathered);
    f->ns = (double)(bench_now_ns() - f->start) / (double)(f->tasks * f->yields);
    f->allocated = bench_allocs - f->allocs;
    taal_future_release(f->gathered);
    TAAL_END();
}

/* Runs one way on a loop of its own; prints its figure. */
static int measure(const char *name, long m, long tasks, bool spread, unsigned aging)
{
    way frame = {.tasks = tasks, .yields = m / tasks, .spread = spread};
    taal_loop_options options = {.aging = aging};
    taal_loop loop;
    taal_task *main_task = NULL;
    int rc = taal_loop_init(&loop, &options);
    if (rc == TAAL_OK)
        rc = taal_task_create(&loop, way_body, &frame, sizeof frame, "main", &main_task);
    if (rc == TAAL_OK)
        rc = taal_run_until_complete(&loop, taal_task_future(main_task));
    if (rc == TAAL_OK) {
        way *done = taal_task_frame(main_task);
        char metric[64];
        snprintf(metric, sizeof metric, "%s_ns", name);
        bench_metric(metric, done->ns, "ns");
        snprintf(metric, sizeof metric, "%s_allocs", name);
        bench_metric(metric, (double)done->allocated, "allocs");
    }
    taal_task_release(main_task);
    taal_loop_close(&loop);
    if (rc != TAAL_OK)
        fprintf(stderr, "bench_priority: %s: %s\n", name, taal_strerror(rc));
    return rc;
}

int main(int argc, char **argv)
{
    long m = bench_arg(argc, argv, 1, 20000000, 32, 1000000000);
    long k = bench_arg(argc, argv, 2, 8, 2, MAX_TASKS);
    printf("# priority: %ld sleep(0) yields each way; %ld tasks at %ld priorities\n", m,
           k, k);
    bench_install_counting_allocator();
    int rc = measure("fifo", m, 1, false, 0);
    if (rc == TAAL_OK)
        rc = measure("spread", m, k, true, 0);
    if (rc == TAAL_OK)
        rc = measure("aging", m, k, true, 8);
    if (rc == TAAL_OK)
        rc = measure("fifo_k", m, k, false, 0);
    taal_set_allocator(NULL);
    return rc == TAAL_OK ? 0 : 1;
}
