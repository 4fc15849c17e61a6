/*
** agen.c -- an async generator, left early, cleaned up at once.
**
**   async def ticker(n):
**       try:
**           for i in range(1, n + 1):
**               await asyncio.sleep(1)
**               print(f"{at()}: ticker: tick {i}")
**               yield i
**       finally:
**           print(f"{at()}: ticker: cleanup, closing its connection (0.5 s)")
**           await asyncio.sleep(0.5)
**           print(f"{at()}: ticker: closed")
**
**   async def main():
**       async with contextlib.aclosing(ticker(10)) as ticks:
**           async for i in ticks:
**               print(f"{at()}: main: got {i}")
**               if i == 3:
**                   break
**       print(f"{at()}: main: after the loop")
**
** The ticker awaits (which suspends main's task) and yields (which does
** not). main leaves the loop after three ticks; the `break` closes the
** generator there and then: its cleanup runs, awaits half a second, and
** only then does main go on after the loop. taal's `async for` always
** closes what it iterates, as Python's does only inside aclosing();
** docs/06_aiter_actx.md shows what CPython does without it. The Python
** twin is docs/seeds/agen.py; CPython 3.12 and 3.13 print the same lines.
*/
#include "taal.h"

#include <stdio.h>

static double started;

static double at(void)
{
    return taal_loop_time(taal_running_loop()) - started;
}

/* async def ticker(n) */
typedef struct ticker {
    taal_aiter gen; /* first: the generator's header */
    int n, i;
} ticker;

static int ticker_body(taal_coro *self)
{
    ticker *f = (ticker *)self;
    TAAL_AGEN_BEGIN(&f->gen);
    for (f->i = 1; f->i <= f->n; f->i++) {
        TAAL_SLEEP(1);
        printf("%.1f s: ticker: tick %d\n", at(), f->i);
        TAAL_AGEN_YIELD(&f->i);
    }
    TAAL_AGEN_FINALLY();
    printf("%.1f s: ticker: cleanup, closing its connection (0.5 s)\n", at());
    TAAL_SLEEP(0.5);
    printf("%.1f s: ticker: closed\n", at());
    TAAL_AGEN_END();
}

static int ticker_init(ticker *t, int n)
{
    t->n = n;
    return taal_agen_init(&t->gen, ticker_body);
}

typedef struct main_frame {
    taal_coro co;
    ticker ticks;
    taal_block loop;
} main_frame;

static int main_body(taal_coro *self)
{
    main_frame *f = (main_frame *)self;
    TAAL_BEGIN(f);
    started = taal_loop_time(taal_running_loop());
    ticker_init(&f->ticks, 10);
    TAAL_ASYNC_FOR(&f->loop, &f->ticks.gen) {
        printf("%.1f s: main: got %d\n", at(), *(int *)f->loop.value);
        if (*(int *)f->loop.value == 3)
            break; /* closes the ticker, at once */
    }
    TAAL_ASYNC_FOR_END(&f->loop);
    printf("%.1f s: main: after the loop\n", at());
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = taal_run(main_body, NULL, sizeof(main_frame), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "agen: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
