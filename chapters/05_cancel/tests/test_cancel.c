/*
** test_cancel.c -- chapter 05's unit tests of cancelling tasks and
** futures: delivery at the await (or before the first step), in every
** place a task can wait, propagation to what it awaits, counts, gather
** with and without return_exceptions, shield, reports, and bad input.
*/
#include "support.h"

#include <stdio.h>

/* ---- tasks the tests run ---------------------------------------------------- */

/* Notes "<name>:start", sleeps `seconds`, and notes how the sleep ended:
 * "<name>:done" or "<name>:cancelled". Swallows the cancellation if
 * `swallow`, after a cleanup sleep of `cleanup` seconds if that is > 0
 * (noting "<name>:cleaned" or "<name>:interrupted"). */
typedef struct sleeper {
    taal_coro co;
    const char *name;
    double seconds, cleanup;
    bool swallow;
    int st, cleanup_st;
} sleeper;

static void note2(const char *name, const char *what)
{
    note(name);
    note(":");
    note(what);
    note(" ");
}

static int sleeper_body(taal_coro *self)
{
    sleeper *f = (sleeper *)self;
    TAAL_BEGIN(f);
    note2(f->name, "start");
    TAAL_SLEEP_STATUS(f->st, f->seconds);
    if (f->st == TAAL_OK) {
        note2(f->name, "done");
        TAAL_RETURN();
    }
    note2(f->name, "cancelled");
    if (f->cleanup > 0) {
        TAAL_SLEEP_STATUS(f->cleanup_st, f->cleanup);
        note2(f->name, f->cleanup_st == TAAL_OK ? "cleaned" : "interrupted");
    }
    if (!f->swallow)
        TAAL_FAIL(f->st);
    TAAL_END();
}

static taal_task *spawn_sleeper(taal_loop *loop, sleeper frame)
{
    taal_task *task = NULL;
    taal_task_create(loop, sleeper_body, &frame, sizeof frame, frame.name, &task);
    return task;
}

/* Awaits `awaited` (a future), notes "<name>:<status>". */
typedef struct awaiter {
    taal_coro co;
    const char *name;
    taal_future *awaited;
    int st;
} awaiter;

static int awaiter_body(taal_coro *self)
{
    awaiter *f = (awaiter *)self;
    TAAL_BEGIN(f);
    TAAL_AWAIT_FUTURE_STATUS(f->st, f->awaited);
    note2(f->name, taal_strerror(f->st));
    TAAL_FAIL(f->st);
    TAAL_END();
}

static taal_task *spawn_awaiter(taal_loop *loop, const char *name, taal_future *awaited)
{
    taal_task *task = NULL;
    taal_task_create(loop, awaiter_body, &(awaiter){.name = name, .awaited = awaited},
                     sizeof(awaiter), name, &task);
    return task;
}

/* ---- delivery ---------------------------------------------------------------- */

TEST(a_task_cancelled_before_its_first_step_runs_none_of_its_body)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t = spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 1});
    CHECK(taal_task_cancel(t));
    CHECK_EQ(taal_task_cancelling(t), 1);
    CHECK(!taal_future_done(taal_task_future(t))); /* a request, not done yet */
    CHECK_EQ(finish_task(&loop, t), TAAL_ECANCELLED);
    CHECK_STR(trace, ""); /* not even "a:start" */
    CHECK(loop_is_empty(&loop));
    CHECK_STR(reports, ""); /* a cancelled task is no error nobody retrieved */
    taal_loop_close(&loop);
}

TEST(cancelling_a_task_that_is_done_returns_false_and_changes_nothing)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t = spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 1});
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    CHECK(!taal_task_cancel(t));
    CHECK_EQ(taal_task_cancelling(t), 0);
    CHECK(!taal_future_cancel(taal_task_future(t)));
    CHECK_EQ(taal_future_status(taal_task_future(t)), TAAL_OK);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(a_sleeping_task_is_cancelled_at_once_and_its_timer_leaves_the_heap)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t = spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 100});
    taal_run_once(&loop);
    CHECK_EQ(loop.heap_len, 1);
    CHECK(taal_task_cancel(t));
    CHECK_EQ(loop.heap_len, 0); /* not left to expire in 100 s */
    taal_run_once(&loop);
    CHECK_STR(trace, "a:start a:cancelled ");
    CHECK(taal_loop_time(&loop) < 1); /* no time passed */
    CHECK_EQ(finish_task(&loop, t), TAAL_ECANCELLED);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* Two tasks await one plain future; cancelling one of them cancels the
 * future (asyncio's Future.cancel()), and the other sees it too. */
/* A sleep whose timer is due in the same iteration as the cancel, and
 * later in it. asyncio (3.12 and 3.13):
 *     def cancel_it():
 *         t.cancel()
 *         loop.call_soon(order.append, "soon")
 *     loop.call_later(0.005, cancel_it)  # t sleeps 0.01; both come due
 *                                        # in one iteration, cancel_it first
 * gives ['T cancelled', 'soon']: cancel() cancels the sleep's future,
 * which queues t's wake-up there and then, and t's timer has nothing left
 * to do when its turn comes. taal's sleep timer wakes the task itself, so
 * the cancel takes it out of the iteration's batch and queues the step at
 * once, as asyncio does. */
typedef struct canceller {
    taal_loop *loop;
    taal_task *task;
    taal_handle soon;
} canceller;

static void cancel_then_call_soon(void *data)
{
    canceller *c = data;
    taal_task_cancel(c->task);
    taal_call_soon(c->loop, &c->soon, note_callback, "soon ");
}

TEST(a_task_whose_sleep_is_due_in_the_iteration_of_the_cancel_wakes_at_the_cancel)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    canceller c = {.loop = &loop};
    taal_timer first = {0};
    /* Armed before t's sleep, for the same deadline: due first. */
    CHECK_EQ(taal_call_later(&loop, &first, 1, cancel_then_call_soon, &c), TAAL_OK);
    c.task = spawn_sleeper(&loop, (sleeper){.name = "T", .seconds = 1});
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(c.task)), TAAL_ECANCELLED);
    if (taal_handle_pending(&c.soon))
        taal_run_once(&loop); /* "soon", if it is still to come */
    CHECK_STR(trace, "T:start T:cancelled soon ");
    CHECK(taal_loop_time(&loop) == 1.0);
    CHECK_EQ(loop.heap_len, 0);
    taal_task_release(c.task);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(cancelling_a_task_awaiting_a_plain_future_cancels_it_for_every_waiter)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_future fut;
    taal_future_init(&fut, &loop);
    taal_task *a = spawn_awaiter(&loop, "a", &fut);
    taal_task *b = spawn_awaiter(&loop, "b", &fut);
    taal_run_once(&loop);
    CHECK(taal_task_cancel(a));
    CHECK(taal_future_cancelled(&fut));
    CHECK_EQ(taal_task_cancelling(a), 1);
    CHECK_EQ(taal_task_cancelling(b), 0); /* woken by the future, not asked */
    CHECK_EQ(finish_task(&loop, a), TAAL_ECANCELLED);
    CHECK_EQ(finish_task(&loop, b), TAAL_ECANCELLED);
    CHECK_STR(trace, "a:cancelled b:cancelled ");
    CHECK(!taal_future_cancel(&fut)); /* done */
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* The outer task awaits the inner one: cancelling the outer cancels the
 * inner, which sees it first and cleans up; the outer wakes when the inner
 * has ended, with its status. */
