/*
** aresource_unawaited.c -- the Hindi copy of the seed's AsyncResource,
** which forgets its awaits.
**
**       async def __aenter__(self):
**           print("Acquiring resource")
**           asyncio.sleep(1)          # no await: nothing sleeps
**           return self
**
** In Python, asyncio.sleep(1) makes a coroutine, which is dropped unrun,
** and the collector warns: "coroutine 'sleep' was never awaited". In C
** the coroutine is a taal_sleep frame; taal_sleep_init() prepares it, and
** only TAAL_AWAIT would run it. The `async with` checks what its enter
** and exit initialised and left unstarted as each of them ends, and
** reports it. This program prints its reports on stdout, as "warning:
** ..." lines, where they can be compared; the Python twin,
** docs/seeds/aresource_unawaited.py, prints its warnings the same way.
** The enter and the exit take no time at all: only the body's second.
*/
#include "taal.h"

#include <stdio.h>

static double started;

static double at(void)
{
    return taal_loop_time(taal_running_loop()) - started;
}

typedef struct resource {
    taal_actx cm;
    taal_sleep nap; /* the coroutine asyncio.sleep(1) makes */
} resource;

static int resource_enter(taal_coro *self)
{
    resource *f = (resource *)self;
    TAAL_BEGIN(&f->cm);
    printf("Acquiring resource\n");
    taal_sleep_init(&f->nap, 1); /* asyncio.sleep(1), and no await */
    TAAL_RETURN_VALUE(f);
    TAAL_END();
}

static int resource_exit(taal_coro *self)
{
    resource *f = (resource *)self;
    TAAL_BEGIN(&f->cm);
    printf("Releasing resource\n");
    taal_sleep_init(&f->nap, 1); /* again */
    TAAL_END();
}

typedef struct main_frame {
    taal_coro co;
    resource res;
    taal_block with;
} main_frame;

static int main_body(taal_coro *self)
{
    main_frame *f = (main_frame *)self;
    TAAL_BEGIN(f);
    started = taal_loop_time(taal_running_loop());
    taal_actx_init(&f->res.cm, resource_enter, resource_exit);
    TAAL_ASYNC_WITH(&f->with, &f->res.cm) {
        printf("Using resource\n");
        TAAL_SLEEP(1);
    }
    TAAL_ASYNC_WITH_END(&f->with);
    printf("%.1f s: done\n", at());
    TAAL_END();
}

/* Reports on stdout, like the twin's warnings. */
static void warn(void *ctx, const taal_report *report)
{
    (void)ctx;
    printf("warning: %s\n", report->message);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    taal_loop_options options = {.report = warn};
    int rc = taal_run(main_body, NULL, sizeof(main_frame), &options, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "aresource_unawaited: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
