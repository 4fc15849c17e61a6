/*
** priorities.c -- the same work at three priorities.
**
** Three tasks each do three steps of work, yielding after each. At the
** same priority (0, what every task has unless it is given another, and
** what asyncio, which has no priorities, behaves like) they take turns.
** At priorities -5, 0 and 5, every iteration runs the highest priority that
** has work: the high task does all its steps, then the middle one, then
** the low one.
*/
#include "taal.h"

#include <stdio.h>

enum { TASKS = 3, STEPS = 3 };

typedef struct worker {
    taal_coro co;
    const char *name;
    int step;
} worker;

static int worker_body(taal_coro *self)
{
    worker *f = (worker *)self;
    TAAL_BEGIN(f);
    for (f->step = 1; f->step <= STEPS; f->step++) {
        printf(" %s%d", f->name, f->step);
        TAAL_SLEEP(0);
    }
    TAAL_END();
}

static const char *const names[TASKS] = {"low", "mid", "high"};
static const int levels[TASKS] = {-5, 0, 5};

typedef struct round {
    taal_coro co;
    bool prioritised;
    taal_future *tasks[TASKS];
    taal_future *all;
} round;

static int round_body(taal_coro *self)
{
    round *f = (round *)self;
    int rc = TAAL_OK;
    TAAL_BEGIN(f);
    for (int i = 0; i < TASKS && rc == TAAL_OK; i++) {
        taal_task *task = NULL;
        rc = taal_task_create(taal_running_loop(), worker_body,
                              &(worker){.name = names[i]}, sizeof(worker), names[i],
                              &task);
        if (rc == TAAL_OK && f->prioritised)
            taal_task_set_priority(task, levels[i]);
        f->tasks[i] = taal_task_future(task);
    }
    if (rc == TAAL_OK)
        rc = taal_gather(taal_running_loop(), TASKS, f->tasks, &f->all);
    for (int i = 0; i < TASKS; i++)
        taal_future_release(f->tasks[i]);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_FUTURE(f->all);
    taal_future_release(f->all);
    puts("");
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    puts("-- low, mid and high, all at priority 0: they take turns --");
    int rc =
        taal_run(round_body, &(round){.prioritised = false}, sizeof(round), NULL, NULL);
    if (rc == TAAL_OK) {
        puts("-- at priorities -5, 0 and 5: the highest with work runs --");
        rc = taal_run(round_body, &(round){.prioritised = true}, sizeof(round), NULL,
                      NULL);
    }
    if (rc != TAAL_OK) {
        fprintf(stderr, "priorities: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