TEST(cancelling_a_task_awaiting_a_task_cancels_the_inner_first_then_the_outer)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *inner =
        spawn_sleeper(&loop, (sleeper){.name = "in", .seconds = 10, .cleanup = 1});
    taal_task *outer = spawn_awaiter(&loop, "out", taal_task_future(inner));
    taal_run_once(&loop);
    CHECK(taal_task_cancel(outer));
    CHECK_EQ(taal_task_cancelling(inner), 1); /* passed on */
    CHECK_EQ(taal_task_cancelling(outer), 1);
    CHECK_EQ(finish_task(&loop, outer), TAAL_ECANCELLED);
    CHECK_STR(trace, "in:start in:cancelled in:cleaned out:cancelled ");
    CHECK(taal_loop_time(&loop) >= 1); /* the outer waited for the cleanup */
    CHECK_EQ(finish_task(&loop, inner), TAAL_ECANCELLED);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(an_awaited_task_that_swallows_the_cancellation_lets_the_awaiter_carry_on)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *inner =
        spawn_sleeper(&loop, (sleeper){.name = "in", .seconds = 10, .swallow = true});
    taal_task *outer = spawn_awaiter(&loop, "out", taal_task_future(inner));
    taal_run_once(&loop);
    taal_task_cancel(outer);
    CHECK_EQ(taal_task_cancelling(outer), 1); /* asked, though it will not stop */
    CHECK_EQ(finish_task(&loop, outer), TAAL_OK);
    CHECK_STR(trace, "in:start in:cancelled out:ok ");
    CHECK_EQ(finish_task(&loop, inner), TAAL_OK);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(two_cancels_before_delivery_are_delivered_once)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t = spawn_sleeper(
        &loop, (sleeper){.name = "a", .seconds = 10, .cleanup = 1, .swallow = true});
    taal_run_once(&loop);
    CHECK(taal_task_cancel(t));
    CHECK(taal_task_cancel(t));
    CHECK_EQ(taal_task_cancelling(t), 2);
    CHECK_EQ(finish_task(&loop, t), TAAL_OK);
    /* Delivered once: the cleanup's sleep was not interrupted. */
    CHECK_STR(trace, "a:start a:cancelled a:cleaned ");
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(a_second_cancel_during_cleanup_interrupts_the_cleanups_next_await)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t =
        spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 10, .cleanup = 5});
    taal_run_once(&loop);
    taal_task_cancel(t);
    taal_run_once(&loop); /* delivered: the cleanup's sleep begins */
    CHECK_STR(trace, "a:start a:cancelled ");
    CHECK_EQ(loop.heap_len, 1);
    CHECK(taal_task_cancel(t));
    CHECK_EQ(loop.heap_len, 0);
    CHECK_EQ(finish_task(&loop, t), TAAL_ECANCELLED);
    CHECK_STR(trace, "a:start a:cancelled a:interrupted ");
    CHECK(taal_loop_time(&loop) < 1);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(a_task_that_swallows_the_cancellation_finishes_normally)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t =
        spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 10, .swallow = true});
    taal_run_once(&loop);
    taal_task_cancel(t);
    CHECK_EQ(finish_task(&loop, t), TAAL_OK);
    CHECK_STR(trace, "a:start a:cancelled ");
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* Swallows a cancellation, takes it back with uncancel(), and reads the
 * counts as it goes. */
typedef struct counter {
    taal_coro co;
    int st, seen[4];
} counter;

static int counter_body(taal_coro *self)
{
    counter *f = (counter *)self;
    taal_task *me = taal_current_task();
    TAAL_BEGIN(f);
    TAAL_SLEEP_STATUS(f->st, 10);
    f->seen[0] = taal_task_cancelling(me);
    f->seen[1] = taal_task_uncancel(me);
    f->seen[2] = taal_task_uncancel(me); /* never below 0 */
    TAAL_SLEEP_STATUS(f->st, 1);         /* not cancelled again */
    f->seen[3] = f->st;
    TAAL_END();
}

TEST(cancelling_counts_requests_and_uncancel_takes_them_back)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = NULL;
    taal_task_create(&loop, counter_body, NULL, sizeof(counter), NULL, &t);
    taal_run_once(&loop);
    taal_task_cancel(t);
    taal_task_cancel(t);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    counter *f = taal_task_frame(t);
    CHECK_EQ(f->seen[0], 2);
    CHECK_EQ(f->seen[1], 1);
    CHECK_EQ(f->seen[2], 0);
    CHECK_EQ(f->seen[3], TAAL_OK);
    CHECK_EQ(taal_task_uncancel(t), 0);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* Python 3.13: uncancel() reaching 0 withdraws a request that has not been
 * acted on; one that took the task off its wait is delivered anyway. */
