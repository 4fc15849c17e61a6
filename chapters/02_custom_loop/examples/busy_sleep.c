/*
** busy_sleep.c -- the seed's SleepHandle, kept to be measured.
**
**   class SleepHandle:
**       def __init__(self, duration):
**           self._duration = duration
**           self._task = None
**           self._start_time = time.time()
**       def _wake_up(self):
**           if time.time() - self._start_time >= self._duration:
**               self._task._loop.call_soon(self._task._step)
**           else:
**               self._task._loop.call_soon(self._wake_up)
**
** While the time has not come, _wake_up puts itself back on the ready
** queue, so the queue is never empty and the loop never sleeps: it spins,
** reading the clock, for as long as anything sleeps. It prints what
** custom_loop prints, and on stderr how many times it looked at the clock.
**
** (The seed also declares `async def sleep(duration): return
** SleepHandle(duration)`, which returns the handle without ever yielding
** it, so its loop never even gets to spin; see the tutorial. Here the
** sleeping coroutine really waits for the handle.)
*/
#define _POSIX_C_SOURCE 200809L

#include "taal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h> /* GetTickCount64: Windows has no clock_gettime */
#endif

/* The seed's time.time(). Under TAAL_CLOCK=virtual the loop never idles
 * here, so virtual time would never move: instead each reading counts as
 * one millisecond, and the program still ends. */
static long clock_reads;
static double seed_time(void)
{
    clock_reads++;
    const char *clock = getenv("TAAL_CLOCK");
    if (clock != NULL && strcmp(clock, "virtual") == 0)
        return (double)clock_reads / 1000.0;
#ifdef _WIN32
    return (double)GetTickCount64() / 1000.0; /* milliseconds since Windows started */
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
#endif
}

typedef struct sleep_handle {
    taal_handle wake_up; /* re-queued until the time has come */
    taal_future done;    /* what the sleeping coroutine awaits */
    double start, duration;
} sleep_handle;

static void wake_up(void *arg)
{
    sleep_handle *h = arg;
    if (seed_time() - h->start >= h->duration)
        taal_future_set_result(&h->done, NULL); /* wakes the task */
    else
        taal_call_soon(h->done.loop, &h->wake_up, wake_up, h); /* spin */
}

static void sleep_handle_start(sleep_handle *h, double duration)
{
    taal_loop *loop = taal_running_loop();
    taal_future_init(&h->done, loop);
    h->start = seed_time();
    h->duration = duration;
    taal_call_soon(loop, &h->wake_up, wake_up, h);
}

/* `await sleep(seconds)` the seed's way: one await, so one line. */
#define BUSY_SLEEP(h, seconds)          \
    sleep_handle_start((h), (seconds)); \
    TAAL_AWAIT_FUTURE(&(h)->done)

typedef struct example {
    taal_coro co;
    sleep_handle sleep;
} example;

static int example_body(taal_coro *self)
{
    example *f = (example *)self;
    TAAL_BEGIN(f);
    puts("Start");
    BUSY_SLEEP(&f->sleep, 1);
    puts("After 1 second");
    BUSY_SLEEP(&f->sleep, 2);
    puts("After 2 more seconds");
    TAAL_RETURN_VALUE("Done");
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);

    void *result = NULL;
    int rc = taal_run(example_body, NULL, sizeof(example), NULL, &result);
    if (rc == TAAL_OK)
        puts(result);
    else
        fprintf(stderr, "busy_sleep: %s\n", taal_strerror(rc));
    fprintf(stderr, "busy_sleep: read the clock %ld times to sleep 3 s\n", clock_reads);
    return rc == TAAL_OK ? 0 : 1;
}
