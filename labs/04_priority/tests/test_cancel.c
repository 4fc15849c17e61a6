/*
** test_cancel.c -- lab 04, exercise 1: cancellable handles.
**
**   taal_timer_cancel(loop, timer)   asyncio's TimerHandle.cancel()
**   taal_handle_cancel(handle)       asyncio's Handle.cancel()
**   taal_timer_when(timer)           asyncio's TimerHandle.when()
**
** A cancelled callback never runs, whether it was armed in the heap (it
** leaves the heap at once), due in the ready queue, or in the very batch
** the loop is running; cancelling one that ran, or twice, is harmless, and
** cancelled() says true afterwards, as asyncio's does. Scheduling it again
** clears the mark. No test here gives anything a priority: this exercise
** does not need the ready queue of exercise 2.
*/
#include "lab.h"

#include <math.h> /* NAN */

/* Runs iterations until no timer is armed and nothing is ready (bounded). */
static void drain(taal_loop *loop)
{
    for (int i = 0; i < 100000 && loop->heap_len > 0; i++)
        taal_run_once(loop);
    taal_run_once(loop);
}

TEST(an_armed_timer_cancelled_leaves_the_heap_at_once_and_never_runs)
{
    taal_loop loop;
    open_loop(&loop);
    taal_timer a = {0}, b = {0}, c = {0};
    CHECK_EQ(taal_call_later(&loop, &a, 1.0, note_callback, "a"), TAAL_OK);
    CHECK_EQ(taal_call_later(&loop, &b, 2.0, note_callback, "b"), TAAL_OK);
    CHECK_EQ(taal_call_later(&loop, &c, 3.0, note_callback, "c"), TAAL_OK);
    CHECK(!taal_handle_cancelled(&b.handle));
    CHECK_EQ(taal_timer_cancel(&loop, &b), TAAL_OK);
    CHECK(taal_handle_cancelled(&b.handle));
    CHECK_EQ(loop.heap_len, 2); /* out at once: not left in the heap to expire */
    CHECK_EQ(b.index, 0);
    CHECK(loop.heap[0].timer == &a); /* and the heap is still a heap */
    drain(&loop);
    CHECK_STR(trace, "ac");
    CHECK(taal_loop_time(&loop) == 3.0);
    taal_loop_close(&loop);
}

/* Two timers due at the same moment run in one batch; the first cancels
 * the second, which is due (out of the heap, in the batch) and must not
 * run. And the other way round: only the first of the two runs. */
static taal_timer pair[2];

static void cancel_the_other(void *data)
{
    int me = *(const int *)data;
    note(me == 0 ? "0" : "1");
    taal_timer_cancel(taal_running_loop(), &pair[1 - me]);
}

TEST(a_due_timer_in_the_batch_being_run_is_cancelled_too)
{
    static const int ids[2] = {0, 1};
    taal_loop loop;
    open_loop(&loop);
    pair[0] = pair[1] = (taal_timer){0};
    taal_call_later(&loop, &pair[0], 0.5, cancel_the_other, (void *)&ids[0]);
    taal_call_later(&loop, &pair[1], 0.5, cancel_the_other, (void *)&ids[1]);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* both due: one batch */
    CHECK_STR(trace, "0");
    CHECK(taal_handle_cancelled(&pair[1].handle));
    CHECK(!taal_handle_pending(&pair[1].handle));
    CHECK(!taal_handle_cancelled(&pair[0].handle));
    drain(&loop);
    CHECK_STR(trace, "0");
    taal_loop_close(&loop);
}

/* A call_soon handle, cancelled before its iteration, and another
 * cancelled by a callback that runs before it in the same batch. */
static taal_handle soon[3];

static void cancel_third(void *data)
{
    (void)data;
    note("x");
    CHECK_EQ(taal_handle_cancel(&soon[2]), TAAL_OK);
}

TEST(a_call_soon_handle_is_cancelled_in_the_ready_queue_and_in_the_batch)
{
    taal_loop loop;
    open_loop(&loop);
    for (int i = 0; i < 3; i++)
        soon[i] = (taal_handle){0};
    CHECK_EQ(taal_call_soon(&loop, &soon[0], note_callback, "a"), TAAL_OK);
    CHECK_EQ(taal_handle_cancel(&soon[0]), TAAL_OK);
    CHECK(!taal_handle_pending(&soon[0]));
    CHECK(taal_handle_cancelled(&soon[0]));
    CHECK_EQ(taal_call_soon(&loop, &soon[1], cancel_third, NULL), TAAL_OK);
    CHECK_EQ(taal_call_soon(&loop, &soon[2], note_callback, "y"), TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "x");
    CHECK(taal_handle_cancelled(&soon[2]));
    CHECK(!taal_handle_pending(&soon[2]));
    taal_loop_close(&loop);
}

TEST(cancelling_what_ran_or_twice_is_harmless_and_rescheduling_clears_it)
{
    taal_loop loop;
    open_loop(&loop);
    taal_handle h = {0};
    taal_timer t = {0}, other = {0};
    taal_call_soon(&loop, &h, note_callback, "h");
    taal_call_later(&loop, &t, 0.5, note_callback, "t");
    taal_call_later(&loop, &other, 9.0, note_callback, "o");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "ht");
    CHECK_EQ(taal_handle_cancel(&h), TAAL_OK);
    CHECK_EQ(taal_timer_cancel(&loop, &t), TAAL_OK);
    CHECK_EQ(taal_timer_cancel(&loop, &t), TAAL_OK);
    CHECK(taal_handle_cancelled(&h)); /* as asyncio: cancelled() is now true */
    CHECK(taal_handle_cancelled(&t.handle));
    CHECK_EQ(loop.heap_len, 1); /* the other timer is untouched */
    CHECK(loop.heap[0].timer == &other);
    CHECK_EQ(taal_call_soon(&loop, &h, note_callback, "H"), TAAL_OK);
    CHECK(!taal_handle_cancelled(&h));
    CHECK_EQ(taal_call_later(&loop, &t, 1.0, note_callback, "T"), TAAL_OK);
    CHECK(!taal_handle_cancelled(&t.handle));
    drain(&loop);
    CHECK_STR(trace, "htHTo");
    taal_loop_close(&loop);
}

