/*
** semaphore_cancel.c -- the seed's semaphore loses a permit to a waiter
** cancelled after it was woken; taal's semaphore does not.
**
** A holds the only permit, B and C wait for it, B first. A releases it:
** the seed's release() puts the permit back in `value` and wakes B, who
** would take it when it runs. But main cancels B first, in the same
** iteration. B's await fails with TAAL_ECANCELLED, and the seed's acquire()
** has no cleanup: B leaves without the permit and without waking C. The
** permit is free, and C waits for it for ever: a deadlock, which taal's
** loop reports, naming who waits for what (asyncio's loop would simply
** wait). main then cancels the stuck task from outside, which cancels C
** in turn, and the run ends.
**
** The same scenario on taal's semaphore: release() hands the permit to B;
** B, cancelled before it runs, passes it on to C when its await resumes,
** and C takes it. (asyncio's Semaphore, fixed in 2022 and 2023, does the
** same: CPython 3.11.7, 3.12 and 3.13 print these lines.)
**
** docs/seeds/semaphore_cancel.py is the Python twin, on CPython 3.12 and
** 3.13 alike. Its lines are these, but for the three "report:" lines: where
** taal reports the deadlock, asyncio waits, and the twin gives up on C
** with a one-second timeout, which cancels C as main's cancel does here.
** The seed's semaphore is the faithful C version of chapter 03's
** seed_semaphore.c.
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
 * waiter, which will have to take the permit when it runs. */
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
 * future in its frame, as the seed keeps `fut` in its local. A cancelled
 * await fails it, as CancelledError leaves the seed's `await fut`: with no
 * cleanup at all. */
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

static seed_semaphore seed; /* the seed's, or unused: */
static taal_semaphore sem;  /* taal's */
static bool use_seed;

static int value(void)
{
    return use_seed ? seed.value : (int)sem.value;
}

typedef struct actor {
    taal_coro co;
    const char *name;
    seed_acquire acquiring;
    int st;
} actor;

/* The seed's acquire(), ready to be awaited by `f` (before the await: its
 * argument is evaluated again at every resume, rule 2). */
static void seed_acquiring(actor *f)
{
    f->acquiring = (seed_acquire){.sem = &seed};
    taal_coro_init(&f->acquiring.co, seed_acquire_body);
}

static void release(void)
{
    if (use_seed)
        seed_release(&seed);
    else
        taal_semaphore_release(&sem);
}

/* A: takes the permit, holds it a second, gives it back. */
static int holder_body(taal_coro *self)
{
    actor *f = (actor *)self;
    TAAL_BEGIN(f);
    seed_acquiring(f);
    if (use_seed)
        TAAL_AWAIT_STATUS(f->st, &f->acquiring);
    else
        TAAL_ACQUIRE_STATUS(f->st, &sem);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    puts("A takes the permit");
    TAAL_SLEEP(1);
    release();
    printf("A releases it: value %d, B woken\n", value());
    TAAL_END();
}

/* B and C: wait for the permit, and give it back at once. */
static int waiter_body(taal_coro *self)
{
    actor *f = (actor *)self;
    TAAL_BEGIN(f);
    seed_acquiring(f);
    if (use_seed)
        TAAL_AWAIT_STATUS(f->st, &f->acquiring);
    else
        TAAL_ACQUIRE_STATUS(f->st, &sem);
    if (f->st == TAAL_ECANCELLED)
        printf("%s: cancelled\n", f->name);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    printf("%s takes the permit\n", f->name);
    release();
    TAAL_END();
}

typedef struct scenario {
    taal_coro co;
    taal_task *tasks[3]; /* A, B, C */
    int i, st;
} scenario;

static int start(scenario *f, int i, taal_body_fn body, const char *name)
{
    return taal_task_create(taal_running_loop(), body, &(actor){.name = name},
                            sizeof(actor), name, &f->tasks[i]);
}

static int scenario_body(taal_coro *self)
{
    scenario *f = (scenario *)self;
    TAAL_BEGIN(f);
    f->st = start(f, 0, holder_body, "A");
    if (f->st == TAAL_OK)
        f->st = start(f, 1, waiter_body, "B");
    if (f->st == TAAL_OK)
        f->st = start(f, 2, waiter_body, "C");
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    TAAL_SLEEP(0); /* A takes the permit, B and C wait: then main sleeps */
    TAAL_SLEEP(1);
    puts("main cancels B");
    taal_task_cancel(f->tasks[1]);
    for (f->i = 0; f->i < 3; f->i++) {
        TAAL_AWAIT_TASK_STATUS(f->st, f->tasks[f->i]);
        taal_task_release(f->tasks[f->i]);
    }
    if (f->st == TAAL_OK)
        printf("main: C is done, and the permit is free (value %d)\n", value());
    else
        printf("main: gave up on C; the permit was free all along (value %d)\n", value());
    TAAL_END();
}

/* ---- running it ------------------------------------------------------------- */

static void report_to_stdout(void *ctx, const taal_report *report)
{
    (void)ctx;
    printf("report: %s\n", report->message);
}

/* Runs the scenario; if it deadlocks, cancels it from outside and runs it
 * to its end. Returns how the first run ended. */
static int run(void)
{
    taal_loop loop;
    taal_loop_options options = {.report = report_to_stdout};
    taal_task *main_task = NULL;
    int rc = taal_loop_init(&loop, &options);
    if (rc == TAAL_OK && !use_seed)
        rc = taal_semaphore_init(&sem, &loop, 1, "sem");
    if (rc == TAAL_OK)
        rc = taal_task_create(&loop, scenario_body, NULL, sizeof(scenario), "main",
                              &main_task);
    if (rc == TAAL_OK)
        rc = taal_run_until_complete(&loop, taal_task_future(main_task));
    if (rc == TAAL_EDEADLOCK && taal_task_cancel(main_task) &&
        taal_run_until_complete(&loop, taal_task_future(main_task)) != TAAL_OK)
        rc = TAAL_EINVAL; /* the way out failed */
    taal_loop_close(&loop);
    taal_task_release(main_task);
    return rc;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    puts("-- the seed's semaphore: B is cancelled after release() woke it --");
    use_seed = true;
    seed = (seed_semaphore){.value = 1};
    int first = run();
    puts("-- the same with a semaphore that hands the permit over --");
    use_seed = false;
    int second = run();
    if (first != TAAL_EDEADLOCK || second != TAAL_OK) {
        fprintf(stderr, "semaphore_cancel: %s, then %s\n", taal_strerror(first),
                taal_strerror(second));
        return 1;
    }
    return 0;
}
