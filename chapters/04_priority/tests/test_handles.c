/*
** test_handles.c -- chapter 04's unit tests of cancellable handles:
** call_soon, call_later and call_at, cancelled in every state (armed, due
** in the ready queue, in the batch being run, already run), when(), and
** bad input.
*/
#include "support.h"

#include <math.h> /* INFINITY, NAN */
#include <stdio.h>
#include <stdlib.h> /* strtod */
#include <string.h>

/* ---- cancelling in every state -------------------------------------------- */

TEST(a_timer_cancelled_before_it_is_due_never_runs)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_timer a = {0}, b = {0};
    CHECK_EQ(taal_call_later(&loop, &a, 1.0, note_callback, "a"), TAAL_OK);
    CHECK_EQ(taal_call_later(&loop, &b, 2.0, note_callback, "b"), TAAL_OK);
    CHECK(taal_timer_when(&a) == 1.0);
    CHECK(!taal_handle_cancelled(&a.handle));
    CHECK_EQ(taal_timer_cancel(&loop, &a), TAAL_OK);
    CHECK(taal_handle_cancelled(&a.handle));
    CHECK_EQ(loop.heap_len, 1); /* out of the heap at once, not left to expire */
    while (loop.heap_len > 0)
        taal_run_once(&loop);
    taal_run_once(&loop);
    CHECK_STR(trace, "b");
    CHECK(taal_timer_when(&a) == 1.0); /* it remembers when it was for */
    taal_loop_close(&loop);
}

/* Two timers due in the same iteration, each cancelling the other when it
 * runs: the first runs and cancels the second, which is due, in the very
 * batch being run, and must not run. */
static taal_timer duel[2];

static void duel_callback(void *data)
{
    int me = *(int *)data;
    note(me == 0 ? "0" : "1");
    taal_timer_cancel(taal_running_loop(), &duel[1 - me]);
}

TEST(of_two_timers_due_together_that_cancel_each_other_exactly_one_runs)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    static int ids[2] = {0, 1};
    duel[0] = duel[1] = (taal_timer){0};
    taal_call_later(&loop, &duel[0], 0.5, duel_callback, &ids[0]);
    taal_call_later(&loop, &duel[1], 0.5, duel_callback, &ids[1]);
    taal_run_once(&loop); /* both due: moved to the ready queue, then run */
    taal_run_once(&loop);
    CHECK_STR(trace, "0");
    CHECK(taal_handle_cancelled(&duel[1].handle));
    CHECK(!taal_handle_cancelled(&duel[0].handle));
    taal_loop_close(&loop);
}

static taal_handle soon[2];

static void cancel_next(void *data)
{
    (void)data;
    note("x");
    taal_handle_cancel(&soon[1]); /* in this iteration's batch, not run yet */
}

TEST(a_call_soon_handle_cancelled_in_the_ready_queue_never_runs)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_handle h = {0};
    CHECK_EQ(taal_call_soon(&loop, &h, note_callback, "h"), TAAL_OK);
    CHECK_EQ(taal_handle_cancel(&h), TAAL_OK);
    CHECK(!taal_handle_pending(&h));
    soon[0] = soon[1] = (taal_handle){0};
    taal_call_soon(&loop, &soon[0], cancel_next, NULL);
    taal_call_soon(&loop, &soon[1], note_callback, "y");
    taal_run_once(&loop);
    CHECK_STR(trace, "x");
    CHECK(taal_handle_cancelled(&soon[1]));
    taal_loop_close(&loop);
}

TEST(cancelling_what_already_ran_is_harmless)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_handle h = {0};
    taal_timer t = {0};
    taal_call_soon(&loop, &h, note_callback, "h");
    taal_call_later(&loop, &t, 0.1, note_callback, "t");
    taal_run_once(&loop);
    taal_run_once(&loop);
    CHECK_STR(trace, "ht");
    CHECK_EQ(taal_handle_cancel(&h), TAAL_OK);
    CHECK_EQ(taal_timer_cancel(&loop, &t), TAAL_OK);
    CHECK_EQ(taal_timer_cancel(&loop, &t), TAAL_OK); /* twice, too */
    CHECK(taal_handle_cancelled(&h)); /* as asyncio: cancelled() is now true */
    /* Scheduling it again clears the mark. */
    CHECK_EQ(taal_call_soon(&loop, &h, note_callback, "H"), TAAL_OK);
    CHECK(!taal_handle_cancelled(&h));
    taal_run_once(&loop);
    CHECK_STR(trace, "htH");
    taal_loop_close(&loop);
}

