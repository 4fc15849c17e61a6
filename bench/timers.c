/*
** timers.c -- the cost of a timer: N tasks each sleep a random delay in
** [0, D) seconds (D = 0.5) on the real clock. All of them are done after
** about D seconds; whatever the run takes beyond D is the cost of arming,
** ordering and firing N timers (and of creating N tasks), shared out per
** timer: (wall - D) / N.
**
**   async def sleeper(delay):
**       await asyncio.sleep(delay)
**
**   rng = random.Random(seed)
**   for _ in range(n):
**       asyncio.create_task(sleeper(rng.random() * d))
**
** Usage: bench_timers [N [D]]. The delays come from a seeded generator, so
** every run sleeps the same delays (Python's generator is another, with the
** same uniform distribution).
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

typedef struct timers_main {
    taal_coro co;
    long n;
    double d;
    taal_future done;
    int64_t start;
    double cpu;
} timers_main;

static int timers_main_body(taal_coro *self)
{
    timers_main *f = (timers_main *)self;
    uint64_t seed = 42;
    TAAL_BEGIN(f);
    bench_sleepers_begin(&f->done, f->n);
    f->cpu = bench_cpu_s();
    f->start = bench_now_ns();
    for (long i = 0; i < f->n; i++) {
        int rc = bench_start_sleeper((double)(rng_next(&seed) >> 11) * 0x1.0p-53 * f->d);
        if (rc != TAAL_OK)
            TAAL_FAIL(rc);
    }
    TAAL_AWAIT_FUTURE(&f->done);
    {
        double wall = (double)(bench_now_ns() - f->start) / 1e9;
        bench_metric("overhead_ns_per_timer", (wall - f->d) / (double)f->n * 1e9, "ns");
        bench_metric("wall_s", wall, "s");
        bench_metric("cpu_s", bench_cpu_s() - f->cpu, "s");
    }
    TAAL_END();
}

int main(int argc, char **argv)
{
    timers_main frame = {0};
    frame.n = bench_arg(argc, argv, 1, 1000000, 1, 100000000);
    frame.d = bench_arg_seconds(argc, argv, 2, 0.5, 60);
    printf("# timers: %ld timers, delays in [0, %g) s\n", frame.n, frame.d);
    return bench_main("bench_timers", timers_main_body, &frame, sizeof frame);
}