TEST(uncancel_to_zero_withdraws_a_request_not_yet_acted_on)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *ready = spawn_sleeper(&loop, (sleeper){.name = "r", .seconds = 1});
    CHECK(taal_task_cancel(ready)); /* not started: a request for its first step */
    CHECK_EQ(taal_task_uncancel(ready), 0);
    taal_task *asleep = spawn_sleeper(&loop, (sleeper){.name = "s", .seconds = 5});
    taal_run_once(&loop);
    CHECK(taal_task_cancel(asleep)); /* woken: its sleep is over */
    CHECK_EQ(taal_task_uncancel(asleep), 0);
    CHECK_EQ(finish_task(&loop, ready), TAAL_OK);
    CHECK_EQ(finish_task(&loop, asleep), TAAL_ECANCELLED);
    CHECK_STR(trace, "r:start s:start s:cancelled r:done ");
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* Cancels itself, then sleeps (cancelled there), or returns at once. */
typedef struct self_canceller {
    taal_coro co;
    bool then_return;
    int st;
} self_canceller;

static int self_canceller_body(taal_coro *self)
{
    self_canceller *f = (self_canceller *)self;
    TAAL_BEGIN(f);
    note("c");
    taal_task_cancel(taal_current_task());
    if (f->then_return)
        TAAL_RETURN();
    note("s");
    TAAL_SLEEP_STATUS(f->st, 10);
    note(f->st == TAAL_ECANCELLED ? "x" : "?");
    TAAL_RETURN(); /* swallowed */
    TAAL_END();
}

TEST(a_task_that_cancels_itself_is_cancelled_at_its_next_await)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t = NULL;
    taal_task_create(&loop, self_canceller_body, NULL, sizeof(self_canceller), NULL, &t);
    CHECK_EQ(finish_task(&loop, t), TAAL_OK);
    CHECK_STR(trace, "csx");
    CHECK(taal_loop_time(&loop) < 1);
    /* Cancelled, then returning before any await: asyncio ends it cancelled. */
    taal_task_create(&loop, self_canceller_body, &(self_canceller){.then_return = true},
                     sizeof(self_canceller), NULL, &t);
    CHECK_EQ(finish_task(&loop, t), TAAL_ECANCELLED);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* TAAL_YIELD has no status to say "cancelled" with: a cancellation that
 * arrives while the task stopped there is delivered at its next await,
 * even when that await starts (here, a sleep of 0, itself a cancellation
 * point). */
typedef struct yielder {
    taal_coro co;
    int st;
} yielder;

static int yielder_body(taal_coro *self)
{
    yielder *f = (yielder *)self;
    TAAL_BEGIN(f);
    note("1");
    TAAL_YIELD();
    note("2"); /* runs: not a cancellation point */
    TAAL_SLEEP_STATUS(f->st, 0);
    note(f->st == TAAL_ECANCELLED ? "x" : "?");
    TAAL_SLEEP_STATUS(f->st, 0);
    note(f->st == TAAL_OK ? "3" : "?");
    TAAL_END();
}

TEST(sleep_zero_is_a_cancellation_point_and_a_bare_yield_is_not)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t = NULL;
    taal_task_create(&loop, yielder_body, NULL, sizeof(yielder), NULL, &t);
    taal_run_once(&loop);
    taal_task_cancel(t);
    CHECK_EQ(finish_task(&loop, t), TAAL_OK);
    CHECK_STR(trace, "12x3");
    /* A task asleep for 0 is ready, not in the heap: cancelled there, the
     * sleep's resume delivers it. */
    trace[0] = '\0';
    taal_task_create(&loop, yielder_body, NULL, sizeof(yielder), NULL, &t);
    taal_run_once(&loop);
    taal_run_once(&loop); /* "2", then asleep for 0 */
    taal_task_cancel(t);
    CHECK_EQ(finish_task(&loop, t), TAAL_OK);
    CHECK_STR(trace, "12x3");
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* Three coroutines awaited directly, one inside the other: the innermost
 * sleeps; a cancellation arrives there and unwinds outwards, each level
 * noting it on the way out. */
typedef struct level {
    taal_coro co;
    int depth, st;
    struct level *child; /* the next level, embedded in the parent frame */
} level;

typedef struct nest {
    taal_coro co;
    level levels[3];
    int st;
} nest;

static int level_body(taal_coro *self)
{
    level *f = (level *)self;
    TAAL_BEGIN(f);
    if (f->child == NULL) {
        TAAL_SLEEP_STATUS(f->st, 10);
    } else {
        taal_coro_init(&f->child->co, level_body);
        TAAL_AWAIT_STATUS(f->st, f->child);
    }
    note(f->st == TAAL_ECANCELLED ? (const char *[]){"0", "1", "2"}[f->depth] : "?");
    TAAL_FAIL(f->st);
    TAAL_END();
}

static int nest_body(taal_coro *self)
{
    nest *f = (nest *)self;
    TAAL_BEGIN(f);
    for (int i = 0; i < 3; i++)
        f->levels[i] = (level){.depth = 2 - i, .child = i < 2 ? &f->levels[i + 1] : NULL};
    taal_coro_init(&f->levels[0].co, level_body);
    TAAL_AWAIT_STATUS(f->st, &f->levels[0]);
    note("T");
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(a_cancellation_through_embedded_coroutines_unwinds_inside_out)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t = NULL;
    taal_task_create(&loop, nest_body, NULL, sizeof(nest), NULL, &t);
    taal_run_once(&loop);
    taal_task_cancel(t);
    CHECK_EQ(finish_task(&loop, t), TAAL_ECANCELLED);
    CHECK_STR(trace, "012T"); /* the innermost first */
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* ---- gather ---------------------------------------------------------------------- */

TEST(cancelling_a_gather_cancels_the_children_not_done_and_leaves_the_rest)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t[3] = {
        spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 1}),
        spawn_sleeper(&loop, (sleeper){.name = "b", .seconds = 10}),
        spawn_sleeper(&loop, (sleeper){.name = "c", .seconds = 10}),
    };
    taal_future *children[3], *g = NULL;
    for (int i = 0; i < 3; i++)
        children[i] = taal_task_future(t[i]);
    CHECK_EQ(taal_gather(&loop, 3, children, &g), TAAL_OK);
    taal_task *outer = spawn_awaiter(&loop, "g", g);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t[0])), TAAL_OK);
    CHECK(taal_task_cancel(outer)); /* the task awaiting the gather */
    CHECK_EQ(finish_task(&loop, outer), TAAL_ECANCELLED);
    CHECK_STR(trace,
              "a:start b:start c:start a:done b:cancelled c:cancelled g:cancelled ");
    CHECK_EQ(taal_task_cancelling(t[0]), 0); /* done: left alone */
    CHECK_EQ(taal_task_cancelling(t[1]), 1);
    CHECK_EQ(taal_gather_status(g, 0), TAAL_OK);
    CHECK_EQ(taal_gather_status(g, 1), TAAL_ECANCELLED);
    for (int i = 0; i < 3; i++)
        taal_task_release(t[i]);
    taal_future_release(g);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(a_cancelled_gather_ends_cancelled_even_if_its_children_swallow_it)
{
    taal_loop loop;
    open_loop(&loop);
    for (unsigned flags = 0; flags <= TAAL_RETURN_EXCEPTIONS; flags++) {
        trace[0] = '\0';
        taal_task *t[2] = {
            spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 10, .swallow = true}),
            spawn_sleeper(&loop, (sleeper){.name = "b", .seconds = 10, .swallow = true}),
        };
        taal_future *children[2] = {taal_task_future(t[0]), taal_task_future(t[1])}, *g;
        CHECK_EQ(taal_gather_ex(&loop, 2, children, flags, &g), TAAL_OK);
        taal_run_once(&loop);
        CHECK(taal_future_cancel(g));
        CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_ECANCELLED);
        CHECK_STR(trace, "a:start b:start a:cancelled b:cancelled ");
        CHECK_EQ(taal_future_status(children[0]), TAAL_OK); /* both swallowed */
        CHECK_EQ(taal_future_status(children[1]), TAAL_OK);
        CHECK(!taal_future_cancel(g)); /* done */
        for (int i = 0; i < 2; i++)
            taal_task_release(t[i]);
        taal_future_release(g);
        CHECK(loop_is_empty(&loop));
    }
    taal_loop_close(&loop);
}