TEST(when_is_the_deadline_a_timer_was_last_armed_for)
{
    taal_loop loop;
    open_loop(&loop);
    taal_timer never = {0}, t = {0}, at = {0};
    CHECK(taal_timer_when(&never) == 0.0);
    CHECK(taal_timer_when(NULL) == 0.0);
    CHECK_EQ(taal_call_later(&loop, &t, 1.5, note_callback, "t"), TAAL_OK);
    CHECK(taal_timer_when(&t) == 1.5);
    CHECK_EQ(taal_call_at(&loop, &at, 7.25, note_callback, "a"), TAAL_OK);
    CHECK(taal_timer_when(&at) == 7.25);
    CHECK_EQ(taal_timer_cancel(&loop, &at), TAAL_OK);
    CHECK(taal_timer_when(&at) == 7.25); /* cancelling does not forget it */
    drain(&loop);
    CHECK(taal_timer_when(&t) == 1.5); /* nor does firing */
    CHECK_EQ(taal_call_later(&loop, &t, 2.0, note_callback, "T"), TAAL_OK);
    CHECK(taal_timer_when(&t) == 3.5); /* loop time 1.5, plus 2 */
    drain(&loop);
    CHECK_STR(trace, "tT");
    taal_loop_close(&loop);
}

static void note_done(taal_future *future, void *arg)
{
    (void)future;
    note(arg);
}

TEST(bad_input_is_refused_and_changes_nothing)
{
    taal_loop loop, other;
    open_loop(&loop);
    open_loop(&other);
    taal_timer t = {0};
    taal_handle h = {0};
    CHECK_EQ(taal_handle_cancel(NULL), TAAL_EINVAL);
    CHECK_EQ(taal_timer_cancel(NULL, &t), TAAL_EINVAL);
    CHECK_EQ(taal_timer_cancel(&loop, NULL), TAAL_EINVAL);
    CHECK(!taal_handle_cancelled(NULL));
    /* A timer of another loop. */
    CHECK_EQ(taal_call_later(&loop, &t, 1.0, note_callback, "t"), TAAL_OK);
    CHECK_EQ(taal_timer_cancel(&other, &t), TAAL_ELOOP);
    CHECK(!taal_handle_cancelled(&t.handle));
    CHECK_EQ(loop.heap_len, 1);
    /* A done-callback is removed with taal_future_remove_done_callback(). */
    taal_future f;
    taal_future_init(&f, &loop);
    CHECK_EQ(taal_future_add_done_callback(&f, &h, note_done, "d"), TAAL_OK);
    CHECK_EQ(taal_handle_cancel(&h), TAAL_EINVAL);
    CHECK(!taal_handle_cancelled(&h));
    CHECK_EQ(taal_future_remove_done_callback(&f, &h), TAAL_OK);
    CHECK_EQ(taal_call_at(&loop, &(taal_timer){0}, NAN, note_callback, "x"), TAAL_EINVAL);
    drain(&loop);
    CHECK_STR(trace, "t");
    taal_loop_close(&loop);
    taal_loop_close(&other);
}

/* 2,000 timers at shuffled deadlines; every other one cancelled. The rest
 * fire, in deadline order, and nothing cancelled is left in the heap. */
TEST(of_many_timers_every_other_one_cancelled_the_rest_fire_in_order)
{
    enum { N = 2000 };
    static taal_timer timers[N];
    static int fired[N];
    static int count;
    taal_loop loop;
    open_loop(&loop);
    count = 0;
    for (int i = 0; i < N; i++) {
        timers[i] = (taal_timer){0};
        double delay = (double)((i * 7919) % N) / 100.0;
        CHECK_EQ(taal_call_later(&loop, &timers[i], delay, note_callback, ""), TAAL_OK);
    }
    for (int i = 0; i < N; i += 2)
        CHECK_EQ(taal_timer_cancel(&loop, &timers[i]), TAAL_OK);
    CHECK_EQ(loop.heap_len, N / 2);
    for (int i = 0; i < N; i++) {
        CHECK_EQ(timers[i].index == 0, i % 2 == 0);
        CHECK_EQ(taal_handle_cancelled(&timers[i].handle), i % 2 == 0);
    }
    for (int i = 0; i < 10 * N && loop.heap_len > 0; i++) {
        fired[count++] = (int)(loop.heap[0].deadline / 10000000); /* hundredths */
        taal_run_once(&loop);
        CHECK(count < N);
    }
    CHECK_EQ(count, N / 2);
    for (int i = 1; i < count; i++)
        CHECK(fired[i] > fired[i - 1]);
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(an_armed_timer_cancelled_leaves_the_heap_at_once_and_never_runs),
    TEST_ENTRY(a_due_timer_in_the_batch_being_run_is_cancelled_too),
    TEST_ENTRY(a_call_soon_handle_is_cancelled_in_the_ready_queue_and_in_the_batch),
    TEST_ENTRY(cancelling_what_ran_or_twice_is_harmless_and_rescheduling_clears_it),
    TEST_ENTRY(when_is_the_deadline_a_timer_was_last_armed_for),
    TEST_ENTRY(bad_input_is_refused_and_changes_nothing),
    TEST_ENTRY(of_many_timers_every_other_one_cancelled_the_rest_fire_in_order),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
