/*
** starvation.c -- strict priority can starve; aging bounds the wait.
**
** A task of priority 5 keeps the loop busy for 40 steps; a task of priority
** -5 has one line to print. With strict priority (the default), an
** iteration runs the highest priority that has work, so the low task waits
** until the busy one has finished: starved, for as long as the busy one
** has work. With aging (taal_loop_options.aging = 8), a priority passed
** over for 8 iterations runs in the next one, whatever is above it.
*/
#include "taal.h"

#include <stdio.h>

enum { BUSY_STEPS = 40 };

static int busy_done; /* steps the busy task has done */

typedef struct busy {
    taal_coro co;
} busy;

static int busy_body(taal_coro *self)
{
    busy *f = (busy *)self;
    TAAL_BEGIN(f);
    while (busy_done < BUSY_STEPS) {
        busy_done++; /* one step of work */
        TAAL_SLEEP(0);
    }
    TAAL_END();
}

typedef struct low {
    taal_coro co;
} low;

static int low_body(taal_coro *self)
{
    low *f = (low *)self;
    TAAL_BEGIN(f);
    printf("the low task runs when the busy one has done %d of its %d steps\n", busy_done,
           BUSY_STEPS);
    TAAL_END();
}

typedef struct pair {
    taal_coro co;
    taal_future *both[2];
    taal_future *all;
} pair;

static int pair_body(taal_coro *self)
{
    pair *f = (pair *)self;
    taal_task *b = NULL, *l = NULL;
    int rc;
    TAAL_BEGIN(f);
    rc = taal_task_create(taal_running_loop(), busy_body, NULL, sizeof(busy), "busy", &b);
    if (rc == TAAL_OK)
        rc =
            taal_task_create(taal_running_loop(), low_body, NULL, sizeof(low), "low", &l);
    if (rc == TAAL_OK) {
        taal_task_set_priority(b, 5);
        taal_task_set_priority(l, -5);
        f->both[0] = taal_task_future(b);
        f->both[1] = taal_task_future(l);
        rc = taal_gather(taal_running_loop(), 2, f->both, &f->all);
    }
    taal_task_release(b);
    taal_task_release(l);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_FUTURE(f->all);
    taal_future_release(f->all);
    TAAL_END();
}

static int run(unsigned aging)
{
    busy_done = 0;
    taal_loop_options options = {.aging = aging};
    return taal_run(pair_body, NULL, sizeof(pair), &options, NULL);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    puts("-- strict priority --");
    int rc = run(0);
    if (rc == TAAL_OK) {
        puts("-- aging: a priority passed over 8 iterations runs next --");
        rc = run(8);
    }
    if (rc != TAAL_OK) {
        fprintf(stderr, "starvation: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