/* asyncio's gather, a child cancelled on its own (not through the
 * gather): without return_exceptions the gather ends cancelled at once,
 * and the other child runs on; with it, the gather collects the
 * cancellation as a result and ends well. */
TEST(gather_with_a_child_cancelled_on_its_own_as_asyncio_does_both_ways)
{
    taal_loop loop;
    open_loop(&loop);
    for (unsigned flags = 0; flags <= TAAL_RETURN_EXCEPTIONS; flags++) {
        trace[0] = '\0';
        taal_task *t[2] = {
            spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 1}),
            spawn_sleeper(&loop, (sleeper){.name = "b", .seconds = 2}),
        };
        taal_future *children[2] = {taal_task_future(t[0]), taal_task_future(t[1])}, *g;
        CHECK_EQ(taal_gather_ex(&loop, 2, children, flags, &g), TAAL_OK);
        taal_run_once(&loop);
        taal_task_cancel(t[0]);
        CHECK_EQ(taal_run_until_complete(&loop, g), flags ? TAAL_OK : TAAL_ECANCELLED);
        CHECK(!taal_future_done(children[1]) == !flags); /* without: b runs on */
        CHECK_EQ(taal_gather_status(g, 0), TAAL_ECANCELLED);
        if (flags) {
            void *results;
            CHECK_EQ(taal_future_result(g, &results), TAAL_OK);
            CHECK(((void **)results)[0] == NULL);
            CHECK_EQ(taal_gather_status(g, 1), TAAL_OK);
        }
        CHECK_EQ(finish_task(&loop, t[1]), TAAL_OK);
        CHECK_STR(trace, "a:start b:start a:cancelled b:done ");
        taal_task_release(t[0]);
        taal_future_release(g);
        CHECK(loop_is_empty(&loop));
    }
    taal_loop_close(&loop);
}

/* asyncio's gather is never cancelled(), on 3.12 and 3.13: cancelled
 * itself, or by a child cancelled on its own, it ends with CancelledError
 * as its exception (set_exception(), not cancel()). Awaiting it raises
 * CancelledError, and an unretrieved one is logged as "exception was
 * never retrieved". taal's has the status TAAL_ECANCELLED, and
 * taal_future_cancelled() is false for it, in both cases. */
TEST(a_gather_is_never_cancelled_it_fails_with_the_cancellation_as_asyncio_s)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future f[3];
    for (int i = 0; i < 3; i++)
        taal_future_init(&f[i], &loop);
    taal_future *g[3];
    for (int i = 0; i < 3; i++)
        CHECK_EQ(taal_gather(&loop, 1, (taal_future *[]){&f[i]}, &g[i]), TAAL_OK);
    CHECK(taal_future_cancel(g[0]));  /* the gather itself */
    CHECK(taal_future_cancel(&f[1])); /* its child, on its own */
    CHECK(taal_future_cancel(&f[2])); /* the same, and nobody looks */
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(taal_run_until_complete(&loop, g[i]), TAAL_ECANCELLED);
        CHECK(!taal_future_cancelled(g[i]));
        CHECK(taal_future_cancelled(&f[i])); /* a plain future is */
        taal_future_release(g[i]);
    }
    CHECK(run_out(&loop, 10));
    CHECK_EQ(taal_future_status(g[2]), TAAL_ECANCELLED);
    reports[0] = '\0'; /* run_out's deadlock */
    taal_future_release(g[2]);
    CHECK_STR(reports, "a gather of 1 (0 not done) failed with \"cancelled\" and nobody "
                       "retrieved the error\n");
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* A shield copies its inner future's outcome as asyncio's does: a gather
 * that failed with the cancellation makes the shield fail with it too
 * (set_exception), not cancelled, and so on through a shield of a shield;
 * a shield cancelled itself is cancelled. */
