/*
** test_loop.c -- chapter 02's unit tests: the loop, the ready queue, the
** timer heap and the clock.
*/
#define _POSIX_C_SOURCE 200809L /* setenv (TAAL_SETENV) */

#include "support.h"

#include <math.h> /* INFINITY, NAN */

static bool near(double a, double b)
{
    return a - b < 1e-9 && b - a < 1e-9;
}

/* A callback that appends the one character it is given to the trace. */
static void append(void *arg)
{
    char c[2] = {*(const char *)arg, '\0'};
    note(c);
}

/* ---- the ready queue ------------------------------------------------------- */

TEST(call_soon_runs_callbacks_in_fifo_order)
{
    taal_loop loop;
    open_loop(&loop);
    taal_handle h[4] = {0};
    trace[0] = '\0';
    for (int i = 0; i < 4; i++)
        CHECK_EQ(taal_call_soon(&loop, &h[i], append, (void *)&"abcd"[i]), TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "abcd");
    CHECK(!taal_handle_pending(&h[0]));
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
}

/* A callback that schedules another: the second must wait for the next
 * iteration, asyncio's "only what was ready when the iteration began". */
static taal_loop *chain_loop;
static taal_handle chain_handle;
static void schedule_b(void *arg)
{
    (void)arg;
    append("a");
    taal_call_soon(chain_loop, &chain_handle, append, "b");
}

TEST(an_iteration_runs_only_what_was_ready_when_it_began)
{
    taal_loop loop;
    open_loop(&loop);
    chain_loop = &loop;
    taal_handle first = {0}, second = {0};
    trace[0] = '\0';
    taal_call_soon(&loop, &first, schedule_b, NULL);
    taal_call_soon(&loop, &second, append, "c");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "ac");
    CHECK(taal_handle_pending(&chain_handle));
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "acb");
    taal_loop_close(&loop);
}

TEST(a_scheduled_handle_cannot_be_scheduled_twice)
{
    taal_loop loop;
    open_loop(&loop);
    taal_handle h = {0};
    CHECK_EQ(taal_call_soon(&loop, &h, append, "x"), TAAL_OK);
    CHECK_EQ(taal_call_soon(&loop, &h, append, "y"), TAAL_EBUSY);
    taal_loop_close(&loop);
    CHECK(!taal_handle_pending(&h)); /* close forgets the caller's handles */
}

/* ---- stop, run_forever, deadlock -------------------------------------------- */

static void stop_it(void *loop)
{
    taal_stop(loop);
}

TEST(stop_ends_run_forever_after_the_current_iteration)
{
    taal_loop loop;
    open_loop(&loop);
    taal_handle a = {0}, b = {0};
    trace[0] = '\0';
    taal_call_soon(&loop, &a, stop_it, &loop);
    taal_call_soon(&loop, &b, append, "z"); /* same iteration: still runs */
    CHECK_EQ(taal_run_forever(&loop), TAAL_OK);
    CHECK_STR(trace, "z");
    CHECK(!loop.running);
    taal_loop_close(&loop);
}

TEST(an_empty_loop_reports_a_deadlock_instead_of_hanging)
{
    taal_loop loop;
    open_loop(&loop);
    CHECK_EQ(taal_run_forever(&loop), TAAL_EDEADLOCK);
    CHECK(strstr(reports, "deadlock: nothing is ready and no timer is set") != NULL);
    CHECK_STR(taal_strerror(TAAL_EDEADLOCK), "deadlock");
    taal_loop_close(&loop);
}

/* ---- timers ---------------------------------------------------------------- */

TEST(timers_fire_in_deadline_order_and_equal_deadlines_in_arming_order)
{
    taal_loop loop;
    open_loop(&loop);
    taal_timer t[5] = {0};
    trace[0] = '\0';
    taal_timer_start(&loop, &t[0], 0.3, append, "d");
    taal_timer_start(&loop, &t[1], 0.1, append, "a");
    taal_timer_start(&loop, &t[2], 0.2, append, "b");
    taal_timer_start(&loop, &t[3], 0.2, append, "c"); /* same deadline: after b */
    taal_timer_start(&loop, &t[4], 0.3, append, "e"); /* same deadline: after d */
    for (int i = 0; i < 3; i++)
        CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "abcde");
    CHECK(near(taal_loop_time(&loop), 0.3));        /* the clock jumped */
    CHECK_EQ(taal_run_once(&loop), TAAL_EDEADLOCK); /* nothing left */
    taal_loop_close(&loop);
}

