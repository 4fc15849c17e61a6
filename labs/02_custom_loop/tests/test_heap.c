/*
** test_heap.c -- lab 02, exercise 1: the timer heap.
**
** sift_up, sift_down and heap_remove keep loop.heap a binary min-heap on
** (deadline, arming order), and every armed timer's `index` pointing back
** at its entry (plus one; 0 when it is not armed). These tests look at the
** heap itself after every operation, so that a wrong heap is caught where
** it goes wrong, before a timer fires in the wrong order; and they look
** before they run the loop, so that a heap that does nothing fails at once
** instead of leaving the loop spinning until the time limit.
*/
#include "lab.h"

/* Is entry a earlier than entry b: the heap's order. */
static bool before(const taal_heap_entry *a, const taal_heap_entry *b)
{
    return a->deadline < b->deadline || (a->deadline == b->deadline && a->seq < b->seq);
}

/* The heap's two rules, checked for every entry: no child is earlier than
 * its parent, and each entry's timer points back at the entry. Returns the
 * first entry that breaks one, or -1. */
static long broken_entry(const taal_loop *loop)
{
    for (uint32_t i = 0; i < loop->heap_len; i++) {
        if (loop->heap[i].timer->index != i + 1)
            return i;
        if (i > 0 && before(&loop->heap[i], &loop->heap[(i - 1) / 2]))
            return i;
    }
    return -1;
}

static void append(void *arg)
{
    char c[2] = {*(const char *)arg, '\0'};
    note(c);
}

TEST(arming_keeps_the_earliest_timer_at_the_root)
{
    taal_loop loop;
    open_loop(&loop);
    static taal_timer t[64];
    memset(t, 0, sizeof t);
    for (int i = 0; i < 64; i++) {
        /* Later timers are earlier: every one must rise to the root. */
        CHECK_EQ(taal_timer_start(&loop, &t[i], 64 - i, append, "x"), TAAL_OK);
        CHECK_EQ(loop.heap_len, i + 1);
        CHECK(loop.heap[0].timer == &t[i]);
        CHECK_EQ(broken_entry(&loop), -1);
    }
    taal_loop_close(&loop);
}

TEST(equal_deadlines_fire_in_arming_order)
{
    taal_loop loop;
    open_loop(&loop);
    taal_timer t[6] = {0};
    trace[0] = '\0';
    const char *letters = "abcdef";
    for (int i = 0; i < 6; i++)
        taal_timer_start(&loop, &t[i], 0.5, append, (void *)(letters + i));
    CHECK_EQ(broken_entry(&loop), -1);
    CHECK(loop.heap[0].timer == &t[0]);
    while (loop.heap_len > 0 && strlen(trace) < 6)
        CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "abcdef");
    taal_loop_close(&loop);
}

/*
** Stopping a timer in the middle: the last entry fills the hole, and may
** have to move up, not down. Armed in this order, the deadlines make the
** heap [1, 50, 2, 60, 70, 3, 4]; stopping 60 (entry 3) puts 4 there, under
** 50, which it must climb above.
*/
TEST(a_removed_entry_s_filler_may_have_to_move_up)
{
    taal_loop loop;
    open_loop(&loop);
    int deadlines[7] = {1, 50, 2, 60, 70, 3, 4};
    const char *names = "aBbCDcd"; /* lower case: fires before the capitals */
    taal_timer t[7] = {0};
    for (int i = 0; i < 7; i++)
        taal_timer_start(&loop, &t[i], deadlines[i], append, (void *)(names + i));
    CHECK_EQ(broken_entry(&loop), -1);
    CHECK_EQ(t[3].index, 4); /* 60 is entry 3, as planned */
    CHECK_EQ(taal_timer_stop(&loop, &t[3]), TAAL_OK);
    CHECK_EQ(t[3].index, 0);
    CHECK_EQ(loop.heap_len, 6);
    CHECK_EQ(broken_entry(&loop), -1);
    trace[0] = '\0';
    while (loop.heap_len > 0 && strlen(trace) < 6)
        CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "abcdBD");
    taal_loop_close(&loop);
}

/* A seeded mix of arming and stopping, the heap checked after each. */
enum { TIMERS = 200, STEPS = 5000 };
static taal_timer timers[TIMERS];
static int fired[TIMERS], fired_count;

static void record(void *arg)
{
    fired[fired_count++] = (int)((taal_timer *)arg - timers);
}

static uint32_t rng_state;
static uint32_t rng(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

TEST(the_heap_stays_a_heap_through_arming_and_stopping)
{
    taal_loop loop;
    open_loop(&loop);
    memset(timers, 0, sizeof timers);
    rng_state = 2026;
    uint32_t armed = 0;
    for (int step = 0; step < STEPS; step++) {
        int i = (int)(rng() % TIMERS);
        if (timers[i].index == 0) {
            double delay = (double)(rng() % 50) / 10.0; /* many ties */
            CHECK_EQ(taal_timer_start(&loop, &timers[i], delay, record, &timers[i]),
                     TAAL_OK);
            armed++;
        } else {
            CHECK_EQ(taal_timer_stop(&loop, &timers[i]), TAAL_OK);
            CHECK_EQ(timers[i].index, 0);
            armed--;
        }
        CHECK_EQ(loop.heap_len, armed);
        CHECK_EQ(broken_entry(&loop), -1);
    }
    /* Drain: each fires once, in heap order, and leaves a valid heap. */
    fired_count = 0;
    int64_t last_deadline = -1;
    while (loop.heap_len > 0 && fired_count < TIMERS) {
        int64_t deadline = loop.heap[0].deadline;
        CHECK(deadline >= last_deadline);
        last_deadline = deadline;
        CHECK_EQ(taal_run_once(&loop), TAAL_OK);
        CHECK_EQ(broken_entry(&loop), -1);
    }
    CHECK_EQ(fired_count, armed);
    for (int k = 0; k < fired_count; k++)
        CHECK_EQ(timers[fired[k]].index, 0); /* a fired timer is disarmed */
    taal_loop_close(&loop);
}

TEST(a_fired_or_stopped_timer_can_be_armed_again)
{
    taal_loop loop;
    open_loop(&loop);
    taal_timer a = {0}, b = {0};
    trace[0] = '\0';
    CHECK_EQ(taal_timer_start(&loop, &a, 0.1, append, "a"), TAAL_OK);
    CHECK_EQ(taal_timer_start(&loop, &b, 0.2, append, "b"), TAAL_OK);
    CHECK(loop.heap[0].timer == &a);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* a fires */
    CHECK_STR(trace, "a");
    CHECK_EQ(a.index, 0);
    CHECK_EQ(loop.heap_len, 1);
    CHECK_EQ(taal_timer_stop(&loop, &b), TAAL_OK);
    CHECK_EQ(loop.heap_len, 0);
    CHECK_EQ(taal_timer_start(&loop, &a, 0.1, append, "A"), TAAL_OK);
    CHECK_EQ(taal_timer_start(&loop, &b, 0.1, append, "B"), TAAL_OK);
    CHECK_EQ(broken_entry(&loop), -1);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "aAB");
    CHECK_EQ(loop.heap_len, 0);
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(arming_keeps_the_earliest_timer_at_the_root),
    TEST_ENTRY(equal_deadlines_fire_in_arming_order),
    TEST_ENTRY(a_removed_entry_s_filler_may_have_to_move_up),
    TEST_ENTRY(the_heap_stays_a_heap_through_arming_and_stopping),
    TEST_ENTRY(a_fired_or_stopped_timer_can_be_armed_again),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