TEST(a_shield_of_a_gather_that_failed_with_the_cancellation_is_not_cancelled)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future f, *g, *s, *s2, *own;
    taal_future_init(&f, &loop);
    CHECK_EQ(taal_gather(&loop, 1, (taal_future *[]){&f}, &g), TAAL_OK);
    CHECK_EQ(taal_shield(&loop, g, &s), TAAL_OK);
    CHECK_EQ(taal_shield(&loop, s, &s2), TAAL_OK);
    CHECK_EQ(taal_shield(&loop, g, &own), TAAL_OK);
    CHECK(taal_future_cancel(own));
    CHECK(taal_future_cancel(&f));
    CHECK_EQ(taal_run_until_complete(&loop, s2), TAAL_ECANCELLED);
    CHECK_EQ(taal_future_status(s), TAAL_ECANCELLED);
    CHECK(!taal_future_cancelled(g));
    CHECK(!taal_future_cancelled(s));
    CHECK(!taal_future_cancelled(s2));
    CHECK(taal_future_cancelled(own));
    taal_future_release(own);
    taal_future_release(s2);
    taal_future_release(s);
    taal_future_release(g);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(gather_with_return_exceptions_collects_errors_and_results)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future f[3];
    taal_future *children[3] = {&f[0], &f[1], &f[2]}, *g;
    for (int i = 0; i < 3; i++)
        taal_future_init(&f[i], &loop);
    CHECK_EQ(taal_gather_ex(&loop, 3, children, TAAL_RETURN_EXCEPTIONS, &g), TAAL_OK);
    static int one = 1;
    taal_future_set_error(&f[0], TAAL_EUSER);
    taal_future_set_result(&f[1], &one);
    taal_future_cancel(&f[2]);
    CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_OK);
    void *r;
    CHECK_EQ(taal_future_result(g, &r), TAAL_OK);
    void **results = r;
    CHECK(results[0] == NULL && results[1] == &one && results[2] == NULL);
    CHECK_EQ(taal_gather_status(g, 0), TAAL_EUSER);
    CHECK_EQ(taal_gather_status(g, 2), TAAL_ECANCELLED);
    taal_future_release(g);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
    CHECK_STR(reports, ""); /* the error was retrieved, by the gather */
}

TEST(cancelling_a_wait_ends_it_cancelled_and_leaves_its_children_alone)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t = spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 2});
    taal_future *children[1] = {taal_task_future(t)}, *w;
    CHECK_EQ(taal_wait(&loop, 1, children, TAAL_ALL_COMPLETED, 5, &w), TAAL_OK);
    taal_task *outer = spawn_awaiter(&loop, "w", w);
    taal_run_once(&loop);
    CHECK_EQ(loop.heap_len, 2); /* the sleep and the wait's timeout */
    CHECK(taal_task_cancel(outer));
    CHECK(taal_future_cancelled(w));
    CHECK_EQ(loop.heap_len, 1); /* the wait's timeout is gone */
    CHECK_EQ(finish_task(&loop, outer), TAAL_ECANCELLED);
    CHECK_EQ(finish_task(&loop, t), TAAL_OK);
    CHECK_STR(trace, "a:start w:cancelled a:done ");
    taal_future_release(w);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* asyncio's wait(FIRST_EXCEPTION) returns when a child raises, not when
 * one is cancelled: `f1.cancel(); await wait([f0, f1], timeout=5,
 * return_when=FIRST_EXCEPTION)` waits the 5 s on CPython 3.12 and 3.13. */
TEST(wait_first_exception_does_not_count_a_cancelled_child_as_an_exception)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future f[2];
    taal_future *children[2] = {&f[0], &f[1]}, *w;
    taal_future_init(&f[0], &loop);
    taal_future_init(&f[1], &loop);
    CHECK(taal_future_cancel(&f[1]));
    CHECK_EQ(taal_wait(&loop, 2, children, TAAL_FIRST_EXCEPTION, 5, &w), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, w), TAAL_OK);
    CHECK(taal_loop_time(&loop) >= 5); /* it ended by its timeout */
    taal_wait_sets *sets;
    CHECK_EQ(taal_future_result(w, (void **)&sets), TAAL_OK);
    CHECK_EQ(sets->done_count, 1);
    CHECK_EQ(sets->pending_count, 1);
    taal_future_release(w);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
    CHECK_STR(reports, "");
}

/* ---- shield ------------------------------------------------------------------------ */

TEST(cancelling_a_shield_leaves_the_inner_task_running)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *inner = spawn_sleeper(&loop, (sleeper){.name = "in", .seconds = 2});
    taal_future *outer;
    CHECK_EQ(taal_shield(&loop, taal_task_future(inner), &outer), TAAL_OK);
    taal_task *waiter = spawn_awaiter(&loop, "out", outer);
    taal_run_once(&loop);
    CHECK(taal_task_cancel(waiter));
    CHECK(taal_future_cancelled(outer));
    CHECK_EQ(taal_task_cancelling(inner), 0);
    CHECK_EQ(finish_task(&loop, waiter), TAAL_ECANCELLED);
    CHECK_EQ(finish_task(&loop, inner), TAAL_OK);
    CHECK_STR(trace, "in:start out:cancelled in:done ");
    CHECK(!taal_future_cancel(outer)); /* done */
    taal_future_release(outer);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* Fails with TAAL_EUSER after a second. */
typedef struct failer {
    taal_coro co;
} failer;

static int failer_body(taal_coro *self)
{
    failer *f = (failer *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(1);
    TAAL_FAIL(TAAL_EUSER);
    TAAL_END();
}

TEST(a_shield_passes_the_inner_result_and_failure_on)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *inner = NULL;
    taal_task_create(&loop, failer_body, NULL, sizeof(failer), NULL, &inner);
    taal_future *outer;
    CHECK_EQ(taal_shield(&loop, taal_task_future(inner), &outer), TAAL_OK);
    taal_task_release(inner); /* the shield holds it */
    taal_task *waiter = spawn_awaiter(&loop, "out", outer);
    CHECK_EQ(finish_task(&loop, waiter), TAAL_EUSER);
    taal_future_release(outer);
    /* A result, and a future done already: the shield is done at once. */
    static int value = 7;
    taal_future done;
    taal_future_init(&done, &loop);
    taal_future_set_result(&done, &value);
    CHECK_EQ(taal_shield(&loop, &done, &outer), TAAL_OK);
    CHECK(taal_future_done(outer));
    void *result;
    CHECK_EQ(taal_future_result(outer, &result), TAAL_OK);
    CHECK(result == &value);
    taal_future_release(outer);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
    CHECK_STR(reports, ""); /* the failure was retrieved through the shield */
}

/* The shield's inner future cancelled by other means: the shield ends
 * cancelled too (asyncio: "this will still cancel shield()"). */
