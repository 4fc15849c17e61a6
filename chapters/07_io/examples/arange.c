/*
** arange.c -- the seed's AsyncRange: an async iterator, in C.
**
**   class AsyncRange:
**       def __init__(self, start, stop, step=1):
**           self.start, self.stop, self.step = start, stop, step
**       def __aiter__(self):
**           return self
**       async def __anext__(self):
**           if self.start >= self.stop:
**               raise StopAsyncIteration
**           value = self.start
**           self.start += self.step
**           await asyncio.sleep(0.1)  # Simulate some async work
**           return value
**
**   async def main():
**       async for i in AsyncRange(0, 5):
**           print(i)
**
** The iterator is a frame whose body is __anext__: each anext runs the body
** from its first line, on the same frame, whose fields are the iterator's
** state. TAAL_FAIL(TAAL_STOP) is `raise StopAsyncIteration`. Five values,
** a tenth of a second apart: about 0.5 s on the real clock.
** docs/seeds/arange.py is the Python twin; CPython 3.12 and 3.13 print the
** same lines.
*/
#include "taal.h"

#include <stdio.h>

static double started;

static double at(void)
{
    return taal_loop_time(taal_running_loop()) - started;
}

/* AsyncRange: its header first, then `self`'s attributes. */
typedef struct arange {
    taal_aiter it;
    int start, stop, step;
    int value; /* the value of this anext, returned by address */
} arange;

/* async def __anext__(self) */
static int arange_anext(taal_coro *self)
{
    arange *f = (arange *)self;
    TAAL_BEGIN(&f->it);
    if (f->start >= f->stop)
        TAAL_FAIL(TAAL_STOP); /* raise StopAsyncIteration */
    f->value = f->start;
    f->start += f->step;
    TAAL_SLEEP(0.1); /* simulate some async work */
    TAAL_RETURN_VALUE(&f->value);
    TAAL_END();
}

/* __init__, and __aiter__, which returns the iterator itself. */
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
    taal_block loop; /* the state of the `async for` */
} main_frame;

static int main_body(taal_coro *self)
{
    main_frame *f = (main_frame *)self;
    TAAL_BEGIN(f);
    started = taal_loop_time(taal_running_loop());
    arange_init(&f->range, 0, 5, 1);
    TAAL_ASYNC_FOR(&f->loop, &f->range.it) {
        printf("%d\n", *(int *)f->loop.value);
    }
    TAAL_ASYNC_FOR_END(&f->loop);
    printf("%.1f s: done\n", at());
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = taal_run(main_body, NULL, sizeof(main_frame), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "arange: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
