/*
** test_deliver.c -- lab 05, exercise 1: delivering a cancellation.
**
**   taal_task_cancel(task)   asyncio's Task.cancel(): a request
**
** A request counts (cancelling()), and is acted on where the task is: a
** sleeping task's timer leaves the heap and the task is scheduled at once;
** a task in a primitive's line leaves it at once; a task awaiting a future
** cancels that future and wakes when it is done; a ready or running task
** is marked, and told at its next step. The step delivers it: the await
** the task resumes at says TAAL_ECANCELLED, and a task that never started
** runs none of its body. Each test looks at the heap, the line and the
** task's `cancel` state right after the call that should change them.
*/
#include "lab.h"

TEST(a_sleeping_task_is_woken_at_once_and_its_timer_leaves_the_heap)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 10});
    taal_run_once(&loop); /* it starts, and sleeps */
    CHECK_EQ(loop.heap_len, 1);
    CHECK(taal_task_cancel(t));
    CHECK_EQ(loop.heap_len, 0); /* at once, not when the 10 s are up */
    CHECK_EQ(t->cancel, TAAL_CANCEL_WOKEN);
    CHECK(taal_handle_pending(&t->step.handle)); /* scheduled */
    CHECK_EQ(taal_task_cancelling(t), 1);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "ax"); /* its sleep said "cancelled" */
    CHECK(taal_future_done(taal_task_future(t)));
    CHECK_EQ(taal_future_status(taal_task_future(t)), TAAL_ECANCELLED);
    CHECK(sleeper_of(t)->at[0] == 0.0);
    CHECK_EQ(t->cancel, TAAL_CANCEL_NONE);
    taal_task_release(t);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(a_task_cancelled_before_its_first_step_runs_none_of_its_body)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 10});
    CHECK(taal_task_cancel(t));
    CHECK_EQ(t->cancel, TAAL_CANCEL_REQUESTED); /* it is ready: told at its step */
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK(taal_future_done(taal_task_future(t)));
    CHECK_EQ(taal_future_status(taal_task_future(t)), TAAL_ECANCELLED);
    CHECK_STR(trace, ""); /* not even its first line */
    CHECK_EQ(loop.heap_len, 0);
    taal_task_release(t);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

/* A task that yielded (sleep(0)) is ready: the cancel marks it, and its
 * next step delivers it at the await it resumes at. */
TEST(a_ready_task_is_told_at_the_await_it_resumes_at)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 0});
    taal_run_once(&loop); /* "a", then a bare yield: ready again */
    CHECK_STR(trace, "a");
    CHECK(taal_task_cancel(t));
    CHECK_EQ(t->cancel, TAAL_CANCEL_REQUESTED);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "ax");
    CHECK_EQ(taal_future_status(taal_task_future(t)), TAAL_ECANCELLED);
    taal_task_release(t);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

/* Taken back before the task's step, a request is never delivered. */
TEST(uncancel_to_zero_withdraws_a_request_not_yet_acted_on)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 0});
    taal_run_once(&loop);
    CHECK(taal_task_cancel(t));
    CHECK_EQ(taal_task_cancelling(t), 1);
    CHECK_EQ(taal_task_uncancel(t), 0);
    CHECK_EQ(t->cancel, TAAL_CANCEL_NONE);
    CHECK_EQ(run_to_end(&loop, t), TAAL_OK);
    CHECK_STR(trace, "a.");
    taal_task_release(t);
    taal_loop_close(&loop);
}

