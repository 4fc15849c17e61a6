/*
** actx.c -- the cost of an `async with`: enter and exit of a context
** manager that does not suspend.
**
** (a) N times, `async with` a manager whose __aenter__ and __aexit__ are
**     coroutines that return at once:
**
**   class Nothing:
**       async def __aenter__(self):
**           return self
**       async def __aexit__(self, exc_type, exc, tb):
**           return False
**
**   for _ in range(n):
**       async with nothing:
**           count += 1
**
** (b) N times, `async with sem` on a semaphore nobody else wants: the
**     acquire takes a free permit at once, the exit gives it back.
**
** A counting allocator is installed for the whole run: the allocations
** made while the blocks run are printed, and must be 0.
**
** Usage: bench_actx [N].
*/
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

typedef struct nothing {
    taal_actx cm;
} nothing;

static int nothing_enter(taal_coro *self)
{
    nothing *f = (nothing *)self;
    TAAL_BEGIN(&f->cm);
    TAAL_RETURN_VALUE(f);
    TAAL_END();
}

static int nothing_exit(taal_coro *self)
{
    nothing *f = (nothing *)self;
    TAAL_BEGIN(&f->cm);
    TAAL_END();
}

typedef struct actx_main {
    taal_coro co;
    long n, i, count;
    nothing m;
    taal_semaphore sem;
    taal_block with;
    int64_t start;
    long allocs;
} actx_main;

static int actx_main_body(taal_coro *self)
{
    actx_main *f = (actx_main *)self;
    TAAL_BEGIN(f);
    /* (a) */
    taal_actx_init(&f->m.cm, nothing_enter, nothing_exit);
    f->allocs = bench_allocs;
    f->start = bench_now_ns();
    for (f->i = 0; f->i < f->n; f->i++) {
        TAAL_ASYNC_WITH(&f->with, &f->m.cm) {
            f->count++;
        }
        TAAL_ASYNC_WITH_END(&f->with);
    }
    bench_metric("with_ns", (double)(bench_now_ns() - f->start) / (double)f->n, "ns");
    bench_metric("with_allocs", (double)(bench_allocs - f->allocs), "allocs");
    /* (b) */
    taal_semaphore_init(&f->sem, taal_running_loop(), 1, "sem");
    f->allocs = bench_allocs;
    f->start = bench_now_ns();
    for (f->i = 0; f->i < f->n; f->i++) {
        TAAL_ASYNC_WITH(&f->with, &f->sem) {
            f->count--;
        }
        TAAL_ASYNC_WITH_END(&f->with);
    }
    bench_metric("sem_with_ns", (double)(bench_now_ns() - f->start) / (double)f->n, "ns");
    bench_metric("sem_with_allocs", (double)(bench_allocs - f->allocs), "allocs");
    taal_semaphore_destroy(&f->sem);
    if (f->count != 0)
        TAAL_FAIL(TAAL_EUSER);
    TAAL_END();
}

int main(int argc, char **argv)
{
    actx_main frame = {0};
    frame.n = bench_arg(argc, argv, 1, 10000000, 1, 1000000000);
    printf("# actx: %ld blocks of a coroutine manager, %ld of a semaphore\n", frame.n,
           frame.n);
    bench_install_counting_allocator();
    int status = bench_main("bench_actx", actx_main_body, &frame, sizeof frame);
    taal_set_allocator(NULL);
    return status;
}