/* Removing an entry whose filler (the last entry) is earlier than the
 * hole's parent: the filler must move up, not down. Deadlines 1 50 2 60 70
 * 3 4 make a heap where removing 60 is exactly that case. */
TEST(stopping_a_timer_moves_the_filler_up_when_it_must)
{
    taal_loop loop;
    open_loop(&loop);
    static const double at[] = {1, 50, 2, 60, 70, 3, 4};
    static const char *const label[] = {"1", "50", "2", "60", "70", "3", "4"};
    taal_timer t[7] = {0};
    trace[0] = '\0';
    for (int i = 0; i < 7; i++)
        taal_timer_start(&loop, &t[i], at[i], append, (void *)label[i]);
    CHECK_EQ(taal_timer_stop(&loop, &t[3]), TAAL_OK); /* 60 */
    for (int i = 0; i < 6 && loop.heap_len > 0; i++)
        CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "123457"); /* append() notes first characters: 50 and 70 */
    CHECK_EQ(loop.heap_len, 0);
    taal_loop_close(&loop);
}

TEST(a_stopped_timer_never_fires)
{
    taal_loop loop;
    open_loop(&loop);
    taal_timer keep = {0}, stop = {0};
    trace[0] = '\0';
    taal_timer_start(&loop, &stop, 0.1, append, "x");
    taal_timer_start(&loop, &keep, 0.2, append, "k");
    CHECK_EQ(taal_timer_stop(&loop, &stop), TAAL_OK);
    CHECK_EQ(stop.index, 0);
    CHECK_EQ(taal_timer_stop(&loop, &stop), TAAL_OK); /* harmless twice */
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "k");
    CHECK(near(taal_loop_time(&loop), 0.2));
    taal_loop_close(&loop);
}

/* A negative delay is "now", as in asyncio, where
 *     loop.call_later(0, z); loop.call_later(-1, m)
 *     loop.call_soon(s); loop.call_later(-math.inf, i)
 * runs s, i, m, z (3.12 and 3.13): what was ready first, then the due
 * timers in the order of their deadlines, now - infinity before now - 1
 * before now. */
TEST(a_negative_delay_is_due_now_before_the_timers_due_now)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_timer z = {0}, m = {0}, i = {0};
    taal_handle s = {0};
    CHECK_EQ(taal_timer_start(&loop, &z, 0, append, "z"), TAAL_OK);
    CHECK_EQ(taal_timer_start(&loop, &m, -1, append, "m"), TAAL_OK);
    CHECK_EQ(taal_call_soon(&loop, &s, append, "s"), TAAL_OK);
    CHECK_EQ(taal_timer_start(&loop, &i, -INFINITY, append, "i"), TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "simz");
    CHECK(taal_loop_time(&loop) == 0.0);
    CHECK_EQ(loop.heap_len, 0);
    taal_loop_close(&loop);
}

TEST(timer_arguments_are_checked)
{
    taal_loop loop;
    open_loop(&loop);
    taal_timer t = {0};
    CHECK_EQ(taal_timer_start(&loop, &t, NAN, append, "x"), TAAL_EINVAL);
    CHECK_EQ(taal_timer_start(NULL, &t, 1, append, "x"), TAAL_EINVAL);
    CHECK_EQ(taal_timer_start(&loop, NULL, 1, append, "x"), TAAL_EINVAL);
    CHECK_EQ(taal_timer_start(&loop, &t, 1, NULL, "x"), TAAL_EINVAL);
    CHECK_EQ(taal_timer_start(&loop, &t, 1, append, "x"), TAAL_OK);
    CHECK_EQ(taal_timer_start(&loop, &t, 1, append, "x"), TAAL_EBUSY);
    CHECK_EQ(taal_timer_stop(NULL, &t), TAAL_EINVAL);
    /* An absurdly long delay saturates instead of overflowing. */
    taal_timer forever = {0};
    CHECK_EQ(taal_timer_start(&loop, &forever, 1e300, append, "x"), TAAL_OK);
    CHECK(loop.heap[forever.index - 1].deadline > 0);
    taal_loop_close(&loop);
    CHECK_EQ(t.index, 0);
}