TEST(a_shield_whose_inner_future_is_cancelled_ends_cancelled)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future inner;
    taal_future_init(&inner, &loop);
    taal_future *outer;
    CHECK_EQ(taal_shield(&loop, &inner, &outer), TAAL_OK);
    CHECK(taal_future_cancel(&inner));
    CHECK_EQ(taal_run_until_complete(&loop, outer), TAAL_ECANCELLED);
    taal_future_release(outer);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* A failed shield nobody awaited is reported when it is freed, and the
 * report names its inner task: so the inner task must still be there when
 * the report is written, though the shield held the last reference to it.
 * (ASan saw the report read the freed task.) */
TEST(a_failed_shield_never_awaited_is_reported_with_its_inner_task_when_released)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *inner = NULL;
    taal_task_create(&loop, failer_body, NULL, sizeof(failer), "inner", &inner);
    taal_future *outer;
    CHECK_EQ(taal_shield(&loop, taal_task_future(inner), &outer), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(inner)), TAAL_EUSER);
    CHECK(run_out(&loop, 10)); /* the shield takes the failure */
    reports[0] = '\0';         /* run_out's deadlock */
    CHECK_EQ(taal_future_status(outer), TAAL_EUSER);
    taal_task_release(inner); /* the shield holds it, as the last one */
    taal_future_release(outer);
    CHECK(loop_is_empty(&loop));
    CHECK_STR(reports, "a shield of task inner failed with \"user error\" and nobody "
                       "retrieved the error\n");
    taal_loop_close(&loop);
}

/* Makes a task that fails and a shield of it, and forgets both: the loop
 * frees them when it closes, the task first. */
typedef struct shield_maker {
    taal_coro co;
    taal_task *inner;
    taal_future *outer;
} shield_maker;

static int shield_maker_body(taal_coro *self)
{
    shield_maker *f = (shield_maker *)self;
    TAAL_BEGIN(f);
    taal_task_create(taal_running_loop(), failer_body, NULL, sizeof(failer), "inner",
                     &f->inner);
    taal_shield(taal_running_loop(), taal_task_future(f->inner), &f->outer);
    TAAL_END();
}

TEST(a_loop_closed_with_a_failed_shield_never_awaited_reports_it_whole)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *maker = NULL;
    taal_task_create(&loop, shield_maker_body, NULL, sizeof(shield_maker), "maker",
                     &maker);
    CHECK_EQ(finish_task(&loop, maker), TAAL_OK);
    CHECK(run_out(&loop, 10)); /* the inner task fails, the shield copies it */
    reports[0] = '\0';         /* run_out's deadlock */
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
    CHECK_STR(reports, "a shield of task inner failed with \"user error\" and nobody "
                       "retrieved the error\n");
}

/* ---- taal_run's end ------------------------------------------------------------------
 */

/* Waits for ever on a future of its own frame; cancelled, it fails with
 * TAAL_EUSER instead, as a cleanup that goes wrong would. */
typedef struct stubborn {
    taal_coro co;
    taal_future never;
    int st;
} stubborn;

static int stubborn_body(taal_coro *self)
{
    stubborn *f = (stubborn *)self;
    TAAL_BEGIN(f);
    taal_future_init(&f->never, taal_running_loop());
    TAAL_AWAIT_FUTURE_STATUS(f->st, &f->never);
    note(f->st == TAAL_ECANCELLED ? "b:cancelled " : "b:woken ");
    TAAL_FAIL(TAAL_EUSER);
    TAAL_END();
}

/* Starts a sleeper whose cleanup takes a second, and the stubborn one,
 * and returns at once, leaving both running. */
typedef struct leaver {
    taal_coro co;
} leaver;

static int leaver_body(taal_coro *self)
{
    leaver *f = (leaver *)self;
    TAAL_BEGIN(f);
    taal_task_release(spawn_sleeper(
        taal_running_loop(), (sleeper){.name = "a", .seconds = 100, .cleanup = 1}));
    taal_task_create(taal_running_loop(), stubborn_body, NULL, sizeof(stubborn), "b",
                     NULL);
    TAAL_SLEEP(0); /* both start */
    note("main:returns ");
    TAAL_END();
}

/* asyncio.run() cancels the tasks main left running, runs the loop until
 * they have finished (their cleanup included), and reports an error other
 * than the cancellation that one of them ends with: "unhandled exception
 * during asyncio.run() shutdown". Nothing is left pending at the close. */
TEST(taal_run_cancels_the_tasks_main_left_and_runs_their_cleanup_as_asyncio_run)
{
    trace[0] = reports[0] = '\0';
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = collect_report};
    CHECK_EQ(taal_run(leaver_body, NULL, sizeof(leaver), &options, NULL), TAAL_OK);
    CHECK_STR(trace, "a:start main:returns a:cancelled b:cancelled a:cleaned ");
    CHECK_STR(reports,
              "task b failed with \"user error\" during taal_run()'s shutdown\n");
}

/* Every allocation of that run fails in turn: the run ends well or with
 * TAAL_ENOMEM, and leaks nothing. When the shutdown's own allocation
 * fails, the tasks main left are not cancelled: the close reports them
 * pending, and frees them. */
TEST(taal_run_out_of_memory_at_its_end_reports_the_tasks_left_and_leaks_nothing)
{
    static const taal_allocator failing = {taal_check_malloc, taal_check_realloc,
                                           taal_check_free};
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = collect_report};
    CHECK_EQ(taal_set_allocator(&failing), TAAL_OK);
    bool left_pending = false;
    for (long n = 1; n < 100; n++) {
        trace[0] = reports[0] = '\0';
        taal_check_alloc_reset(n);
        int rc = taal_run(leaver_body, NULL, sizeof(leaver), &options, NULL);
        CHECK(rc == TAAL_OK || rc == TAAL_ENOMEM);
        CHECK_EQ(taal_check_alloc_live(), 0);
        if (rc == TAAL_OK && strstr(reports, "task a was still pending") != NULL)
            left_pending = true;
        if (taal_check_alloc.attempts < n)
            break; /* the failure was never reached */
    }
    taal_set_allocator(NULL);
    CHECK(left_pending);
}

/* Starts a sleeper whose cleanup takes a second, stops the loop, and
 * sleeps on, noting a cancellation. */
