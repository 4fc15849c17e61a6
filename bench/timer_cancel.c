/*
** timer_cancel.c -- the cost of cancelling timers: N timers armed with
** call_later at seeded random delays in [0, D) seconds (D = 0.5) on the
** real clock, then every other one cancelled before it fires; the rest
** fire, and the last one ends the run.
**
**   handles = [loop.call_later(rng.random() * d, fired) for _ in range(n)]
**   for h in handles[::2]:
**       h.cancel()
**
** Figures: the time to arm a timer, to cancel one, the cost per timer of
** the whole run beyond D, (wall - D) / N, as in timers.c (but with plain
** callbacks, no tasks), and the CPU time of the whole run per timer, which
** counts the work done while timers come due within D as well. taal takes a cancelled
*timer out of its heap
** at once, in O(log n); asyncio marks it and leaves it in the heap until
** it reaches the top or until cancelled timers are more than half of the
** heap (docs/04_priority.md). The timers are the program's storage, one
** array, as a C program holding many timers would keep them.
**
** Usage: bench_timer_cancel [N [D]].
*/
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

/* splitmix64: a seeded generator with no state but one word. */
static uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static long left;             /* timers still to fire */
static taal_future *all_done; /* completed by the last one */

static void fired(void *data)
{
    (void)data;
    if (--left == 0)
        taal_future_set_result(all_done, NULL);
}

typedef struct cancel_main {
    taal_coro co;
    long n;
    double d;
    taal_timer *timers;
    taal_future done;
    int64_t start, armed, cancelled;
    double cpu;
} cancel_main;

static int cancel_main_body(taal_coro *self)
{
    cancel_main *f = (cancel_main *)self;
    taal_loop *loop = taal_running_loop();
    uint64_t seed = 42;
    TAAL_BEGIN(f);
    f->timers = calloc((size_t)f->n, sizeof *f->timers);
    if (f->timers == NULL)
        TAAL_FAIL(TAAL_ENOMEM);
    taal_future_init(&f->done, loop);
    all_done = &f->done;
    left = f->n / 2; /* the odd ones fire; the even ones are cancelled */
    f->cpu = bench_cpu_s();
    f->start = bench_now_ns();
    for (long i = 0; i < f->n; i++) {
        double delay = (double)(rng_next(&seed) >> 11) * 0x1.0p-53 * f->d;
        int rc = taal_call_later(loop, &f->timers[i], delay, fired, NULL);
        if (rc != TAAL_OK)
            TAAL_FAIL(rc);
    }
    f->armed = bench_now_ns();
    for (long i = 0; i < f->n; i += 2)
        taal_timer_cancel(loop, &f->timers[i]);
    f->cancelled = bench_now_ns();
    TAAL_AWAIT_FUTURE(&f->done);
    {
        double wall = (double)(bench_now_ns() - f->start) / 1e9;
        long cancels = (f->n + 1) / 2;
        bench_metric("arm_ns", (double)(f->armed - f->start) / (double)f->n, "ns");
        bench_metric("cancel_ns", (double)(f->cancelled - f->armed) / (double)cancels,
                     "ns");
        bench_metric("overhead_ns_per_timer", (wall - f->d) / (double)f->n * 1e9, "ns");
        bench_metric("cpu_ns_per_timer", (bench_cpu_s() - f->cpu) / (double)f->n * 1e9,
                     "ns");
        bench_metric("wall_s", wall, "s");
    }
    free(f->timers);
    TAAL_END();
}

int main(int argc, char **argv)
{
    cancel_main frame = {0};
    frame.n = bench_arg(argc, argv, 1, 1000000, 2, 100000000);
    frame.d = bench_arg_seconds(argc, argv, 2, 0.5, 60);
    printf("# timer_cancel: %ld timers, delays in [0, %g) s, every other one cancelled\n",
           frame.n, frame.d);
    return bench_main("bench_timer_cancel", cancel_main_body, &frame, sizeof frame);
}
