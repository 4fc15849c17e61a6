/*
** agen.c -- the cost of a value from an async generator, and from an
** async iterator's __anext__.
**
** (a) One `async for` over an async generator that yields N values
**     without awaiting: each value is one resume of the generator and one
**     of the loop's body, with no suspension of the task.
**
**   async def count(n):
**       for i in range(n):
**           yield i
**
**   async for v in count(n):
**       total += v
**
** (b) The same N values from an async iterator whose __anext__ returns at
**     once (the seed's AsyncRange, without its sleep).
**
** A counting allocator is installed for the whole run: the allocations
** made while the values flow are printed, and must be 0: generators,
** iterators and the loop's block are caller storage.
**
** Usage: bench_agen [N].
*/
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <string.h>

/* ---- (a) an async generator ------------------------------------------------- */

typedef struct count {
    taal_aiter gen;
    long n, i;
} count;

static int count_body(taal_coro *self)
{
    count *f = (count *)self;
    TAAL_AGEN_BEGIN(&f->gen);
    for (f->i = 0; f->i < f->n; f->i++)
        TAAL_AGEN_YIELD(&f->i);
    TAAL_AGEN_FINALLY();
    TAAL_AGEN_END();
}

/* ---- (b) an __anext__ -------------------------------------------------------- */

typedef struct range {
    taal_aiter it;
    long start, stop, value;
} range;

static int range_anext(taal_coro *self)
{
    range *f = (range *)self;
    TAAL_BEGIN(&f->it);
    if (f->start >= f->stop)
        TAAL_FAIL(TAAL_STOP);
    f->value = f->start++;
    TAAL_RETURN_VALUE(&f->value);
    TAAL_END();
}

typedef struct agen_main {
    taal_coro co;
    long n;
    count c;
    range r;
    taal_block loop;
    long total;
    int64_t start;
    long allocs;
} agen_main;

static void report(const char *name, agen_main *f)
{
    char allocs[64];
    bench_metric(name, (double)(bench_now_ns() - f->start) / (double)f->n, "ns");
    snprintf(allocs, sizeof allocs, "%.*s_allocs", (int)(strlen(name) - 3), name);
    bench_metric(allocs, (double)(bench_allocs - f->allocs), "allocs");
}

static int agen_main_body(taal_coro *self)
{
    agen_main *f = (agen_main *)self;
    TAAL_BEGIN(f);
    /* (a) */
    f->c.n = f->n;
    taal_agen_init(&f->c.gen, count_body);
    f->allocs = bench_allocs;
    f->start = bench_now_ns();
    TAAL_ASYNC_FOR(&f->loop, &f->c.gen) {
        f->total += *(long *)f->loop.value;
    }
    TAAL_ASYNC_FOR_END(&f->loop);
    report("agen_ns", f);
    /* (b) */
    f->r.stop = f->n;
    taal_aiter_init(&f->r.it, range_anext);
    f->allocs = bench_allocs;
    f->start = bench_now_ns();
    TAAL_ASYNC_FOR(&f->loop, &f->r.it) {
        f->total -= *(long *)f->loop.value;
    }
    TAAL_ASYNC_FOR_END(&f->loop);
    report("anext_ns", f);
    if (f->total != 0) /* both gave 0 + 1 + ... + n-1 */
        TAAL_FAIL(TAAL_EUSER);
    TAAL_END();
}

int main(int argc, char **argv)
{
    agen_main frame = {0};
    frame.n = bench_arg(argc, argv, 1, 10000000, 1, 1000000000);
    printf("# agen: %ld values from an async generator, %ld from an __anext__\n", frame.n,
           frame.n);
    bench_install_counting_allocator();
    int status = bench_main("bench_agen", agen_main_body, &frame, sizeof frame);
    taal_set_allocator(NULL);
    return status;
}