TEST(two_cancels_before_delivery_are_delivered_once)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t =
        spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 10, .cleanup = 1});
    taal_run_once(&loop);
    CHECK(taal_task_cancel(t));
    CHECK(taal_task_cancel(t)); /* true again: the task is not done */
    CHECK_EQ(taal_task_cancelling(t), 2);
    CHECK_EQ(run_to_end(&loop, t), TAAL_ECANCELLED);
    CHECK_STR(trace, "axc."); /* the cleanup's await was not interrupted */
    CHECK(sleeper_of(t)->at[1] == 1.0);
    taal_task_release(t);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(a_cancel_during_cleanup_interrupts_the_cleanups_next_await)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t =
        spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 10, .cleanup = 1});
    taal_run_once(&loop);
    CHECK(taal_task_cancel(t));
    taal_run_once(&loop); /* delivered: the cleanup's sleep begins */
    CHECK_STR(trace, "ax");
    CHECK_EQ(t->cancel, TAAL_CANCEL_NONE); /* delivered once, and done with */
    CHECK_EQ(loop.heap_len, 1);
    CHECK(taal_task_cancel(t));
    CHECK_EQ(loop.heap_len, 0);
    CHECK_EQ(run_to_end(&loop, t), TAAL_ECANCELLED);
    CHECK_STR(trace, "axcx");
    CHECK(sleeper_of(t)->at[1] == 0.0);
    CHECK_EQ(taal_task_cancelling(t), 2);
    taal_task_release(t);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

/* Awaits `inner`, notes "o" and how the await ended, and ends with it. */
typedef struct outer {
    taal_coro co;
    taal_task *inner;
    int st;
} outer;

static int outer_body(taal_coro *self)
{
    outer *f = (outer *)self;
    TAAL_BEGIN(f);
    TAAL_AWAIT_TASK_STATUS(f->st, f->inner);
    note(f->st == TAAL_OK ? "o." : f->st == TAAL_ECANCELLED ? "ox" : "o?");
    TAAL_FAIL(f->st);
    TAAL_END();
}

static taal_task *spawn_outer(taal_loop *loop, taal_task *inner)
{
    taal_task *task = NULL;
    taal_task_create(loop, outer_body, &(outer){.inner = inner}, sizeof(outer), "o",
                     &task);
    return task;
}

TEST(cancelling_a_task_that_awaits_a_task_cancels_the_inner_one_first)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *in = spawn_sleeper(&loop, (sleeper){.name = "i", .seconds = 10});
    taal_task *out = spawn_outer(&loop, in);
    taal_run_once(&loop); /* i sleeps; o waits for i */
    CHECK(taal_task_cancel(out));
    CHECK_EQ(loop.heap_len, 0); /* the inner task's sleep was cut short */
    CHECK_EQ(taal_task_cancelling(in), 1);
    CHECK_EQ(in->cancel, TAAL_CANCEL_WOKEN);
    CHECK_EQ(taal_task_cancelling(out), 1);
    CHECK_EQ(out->cancel, TAAL_CANCEL_NONE); /* the inner one took it: o waits on */
    CHECK(out->step.handle.future == taal_task_future(in)); /* still parked on it */
    taal_run_once(&loop);
    CHECK_STR(trace, "ix"); /* the inner one first */
    CHECK(!taal_future_done(taal_task_future(out)));
    CHECK_EQ(run_to_end(&loop, out), TAAL_ECANCELLED);
    CHECK_STR(trace, "ixox");
    taal_task_release(in);
    taal_task_release(out);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(an_awaited_task_that_swallows_the_cancellation_lets_the_awaiter_carry_on)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *in =
        spawn_sleeper(&loop, (sleeper){.name = "i", .seconds = 10, .swallow = true});
    taal_task *out = spawn_outer(&loop, in);
    taal_run_once(&loop);
    CHECK(taal_task_cancel(out));
    CHECK_EQ(run_to_end(&loop, out), TAAL_OK);
    CHECK_STR(trace, "ixo.");
    void *answer = NULL;
    CHECK_EQ(taal_future_result(taal_task_future(in), &answer), TAAL_OK);
    CHECK(answer != NULL && *(int *)answer == 42);
    CHECK(taal_loop_time(&loop) == 0.0);
    taal_task_release(in);
    taal_task_release(out);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

/* Cancels itself, then sleeps 10 s: the sleep is its next await. */
typedef struct self_canceller {
    taal_coro co;
    int st;
    bool asked;
} self_canceller;

