/*
** event.c -- one set() wakes every waiter.
**
** Three runners wait for the start. At 1 s the starter sets the event and
** clears it at once: a pulse. All three run, because set() woke them, in
** the order they came; clearing it afterwards cannot send them back. A
** latecomer who arrives at 1.5 s, after the clear, waits for the next set,
** at 2 s. Once the event stays set, the last one does not wait at all.
** docs/seeds/event.py is the Python twin; CPython 3.12 and 3.13 print the
** same lines.
*/
#include "taal.h"

#include <stdio.h>

/* Seconds since the program began, as its twin prints them: the loop's
 * clock counts from an arbitrary moment (on the real clock, boot). */
static double started;

static double now(void)
{
    return taal_loop_time(taal_running_loop()) - started;
}

typedef struct runner {
    taal_coro co;
    taal_event *event;
    const char *name;
    double arrive;
} runner;

static int runner_body(taal_coro *self)
{
    runner *f = (runner *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(f->arrive);
    printf("%.1f s: %s waits for the start\n", now(), f->name);
    TAAL_EVENT_WAIT(f->event);
    printf("%.1f s: %s runs\n", now(), f->name);
    TAAL_END();
}

typedef struct starter {
    taal_coro co;
    taal_event *event;
} starter;

static int starter_body(taal_coro *self)
{
    starter *f = (starter *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(1);
    printf("%.1f s: the starter sets the event and clears it at once\n", now());
    taal_event_set(f->event);
    taal_event_clear(f->event);
    TAAL_SLEEP(1);
    printf("%.1f s: the starter sets it again, and leaves it set\n", now());
    taal_event_set(f->event);
    TAAL_END();
}

enum { RUNNERS = 5 };

static const runner runners[RUNNERS] = {
    {.name = "runner 1"},
    {.name = "runner 2"},
    {.name = "runner 3"},
    {.name = "the latecomer", .arrive = 1.5},
    {.name = "the last one", .arrive = 2.5},
};

typedef struct race {
    taal_coro co;
    taal_event event;
    taal_future *tasks[RUNNERS + 1];
    taal_future *all;
} race;

static int race_body(taal_coro *self)
{
    race *f = (race *)self;
    taal_loop *loop = taal_running_loop();
    int rc = TAAL_OK;
    TAAL_BEGIN(f);
    started = taal_loop_time(loop);
    taal_event_init(&f->event, loop, "start");
    for (int i = 0; i <= RUNNERS && rc == TAAL_OK; i++) {
        taal_task *task;
        if (i < RUNNERS) {
            runner frame = runners[i];
            frame.event = &f->event;
            rc = taal_task_create(loop, runner_body, &frame, sizeof frame, frame.name,
                                  &task);
        } else {
            rc = taal_task_create(loop, starter_body, &(starter){.event = &f->event},
                                  sizeof(starter), "starter", &task);
        }
        f->tasks[i] = rc == TAAL_OK ? taal_task_future(task) : NULL;
    }
    if (rc == TAAL_OK)
        rc = taal_gather(loop, RUNNERS + 1, f->tasks, &f->all);
    for (int i = 0; i <= RUNNERS; i++)
        taal_future_release(f->tasks[i]);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_FUTURE(f->all);
    taal_future_release(f->all);
    taal_event_destroy(&f->event);
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = taal_run(race_body, NULL, sizeof(race), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "event: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