/* ---- call_at ------------------------------------------------------------------ */

TEST(call_at_takes_absolute_times_and_runs_past_ones_next_in_deadline_order)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_timer later = {0}, past1 = {0}, past2 = {0}, now = {0};
    taal_timer warmup = {0};
    taal_call_later(&loop, &warmup, 5, note_callback, "w");
    while (loop.heap_len > 0)
        taal_run_once(&loop); /* the clock is at 5 s */
    taal_run_once(&loop);
    CHECK(taal_loop_time(&loop) == 5.0);
    CHECK_EQ(taal_call_at(&loop, &later, 7.0, note_callback, "L"), TAAL_OK);
    CHECK_EQ(taal_call_at(&loop, &past2, 2.0, note_callback, "2"), TAAL_OK);
    CHECK_EQ(taal_call_at(&loop, &past1, 1.0, note_callback, "1"), TAAL_OK);
    CHECK_EQ(taal_call_at(&loop, &now, 5.0, note_callback, "5"), TAAL_OK);
    CHECK(taal_timer_when(&past1) == 1.0);
    taal_run_once(&loop); /* all three past: due now, earliest deadline first */
    CHECK_STR(trace, "w125");
    CHECK(taal_loop_time(&loop) == 5.0);
    taal_run_once(&loop);
    CHECK_STR(trace, "w125L");
    CHECK(taal_loop_time(&loop) == 7.0);
    taal_loop_close(&loop);
}

/* loop.call_at(-math.inf, f): due at the very start of time, INT64_MIN
 * nanoseconds. The trace writes a timer's deadline relative to the loop's
 * start, which on the monotonic clock is after 0: that subtraction must not
 * overflow (the sanitize preset traps if it does). The deadline is written
 * as the huge negative number it is (about -9.2e15 microseconds). */
TEST(a_timer_at_minus_infinity_is_traced_without_overflow)
{
    const char *path = "ch04_trace_minus_infinity.json";
    taal_loop loop;
    taal_loop_options options = {.clock = TAAL_CLOCK_MONOTONIC, .trace = path};
    CHECK_EQ(taal_loop_init(&loop, &options), TAAL_OK);
    taal_timer t = {0};
    CHECK_EQ(taal_call_at(&loop, &t, -INFINITY, note_callback, "x"), TAAL_OK);
    CHECK_EQ(taal_timer_cancel(&loop, &t), TAAL_OK);
    taal_loop_close(&loop);
    char got[2048] = "";
    FILE *in = fopen(path, "r");
    CHECK(in != NULL);
    got[fread(got, 1, sizeof got - 1, in)] = '\0';
    fclose(in);
    remove(path);
    /* INT64_MIN ns less the loop's start, in microseconds: about -9.2e15,
     * a little lower the longer the machine has been up (its monotonic
     * clock counts from its boot). An overflow would wrap to +9.2e15. */
    const char *at = strstr(got, "\"deadline\":");
    CHECK(at != NULL);
    double deadline = strtod(at + strlen("\"deadline\":"), NULL);
    CHECK(deadline < -9.2e15 && deadline > -9.3e15);
}

/* ---- removing a cancelled timer costs O(log n) ---------------------------------- */

TEST(half_of_many_timers_cancelled_the_rest_fire_in_order)
{
    enum { N = 20000 };
    static taal_timer timers[N];
    static double fired[N];
    taal_loop loop;
    open_loop(&loop);
    for (int i = 0; i < N; i++) {
        timers[i] = (taal_timer){0};
        double delay = (double)((i * 7919) % N) / 1000.0; /* a shuffle */
        CHECK_EQ(taal_call_later(&loop, &timers[i], delay, note_callback, ""), TAAL_OK);
    }
    for (int i = 0; i < N; i += 2)
        CHECK_EQ(taal_timer_cancel(&loop, &timers[i]), TAAL_OK);
    CHECK_EQ(loop.heap_len, N / 2); /* gone from the heap, each in O(log n) */
    int count = 0;
    while (loop.heap_len > 0) {
        double next = (double)loop.heap[0].deadline / 1e9;
        taal_run_once(&loop);
        fired[count++] = next;
    }
    for (int i = 1; i < count; i++)
        CHECK(fired[i] >= fired[i - 1]);
    for (int i = 0; i < N; i++)
        CHECK_EQ(timers[i].index, 0);
    taal_loop_close(&loop);
}