static int self_canceller_body(taal_coro *self)
{
    self_canceller *f = (self_canceller *)self;
    TAAL_BEGIN(f);
    f->asked = taal_task_cancel(taal_current_task());
    note("s");
    TAAL_SLEEP_STATUS(f->st, 10);
    note(f->st == TAAL_ECANCELLED ? "x" : ".");
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(a_task_that_cancels_itself_is_cancelled_at_its_next_await)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = NULL;
    taal_task_create(&loop, self_canceller_body, NULL, sizeof(self_canceller), "s", &t);
    taal_run_once(&loop);
    self_canceller *f = taal_task_frame(t);
    CHECK(f->asked);
    CHECK_STR(trace, "s");      /* the rest of the step ran */
    CHECK_EQ(loop.heap_len, 0); /* and its sleep is over before it began */
    CHECK_EQ(run_to_end(&loop, t), TAAL_ECANCELLED);
    CHECK_STR(trace, "sx");
    CHECK(taal_loop_time(&loop) == 0.0);
    taal_task_release(t);
    taal_loop_close(&loop);
}

/* Waits for an event. */
typedef struct event_waiter {
    taal_coro co;
    taal_event *event;
    int st;
} event_waiter;

static int event_waiter_body(taal_coro *self)
{
    event_waiter *f = (event_waiter *)self;
    TAAL_BEGIN(f);
    TAAL_EVENT_WAIT_STATUS(f->st, f->event);
    TAAL_FAIL(f->st);
    TAAL_END();
}

/* The task leaves the line at once (what its await then says is exercise
 * 2's business: this test only asks that it ends). */
TEST(a_task_waiting_in_a_line_leaves_it_at_once_and_is_scheduled)
{
    taal_loop loop;
    open_loop(&loop);
    taal_event event;
    taal_event_init(&event, &loop, "e");
    taal_task *t = NULL;
    taal_task_create(&loop, event_waiter_body, &(event_waiter){.event = &event},
                     sizeof(event_waiter), "w", &t);
    taal_run_once(&loop);
    CHECK_EQ(in_line(&event.waiters), 1);
    CHECK(taal_task_cancel(t));
    CHECK_EQ(in_line(&event.waiters), 0);
    CHECK_EQ(t->cancel, TAAL_CANCEL_WOKEN);
    CHECK(taal_handle_pending(&t->step.handle));
    iterations(&loop, 2);
    CHECK(taal_future_done(taal_task_future(t)));
    CHECK(taal_future_status(taal_task_future(t)) != TAAL_OK);
    CHECK_EQ(taal_event_destroy(&event), TAAL_OK); /* nobody waits on it */
    taal_task_release(t);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(a_task_that_is_done_cannot_be_cancelled_and_its_count_stays)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn_sleeper(&loop, (sleeper){.name = "a", .seconds = 1});
    taal_run_once(&loop);
    CHECK(taal_task_cancel(t));
    CHECK_EQ(run_to_end(&loop, t), TAAL_ECANCELLED);
    CHECK(!taal_task_cancel(t));
    CHECK_EQ(taal_task_cancelling(t), 1);
    taal_task_release(t);
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_sleeping_task_is_woken_at_once_and_its_timer_leaves_the_heap),
    TEST_ENTRY(a_task_cancelled_before_its_first_step_runs_none_of_its_body),
    TEST_ENTRY(a_ready_task_is_told_at_the_await_it_resumes_at),
    TEST_ENTRY(uncancel_to_zero_withdraws_a_request_not_yet_acted_on),
    TEST_ENTRY(two_cancels_before_delivery_are_delivered_once),
    TEST_ENTRY(a_cancel_during_cleanup_interrupts_the_cleanups_next_await),
    TEST_ENTRY(cancelling_a_task_that_awaits_a_task_cancels_the_inner_one_first),
    TEST_ENTRY(an_awaited_task_that_swallows_the_cancellation_lets_the_awaiter_carry_on),
    TEST_ENTRY(a_task_that_cancels_itself_is_cancelled_at_its_next_await),
    TEST_ENTRY(a_task_waiting_in_a_line_leaves_it_at_once_and_is_scheduled),
    TEST_ENTRY(a_task_that_is_done_cannot_be_cancelled_and_its_count_stays),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
