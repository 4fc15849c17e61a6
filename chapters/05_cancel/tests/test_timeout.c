/*
** test_timeout.c -- chapter 05's unit tests of timeout scopes and
** wait_for: expiry turned into TAAL_ETIMEDOUT at the scope's boundary
** only, nested scopes either way round, a cancellation from outside
** passing through, swallowing, rescheduling, the structured forms, the
** races, scopes left open, and bad input.
*/
#include "support.h"

#include <math.h> /* NAN */

/* ---- scopes around a sleep ----------------------------------------------------- */

enum { NONE = -2 }; /* no such scope (a delay never used as one) */

/* Opens the outer scope (if `outer` is not NONE), then the inner one, moves
 * the inner deadline to now + `move_inner` if that is >= 0, sleeps `body`
 * seconds, swallows a cancellation if asked, and closes both, keeping what
 * each close returned. */
typedef struct scoped {
    taal_coro co;
    double outer, inner, move_inner, body;
    bool swallow;
    taal_timeout o, i;
    int st, inner_out, outer_out, cancelling_after;
} scoped;

static int scoped_body(taal_coro *self)
{
    scoped *f = (scoped *)self;
    taal_loop *loop = taal_running_loop();
    TAAL_BEGIN(f);
    if (f->outer != NONE && taal_timeout_open(&f->o, f->outer) != TAAL_OK)
        TAAL_FAIL(TAAL_EUSER);
    if (f->inner != NONE && taal_timeout_open(&f->i, f->inner) != TAAL_OK)
        TAAL_FAIL(TAAL_EUSER);
    if (f->move_inner >= 0 &&
        taal_timeout_reschedule(&f->i, taal_loop_time(loop) + f->move_inner) != TAAL_OK)
        TAAL_FAIL(TAAL_EUSER);
    TAAL_SLEEP_STATUS(f->st, f->body);
    if (f->swallow && f->st == TAAL_ECANCELLED)
        f->st = TAAL_OK;
    f->inner_out = f->inner != NONE ? taal_timeout_close(&f->i, f->st) : f->st;
    f->outer_out =
        f->outer != NONE ? taal_timeout_close(&f->o, f->inner_out) : f->inner_out;
    f->cancelling_after = taal_task_cancelling(taal_current_task());
    TAAL_FAIL(f->outer_out);
    TAAL_END();
}

/* Runs a scoped task to its end; `frame` lives on (for reading) in the
 * task, whose frame is copied into `out`. */
static int run_scoped(taal_loop *loop, scoped frame, scoped *out)
{
    taal_task *t = NULL;
    if (taal_task_create(loop, scoped_body, &frame, sizeof frame, "s", &t) != TAAL_OK)
        return TAAL_ENOMEM;
    int rc = taal_run_until_complete(loop, taal_task_future(t));
    *out = *(scoped *)taal_task_frame(t);
    taal_task_release(t);
    return rc;
}