/* An armed timer's handle is in the timer heap, not the ready queue:
 * cancelling it as a plain handle would report success and let the timer
 * fire, so it is refused; once the timer has fired, or was cancelled, the
 * handle is a plain one again. */
TEST(an_armed_timers_handle_is_cancelled_through_its_timer_only)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_timer t = {0};
    CHECK_EQ(taal_call_later(&loop, &t, 1.0, note_callback, "t"), TAAL_OK);
    CHECK_EQ(taal_handle_cancel(&t.handle), TAAL_EINVAL);
    CHECK(!taal_handle_cancelled(&t.handle));
    while (loop.heap_len > 0)
        taal_run_once(&loop);
    taal_run_once(&loop);
    CHECK_STR(trace, "t");                            /* it fired */
    CHECK_EQ(taal_handle_cancel(&t.handle), TAAL_OK); /* ran: harmless */
    CHECK_EQ(taal_call_later(&loop, &t, 1.0, note_callback, "u"), TAAL_OK);
    CHECK_EQ(taal_timer_cancel(&loop, &t), TAAL_OK);
    CHECK_EQ(taal_handle_cancel(&t.handle), TAAL_OK);
    CHECK_EQ(loop.heap_len, 0);
    CHECK_STR(trace, "t");
    taal_loop_close(&loop);
}

/* ---- bad input ------------------------------------------------------------------ */

TEST(bad_input_to_handles_is_refused)
{
    taal_loop loop, other;
    open_loop(&loop);
    open_loop(&other);
    taal_timer t = {0};
    taal_handle h = {0};
    CHECK_EQ(taal_call_at(&loop, &t, NAN, note_callback, "x"), TAAL_EINVAL);
    CHECK_EQ(taal_call_at(NULL, &t, 1, note_callback, "x"), TAAL_EINVAL);
    CHECK_EQ(taal_call_later(&loop, &t, NAN, note_callback, "x"), TAAL_EINVAL);
    CHECK_EQ(taal_handle_cancel(NULL), TAAL_EINVAL);
    CHECK_EQ(taal_timer_cancel(NULL, &t), TAAL_EINVAL);
    CHECK_EQ(taal_handle_set_priority(&h, TAAL_PRIORITY_MAX + 1), TAAL_EINVAL);
    CHECK_EQ(taal_handle_set_priority(&h, TAAL_PRIORITY_MIN - 1), TAAL_EINVAL);
    CHECK_EQ(taal_handle_set_priority(NULL, 0), TAAL_EINVAL);
    CHECK(!taal_handle_cancelled(NULL));
    CHECK(taal_timer_when(NULL) == 0.0);
    taal_call_later(&loop, &t, 1, note_callback, "x");
    CHECK_EQ(taal_timer_cancel(&other, &t), TAAL_ELOOP);
    CHECK(!taal_handle_cancelled(&t.handle));
    CHECK_EQ(taal_call_at(&loop, &t, 2, note_callback, "x"), TAAL_EBUSY); /* armed */
    taal_future f;
    taal_future_init(&f, &loop);
    taal_future_add_done_callback(&f, &h, note_done, "x");
    CHECK_EQ(taal_handle_cancel(&h), TAAL_EINVAL); /* a done-callback: remove it */
    CHECK_EQ(taal_future_remove_done_callback(&f, &h), TAAL_OK);
    taal_loop_close(&loop);
    taal_loop_close(&other);
    CHECK_EQ(taal_call_at(&loop, &t, 1, note_callback, "x"), TAAL_ECLOSED);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_timer_cancelled_before_it_is_due_never_runs),
    TEST_ENTRY(of_two_timers_due_together_that_cancel_each_other_exactly_one_runs),
    TEST_ENTRY(a_call_soon_handle_cancelled_in_the_ready_queue_never_runs),
    TEST_ENTRY(cancelling_what_already_ran_is_harmless),
    TEST_ENTRY(call_at_takes_absolute_times_and_runs_past_ones_next_in_deadline_order),
    TEST_ENTRY(a_timer_at_minus_infinity_is_traced_without_overflow),
    TEST_ENTRY(half_of_many_timers_cancelled_the_rest_fire_in_order),
    TEST_ENTRY(an_armed_timers_handle_is_cancelled_through_its_timer_only),
    TEST_ENTRY(bad_input_to_handles_is_refused),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
