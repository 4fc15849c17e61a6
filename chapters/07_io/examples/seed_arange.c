/*
** seed_arange.c -- the seed's AsyncRange as the seed wrote it: it never
** ends.
**
**       async def __anext__(self):
**           if self.start >= self.stop:
**               raise StopAsyncIteration
**           value = self.start
**           self.start = self.step     # the seed lost its `+`
**           await asyncio.sleep(0.1)
**           return value
**
** `self.start = self.step` sets start to 1 at every call, so it never
** reaches stop: the range yields 0, then 1 forever. The program runs the
** loop inside chapter 05's timeout scope (`async with asyncio.timeout()`),
** which cancels it after 1.05 s: ten values, then the timeout. The
** cancellation reaches the iterator in its sleep; its anext ends
** cancelled, the loop ends, and the scope turns that into TAAL_ETIMEDOUT.
** docs/seeds/seed_arange.py is the Python twin; CPython 3.12 and 3.13
** print the same lines.
*/
#include "taal.h"

#include <stdio.h>

static double started;

static double at(void)
{
    return taal_loop_time(taal_running_loop()) - started;
}

typedef struct arange {
    taal_aiter it;
    int start, stop, step;
    int value;
} arange;

static int arange_anext(taal_coro *self)
{
    arange *f = (arange *)self;
    TAAL_BEGIN(&f->it);
    if (f->start >= f->stop)
        TAAL_FAIL(TAAL_STOP);
    f->value = f->start;
    f->start = f->step; /* the seed's mistake: `=` for `+=` */
    TAAL_SLEEP(0.1);
    TAAL_RETURN_VALUE(&f->value);
    TAAL_END();
}

static int arange_init(arange *r, int start, int stop, int step)
{
    r->start = start;
    r->stop = stop;
    r->step = step;
    return taal_aiter_init(&r->it, arange_anext);
}

typedef struct main_frame {
    taal_coro co;
    arange range;
    taal_timeout scope;
    taal_block loop;
    int st;
} main_frame;

static int main_body(taal_coro *self)
{
    main_frame *f = (main_frame *)self;
    TAAL_BEGIN(f);
    started = taal_loop_time(taal_running_loop());
    arange_init(&f->range, 0, 5, 1);
    f->st = taal_timeout_open(&f->scope, 1.05); /* async with asyncio.timeout(1.05): */
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    TAAL_ASYNC_FOR(&f->loop, &f->range.it) {
        printf("%d\n", *(int *)f->loop.value);
    }
    TAAL_ASYNC_FOR_END_STATUS(f->st, &f->loop);
    f->st = taal_timeout_close(&f->scope, f->st);
    if (f->st == TAAL_ETIMEDOUT)
        printf("%.1f s: stopped by the timeout: the range never ends\n", at());
    else
        printf("%.1f s: the range ended: %s\n", at(), taal_strerror(f->st));
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = taal_run(main_body, NULL, sizeof(main_frame), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "seed_arange: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