TEST(a_scope_that_expires_turns_the_cancellation_into_a_timeout)
{
    taal_loop loop;
    open_loop(&loop);
    scoped f;
    CHECK_EQ(run_scoped(&loop,
                        (scoped){.outer = 1, .inner = NONE, .move_inner = -1, .body = 10},
                        &f),
             TAAL_ETIMEDOUT);
    CHECK_EQ(f.st, TAAL_ECANCELLED); /* inside, a cancellation like any other */
    CHECK(taal_loop_time(&loop) == 1.0);
    CHECK(taal_timeout_expired(&f.o));
    CHECK_EQ(f.cancelling_after, 0); /* the scope took its cancel back */
    CHECK_EQ(loop.heap_len, 0);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(a_scope_closed_in_time_changes_nothing_and_leaves_no_timer)
{
    taal_loop loop;
    open_loop(&loop);
    scoped f;
    CHECK_EQ(run_scoped(&loop,
                        (scoped){.outer = 2, .inner = NONE, .move_inner = -1, .body = 1},
                        &f),
             TAAL_OK);
    CHECK(!taal_timeout_expired(&f.o));
    CHECK_EQ(f.o.state, TAAL_TIMEOUT_CLOSED);
    CHECK_EQ(loop.heap_len, 0);
    CHECK(taal_loop_time(&loop) == 1.0);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* A deadline that has come already fires before the task's next step.
 * asyncio (3.12 and 3.13):
 *     async with asyncio.timeout(0):   # or timeout(-1), or timeout(10)
 *         await asyncio.sleep(0)       # and cm.reschedule(loop.time())
 * raises TimeoutError: Timeout.reschedule() uses call_soon(_on_timeout)
 * for a deadline <= loop.time(), which runs ahead of the step that the
 * sleep(0) queues after it. A timer due now would run behind it, and the
 * scope would close in time. */
TEST(a_deadline_that_has_come_fires_before_the_tasks_next_step)
{
    static const scoped cases[] = {
        {.outer = NONE, .inner = 0, .move_inner = -1, .body = 0},
        {.outer = NONE, .inner = -1, .move_inner = -1, .body = 0},
        {.outer = NONE, .inner = 10, .move_inner = 0, .body = 0},
    };
    for (size_t i = 0; i < TAAL_COUNT(cases); i++) {
        taal_loop loop;
        open_loop(&loop);
        scoped f;
        CHECK_EQ(run_scoped(&loop, cases[i], &f), TAAL_ETIMEDOUT);
        CHECK_EQ(f.st, TAAL_ECANCELLED);
        CHECK(taal_timeout_expired(&f.i));
        CHECK_EQ(f.cancelling_after, 0);
        CHECK(taal_loop_time(&loop) == 0.0);
        CHECK(loop_is_empty(&loop));
        taal_loop_close(&loop);
    }
}

TEST(nested_scopes_where_the_outer_fires_first_only_the_outer_converts)
{
    taal_loop loop;
    open_loop(&loop);
    scoped f;
    CHECK_EQ(run_scoped(&loop,
                        (scoped){.outer = 1, .inner = 3, .move_inner = -1, .body = 10},
                        &f),
             TAAL_ETIMEDOUT);
    CHECK_EQ(f.inner_out, TAAL_ECANCELLED); /* passed through: not its own */
    CHECK(!taal_timeout_expired(&f.i));
    CHECK(taal_timeout_expired(&f.o));
    CHECK_EQ(f.cancelling_after, 0);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(nested_scopes_where_the_inner_fires_first_the_inner_converts)
{
    taal_loop loop;
    open_loop(&loop);
    scoped f;
    CHECK_EQ(run_scoped(&loop,
                        (scoped){.outer = 3, .inner = 1, .move_inner = -1, .body = 10},
                        &f),
             TAAL_ETIMEDOUT);
    CHECK_EQ(f.inner_out, TAAL_ETIMEDOUT);
    CHECK(taal_timeout_expired(&f.i));
    CHECK(!taal_timeout_expired(&f.o)); /* the error went through it */
    CHECK(taal_loop_time(&loop) == 1.0);
    CHECK_EQ(f.cancelling_after, 0);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* Both fire in the same iteration (the same deadline, the outer armed
 * first): each cancels, the task sees one delivery; the inner one counts
 * a request besides its own and lets it through, the outer converts. */
TEST(nested_scopes_that_fire_together_convert_once_at_the_outer_one)
{
    taal_loop loop;
    open_loop(&loop);
    scoped f;
    CHECK_EQ(run_scoped(&loop,
                        (scoped){.outer = 1, .inner = 1, .move_inner = -1, .body = 10},
                        &f),
             TAAL_ETIMEDOUT);
    CHECK_EQ(f.inner_out, TAAL_ECANCELLED);
    CHECK(taal_timeout_expired(&f.i) && taal_timeout_expired(&f.o));
    CHECK_EQ(f.cancelling_after, 0);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(a_cancellation_from_outside_passes_through_a_scope)
{
    taal_loop loop;
    open_loop(&loop);
    /* Before the deadline: the scope did not fire, and says nothing. */
    taal_task *t = NULL;
    scoped frame = {.outer = 5, .inner = NONE, .move_inner = -1, .body = 10};
    taal_task_create(&loop, scoped_body, &frame, sizeof frame, NULL, &t);
    taal_run_once(&loop);
    taal_task_cancel(t);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_ECANCELLED);
    CHECK_EQ(((scoped *)taal_task_frame(t))->cancelling_after, 1);
    taal_task_release(t);
    /* At the deadline: the scope fired, and another cancel came before
     * the task ran. The count is above the scope's: not its own. */
    taal_task_create(&loop, scoped_body, &frame, sizeof frame, NULL, &t);
    taal_run_once(&loop);
    while (((scoped *)taal_task_frame(t))->o.state != TAAL_TIMEOUT_EXPIRING)
        taal_run_once(&loop);
    taal_task_cancel(t);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_ECANCELLED);
    scoped *f = taal_task_frame(t);
    CHECK(taal_timeout_expired(&f->o));
    CHECK_EQ(f->cancelling_after, 1); /* the scope took back only its own */
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(a_scope_whose_body_swallows_the_cancellation_raises_nothing)
{
    taal_loop loop;
    open_loop(&loop);
    scoped f;
    CHECK_EQ(
        run_scoped(
            &loop,
            (scoped){
                .outer = 1, .inner = NONE, .move_inner = -1, .body = 10, .swallow = true},
            &f),
        TAAL_OK);
    CHECK(taal_timeout_expired(&f.o));
    CHECK_EQ(f.cancelling_after, 0);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(reschedule_moves_the_deadline_later_earlier_or_away)
{
    taal_loop loop;
    open_loop(&loop);
    scoped f;
    /* 1 s, moved to 3 s: a body of 2 s ends in time. */
    CHECK_EQ(run_scoped(&loop,
                        (scoped){.outer = NONE, .inner = 1, .move_inner = 3, .body = 2},
                        &f),
             TAAL_OK);
    CHECK(!taal_timeout_expired(&f.i));
    /* 5 s, moved to 1 s from now: it expires then. */
    double began = taal_loop_time(&loop);
    CHECK_EQ(run_scoped(&loop,
                        (scoped){.outer = NONE, .inner = 5, .move_inner = 1, .body = 10},
                        &f),
             TAAL_ETIMEDOUT);
    CHECK(taal_loop_time(&loop) - began == 1.0);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* Opens a scope of 1 s, takes its deadline away, then sleeps 2 s; and
 * tries to move the deadline of a scope that has expired. */
typedef struct mover {
    taal_coro co;
    taal_timeout scope;
    int st, moved, late_move;
    double when;
} mover;

static int mover_body(taal_coro *self)
{
    mover *f = (mover *)self;
    taal_loop *loop = taal_running_loop();
    TAAL_BEGIN(f);
    taal_timeout_open(&f->scope, 1);
    f->moved = taal_timeout_reschedule(&f->scope, TAAL_NEVER);
    f->when = taal_timeout_when(&f->scope);
    TAAL_SLEEP_STATUS(f->st, 2);
    f->st = taal_timeout_close(&f->scope, f->st);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    taal_timeout_open_at(&f->scope, taal_loop_time(loop) + 1);
    TAAL_SLEEP_STATUS(f->st, 2);
    f->late_move = taal_timeout_reschedule(&f->scope, taal_loop_time(loop) + 5);
    f->st = taal_timeout_close(&f->scope, f->st);
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(a_deadline_taken_away_never_comes_and_an_expired_one_cannot_move)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = NULL;
    taal_task_create(&loop, mover_body, NULL, sizeof(mover), NULL, &t);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_ETIMEDOUT);
    mover *f = taal_task_frame(t);
    CHECK_EQ(f->moved, TAAL_OK);
    CHECK(f->when == TAAL_NEVER);
    CHECK_EQ(f->late_move, TAAL_ESTATE); /* "Cannot change state of expiring Timeout" */
    CHECK(taal_loop_time(&loop) == 3.0);
    CHECK_EQ(loop.heap_len, 0);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* ---- the structured form ------------------------------------------------------------
 */

typedef struct nap {
    taal_coro co;
    double seconds;
} nap;

static int nap_body(taal_coro *self)
{
    nap *f = (nap *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(f->seconds);
    TAAL_END();
}

typedef struct structured {
    taal_coro co;
    taal_timeout scope;
    nap child;
    int st[2];
} structured;

static int structured_body(taal_coro *self)
{
    structured *f = (structured *)self;
    TAAL_BEGIN(f);
    f->child = (nap){.seconds = 1};
    taal_coro_init(&f->child.co, nap_body);
    TAAL_AWAIT_TIMEOUT_STATUS(f->st[0], &f->scope, 2, &f->child);
    f->child = (nap){.seconds = 3};
    taal_coro_init(&f->child.co, nap_body);
    TAAL_AWAIT_TIMEOUT_STATUS(f->st[1], &f->scope, 2, &f->child); /* the scope, again */
    TAAL_END();
}

TEST(await_timeout_status_opens_awaits_and_closes)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = NULL;
    taal_task_create(&loop, structured_body, NULL, sizeof(structured), NULL, &t);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    structured *f = taal_task_frame(t);
    CHECK_EQ(f->st[0], TAAL_OK);
    CHECK_EQ(f->st[1], TAAL_ETIMEDOUT);
    CHECK(taal_loop_time(&loop) == 3.0);
    CHECK_EQ(taal_task_cancelling(t), 0);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* ---- wait_for
 * ---------------------------------------------------------------------------- */

/* Sleeps `seconds`, returns &value; cancelled, cleans up for `cleanup`
 * seconds, and re-raises unless `swallow`. */
typedef struct operation {
    taal_coro co;
    double seconds, cleanup;
    bool swallow;
    int st, value;
} operation;

static int operation_body(taal_coro *self)
{
    operation *f = (operation *)self;
    TAAL_BEGIN(f);
    note("o");
    TAAL_SLEEP_STATUS(f->st, f->seconds);
    if (f->st == TAAL_ECANCELLED) {
        note("c");
        if (f->cleanup > 0)
            TAAL_SLEEP(f->cleanup);
        if (!f->swallow)
            TAAL_FAIL(f->st);
    }
    f->value = 42;
    TAAL_RETURN_VALUE(&f->value);
    TAAL_END();
}

/* wait_for(operation, timeout): the status, the result, and when. */
typedef struct waiting {
    taal_coro co;
    operation op;
    double timeout;
    taal_task *task;
    taal_timeout scope;
    int st, value; /* the result, read while the operation is held */
    double at;
} waiting;

static int waiting_body(taal_coro *self)
{
    waiting *f = (waiting *)self;
    void *result;
    int rc;
    TAAL_BEGIN(f);
    rc = taal_task_create(taal_running_loop(), operation_body, &f->op, sizeof f->op, "op",
                          &f->task);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_WAIT_FOR_STATUS(f->st, &f->scope, taal_task_future(f->task), f->timeout);
    f->at = taal_loop_time(taal_running_loop());
    if (f->st == TAAL_OK &&
        taal_future_result(taal_task_future(f->task), &result) == TAAL_OK)
        f->value = *(int *)result;
    taal_task_release(f->task);
    TAAL_FAIL(f->st);
    TAAL_END();
}

static int run_waiting(taal_loop *loop, waiting frame, waiting *out)
{
    taal_task *t = NULL;
    trace[0] = '\0';
    if (taal_task_create(loop, waiting_body, &frame, sizeof frame, "w", &t) != TAAL_OK)
        return TAAL_ENOMEM;
    int rc = taal_run_until_complete(loop, taal_task_future(t));
    *out = *(waiting *)taal_task_frame(t);
    taal_task_release(t);
    return rc;
}

TEST(wait_for_in_time_gives_the_result)
{
    taal_loop loop;
    open_loop(&loop);
    waiting f;
    CHECK_EQ(run_waiting(&loop, (waiting){.op = {.seconds = 1}, .timeout = 2}, &f),
             TAAL_OK);
    CHECK_EQ(f.value, 42);
    CHECK(f.at == 1.0);
    CHECK_EQ(loop.heap_len, 0);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(wait_for_reports_the_timeout_after_the_operations_cleanup)
{
    taal_loop loop;
    open_loop(&loop);
    waiting f;
    CHECK_EQ(run_waiting(&loop,
                         (waiting){.op = {.seconds = 5, .cleanup = 2}, .timeout = 1}, &f),
             TAAL_ETIMEDOUT);
    CHECK_STR(trace, "oc");
    CHECK(f.at == 3.0); /* 1 s, and then the 2 s of cleanup */
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(wait_for_whose_operation_swallows_the_cancellation_returns_its_value)
{
    taal_loop loop;
    open_loop(&loop);
    waiting f;
    CHECK_EQ(run_waiting(&loop,
                         (waiting){.op = {.seconds = 5, .cleanup = 1, .swallow = true},
                                   .timeout = 1},
                         &f),
             TAAL_OK);
    CHECK_EQ(f.value, 42);
    CHECK(f.at == 2.0);
    CHECK(taal_timeout_expired(&f.scope)); /* it did fire */
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(wait_for_with_no_timeout_waits_as_long_as_it_takes)
{
    taal_loop loop;
    open_loop(&loop);
    waiting f;
    CHECK_EQ(run_waiting(&loop,
                         (waiting){.op = {.seconds = 1000}, .timeout = TAAL_NO_TIMEOUT},
                         &f),
             TAAL_OK);
    CHECK(f.at == 1000.0);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* asyncio 3.12: a timeout of 0 cancels the operation before it ever runs. */
TEST(wait_for_with_a_timeout_of_zero_never_starts_the_operation)
{
    taal_loop loop;
    open_loop(&loop);
    waiting f;
    CHECK_EQ(run_waiting(&loop, (waiting){.op = {.seconds = 1}, .timeout = 0}, &f),
             TAAL_ETIMEDOUT);
    CHECK_STR(trace, ""); /* not even "o" */
    CHECK(f.at == 0.0);
    CHECK(taal_timeout_expired(&f.scope));
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* wait_for with a timeout of 0 or less always suspends, as asyncio's
 * _cancel_and_wait() does, and for as many iterations. The twin of
 *     async def ticker():
 *         for i in range(5): order.append(f"tick{i}"); await asyncio.sleep(0)
 *     async def main():
 *         tk = asyncio.create_task(ticker()); await asyncio.sleep(0)
 *         order.append("wait_for")
 *         try: await asyncio.wait_for(fut, 0)   # or -1
 *         except TimeoutError: order.append("timed out")
 *         await tk
 * which gives, on 3.12 and 3.13, for `fut` a pending future
 *     tick0 wait_for tick1 tick2 timed out tick3 tick4
 * for a task not started yet (it never runs)
 *     tick0 wait_for tick1 tick2 tick3 timed out tick4
 * for a future already done: its result at once, before tick1, and for a
 * task done already (created, then one more `await asyncio.sleep(0)`
 * before the wait_for, in which it runs and returns):
 *     tick0 tick1 wait_for result tick2 tick3 tick4 */
typedef struct ticker {
    taal_coro co;
    int i;
} ticker;

static int ticker_body(taal_coro *self)
{
    ticker *f = (ticker *)self;
    static const char *const ticks[] = {"0 ", "1 ", "2 ", "3 ", "4 "};
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < 5; f->i++) {
        note(ticks[f->i]);
        TAAL_SLEEP(0);
    }
    TAAL_END();
}

/* Returns at once. */
typedef struct returning {
    taal_coro co;
} returning;

static int returning_body(taal_coro *self)
{
    returning *f = (returning *)self;
    TAAL_BEGIN(f);
    TAAL_END();
}

typedef struct zero_waiter {
    taal_coro co;
    int kind; /* 0: a pending future, 1: a task not started, 2: a done future,
                 3: a task done already */
    double timeout;
    taal_task *ticker, *op;
    taal_future fut;
    taal_timeout scope;
    int st;
} zero_waiter;

static int zero_waiter_body(taal_coro *self)
{
    zero_waiter *f = (zero_waiter *)self;
    taal_loop *loop = taal_running_loop();
    TAAL_BEGIN(f);
    taal_task_create(loop, ticker_body, NULL, sizeof(ticker), "ticker", &f->ticker);
    TAAL_SLEEP(0);
    taal_future_init(&f->fut, loop);
    if (f->kind == 1)
        taal_task_create(loop, operation_body, NULL, sizeof(operation), "op", &f->op);
    if (f->kind == 2)
        taal_future_set_result(&f->fut, NULL);
    if (f->kind == 3) {
        taal_task_create(loop, returning_body, NULL, sizeof(returning), "op", &f->op);
        TAAL_SLEEP(0); /* it runs, and returns */
    }
    note("wait_for ");
    TAAL_WAIT_FOR_STATUS(f->st, &f->scope, f->op ? taal_task_future(f->op) : &f->fut,
                         f->timeout);
    note(f->st == TAAL_ETIMEDOUT ? "timed-out " : "result ");
    TAAL_AWAIT_TASK(f->ticker);
    TAAL_END();
}

TEST(wait_for_with_a_timeout_of_zero_or_less_suspends_as_asyncio_does)
{
    static const struct {
        int kind;
        double timeout;
        const char *order;
        int op; /* how the task waited for ends, if there is one */
    } cases[] = {
        {0, 0, "0 wait_for 1 2 timed-out 3 4 ", 0},
        {0, -1, "0 wait_for 1 2 timed-out 3 4 ", 0},
        {1, 0, "0 wait_for 1 2 3 timed-out 4 ", TAAL_ECANCELLED},
        {2, 0, "0 wait_for result 1 2 3 4 ", 0},
        {3, 0, "0 1 wait_for result 2 3 4 ", TAAL_OK},
    };
    for (size_t i = 0; i < TAAL_COUNT(cases); i++) {
        taal_loop loop;
        open_loop(&loop);
        trace[0] = '\0';
        taal_task *t = NULL;
        zero_waiter frame = {.kind = cases[i].kind, .timeout = cases[i].timeout};
        taal_task_create(&loop, zero_waiter_body, &frame, sizeof frame, "main", &t);
        CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
        CHECK_STR(trace, cases[i].order);
        zero_waiter *f = taal_task_frame(t);
        CHECK(f->op == NULL ||
              taal_future_status(taal_task_future(f->op)) == cases[i].op);
        taal_task_release(f->ticker);
        taal_task_release(f->op);
        taal_task_release(t);
        CHECK(loop_is_empty(&loop));
        taal_loop_close(&loop);
    }
}

/* wait_for(gather, 0) where the gather refuses the cancel: its children
 * are done, but it has not collected them yet (their done-callbacks are
 * queued), so cancel() finds nothing to cancel and says false. asyncio's
 * wait_for goes through _cancel_and_wait() all the same, whatever
 * cancel() answered, and waits one turn more than a plain await would;
 * then it returns the gather's result, or raises TimeoutError if the
 * gather ended cancelled (here because a child was). The twin, with
 * ticker() and the order of the test above:
 *     async def main():
 *         loop = asyncio.get_running_loop()
 *         tk = asyncio.create_task(ticker()); await asyncio.sleep(0)
 *         a, b = loop.create_future(), loop.create_future()
 *         g = asyncio.gather(a, b)
 *         a.set_result(1)                  # or a.cancel()
 *         b.set_result(2)                  # done, not collected: g.cancel() is False
 *         order.append("wait_for")
 *         try: await asyncio.wait_for(g, 0); order.append("result")
 *         except TimeoutError: order.append("timed out")
 *         await tk
 * which gives, on 3.12 and 3.13,
 *     tick0 wait_for tick1 tick2 tick3 result tick4
 * and with a.cancel()
 *     tick0 wait_for tick1 tick2 tick3 timed out tick4
 * where `await g` instead of the wait_for resumes after tick2. */
/* How a wait_for ended, as the twins print it. */
static const char *outcome_word(int st)
{
    if (st == TAAL_OK)
        return "result ";
    return st == TAAL_ETIMEDOUT ? "timed-out " : "other ";
}

typedef struct refused_waiter {
    taal_coro co;
    bool cancel_one;
    taal_task *ticker;
    taal_future a, b;
    taal_future *children[2];
    taal_future *gathered;
    taal_timeout scope;
    int st;
} refused_waiter;

static int refused_waiter_body(taal_coro *self)
{
    refused_waiter *f = (refused_waiter *)self;
    taal_loop *loop = taal_running_loop();
    TAAL_BEGIN(f);
    taal_task_create(loop, ticker_body, NULL, sizeof(ticker), "ticker", &f->ticker);
    TAAL_SLEEP(0);
    taal_future_init(&f->a, loop);
    taal_future_init(&f->b, loop);
    f->children[0] = &f->a;
    f->children[1] = &f->b;
    f->st = taal_gather(loop, 2, f->children, &f->gathered);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    if (f->cancel_one)
        taal_future_cancel(&f->a);
    else
        taal_future_set_result(&f->a, NULL);
    taal_future_set_result(&f->b, NULL);
    note("wait_for ");
    TAAL_WAIT_FOR_STATUS(f->st, &f->scope, f->gathered, 0);
    note(outcome_word(f->st));
    TAAL_AWAIT_TASK(f->ticker);
    TAAL_END();
}

TEST(wait_for_zero_of_a_gather_that_refuses_the_cancel_waits_as_asyncio_does)
{
    static const struct {
        bool cancel_one;
        const char *order;
        int gathered;
    } cases[] = {
        {false, "0 wait_for 1 2 3 result 4 ", TAAL_OK},
        {true, "0 wait_for 1 2 3 timed-out 4 ", TAAL_ECANCELLED},
    };
    for (size_t i = 0; i < TAAL_COUNT(cases); i++) {
        taal_loop loop;
        open_loop(&loop);
        trace[0] = '\0';
        taal_task *t = NULL;
        refused_waiter frame = {.cancel_one = cases[i].cancel_one};
        CHECK_EQ(taal_task_create(&loop, refused_waiter_body, &frame, sizeof frame,
                                  "main", &t),
                 TAAL_OK);
        CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
        CHECK_STR(trace, cases[i].order);
        refused_waiter *f = taal_task_frame(t);
        CHECK_EQ(taal_future_status(f->gathered), cases[i].gathered);
        CHECK_EQ(taal_task_cancelling(t), 0);
        taal_future_release(f->gathered);
        taal_task_release(f->ticker);
        taal_task_release(t);
        CHECK(loop_is_empty(&loop));
        CHECK_STR(reports, "");
        taal_loop_close(&loop);
    }
}

/* wait_for(gather, 1) whose deadline comes in the loop turn where the
 * gather's children finish, after them: the timeout cancels the waiting
 * task, which cancels the gather, which refuses (its children are done,
 * not collected yet). So the request stays on the task (asyncio's
 * _must_cancel): when the gather completes, with its results, the task
 * wakes, the cancellation is delivered at its await, and the timeout
 * turns it into TimeoutError, though the gather succeeded. The twin:
 *     async def ticker():             # as above
 *     async def main():
 *         loop = asyncio.get_running_loop()
 *         a, b = loop.create_future(), loop.create_future()
 *         g = asyncio.gather(a, b)
 *         g.add_done_callback(lambda _: order.append("gathered"))
 *         def finish():
 *             order.append("finish"); a.set_result(1); b.set_result(2)
 *             tasks.append(asyncio.create_task(ticker()))
 *         tasks = []
 *         loop.call_later(1, finish)    # armed first, so it runs first at 1
 *         try: await asyncio.wait_for(g, 1); order.append("result")
 *         except TimeoutError: order.append("timed out")
 *         order.append(f"gather {g.result()}")
 *         await tasks[0]
 * run on a loop whose timers of one deadline fire in arming order (the
 * difftest's VirtualLoop; on the real clock, a callback that blocks in
 * time.sleep() past both deadlines gives the same), which prints on 3.12
 * and 3.13
 *     finish tick0 gathered timed out gather [1, 2] tick1 tick2 tick3 tick4 */
typedef struct late_gather {
    taal_coro co;
    taal_future a, b;
    taal_future *children[2];
    taal_future *gathered;
    taal_handle on_gathered;
    taal_timer finisher;
    taal_task *ticker;
    taal_timeout scope;
    int st;
} late_gather;

static void finish_children(void *frame)
{
    late_gather *f = frame;
    note("finish ");
    taal_future_set_result(&f->a, NULL);
    taal_future_set_result(&f->b, NULL);
    taal_task_create(taal_running_loop(), ticker_body, NULL, sizeof(ticker), "ticker",
                     &f->ticker);
}

static int late_gather_body(taal_coro *self)
{
    late_gather *f = (late_gather *)self;
    taal_loop *loop = taal_running_loop();
    TAAL_BEGIN(f);
    taal_future_init(&f->a, loop);
    taal_future_init(&f->b, loop);
    f->children[0] = &f->a;
    f->children[1] = &f->b;
    f->st = taal_gather(loop, 2, f->children, &f->gathered);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    taal_future_add_done_callback(f->gathered, &f->on_gathered, note_done, "gathered ");
    taal_call_later(loop, &f->finisher, 1, finish_children, f); /* armed first */
    TAAL_WAIT_FOR_STATUS(f->st, &f->scope, f->gathered, 1);
    note(outcome_word(f->st));
    note(taal_future_status(f->gathered) == TAAL_OK ? "gather-ok " : "gather-failed ");
    if (f->ticker != NULL)
        TAAL_AWAIT_TASK(f->ticker);
    TAAL_END();
}

TEST(wait_for_expiring_while_the_gather_refuses_the_cancel_times_out_when_it_completes)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t = NULL;
    CHECK_EQ(
        taal_task_create(&loop, late_gather_body, NULL, sizeof(late_gather), "main", &t),
        TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    CHECK_STR(trace, "finish 0 gathered timed-out gather-ok 1 2 3 4 ");
    late_gather *f = taal_task_frame(t);
    CHECK_EQ(f->st, TAAL_ETIMEDOUT);
    CHECK(taal_loop_time(&loop) == 1.0);
    CHECK_EQ(taal_task_cancelling(t), 0);
    CHECK_EQ(loop.heap_len, 0);
    taal_future_release(f->gathered);
    taal_task_release(f->ticker);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    CHECK_STR(reports, "");
    taal_loop_close(&loop);
}

/* The task waiting in wait_for(fut, 0) is cancelled before it resumes:
 * asyncio (3.12, 3.13) raises CancelledError out of the wait_for, not
 * TimeoutError, since the cancellation was not the wait_for's own. */
typedef struct zero_victim {
    taal_coro co;
    taal_future fut;
    taal_timeout scope;
    int st;
} zero_victim;

static int zero_victim_body(taal_coro *self)
{
    zero_victim *f = (zero_victim *)self;
    TAAL_BEGIN(f);
    taal_future_init(&f->fut, taal_running_loop());
    TAAL_WAIT_FOR_STATUS(f->st, &f->scope, &f->fut, 0);
    TAAL_END();
}

TEST(a_task_cancelled_while_wait_for_zero_waits_is_cancelled_not_timed_out)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = NULL;
    taal_task_create(&loop, zero_victim_body, NULL, sizeof(zero_victim), "w", &t);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* it cancels fut, and waits */
    zero_victim *f = taal_task_frame(t);
    CHECK(taal_future_cancelled(&f->fut));
    CHECK(!taal_future_done(taal_task_future(t)));
    CHECK(taal_task_cancel(t));
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    CHECK_EQ(f->st, TAAL_ECANCELLED);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* wait_for(op, 0) cancels `op`, which here takes its time to end (it
 * sleeps again after the cancellation); the task waits for it as
 * asyncio's _cancel_and_wait() does, on a waiter of its own. Cancelled
 * there, it wakes at once with TAAL_ECANCELLED and `op` is not cancelled
 * a second time (asyncio 3.12 and 3.13 cancel only the waiter). A cancel
 * asked for before the wait_for began is delivered at the same wait, and
 * is TAAL_ECANCELLED too, never the wait_for's own timeout. */
typedef struct slow_op {
    taal_coro co;
    int st;
} slow_op;

static int slow_op_body(taal_coro *self)
{
    slow_op *f = (slow_op *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP_STATUS(f->st, 5); /* cancelled by the wait_for */
    TAAL_SLEEP_STATUS(f->st, 5); /* and still going */
    TAAL_END();
}

typedef struct op_waiter {
    taal_coro co;
    taal_task *op;
    bool cancel_first;
    taal_timeout scope;
    int st;
} op_waiter;

static int op_waiter_body(taal_coro *self)
{
    op_waiter *f = (op_waiter *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(0); /* op takes its first step */
    if (f->cancel_first)
        taal_task_cancel(taal_current_task());
    TAAL_WAIT_FOR_STATUS(f->st, &f->scope, taal_task_future(f->op), 0);
    TAAL_END();
}

TEST(a_task_cancelled_in_wait_for_zero_wakes_at_once_and_leaves_the_operation_alone)
{
    for (int cancel_first = 0; cancel_first <= 1; cancel_first++) {
        taal_loop loop;
        open_loop(&loop);
        taal_task *op = NULL, *t = NULL;
        CHECK_EQ(taal_task_create(&loop, slow_op_body, NULL, sizeof(slow_op), "op", &op),
                 TAAL_OK);
        op_waiter frame = {.op = op, .cancel_first = cancel_first};
        CHECK_EQ(taal_task_create(&loop, op_waiter_body, &frame, sizeof frame, "w", &t),
                 TAAL_OK);
        if (!cancel_first) {
            CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* both start */
            CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* w cancels op, and waits */
            CHECK_EQ(taal_task_cancelling(op), 1);
            CHECK(!taal_future_done(taal_task_future(t)));
            CHECK(taal_task_cancel(t));
        }
        CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
        op_waiter *f = taal_task_frame(t);
        CHECK_EQ(f->st, TAAL_ECANCELLED);
        CHECK_EQ(taal_loop_time(&loop), 0.0);           /* it did not wait for op */
        CHECK_EQ(taal_task_cancelling(op), 1);          /* op was cancelled once */
        CHECK(!taal_future_done(taal_task_future(op))); /* and is still going */
        CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(op)), TAAL_OK);
        CHECK_EQ(taal_future_status(taal_task_future(op)), TAAL_OK);
        taal_task_release(op);
        taal_task_release(t);
        CHECK(loop_is_empty(&loop));
        taal_loop_close(&loop);
    }
}

/* wait_for(its own task, 0) neither cancels the task nor waits for it:
 * awaiting itself is TAAL_ERUNNING, as any await of itself is. */
typedef struct self_waiter {
    taal_coro co;
    taal_timeout scope;
    int st;
} self_waiter;

static int self_waiter_body(taal_coro *self)
{
    self_waiter *f = (self_waiter *)self;
    TAAL_BEGIN(f);
    TAAL_WAIT_FOR_STATUS(f->st, &f->scope, taal_task_future(taal_current_task()), 0);
    TAAL_END();
}

TEST(wait_for_zero_of_its_own_task_is_refused_and_cancels_nothing)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = NULL;
    taal_task_create(&loop, self_waiter_body, NULL, sizeof(self_waiter), "w", &t);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    self_waiter *f = taal_task_frame(t);
    CHECK_EQ(f->st, TAAL_ERUNNING);
    CHECK_EQ(taal_task_cancelling(t), 0);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* wait_for on a plain future that a timer completes at the very deadline:
 * whichever of the two callbacks runs first, the waiting task has not run
 * yet when the scope cancels it, so the timeout wins, as in asyncio 3.12;
 * and nothing is left behind either way. */
static void set_seven(void *future)
{
    static int seven = 7;
    taal_future_set_result(future, &seven); /* ESTATE if cancelled first */
}

typedef struct racer {
    taal_coro co;
    bool setter_first;
    taal_future fut;
    taal_timer setter;
    taal_timeout scope;
    int st;
} racer;

static int racer_body(taal_coro *self)
{
    racer *f = (racer *)self;
    taal_loop *loop = taal_running_loop();
    TAAL_BEGIN(f);
    taal_future_init(&f->fut, loop);
    if (f->setter_first)
        taal_call_later(loop, &f->setter, 1, set_seven, &f->fut);
    f->st = taal_timeout_open(&f->scope, 1); /* armed before or after the setter */
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    if (!f->setter_first)
        taal_call_later(loop, &f->setter, 1, set_seven, &f->fut);
    TAAL_AWAIT_FUTURE_STATUS(f->st, &f->fut);
    f->st = taal_timeout_close(&f->scope, f->st);
    TAAL_END();
}

TEST(wait_for_racing_the_operations_own_completion_in_one_iteration)
{
    taal_loop loop;
    open_loop(&loop);
    for (int first = 0; first < 2; first++) {
        taal_task *t = NULL;
        taal_task_create(&loop, racer_body, &(racer){.setter_first = first},
                         sizeof(racer), NULL, &t);
        CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
        racer *f = taal_task_frame(t);
        CHECK_EQ(f->st, TAAL_ETIMEDOUT);
        /* Set first, the future has its result; cancelled first, it is cancelled. */
        CHECK_EQ(taal_future_status(&f->fut), first ? TAAL_OK : TAAL_ECANCELLED);
        CHECK_EQ(taal_task_cancelling(t), 0);
        CHECK_EQ(loop.heap_len, 0);
        taal_task_release(t);
        CHECK(loop_is_empty(&loop));
    }
    taal_loop_close(&loop);
}

/* ---- scopes left open -----------------------------------------------------------------
 */

/* Opens a scope and returns without closing it (a mistake C allows). */
typedef struct forgetful {
    taal_coro co;
    taal_timeout scope;
} forgetful;

static int forgetful_body(taal_coro *self)
{
    forgetful *f = (forgetful *)self;
    TAAL_BEGIN(f);
    taal_timeout_open(&f->scope, 1);
    TAAL_SLEEP(0.5);
    TAAL_END();
}

TEST(a_task_that_finishes_with_a_scope_open_has_it_disarmed)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = NULL;
    taal_task_create(&loop, forgetful_body, NULL, sizeof(forgetful), NULL, &t);
    CHECK_EQ(finish_task(&loop, t), TAAL_OK);
    CHECK_EQ(loop.heap_len, 0);              /* the scope's timer went with the task */
    CHECK(loop.scopes.next == &loop.scopes); /* and off the open scopes */
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(a_loop_closed_with_a_scope_open_in_a_pending_task_forgets_it)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task_create(&loop, forgetful_body, NULL, sizeof(forgetful), NULL, NULL);
    taal_run_once(&loop); /* open, and asleep */
    CHECK_EQ(loop.heap_len, 2);
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK); /* frees the frame, scope and all */
    CHECK(strstr(reports, "was still pending when the loop closed") != NULL);
}

/* ---- bad input
 * ------------------------------------------------------------------------- */

typedef struct misuser {
    taal_coro co;
    taal_timeout scope;
    int rc[8];
} misuser;

static int misuser_body(taal_coro *self)
{
    misuser *f = (misuser *)self;
    TAAL_BEGIN(f);
    f->rc[0] = taal_timeout_close(&f->scope, TAAL_OK); /* never opened */
    f->rc[1] = taal_timeout_open_at(&f->scope, NAN);
    f->rc[2] = taal_timeout_open(&f->scope, NAN);
    f->rc[3] = taal_timeout_open(&f->scope, TAAL_NO_TIMEOUT); /* no deadline: fine */
    f->rc[4] = taal_timeout_open(&f->scope, 1);               /* already open */
    f->rc[5] = taal_timeout_reschedule(&f->scope, NAN);
    f->rc[6] = taal_timeout_close(&f->scope, TAAL_OK);
    f->rc[7] = taal_timeout_close(&f->scope, TAAL_OK); /* twice */
    TAAL_END();
}

TEST(timeout_scopes_refuse_bad_input)
{
    taal_loop loop;
    open_loop(&loop);
    taal_timeout scope = {0};
    CHECK_EQ(taal_timeout_open(&scope, 1), TAAL_ENOTASK); /* outside a task */
    CHECK_EQ(taal_timeout_open_at(&scope, 1), TAAL_ENOTASK);
    CHECK_EQ(taal_timeout_open(NULL, 1), TAAL_EINVAL);
    CHECK_EQ(taal_timeout_open_at(NULL, 1), TAAL_EINVAL);
    CHECK_EQ(taal_timeout_reschedule(NULL, 1), TAAL_EINVAL);
    CHECK_EQ(taal_timeout_reschedule(&scope, 1), TAAL_ESTATE); /* not open */
    CHECK_EQ(taal_timeout_close(NULL, TAAL_OK), TAAL_EINVAL);
    CHECK_EQ(taal_timeout_close(&scope, TAAL_OK), TAAL_ESTATE);
    CHECK(!taal_timeout_expired(NULL));
    CHECK(taal_timeout_when(NULL) == TAAL_NEVER);
    taal_task *t = NULL;
    taal_task_create(&loop, misuser_body, NULL, sizeof(misuser), NULL, &t);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    misuser *f = taal_task_frame(t);
    static const int expected[8] = {TAAL_ESTATE, TAAL_EINVAL, TAAL_EINVAL, TAAL_OK,
                                    TAAL_EBUSY,  TAAL_EINVAL, TAAL_OK,     TAAL_ESTATE};
    for (int i = 0; i < 8; i++)
        CHECK_EQ(f->rc[i], expected[i]);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_scope_that_expires_turns_the_cancellation_into_a_timeout),
    TEST_ENTRY(a_scope_closed_in_time_changes_nothing_and_leaves_no_timer),
    TEST_ENTRY(a_deadline_that_has_come_fires_before_the_tasks_next_step),
    TEST_ENTRY(nested_scopes_where_the_outer_fires_first_only_the_outer_converts),
    TEST_ENTRY(nested_scopes_where_the_inner_fires_first_the_inner_converts),
    TEST_ENTRY(nested_scopes_that_fire_together_convert_once_at_the_outer_one),
    TEST_ENTRY(a_cancellation_from_outside_passes_through_a_scope),
    TEST_ENTRY(a_scope_whose_body_swallows_the_cancellation_raises_nothing),
    TEST_ENTRY(reschedule_moves_the_deadline_later_earlier_or_away),
    TEST_ENTRY(a_deadline_taken_away_never_comes_and_an_expired_one_cannot_move),
    TEST_ENTRY(await_timeout_status_opens_awaits_and_closes),
    TEST_ENTRY(wait_for_in_time_gives_the_result),
    TEST_ENTRY(wait_for_reports_the_timeout_after_the_operations_cleanup),
    TEST_ENTRY(wait_for_whose_operation_swallows_the_cancellation_returns_its_value),
    TEST_ENTRY(wait_for_with_no_timeout_waits_as_long_as_it_takes),
    TEST_ENTRY(wait_for_with_a_timeout_of_zero_never_starts_the_operation),
    TEST_ENTRY(wait_for_with_a_timeout_of_zero_or_less_suspends_as_asyncio_does),
    TEST_ENTRY(wait_for_zero_of_a_gather_that_refuses_the_cancel_waits_as_asyncio_does),
    TEST_ENTRY(
        wait_for_expiring_while_the_gather_refuses_the_cancel_times_out_when_it_completes),
    TEST_ENTRY(a_task_cancelled_while_wait_for_zero_waits_is_cancelled_not_timed_out),
    TEST_ENTRY(
        a_task_cancelled_in_wait_for_zero_wakes_at_once_and_leaves_the_operation_alone),
    TEST_ENTRY(wait_for_zero_of_its_own_task_is_refused_and_cancels_nothing),
    TEST_ENTRY(wait_for_racing_the_operations_own_completion_in_one_iteration),
    TEST_ENTRY(a_task_that_finishes_with_a_scope_open_has_it_disarmed),
    TEST_ENTRY(a_loop_closed_with_a_scope_open_in_a_pending_task_forgets_it),
    TEST_ENTRY(timeout_scopes_refuse_bad_input),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