/*
** The heap against a sorted reference: a long seeded mix of arming and
** stopping timers, checked at every step against the earliest deadline
** found by a plain scan, then drained and checked for the exact order
** (deadline, then arming order).
*/
enum { HEAP_TIMERS = 512, HEAP_STEPS = 20000 };

static uint64_t rng_state;
static uint32_t rng(void)
{
    rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(rng_state >> 33);
}

static taal_timer heap_timers[HEAP_TIMERS];
static int64_t heap_deadline[HEAP_TIMERS];  /* reference: deadline when armed */
static uint64_t heap_armed_at[HEAP_TIMERS]; /* reference: arming order */
static int fired[HEAP_TIMERS];
static int fired_count;

static void record_fire(void *arg)
{
    fired[fired_count++] = (int)((taal_timer *)arg - heap_timers);
}

TEST(the_timer_heap_agrees_with_a_sorted_reference)
{
    taal_loop loop;
    open_loop(&loop);
    memset(heap_timers, 0, sizeof heap_timers);
    rng_state = 20261129;
    uint64_t order = 0;
    for (int step = 0; step < HEAP_STEPS; step++) {
        int i = (int)(rng() % HEAP_TIMERS);
        if (heap_timers[i].index == 0) {
            double delay = (double)(rng() % 1000) / 1000.0; /* many ties */
            CHECK_EQ(taal_timer_start(&loop, &heap_timers[i], delay, record_fire,
                                      &heap_timers[i]),
                     TAAL_OK);
            heap_deadline[i] = (int64_t)(delay * 1e9 + 0.5);
            heap_armed_at[i] = order++;
        } else {
            CHECK_EQ(taal_timer_stop(&loop, &heap_timers[i]), TAAL_OK);
        }
        /* The root is the earliest armed timer, ties to the first armed. */
        int best = -1;
        for (int k = 0; k < HEAP_TIMERS; k++) {
            if (heap_timers[k].index == 0)
                continue;
            if (best < 0 || heap_deadline[k] < heap_deadline[best] ||
                (heap_deadline[k] == heap_deadline[best] &&
                 heap_armed_at[k] < heap_armed_at[best]))
                best = k;
        }
        if (best < 0)
            CHECK_EQ(loop.heap_len, 0);
        else
            CHECK(loop.heap[0].timer == &heap_timers[best]);
    }
    /* Drain: everything armed fires once, in (deadline, arming) order. */
    size_t armed = loop.heap_len;
    fired_count = 0;
    for (size_t guard = 0; loop.heap_len > 0; guard++) { /* bounded: a wrong heap */
        CHECK(guard <= armed);                           /* must fail, not spin */
        CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    }
    CHECK_EQ(fired_count, armed);
    for (int k = 1; k < fired_count; k++) {
        int a = fired[k - 1], b = fired[k];
        CHECK(heap_deadline[a] < heap_deadline[b] ||
              (heap_deadline[a] == heap_deadline[b] &&
               heap_armed_at[a] < heap_armed_at[b]));
    }
    taal_loop_close(&loop);
}

TEST(a_timer_cannot_be_stopped_through_another_loop)
{
    taal_loop a, b;
    open_loop(&a);
    open_loop(&b);
    taal_timer t = {0}, u = {0};
    trace[0] = '\0';
    taal_timer_start(&a, &t, 0.1, append, "t");
    taal_timer_start(&b, &u, 0.1, append, "u");
    CHECK_EQ(taal_timer_stop(&b, &t), TAAL_ELOOP);
    CHECK(t.index != 0 && u.index != 0); /* neither was touched */
    taal_loop c;
    open_loop(&c);
    CHECK_EQ(taal_timer_stop(&c, &t), TAAL_ELOOP); /* c's heap is empty */
    CHECK_EQ(taal_run_once(&a), TAAL_OK);
    CHECK_EQ(taal_run_once(&b), TAAL_OK);
    CHECK_STR(trace, "tu");
    taal_loop_close(&a);
    taal_loop_close(&b);
    taal_loop_close(&c);
}

/* ---- the clock ----------------------------------------------------------------- */

TEST(the_virtual_clock_starts_at_zero_and_moves_only_when_idle)
{
    taal_loop loop;
    open_loop(&loop);
    CHECK(loop.virtual_clock);
    CHECK(taal_loop_time(&loop) == 0.0);
    taal_handle h = {0};
    taal_call_soon(&loop, &h, append, "x");
    taal_run_once(&loop);
    CHECK(taal_loop_time(&loop) == 0.0); /* work was ready: no jump */
    taal_loop_close(&loop);
}

