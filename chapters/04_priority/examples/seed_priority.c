/*
** seed_priority.c -- the seed's program, on taal.
**
**   async def main():
**       loop = asyncio.get_running_loop()
**       loop.call_later(0.1, loop.create_task, low_priority_task())
**       loop.call_later(0, loop.create_task, high_priority_task())
**       await asyncio.sleep(3)
**
** The seed's "priority" is only a delay: the high task's timer is due at
** once, the low task's 0.1 s later, so the high one starts first. The
** timers' callbacks create the tasks, as loop.create_task does in the seed.
** (Real priorities are in priorities.c.) docs/seeds/seed_priority.py is
** the Python twin.
*/
#include "taal.h"

#include <stdio.h>

typedef struct worker {
    taal_coro co;
    const char *name;
    double seconds;
} worker;

static int worker_body(taal_coro *self)
{
    worker *f = (worker *)self;
    TAAL_BEGIN(f);
    printf("%s priority task started\n", f->name);
    TAAL_SLEEP(f->seconds);
    printf("%s priority task finished\n", f->name);
    TAAL_END();
}

static const worker low = {.name = "Low", .seconds = 2};
static const worker high = {.name = "High", .seconds = 1};

/* loop.create_task(coro), as a timer's callback: fire and forget. */
static void create_task(void *frame)
{
    taal_task_create(taal_running_loop(), worker_body, frame, sizeof(worker),
                     ((const worker *)frame)->name, NULL);
}

typedef struct seed_main {
    taal_coro co;
    taal_timer later_low, later_high;
} seed_main;

static int main_body(taal_coro *self)
{
    seed_main *f = (seed_main *)self;
    taal_loop *loop = taal_running_loop();
    TAAL_BEGIN(f);
    taal_call_later(loop, &f->later_low, 0.1, create_task, (void *)&low);
    taal_call_later(loop, &f->later_high, 0, create_task, (void *)&high);
    TAAL_SLEEP(3);
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = taal_run(main_body, NULL, sizeof(seed_main), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "seed_priority: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
