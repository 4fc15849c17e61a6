/*
** test_timeout.c -- lab 05, exercise 3: the timeout scope.
**
**   timeout_fired()         the scope's timer: it expires, and cancels its task
**   taal_timeout_close()    asyncio's Timeout.__aexit__: takes its cancel back,
**                           and turns the cancellation into TAAL_ETIMEDOUT
**
** The code inside a scope sees a cancellation like any other; only the
** scope's close converts it, and only if this scope fired and no other
** cancellation is pending: the task's cancelling() is back, after the
** scope's uncancel(), at what it was when the scope opened. Nested, only
** the scope that fired converts; a cancellation from outside passes
** through; a body that swallows it raises nothing. wait_for() is a scope
** around an await, so it reports its timeout after the operation's
** cleanup.
*/
#include "lab.h"

static double now(void)
{
    return taal_loop_time(taal_running_loop());
}

/* Opens a scope of `delay` seconds, sleeps `sleep` seconds in it, and
 * closes it with how the sleep ended (TAAL_OK if `swallow`). */
typedef struct scoped {
    taal_coro co;
    double delay, sleep;
    bool swallow;
    taal_timeout scope;
    int slept, closed, cancelling;
    double at; /* when the sleep ended */
} scoped;

static int scoped_body(taal_coro *self)
{
    scoped *f = (scoped *)self;
    TAAL_BEGIN(f);
    f->closed = taal_timeout_open(&f->scope, f->delay);
    if (f->closed != TAAL_OK)
        TAAL_FAIL(f->closed);
    TAAL_SLEEP_STATUS(f->slept, f->sleep);
    f->at = now();
    f->closed = taal_timeout_close(&f->scope, f->swallow ? TAAL_OK : f->slept);
    f->cancelling = taal_task_cancelling(taal_current_task());
    TAAL_FAIL(f->closed);
    TAAL_END();
}

static taal_task *spawn_scoped(taal_loop *loop, scoped frame)
{
    taal_task *task = NULL;
    taal_task_create(loop, scoped_body, &frame, sizeof frame, "s", &task);
    return task;
}

TEST(a_scope_that_expires_cancels_its_task_and_its_close_says_timed_out)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn_scoped(&loop, (scoped){.delay = 1, .sleep = 10});
    scoped *f = taal_task_frame(t);
    taal_run_once(&loop);       /* opened; asleep */
    CHECK_EQ(loop.heap_len, 2); /* the sleep's timer and the scope's */
    CHECK(!taal_timeout_expired(&f->scope));
    for (int i = 0; i < 4 && !taal_timeout_expired(&f->scope); i++)
        taal_run_once(&loop);
    CHECK(taal_timeout_expired(&f->scope)); /* it fired ... */
    CHECK_EQ(taal_task_cancelling(t), 1);   /* ... and cancelled its task */
    CHECK_EQ(loop.heap_len, 0);             /* whose sleep ends at once */
    CHECK_EQ(run_to_end(&loop, t), TAAL_ETIMEDOUT);
    CHECK_EQ(f->slept, TAAL_ECANCELLED); /* inside: a cancellation */
    CHECK(f->at == 1.0);
    CHECK_EQ(f->cancelling, 0); /* taken back */
    CHECK_EQ(f->scope.state, TAAL_TIMEOUT_EXPIRED);
    taal_task_release(t);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(a_scope_closed_in_time_returns_the_status_and_leaves_no_timer)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn_scoped(&loop, (scoped){.delay = 5, .sleep = 1});
    scoped *f = taal_task_frame(t);
    CHECK_EQ(run_to_end(&loop, t), TAAL_OK);
    CHECK_EQ(f->closed, TAAL_OK);
    CHECK_EQ(loop.heap_len, 0); /* the scope's timer went with it */
    CHECK(taal_loop_time(&loop) == 1.0);
    CHECK(!taal_timeout_expired(&f->scope));
    CHECK_EQ(f->scope.state, TAAL_TIMEOUT_CLOSED);
    CHECK_EQ(f->cancelling, 0);
    taal_task_release(t);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(a_scope_whose_body_swallows_the_cancellation_raises_nothing)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t =
        spawn_scoped(&loop, (scoped){.delay = 1, .sleep = 10, .swallow = true});
    scoped *f = taal_task_frame(t);
    CHECK_EQ(run_to_end(&loop, t), TAAL_OK);
    CHECK_EQ(f->slept, TAAL_ECANCELLED);
    CHECK_EQ(f->closed, TAAL_OK);
    CHECK(taal_timeout_expired(&f->scope));
    CHECK_EQ(f->cancelling, 0);
    taal_task_release(t);
    taal_loop_close(&loop);
}