TEST(the_environment_chooses_the_clock)
{
    taal_loop loop;
    TAAL_SETENV("TAAL_CLOCK", "virtual");
    CHECK_EQ(taal_loop_init(&loop, NULL), TAAL_OK);
    CHECK(loop.virtual_clock);
    taal_loop_close(&loop);
    TAAL_SETENV("TAAL_CLOCK", "monotonic");
    CHECK_EQ(taal_loop_init(&loop, NULL), TAAL_OK);
    CHECK(!loop.virtual_clock);
    CHECK(taal_loop_time(&loop) > 0.0); /* the monotonic clock */
    taal_loop_close(&loop);
    TAAL_UNSETENV("TAAL_CLOCK");
    CHECK_EQ(taal_loop_init(&loop, NULL), TAAL_OK); /* unset: the real clock */
    CHECK(!loop.virtual_clock);
    taal_loop_close(&loop);
}

TEST(an_unknown_clock_in_the_environment_is_refused_and_reported)
{
    taal_loop loop;
    taal_loop_options options = {.report = collect_report};
    reports[0] = '\0';
    TAAL_SETENV("TAAL_CLOCK", "VIRTUAL"); /* a typo must not mean "real" */
    CHECK_EQ(taal_loop_init(&loop, &options), TAAL_EINVAL);
    TAAL_UNSETENV("TAAL_CLOCK");
    CHECK_STR(reports,
              "TAAL_CLOCK=VIRTUAL is not a clock: use \"virtual\" or \"monotonic\"\n");
    reports[0] = '\0';
    TAAL_SETENV("TAAL_DEBUG", "yes");
    CHECK_EQ(taal_loop_init(&loop, &options), TAAL_EINVAL);
    TAAL_UNSETENV("TAAL_DEBUG");
    CHECK_STR(reports, "TAAL_DEBUG=yes is not understood: use 1 or 0\n");
}

/* On the real clock, a wait for a timer sleeps in the kernel until the
 * deadline, in one iteration: never less (a sleep cut short by a signal, or a fallback
 * that sleeps for the wrong remainder, would fire it early), and not seconds more. The
 * clang preset builds the nanosleep() fallback (TAAL_POSIX_SLEEP), the other presets
 * clock_nanosleep(): both run this. */
static void set_flag(void *data)
{
    *(bool *)data = true;
}

TEST(the_real_clock_sleeps_until_the_deadline_and_no_less)
{
    taal_loop loop;
    TAAL_UNSETENV("TAAL_CLOCK");
    CHECK_EQ(taal_loop_init(&loop, NULL), TAAL_OK);
    bool due = false;
    taal_timer timer = {0};
    double start = taal_loop_time(&loop);
    CHECK_EQ(taal_timer_start(&loop, &timer, 0.05, set_flag, &due), TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* one iteration: wait, then run it */
    CHECK(due);
    double slept = taal_loop_time(&loop) - start;
    CHECK(slept >= 0.05);
    CHECK(slept < 5.0); /* generous: a loaded machine may be late, never early */
    taal_loop_close(&loop);
}

/* ---- bad input ------------------------------------------------------------------ */

static taal_loop *nested_loop;
static int nested_rc;
static void run_again(void *arg)
{
    (void)arg;
    nested_rc = taal_run_forever(nested_loop);
}

TEST(a_running_loop_cannot_be_run_again)
{
    taal_loop loop;
    open_loop(&loop);
    nested_loop = &loop;
    taal_handle h = {0}, s = {0};
    taal_call_soon(&loop, &h, run_again, NULL);
    taal_call_soon(&loop, &s, stop_it, &loop);
    CHECK_EQ(taal_run_forever(&loop), TAAL_OK);
    CHECK_EQ(nested_rc, TAAL_EBUSY);
    taal_loop_close(&loop);
}

static int close_rc;
static void close_it(void *loop)
{
    close_rc = taal_loop_close(loop);
}

TEST(a_closed_or_running_loop_refuses_work)
{
    taal_loop loop;
    open_loop(&loop);
    taal_handle h = {0}, s = {0};
    taal_call_soon(&loop, &h, close_it, &loop);
    taal_call_soon(&loop, &s, stop_it, &loop);
    taal_run_forever(&loop);
    CHECK_EQ(close_rc, TAAL_EBUSY); /* cannot close a running loop */
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK); /* twice is harmless */
    CHECK_EQ(taal_run_forever(&loop), TAAL_ECLOSED);
    CHECK_EQ(taal_run_once(&loop), TAAL_ECLOSED);
    CHECK_EQ(taal_call_soon(&loop, &h, append, "x"), TAAL_ECLOSED);
    taal_timer t = {0};
    CHECK_EQ(taal_timer_start(&loop, &t, 1, append, "x"), TAAL_ECLOSED);
    CHECK_STR(taal_strerror(TAAL_ECLOSED), "loop is closed");
}

