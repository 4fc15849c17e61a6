/*
** cancel.c -- the cost of cancelling a task: N tasks sleep (10 s, on the
** real clock); all of them are cancelled, then each is awaited. R rounds,
** each with fresh tasks.
**
**   tasks = [asyncio.create_task(asyncio.sleep(10)) for _ in range(n)]
**   await asyncio.sleep(0)              # they all start, and sleep
**   for t in tasks:
**       t.cancel()
**   for t in tasks:
**       try:
**           await t
**       except asyncio.CancelledError:
**           pass
**
** Figures, the median of the rounds: the cancel() calls alone, per task
** (each takes a timer out of the heap and schedules the task); cancel and
** await per task, from the first cancel to the last await, which counts
** each task's step that delivers its cancellation and ends it; and the
** allocations made in between, which must be 0: nothing on a cancellation
** path allocates (a counting allocator is installed for the whole run).
**
** Usage: bench_cancel [N [R]].
*/
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

enum { MAX_ROUNDS = 32 };

/* asyncio.sleep(10), as a task's coroutine: cancelled, its sleep fails it
 * with TAAL_ECANCELLED (no cleanup, as the Python twin has none). */
typedef struct nap {
    taal_coro co;
} nap;

static int nap_body(taal_coro *self)
{
    nap *f = (nap *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(10);
    TAAL_END();
}

typedef struct cancel_main {
    taal_coro co;
    long n, rounds;
    taal_task **tasks;
    long i, r;
    int st;
    int64_t start, cancelled;
    long allocs, allocs_seen;
    double cancel_ns[MAX_ROUNDS], total_ns[MAX_ROUNDS];
} cancel_main;

static int cancel_main_body(taal_coro *self)
{
    cancel_main *f = (cancel_main *)self;
    taal_loop *loop = taal_running_loop();
    int rc;
    TAAL_BEGIN(f);
    f->tasks = malloc((size_t)f->n * sizeof *f->tasks);
    if (f->tasks == NULL)
        TAAL_FAIL(TAAL_ENOMEM);
    for (f->r = 0; f->r < f->rounds; f->r++) {
        for (long i = 0; i < f->n; i++) {
            rc = taal_task_create(loop, nap_body, NULL, sizeof(nap), NULL, &f->tasks[i]);
            if (rc != TAAL_OK)
                TAAL_FAIL(rc);
        }
        TAAL_SLEEP(0); /* every task takes its first step, and sleeps */
        f->allocs = bench_allocs;
        f->start = bench_now_ns();
        for (long i = 0; i < f->n; i++)
            taal_task_cancel(f->tasks[i]);
        f->cancelled = bench_now_ns();
        for (f->i = 0; f->i < f->n; f->i++) {
            TAAL_AWAIT_TASK_STATUS(f->st, f->tasks[f->i]);
            if (f->st != TAAL_ECANCELLED)
                TAAL_FAIL(f->st == TAAL_OK ? TAAL_ESTATE : f->st);
            taal_task_release(f->tasks[f->i]);
        }
        f->total_ns[f->r] = (double)(bench_now_ns() - f->start) / (double)f->n;
        f->cancel_ns[f->r] = (double)(f->cancelled - f->start) / (double)f->n;
        f->allocs_seen += bench_allocs - f->allocs;
    }
    bench_metric("cancel_ns", bench_median(f->cancel_ns, (size_t)f->rounds), "ns");
    bench_metric("cancel_await_ns_per_task", bench_median(f->total_ns, (size_t)f->rounds),
                 "ns");
    bench_metric("cancel_allocs", (double)f->allocs_seen, "allocs");
    free(f->tasks);
    TAAL_END();
}

int main(int argc, char **argv)
{
    cancel_main frame = {0};
    frame.n = bench_arg(argc, argv, 1, 100000, 1, 100000000);
    frame.rounds = bench_arg(argc, argv, 2, 7, 1, MAX_ROUNDS);
    printf("# cancel: %ld sleeping tasks cancelled and awaited, %ld rounds\n", frame.n,
           frame.rounds);
    bench_install_counting_allocator();
    int status = bench_main("bench_cancel", cancel_main_body, &frame, sizeof frame);
    taal_set_allocator(NULL);
    return status;
}