TEST(a_cancellation_from_outside_passes_through_a_scope_that_fired_too)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn_scoped(&loop, (scoped){.delay = 1, .sleep = 10});
    scoped *f = taal_task_frame(t);
    for (int i = 0; i < 5 && !taal_timeout_expired(&f->scope); i++)
        taal_run_once(&loop);
    CHECK(taal_timeout_expired(&f->scope)); /* fired; the task has not run yet */
    CHECK(taal_task_cancel(t));             /* and someone else cancels it too */
    CHECK_EQ(taal_task_cancelling(t), 2);
    CHECK_EQ(run_to_end(&loop, t), TAAL_ECANCELLED); /* not ours alone: passed on */
    CHECK_EQ(f->closed, TAAL_ECANCELLED);
    CHECK_EQ(f->cancelling, 1); /* the other party's request is still there */
    taal_task_release(t);
    taal_loop_close(&loop);
}

/* Two timeouts in one task, one after the other: the second must convert
 * as the first did, whatever the first left in the task's count. */
typedef struct twice {
    taal_coro co;
    taal_timeout scope;
    int st[2], i;
} twice;

static int twice_body(taal_coro *self)
{
    twice *f = (twice *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < 2; f->i++) {
        taal_timeout_open(&f->scope, 1);
        TAAL_SLEEP_STATUS(f->st[f->i], 10);
        f->st[f->i] = taal_timeout_close(&f->scope, f->st[f->i]);
    }
    TAAL_END();
}

TEST(one_task_times_out_twice_in_a_row)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = NULL;
    taal_task_create(&loop, twice_body, NULL, sizeof(twice), "t", &t);
    CHECK_EQ(run_to_end(&loop, t), TAAL_OK);
    twice *f = taal_task_frame(t);
    CHECK_EQ(f->st[0], TAAL_ETIMEDOUT);
    CHECK_EQ(f->st[1], TAAL_ETIMEDOUT);
    CHECK_EQ(taal_task_cancelling(t), 0);
    CHECK(taal_loop_time(&loop) == 2.0);
    taal_task_release(t);
    taal_loop_close(&loop);
}

/* ---- nested scopes ---------------------------------------------------------------- */

typedef struct nested {
    taal_coro co;
    double outer, inner;
    taal_timeout o, i;
    int slept, inner_closed, outer_closed, cancelling;
} nested;

static int nested_body(taal_coro *self)
{
    nested *f = (nested *)self;
    TAAL_BEGIN(f);
    taal_timeout_open(&f->o, f->outer);
    taal_timeout_open(&f->i, f->inner);
    TAAL_SLEEP_STATUS(f->slept, 10);
    f->inner_closed = taal_timeout_close(&f->i, f->slept);
    f->outer_closed = taal_timeout_close(&f->o, f->inner_closed);
    f->cancelling = taal_task_cancelling(taal_current_task());
    TAAL_FAIL(f->outer_closed);
    TAAL_END();
}

static nested *run_nested(taal_loop *loop, double outer, double inner, taal_task **t)
{
    *t = NULL;
    taal_task_create(loop, nested_body, &(nested){.outer = outer, .inner = inner},
                     sizeof(nested), "n", t);
    run_to_end(loop, *t);
    return taal_task_frame(*t);
}

TEST(nested_scopes_where_the_outer_fires_first_only_the_outer_converts)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t;
    nested *f = run_nested(&loop, 1, 3, &t);
    CHECK_EQ(f->slept, TAAL_ECANCELLED);
    CHECK_EQ(f->inner_closed, TAAL_ECANCELLED); /* not the inner one's doing */
    CHECK(!taal_timeout_expired(&f->i));
    CHECK_EQ(f->outer_closed, TAAL_ETIMEDOUT);
    CHECK(taal_timeout_expired(&f->o));
    CHECK_EQ(f->cancelling, 0);
    CHECK(taal_loop_time(&loop) == 1.0);
    taal_task_release(t);
    taal_loop_close(&loop);
}

TEST(nested_scopes_where_the_inner_fires_first_the_inner_converts)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t;
    nested *f = run_nested(&loop, 3, 1, &t);
    CHECK_EQ(f->inner_closed, TAAL_ETIMEDOUT);
    CHECK_EQ(f->outer_closed, TAAL_ETIMEDOUT); /* passed through the outer one */
    CHECK(!taal_timeout_expired(&f->o));
    CHECK_EQ(f->cancelling, 0);
    taal_task_release(t);
    taal_loop_close(&loop);
}

/* Both fire in one iteration: the task is cancelled twice, and told once.
 * The inner scope takes its cancel back, and finds the outer one's still
 * pending: not its timeout alone. The outer one then converts. */
