/*
** idle.c -- sleeping costs nothing: N tasks sleep T seconds each (10,000
** tasks, 2 s) on the real clock. The loop should spend the time blocked in
** the kernel, so the CPU time used is close to zero.
**
**   async def sleeper():
**       await asyncio.sleep(t)
**
**   await asyncio.gather(*(sleeper() for _ in range(n)))
**
** Usage: bench_idle [N [T]].
*/
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

typedef struct idle_main {
    taal_coro co;
    long n;
    double t;
    taal_future done;
    int64_t start;
    double cpu;
} idle_main;

static int idle_main_body(taal_coro *self)
{
    idle_main *f = (idle_main *)self;
    TAAL_BEGIN(f);
    bench_sleepers_begin(&f->done, f->n);
    f->cpu = bench_cpu_s();
    f->start = bench_now_ns();
    for (long i = 0; i < f->n; i++) {
        int rc = bench_start_sleeper(f->t);
        if (rc != TAAL_OK)
            TAAL_FAIL(rc);
    }
    TAAL_AWAIT_FUTURE(&f->done);
    {
        double wall = (double)(bench_now_ns() - f->start) / 1e9;
        double cpu = bench_cpu_s() - f->cpu;
        bench_metric("cpu_s", cpu, "s");
        bench_metric("cpu_percent", wall > 0 ? 100 * cpu / wall : 0, "%");
        bench_metric("wall_s", wall, "s");
    }
    TAAL_END();
}

int main(int argc, char **argv)
{
    idle_main frame = {0};
    frame.n = bench_arg(argc, argv, 1, 10000, 1, 100000000);
    frame.t = bench_arg_seconds(argc, argv, 2, 2.0, 3600);
    printf("# idle: %ld tasks sleeping %g s each\n", frame.n, frame.t);
    return bench_main("bench_idle", idle_main_body, &frame, sizeof frame);
}
