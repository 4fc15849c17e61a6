/*
** timeouts.c -- wait_for, and nested timeout scopes, one rescheduled.
**
** 1. wait_for an operation that finishes in time: its result.
** 2. wait_for one that takes too long: at the deadline the waiting task is
**    cancelled, which cancels the operation; the operation cleans up, which
**    takes half a second of awaiting, and only when it has ended does
**    wait_for report TAAL_ETIMEDOUT.
** 3. wait_for one that swallows the cancellation and returns 42: the 42 is
**    the result, and there is no timeout (asyncio 3.12's rule).
** 4. Two scopes, the outer (1 s) inside of which the inner (3 s): the outer
**    fires first. The inner scope sees the cancellation pass through as
**    TAAL_ECANCELLED (it did not fire), the outer turns it into
**    TAAL_ETIMEDOUT.
** 5. The inner scope (1 s) inside the outer (5 s), its deadline moved to
**    3 s before it fires: the inner one fires, converts, and the outer one
**    sees a timeout error, not a cancellation, and passes it on.
** The operations run as tasks; asyncio's wait_for awaits a coroutine
** directly, in the waiting task, which prints the same here.
** docs/seeds/timeouts.py is the Python twin; CPython 3.12 and 3.13 print
** the same lines.
*/
#include "taal.h"

#include <stdio.h>

static double start;

static double at(void)
{
    return taal_loop_time(taal_running_loop()) - start;
}

static const char *yes_no(bool b)
{
    return b ? "True" : "False";
}

/* Sleeps `seconds`; cancelled, cleans up for half a second and re-raises. */
typedef struct operation {
    taal_coro co;
    const char *name;
    double seconds;
    int st;
} operation;