TEST(null_arguments_are_invalid)
{
    taal_handle h = {0};
    CHECK_EQ(taal_loop_init(NULL, NULL), TAAL_EINVAL);
    taal_loop loop;
    taal_loop_options bad = {.clock = (taal_clock)99};
    CHECK_EQ(taal_loop_init(&loop, &bad), TAAL_EINVAL);
    CHECK_EQ(taal_loop_close(NULL), TAAL_EINVAL);
    CHECK_EQ(taal_run_forever(NULL), TAAL_EINVAL);
    CHECK_EQ(taal_run_once(NULL), TAAL_EINVAL);
    CHECK_EQ(taal_stop(NULL), TAAL_EINVAL);
    CHECK_EQ(taal_run_until_complete(NULL, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_call_soon(NULL, &h, append, "x"), TAAL_EINVAL);
    open_loop(&loop);
    CHECK_EQ(taal_call_soon(&loop, NULL, append, "x"), TAAL_EINVAL);
    CHECK_EQ(taal_call_soon(&loop, &h, NULL, "x"), TAAL_EINVAL);
    CHECK_EQ(taal_run_until_complete(&loop, NULL), TAAL_EINVAL);
    CHECK(taal_loop_time(NULL) == 0.0);
    CHECK(!taal_handle_pending(NULL));
    taal_loop_close(&loop);
}

/* TAAL_CHAPTER and TAAL_VERSION. These tests run against every later
 * chapter too: the header is chapter 02 or later, and exactly the one the
 * build says it built them against, of the CMake project's version. */
TEST(the_header_says_which_chapter_and_which_version_of_taal_it_is)
{
    CHECK(TAAL_CHAPTER >= 2);
    CHECK_EQ(TAAL_CHAPTER, TAAL_TESTED_CHAPTER);
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", TAAL_VERSION_MAJOR, TAAL_VERSION_MINOR,
             TAAL_VERSION_PATCH);
    CHECK_STR(version, TAAL_VERSION);
    CHECK_STR(TAAL_VERSION, TAAL_TESTED_VERSION);
}

static const taal_test tests[] = {
    TEST_ENTRY(call_soon_runs_callbacks_in_fifo_order),
    TEST_ENTRY(an_iteration_runs_only_what_was_ready_when_it_began),
    TEST_ENTRY(a_scheduled_handle_cannot_be_scheduled_twice),
    TEST_ENTRY(stop_ends_run_forever_after_the_current_iteration),
    TEST_ENTRY(an_empty_loop_reports_a_deadlock_instead_of_hanging),
    TEST_ENTRY(timers_fire_in_deadline_order_and_equal_deadlines_in_arming_order),
    TEST_ENTRY(stopping_a_timer_moves_the_filler_up_when_it_must),
    TEST_ENTRY(a_stopped_timer_never_fires),
    TEST_ENTRY(a_negative_delay_is_due_now_before_the_timers_due_now),
    TEST_ENTRY(timer_arguments_are_checked),
    TEST_ENTRY(a_timer_cannot_be_stopped_through_another_loop),
    TEST_ENTRY(the_timer_heap_agrees_with_a_sorted_reference),
    TEST_ENTRY(the_virtual_clock_starts_at_zero_and_moves_only_when_idle),
    TEST_ENTRY(the_environment_chooses_the_clock),
    TEST_ENTRY(an_unknown_clock_in_the_environment_is_refused_and_reported),
    TEST_ENTRY(the_real_clock_sleeps_until_the_deadline_and_no_less),
    TEST_ENTRY(a_running_loop_cannot_be_run_again),
    TEST_ENTRY(a_closed_or_running_loop_refuses_work),
    TEST_ENTRY(null_arguments_are_invalid),
    TEST_ENTRY(the_header_says_which_chapter_and_which_version_of_taal_it_is),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