TEST(nested_scopes_that_fire_together_convert_once_at_the_outer_one)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t;
    nested *f = run_nested(&loop, 1, 1, &t);
    CHECK(taal_timeout_expired(&f->i));
    CHECK(taal_timeout_expired(&f->o));
    CHECK_EQ(f->inner_closed, TAAL_ECANCELLED);
    CHECK_EQ(f->outer_closed, TAAL_ETIMEDOUT);
    CHECK_EQ(f->cancelling, 0);
    taal_task_release(t);
    taal_loop_close(&loop);
}

/* ---- wait_for --------------------------------------------------------------------- */

typedef struct waiting {
    taal_coro co;
    taal_task *op;
    double timeout;
    taal_timeout scope;
    int st;
    double at;
} waiting;

static int waiting_body(taal_coro *self)
{
    waiting *f = (waiting *)self;
    TAAL_BEGIN(f);
    TAAL_WAIT_FOR_STATUS(f->st, &f->scope, taal_task_future(f->op), f->timeout);
    f->at = now();
    TAAL_FAIL(f->st);
    TAAL_END();
}

/* wait_for(op, timeout) in a task of its own; returns its frame. */
static waiting *wait_for(taal_loop *loop, taal_task *op, double timeout, taal_task **t)
{
    *t = NULL;
    taal_task_create(loop, waiting_body, &(waiting){.op = op, .timeout = timeout},
                     sizeof(waiting), "w", t);
    run_to_end(loop, *t);
    return taal_task_frame(*t);
}

TEST(wait_for_reports_the_timeout_after_the_operations_cleanup)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *op =
        spawn_sleeper(&loop, (sleeper){.name = "op", .seconds = 5, .cleanup = 0.5});
    taal_task *t;
    waiting *f = wait_for(&loop, op, 1, &t);
    CHECK_EQ(f->st, TAAL_ETIMEDOUT);
    CHECK(f->at == 1.5); /* not 1.0: the cleanup ran first, to its end */
    CHECK_STR(trace, "opxc.");
    CHECK_EQ(taal_future_status(taal_task_future(op)), TAAL_ECANCELLED);
    CHECK_EQ(taal_task_cancelling(t), 0);
    taal_task_release(op);
    taal_task_release(t);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(wait_for_whose_operation_swallows_the_cancellation_returns_its_value)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *op =
        spawn_sleeper(&loop, (sleeper){.name = "op", .seconds = 5, .swallow = true});
    taal_task *t;
    waiting *f = wait_for(&loop, op, 1, &t);
    CHECK_EQ(f->st, TAAL_OK); /* asyncio 3.12's rule: the value, no timeout */
    CHECK(f->at == 1.0);
    void *answer = NULL;
    CHECK_EQ(taal_future_result(taal_task_future(op), &answer), TAAL_OK);
    CHECK(answer != NULL && *(int *)answer == 42);
    CHECK(taal_timeout_expired(&f->scope));
    CHECK_EQ(taal_task_cancelling(t), 0);
    taal_task_release(op);
    taal_task_release(t);
    taal_loop_close(&loop);
}

TEST(wait_for_in_time_gives_the_result_and_leaves_no_timer)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *op = spawn_sleeper(&loop, (sleeper){.name = "op", .seconds = 1});
    taal_task *t;
    waiting *f = wait_for(&loop, op, 2, &t);
    CHECK_EQ(f->st, TAAL_OK);
    CHECK(f->at == 1.0);
    CHECK_EQ(loop.heap_len, 0);
    CHECK(!taal_timeout_expired(&f->scope));
    taal_task_release(op);
    taal_task_release(t);
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_scope_that_expires_cancels_its_task_and_its_close_says_timed_out),
    TEST_ENTRY(a_scope_closed_in_time_returns_the_status_and_leaves_no_timer),
    TEST_ENTRY(a_scope_whose_body_swallows_the_cancellation_raises_nothing),
    TEST_ENTRY(a_cancellation_from_outside_passes_through_a_scope_that_fired_too),
    TEST_ENTRY(one_task_times_out_twice_in_a_row),
    TEST_ENTRY(nested_scopes_where_the_outer_fires_first_only_the_outer_converts),
    TEST_ENTRY(nested_scopes_where_the_inner_fires_first_the_inner_converts),
    TEST_ENTRY(nested_scopes_that_fire_together_convert_once_at_the_outer_one),
    TEST_ENTRY(wait_for_reports_the_timeout_after_the_operations_cleanup),
    TEST_ENTRY(wait_for_whose_operation_swallows_the_cancellation_returns_its_value),
    TEST_ENTRY(wait_for_in_time_gives_the_result_and_leaves_no_timer),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