static int stopper_body(taal_coro *self)
{
    sleeper *f = (sleeper *)self;
    TAAL_BEGIN(f);
    taal_task_release(spawn_sleeper(
        taal_running_loop(), (sleeper){.name = "a", .seconds = 100, .cleanup = 1}));
    TAAL_SLEEP(0); /* a starts */
    taal_stop(taal_running_loop());
    TAAL_SLEEP_STATUS(f->st, 5);
    note2("main", f->st == TAAL_ECANCELLED ? "cancelled" : "woken");
    TAAL_FAIL(f->st);
    TAAL_END();
}

/* A main that stops the loop: asyncio.run() raises "Event loop stopped
 * before Future completed", but first cancels every task still pending,
 * main among them, and runs their cleanup (CPython 3.12 and 3.13). */
TEST(taal_run_cancels_what_is_left_when_main_stops_the_loop_as_asyncio_run)
{
    trace[0] = reports[0] = '\0';
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = collect_report};
    CHECK_EQ(taal_run(stopper_body, NULL, sizeof(sleeper), &options, NULL),
             TAAL_ESTOPPED);
    CHECK_STR(trace, "a:start main:cancelled a:cancelled a:cleaned ");
    CHECK_STR(reports, "");
}

/* Cancelled, stops the loop again and sleeps a second more. */
static int restopper_body(taal_coro *self)
{
    sleeper *f = (sleeper *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP_STATUS(f->st, 100);
    note2("r", taal_strerror(f->st));
    taal_stop(taal_running_loop());
    TAAL_SLEEP_STATUS(f->st, 1);
    note2("r", "cleaned");
    TAAL_END();
}

static int restop_main_body(taal_coro *self)
{
    sleeper *f = (sleeper *)self;
    TAAL_BEGIN(f);
    taal_task_create(taal_running_loop(), restopper_body, NULL, sizeof(sleeper), "r",
                     NULL);
    TAAL_SLEEP(0);
    taal_stop(taal_running_loop());
    TAAL_SLEEP(5);
    TAAL_END();
}

/* A task whose cleanup stops the loop again ends the shutdown early: the
 * run fails with TAAL_ESTOPPED, and the close reports the task still
 * pending and frees it (asyncio.run() would raise from its shutdown). */
TEST(a_stop_during_taal_runs_shutdown_ends_it_and_the_close_reports_what_is_left)
{
    trace[0] = reports[0] = '\0';
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = collect_report};
    CHECK_EQ(taal_run(restop_main_body, NULL, sizeof(sleeper), &options, NULL),
             TAAL_ESTOPPED);
    CHECK_STR(trace, "r:cancelled ");
    CHECK(strstr(reports, "task r was still pending") != NULL);
}

/* ---- reports and traces ---------------------------------------------------------------
 */

TEST(the_dump_and_the_trace_say_cancelled)
{
    taal_loop loop;
    char path[] = "test_cancel_trace.json";
    taal_loop_options options = {
        .clock = TAAL_CLOCK_VIRTUAL, .report = collect_report, .trace = path};
    reports[0] = '\0';
    trace[0] = '\0';
    taal_loop_init(&loop, &options);
    taal_task *t = spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 10});
    taal_task_cancel(t); /* before its first step */
    CHECK_EQ(taal_loop_dump(&loop), 1);
    CHECK(strstr(reports, "a: ready, being cancelled") != NULL);
    taal_run_once(&loop); /* it ends cancelled at once */
    reports[0] = '\0';
    taal_loop_dump(&loop);
    CHECK(strstr(reports, "a: done: cancelled") != NULL);
    taal_task *u = spawn_sleeper(&loop, (sleeper){.name = "u", .seconds = 10});
    taal_run_once(&loop);
    taal_task_cancel(u); /* asleep: woken, to be cancelled */
    CHECK_EQ(finish_task(&loop, u), TAAL_ECANCELLED);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
    FILE *file = fopen(path, "r");
    CHECK(file != NULL);
    static char json[16384];
    size_t n = fread(json, 1, sizeof json - 1, file);
    fclose(file);
    remove(path);
    json[n] = '\0';
    CHECK(strstr(json, "\"why\":\"cancel\"") != NULL);
    CHECK(strstr(json, "\"status\":\"cancelled\"") != NULL);
}

/* ---- bad input --------------------------------------------------------------------- */

TEST(cancelling_bad_things_returns_false_or_einval)
{
    taal_loop loop;
    open_loop(&loop);
    CHECK(!taal_task_cancel(NULL));
    CHECK(!taal_future_cancel(NULL));
    CHECK(!taal_future_cancelled(NULL));
    CHECK_EQ(taal_task_cancelling(NULL), TAAL_EINVAL);
    CHECK_EQ(taal_task_uncancel(NULL), TAAL_EINVAL);
    taal_future never = {0}; /* never initialised */
    CHECK(!taal_future_cancel(&never));
    /* A primitive's waiters refuse: cancel the waiting task instead. */
    taal_semaphore sem;
    taal_semaphore_init(&sem, &loop, 0, "s");
    CHECK(!taal_future_cancel(&sem.waiters.future));
    CHECK_EQ(taal_semaphore_destroy(&sem), TAAL_OK);
    /* gather_ex: unknown flags; gather_status: not a gather, out of range. */
    taal_future f, *g = NULL, *children[1] = {&f};
    taal_future_init(&f, &loop);
    CHECK_EQ(taal_gather_ex(&loop, 1, children, 2, &g), TAAL_EINVAL);
    CHECK_EQ(taal_gather_status(&f, 0), TAAL_EINVAL);
    CHECK_EQ(taal_gather_ex(&loop, 1, children, 0, &g), TAAL_OK);
    CHECK_EQ(taal_gather_status(g, 1), TAAL_EINVAL);
    CHECK_EQ(taal_gather_status(g, 0), TAAL_SUSPENDED);
    CHECK_EQ(taal_gather_status(NULL, 0), TAAL_EINVAL);
    /* shield: NULL, the waiters of a primitive, another loop's future. */
    taal_future *outer = NULL;
    CHECK_EQ(taal_shield(&loop, NULL, &outer), TAAL_EINVAL);
    CHECK_EQ(taal_shield(NULL, &f, &outer), TAAL_EINVAL);
    CHECK_EQ(taal_shield(&loop, &f, NULL), TAAL_EINVAL);
    taal_loop other;
    open_loop(&other);
    CHECK_EQ(taal_shield(&other, &f, &outer), TAAL_ELOOP);
    taal_loop_close(&other);
    CHECK(taal_future_cancel(g));
    CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_ECANCELLED);
    taal_future_release(g);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(a_task_of_a_closed_loop_cannot_be_cancelled)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 10});
    taal_run_once(&loop);
    taal_loop_close(&loop); /* t is held by main: it survives, inert */
    CHECK(!taal_task_cancel(t));
    CHECK(!taal_future_cancel(taal_task_future(t)));
    CHECK_EQ(taal_task_cancelling(t), 0);
    taal_task_release(t);
    CHECK(strstr(reports, "task a was still pending when the loop closed") != NULL);
}

