/*
** seed_semaphore.c -- the seed's semaphore lets the releaser barge in.
**
** The seed's CustomSemaphore (completed in docs/seeds/seed_semaphore.py):
**
**   async def acquire(self):
**       while self._value <= 0:
**           fut = loop.create_future()
**           self._waiters.append(fut)
**           await fut
**       self._value -= 1
**
**   def release(self):
**       self._value += 1
**       if self._waiters:
**           waiter = self._waiters.pop(0)
**           if not waiter.done():
**               waiter.set_result(None)
**
** release() only wakes the first waiter; the permit stays in `_value` for
** whoever runs first. Here A holds the only permit, B waits for it, and A
** releases and acquires again in the same step, three times: A always runs
** first, so B waits three seconds for a permit that was released each
** second. The same scenario on taal's semaphore, which hands the permit to
** B, gives B its turn at once. CPython 3.12 prints the same lines (its
** Semaphore no longer lets the releaser barge).
*/
#include "taal.h"

#include <stdio.h>

/* ---- the seed's semaphore, faithfully --------------------------------------- */

enum { MAX_WAITERS = 8 };

typedef struct seed_semaphore {
    int value;
    taal_future *waiters[MAX_WAITERS]; /* each waiter's own future, FIFO */
    int count;
} seed_semaphore;

/* release(): a permit back into `value`, and a wake-up for the first
 * waiter, which will have to try again when it runs. */
static void seed_release(seed_semaphore *sem)
{
    sem->value++;
    if (sem->count > 0) {
        taal_future *waiter = sem->waiters[0];
        for (int i = 1; i < sem->count; i++)
            sem->waiters[i - 1] = sem->waiters[i];
        sem->count--;
        if (!taal_future_done(waiter))
            taal_future_set_result(waiter, NULL);
    }
}

/* acquire(), a coroutine of its own, awaited with TAAL_AWAIT: it keeps its
 * future in its frame, as the seed keeps `fut` in its local. */
typedef struct seed_acquire {
    taal_coro co;
    seed_semaphore *sem;
    taal_future fut;
} seed_acquire;

static int seed_acquire_body(taal_coro *self)
{
    seed_acquire *f = (seed_acquire *)self;
    TAAL_BEGIN(f);
    while (f->sem->value <= 0) {
        if (f->sem->count == MAX_WAITERS)
            TAAL_FAIL(TAAL_ENOMEM);
        taal_future_init(&f->fut, taal_running_loop());
        f->sem->waiters[f->sem->count++] = &f->fut;
        TAAL_AWAIT_FUTURE(&f->fut);
    }
    f->sem->value--;
    TAAL_END();
}

/* ---- the scenario, on either semaphore --------------------------------------- */

typedef struct actor {
    taal_coro co;
    seed_semaphore *seed; /* the seed's, or NULL for taal's: */
    taal_semaphore *sem;
    seed_acquire acquiring;
    int round;
} actor;

/* A: takes the permit, holds it a second, gives it back and at once asks
 * for it again, three times. */
static int greedy_body(taal_coro *self)
{
    actor *f = (actor *)self;
    TAAL_BEGIN(f);
    for (f->round = 1; f->round <= 3; f->round++) {
        if (f->seed != NULL) {
            f->acquiring = (seed_acquire){.sem = f->seed};
            taal_coro_init(&f->acquiring.co, seed_acquire_body);
            TAAL_AWAIT(&f->acquiring);
        } else {
            TAAL_ACQUIRE(f->sem);
        }
        printf("A takes it (round %d)\n", f->round);
        TAAL_SLEEP(1);
        if (f->seed != NULL)
            seed_release(f->seed);
        else
            taal_semaphore_release(f->sem);
    }
    TAAL_END();
}

/* B: waits for the permit once. */
static int patient_body(taal_coro *self)
{
    actor *f = (actor *)self;
    TAAL_BEGIN(f);
    if (f->seed != NULL) {
        f->acquiring = (seed_acquire){.sem = f->seed};
        taal_coro_init(&f->acquiring.co, seed_acquire_body);
        TAAL_AWAIT(&f->acquiring);
        puts("B takes it");
        seed_release(f->seed);
    } else {
        TAAL_ACQUIRE(f->sem);
        puts("B takes it");
        taal_semaphore_release(f->sem);
    }
    TAAL_END();
}

typedef struct scenario {
    taal_coro co;
    bool seed;
    seed_semaphore seed_sem;
    taal_semaphore sem;
    taal_future *both[2];
    taal_future *gathered;
} scenario;

/* Starts A or B on the scenario's semaphore. */
static int start(scenario *f, taal_body_fn body, const char *name, taal_task **task)
{
    actor frame = {.seed = f->seed ? &f->seed_sem : NULL, .sem = &f->sem};
    return taal_task_create(taal_running_loop(), body, &frame, sizeof frame, name, task);
}

static int scenario_body(taal_coro *self)
{
    scenario *f = (scenario *)self;
    taal_task *a = NULL, *b = NULL;
    int rc;
    TAAL_BEGIN(f);
    f->seed_sem.value = 1;
    taal_semaphore_init(&f->sem, taal_running_loop(), 1, "sem");
    rc = start(f, greedy_body, "A", &a);
    if (rc == TAAL_OK)
        rc = start(f, patient_body, "B", &b);
    if (rc == TAAL_OK) {
        f->both[0] = taal_task_future(a);
        f->both[1] = taal_task_future(b);
        rc = taal_gather(taal_running_loop(), 2, f->both, &f->gathered);
    }
    taal_task_release(a); /* the gather holds them */
    taal_task_release(b);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_FUTURE(f->gathered);
    taal_future_release(f->gathered);
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    puts("-- the seed's semaphore: B waits first, A takes it back every time --");
    int rc =
        taal_run(scenario_body, &(scenario){.seed = true}, sizeof(scenario), NULL, NULL);
    if (rc == TAAL_OK) {
        puts("-- taal's semaphore: the permit is handed to B --");
        rc = taal_run(scenario_body, &(scenario){.seed = false}, sizeof(scenario), NULL,
                      NULL);
    }
    if (rc != TAAL_OK) {
        fprintf(stderr, "seed_semaphore: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
