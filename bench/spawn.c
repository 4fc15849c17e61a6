/*
** spawn.c -- the cost of a task: create N tasks that return at once, gather
** them, await the gather, let them go.
**
**   async def nop():
**       return None
**
**   for batch in range(batches):
**       tasks = [asyncio.create_task(nop()) for _ in range(n)]
**       await asyncio.gather(*tasks)
**
** Usage: bench_spawn [N [BATCHES]]. The first batch is "cold": every task
** lands in memory the process has never touched, so the figure includes the
** kernel's first-touch page faults. The later batches are "warm": they
** reuse what the earlier ones freed; their median is reported.
**
** With glibc, "reuse" needs two settings: by default free() gives a heap
** top of more than 128 KiB back to the kernel, and blocks above 128 KiB
** (the gather's) are mapped and unmapped each time, so that every batch
** would be cold again. The settings change only what the C library keeps,
** not what taal does; see docs/benchmarks.md.
*/
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

enum { MAX_BATCHES = 64 };

typedef struct nop {
    taal_coro co;
} nop;

static int nop_body(taal_coro *self)
{
    nop *f = (nop *)self;
    TAAL_BEGIN(f);
    TAAL_RETURN();
    TAAL_END();
}

typedef struct spawn_main {
    taal_coro co;
    long n;                 /* tasks per batch */
    long batches;           /* batches, the first one cold */
    taal_future **children; /* the caller's array, reused by every batch */
    long batch;             /* the batch running */
    int64_t start;          /* when it started */
    taal_future *gathered;  /* its gather */
    double ns[MAX_BATCHES]; /* nanoseconds per task, per batch */
} spawn_main;

static int spawn_main_body(taal_coro *self)
{
    spawn_main *f = (spawn_main *)self;
    taal_loop *loop = taal_running_loop();
    int rc;
    TAAL_BEGIN(f);
    for (f->batch = 0; f->batch < f->batches; f->batch++) {
        f->start = bench_now_ns();
        for (long i = 0; i < f->n; i++) {
            taal_task *task;
            rc = taal_task_create(loop, nop_body, NULL, sizeof(nop), NULL, &task);
            if (rc != TAAL_OK)
                TAAL_FAIL(rc);
            f->children[i] = taal_task_future(task);
        }
        rc = taal_gather(loop, (size_t)f->n, f->children, &f->gathered);
        if (rc != TAAL_OK)
            TAAL_FAIL(rc);
        TAAL_AWAIT_FUTURE(f->gathered);
        for (long i = 0; i < f->n; i++)
            taal_future_release(f->children[i]);
        taal_future_release(f->gathered);
        f->ns[f->batch] = (double)(bench_now_ns() - f->start) / (double)f->n;
    }
    bench_metric("cold_ns_per_task", f->ns[0], "ns");
    bench_metric("warm_ns_per_task", bench_median(f->ns + 1, (size_t)f->batches - 1),
                 "ns");
    TAAL_END();
}

int main(int argc, char **argv)
{
#if defined(__GLIBC__)
    mallopt(M_MMAP_MAX, 0);              /* the gather comes from the heap too */
    mallopt(M_TRIM_THRESHOLD, 1L << 30); /* keep freed memory for the next batch */
#endif
    spawn_main frame = {0};
    frame.n = bench_arg(argc, argv, 1, 1000000, 1, 100000000);
    frame.batches = bench_arg(argc, argv, 2, 5, 2, MAX_BATCHES);
    frame.children = malloc((size_t)frame.n * sizeof *frame.children);
    if (frame.children == NULL) {
        fprintf(stderr, "bench_spawn: out of memory\n");
        return 1;
    }
    printf("# spawn: %ld tasks per batch, %ld batches\n", frame.n, frame.batches);
    int status = bench_main("bench_spawn", spawn_main_body, &frame, sizeof frame);
    free(frame.children);
    return status;
}
