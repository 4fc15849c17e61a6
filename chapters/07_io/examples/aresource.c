/*
** aresource.c -- the seed's AsyncResource: an async context manager.
**
**   class AsyncResource:
**       async def __aenter__(self):
**           print("Acquiring resource")
**           await asyncio.sleep(1)  # Simulate async acquisition
**           return self
**       async def __aexit__(self, exc_type, exc, tb):
**           print("Releasing resource")
**           await asyncio.sleep(1)  # Simulate async release
**
**   async def main():
**       async with AsyncResource() as resource:
**           print("Using resource")
**           await asyncio.sleep(1)
**
** The manager is a frame that starts with a taal_actx; its enter and exit
** are two coroutine bodies run on that frame, one after the other. Three
** awaits of a second each: about 3 s on the real clock. The last line
** says how long it took. docs/seeds/aresource.py is the Python twin;
** CPython 3.12 and 3.13 print the same lines.
*/
#include "taal.h"

#include <stdio.h>

static double started;

static double at(void)
{
    return taal_loop_time(taal_running_loop()) - started;
}

typedef struct resource {
    taal_actx cm; /* first: the manager's header */
} resource;

/* async def __aenter__(self) */
static int resource_enter(taal_coro *self)
{
    resource *f = (resource *)self;
    TAAL_BEGIN(&f->cm);
    printf("Acquiring resource\n");
    TAAL_SLEEP(1); /* simulate async acquisition */
    TAAL_RETURN_VALUE(f);
    TAAL_END();
}

/* async def __aexit__(self, exc_type, exc, tb): f->cm.status says how
 * the body ended */
static int resource_exit(taal_coro *self)
{
    resource *f = (resource *)self;
    TAAL_BEGIN(&f->cm);
    printf("Releasing resource\n");
    TAAL_SLEEP(1); /* simulate async release */
    TAAL_END();
}

typedef struct main_frame {
    taal_coro co;
    resource res;
    taal_block with; /* the state of the `async with` */
} main_frame;

static int main_body(taal_coro *self)
{
    main_frame *f = (main_frame *)self;
    TAAL_BEGIN(f);
    started = taal_loop_time(taal_running_loop());
    taal_actx_init(&f->res.cm, resource_enter, resource_exit);
    TAAL_ASYNC_WITH(&f->with, &f->res.cm) {
        printf("Using resource\n"); /* f->with.value is the resource */
        TAAL_SLEEP(1);
    }
    TAAL_ASYNC_WITH_END(&f->with);
    printf("%.1f s: done\n", at());
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = taal_run(main_body, NULL, sizeof(main_frame), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "aresource: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