/* Arms a timer and schedules a callback, both in its own frame, and
 * sleeps: the loop is closed under it. */
typedef struct armed {
    taal_coro co;
    taal_timer timer;
    taal_handle soon;
} armed;

static int armed_body(taal_coro *self)
{
    armed *f = (armed *)self;
    TAAL_BEGIN(f);
    taal_call_later(taal_running_loop(), &f->timer, 5, note_callback, "t");
    taal_call_soon(taal_running_loop(), &f->soon, note_callback, "s");
    TAAL_SLEEP(10);
    TAAL_END();
}

/* Closing frees the frames of pending tasks: the timers and handles in
 * them must be forgotten before, not after (the sanitizers and valgrind
 * see the difference). */
TEST(a_loop_closed_with_callbacks_armed_in_a_pending_frame_forgets_them_first)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task_create(&loop, armed_body, NULL, sizeof(armed), "armed", NULL);
    taal_run_once(&loop);
    CHECK_EQ(loop.heap_len, 2);
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
    CHECK_STR(trace, "");
    CHECK(strstr(reports, "task armed was still pending") != NULL);
}

/* TAAL_CHAPTER and TAAL_VERSION. These tests run against every later
 * chapter too: the header is chapter 05 or later, and exactly the one the
 * build says it built them against, of the CMake project's version. */
TEST(the_header_says_which_chapter_and_which_version_of_taal_it_is)
{
    CHECK(TAAL_CHAPTER >= 5);
    CHECK_EQ(TAAL_CHAPTER, TAAL_TESTED_CHAPTER);
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", TAAL_VERSION_MAJOR, TAAL_VERSION_MINOR,
             TAAL_VERSION_PATCH);
    CHECK_STR(version, TAAL_VERSION);
    CHECK_STR(TAAL_VERSION, TAAL_TESTED_VERSION);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_task_cancelled_before_its_first_step_runs_none_of_its_body),
    TEST_ENTRY(cancelling_a_task_that_is_done_returns_false_and_changes_nothing),
    TEST_ENTRY(a_sleeping_task_is_cancelled_at_once_and_its_timer_leaves_the_heap),
    TEST_ENTRY(
        a_task_whose_sleep_is_due_in_the_iteration_of_the_cancel_wakes_at_the_cancel),
    TEST_ENTRY(cancelling_a_task_awaiting_a_plain_future_cancels_it_for_every_waiter),
    TEST_ENTRY(cancelling_a_task_awaiting_a_task_cancels_the_inner_first_then_the_outer),
    TEST_ENTRY(an_awaited_task_that_swallows_the_cancellation_lets_the_awaiter_carry_on),
    TEST_ENTRY(two_cancels_before_delivery_are_delivered_once),
    TEST_ENTRY(a_second_cancel_during_cleanup_interrupts_the_cleanups_next_await),
    TEST_ENTRY(a_task_that_swallows_the_cancellation_finishes_normally),
    TEST_ENTRY(cancelling_counts_requests_and_uncancel_takes_them_back),
    TEST_ENTRY(uncancel_to_zero_withdraws_a_request_not_yet_acted_on),
    TEST_ENTRY(a_task_that_cancels_itself_is_cancelled_at_its_next_await),
    TEST_ENTRY(sleep_zero_is_a_cancellation_point_and_a_bare_yield_is_not),
    TEST_ENTRY(a_cancellation_through_embedded_coroutines_unwinds_inside_out),
    TEST_ENTRY(cancelling_a_gather_cancels_the_children_not_done_and_leaves_the_rest),
    TEST_ENTRY(a_cancelled_gather_ends_cancelled_even_if_its_children_swallow_it),
    TEST_ENTRY(gather_with_a_child_cancelled_on_its_own_as_asyncio_does_both_ways),
    TEST_ENTRY(a_gather_is_never_cancelled_it_fails_with_the_cancellation_as_asyncio_s),
    TEST_ENTRY(a_shield_of_a_gather_that_failed_with_the_cancellation_is_not_cancelled),
    TEST_ENTRY(gather_with_return_exceptions_collects_errors_and_results),
    TEST_ENTRY(cancelling_a_wait_ends_it_cancelled_and_leaves_its_children_alone),
    TEST_ENTRY(wait_first_exception_does_not_count_a_cancelled_child_as_an_exception),
    TEST_ENTRY(cancelling_a_shield_leaves_the_inner_task_running),
    TEST_ENTRY(a_shield_passes_the_inner_result_and_failure_on),
    TEST_ENTRY(a_shield_whose_inner_future_is_cancelled_ends_cancelled),
    TEST_ENTRY(
        a_failed_shield_never_awaited_is_reported_with_its_inner_task_when_released),
    TEST_ENTRY(a_loop_closed_with_a_failed_shield_never_awaited_reports_it_whole),
    TEST_ENTRY(
        taal_run_cancels_the_tasks_main_left_and_runs_their_cleanup_as_asyncio_run),
    TEST_ENTRY(
        taal_run_out_of_memory_at_its_end_reports_the_tasks_left_and_leaks_nothing),
    TEST_ENTRY(taal_run_cancels_what_is_left_when_main_stops_the_loop_as_asyncio_run),
    TEST_ENTRY(
        a_stop_during_taal_runs_shutdown_ends_it_and_the_close_reports_what_is_left),
    TEST_ENTRY(the_dump_and_the_trace_say_cancelled),
    TEST_ENTRY(cancelling_bad_things_returns_false_or_einval),
    TEST_ENTRY(a_task_of_a_closed_loop_cannot_be_cancelled),
    TEST_ENTRY(a_loop_closed_with_callbacks_armed_in_a_pending_frame_forgets_them_first),
    TEST_ENTRY(the_header_says_which_chapter_and_which_version_of_taal_it_is),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