static int operation_body(taal_coro *self)
{
    operation *f = (operation *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP_STATUS(f->st, f->seconds);
    if (f->st == TAAL_ECANCELLED) {
        printf("%.1f s: %s: cancelled; cleaning up (0.5 s)\n", at(), f->name);
        TAAL_SLEEP(0.5);
        printf("%.1f s: %s: cleaned up\n", at(), f->name);
    }
    TAAL_FAIL(f->st);
    TAAL_END();
}

/* Sleeps 5 s; cancelled, returns 42 all the same. */
typedef struct stubborn {
    taal_coro co;
    int st, answer;
} stubborn;

static int stubborn_body(taal_coro *self)
{
    stubborn *f = (stubborn *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP_STATUS(f->st, 5);
    if (f->st == TAAL_ECANCELLED)
        printf("%.1f s: stubborn: cancelled, and returns 42 all the same\n", at());
    f->answer = 42;
    TAAL_RETURN_VALUE(&f->answer);
    TAAL_END();
}

/* wait_for(a task running `body` from `frame`, `timeout`): its status into
 * `st`, and the int the task returned into `value`. */
typedef struct wait_for_task {
    taal_coro co;
    taal_body_fn body;
    const void *frame;
    size_t size;
    const char *name; /* the task's, for traces and reports */
    double timeout;
    taal_task *task;
    taal_timeout scope;
    int st, value;
} wait_for_task;

static int wait_for_task_body(taal_coro *self)
{
    wait_for_task *f = (wait_for_task *)self;
    void *result;
    TAAL_BEGIN(f);
    f->st = taal_task_create(taal_running_loop(), f->body, f->frame, f->size, f->name,
                             &f->task);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    TAAL_WAIT_FOR_STATUS(f->st, &f->scope, taal_task_future(f->task), f->timeout);
    if (f->st == TAAL_OK &&
        taal_future_result(taal_task_future(f->task), &result) == TAAL_OK)
        f->value = result != NULL ? *(int *)result : 0;
    taal_task_release(f->task);
    TAAL_FAIL(f->st);
    TAAL_END();
}

static const operation quick = {.name = "quick", .seconds = 1};
static const operation slow = {.name = "slow", .seconds = 5};

/* 4 and 5: nested scopes, around a sleep of 10 s. */
typedef struct nested {
    taal_coro co;
    double outer, inner, move_inner; /* delays; move_inner > 0: rescheduled */
    taal_timeout o, i;
    int st;
} nested;

static int nested_body(taal_coro *self)
{
    nested *f = (nested *)self;
    taal_loop *loop = taal_running_loop();
    TAAL_BEGIN(f);
    f->st = taal_timeout_open(&f->o, f->outer);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->st = taal_timeout_open(&f->i, f->inner);
    if (f->st != TAAL_OK) {
        taal_timeout_close(&f->o, TAAL_OK); /* no scope left open */
        TAAL_FAIL(f->st);
    }
    if (f->move_inner > 0) {
        printf("%.1f s: inner scope: deadline moved from %g s to %g s from now\n", at(),
               f->inner, f->move_inner);
        taal_timeout_reschedule(&f->i, taal_loop_time(loop) + f->move_inner);
    }
    TAAL_SLEEP_STATUS(f->st, 10);
    f->st = taal_timeout_close(&f->i, f->st);
    if (f->st == TAAL_ECANCELLED)
        printf("%.1f s: inner scope: cancelled, not by it (expired: %s)\n", at(),
               yes_no(taal_timeout_expired(&f->i)));
    f->st = taal_timeout_close(&f->o, f->st);
    TAAL_FAIL(f->st);
    TAAL_END();
}

typedef struct main_frame {
    taal_coro co;
    wait_for_task wait_for;
    nested nested;
    int st;
} main_frame;

/* Prepares f->wait_for for the task `body`, and the timeout. */
static void wait_for(main_frame *f, taal_body_fn body, const void *frame, size_t size,
                     const char *name, double timeout)
{
    f->wait_for = (wait_for_task){
        .body = body, .frame = frame, .size = size, .name = name, .timeout = timeout};
    taal_coro_init(&f->wait_for.co, wait_for_task_body);
}

static void nest(main_frame *f, double outer, double inner, double move_inner)
{
    f->nested = (nested){.outer = outer, .inner = inner, .move_inner = move_inner};
    taal_coro_init(&f->nested.co, nested_body);
}

static int main_body(taal_coro *self)
{
    main_frame *f = (main_frame *)self;
    TAAL_BEGIN(f);
    start = taal_loop_time(taal_running_loop());
    wait_for(f, operation_body, &quick, sizeof quick, "quick", 2); /* 1: in time */
    TAAL_AWAIT(&f->wait_for);
    printf("%.1f s: wait_for: quick done\n", at());
    wait_for(f, operation_body, &slow, sizeof slow, "slow", 1); /* 2: too late */
    TAAL_AWAIT_STATUS(f->st, &f->wait_for);
    if (f->st == TAAL_ETIMEDOUT)
        printf("%.1f s: wait_for: timed out, once the cleanup was over\n", at());
    wait_for(f, stubborn_body, NULL, sizeof(stubborn), "stubborn", 1); /* 3: swallowed */
    TAAL_AWAIT(&f->wait_for);
    printf("%.1f s: wait_for: %d, no timeout\n", at(), f->wait_for.value);

    nest(f, 1, 3, 0); /* 4: the outer fires first */
    TAAL_AWAIT_STATUS(f->st, &f->nested);
    if (f->st == TAAL_ETIMEDOUT)
        printf("%.1f s: outer scope: timed out (expired: %s)\n", at(),
               yes_no(taal_timeout_expired(&f->nested.o)));
    nest(f, 5, 1, 3); /* 5: the inner, rescheduled, fires first */
    TAAL_AWAIT_STATUS(f->st, &f->nested);
    if (f->st == TAAL_ETIMEDOUT)
        printf("%.1f s: timed out: the inner scope (expired: %s; the outer: %s)\n", at(),
               yes_no(taal_timeout_expired(&f->nested.i)),
               yes_no(taal_timeout_expired(&f->nested.o)));
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = taal_run(main_body, NULL, sizeof(main_frame), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "timeouts: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
