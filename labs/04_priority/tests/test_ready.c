/*
** test_ready.c -- lab 04, exercise 2: the priority ready queue.
**
**   taal__ready_push(loop, handle)   into the FIFO of its priority, and
**                                    that FIFO's bit set in ready_levels
**   highest_bit(bits)                the highest bit set, in five steps
**   highest_ready(loop)              the highest priority with work, or -1;
**                                    bits of FIFOs found empty are cleared
**
** Each iteration runs the handles that were ready, when it began, at the
** highest priority that had any: one FIFO per iteration, in FIFO order.
** Everything here is strict priority (no aging: that is exercise 3).
*/
#include "lab.h"

/* Schedules `labels[i]` at `priorities[i]`, each with its own handle. */
static void schedule(taal_loop *loop, taal_handle *h, const int *priorities,
                     const char *const *labels, int n)
{
    for (int i = 0; i < n; i++) {
        h[i] = (taal_handle){0};
        taal_handle_set_priority(&h[i], priorities[i]);
        taal_call_soon(loop, &h[i], note_callback, (void *)labels[i]);
    }
}

TEST(each_iteration_runs_the_highest_priority_with_work_in_fifo_order)
{
    static taal_handle h[6];
    static const int priorities[6] = {0, 3, -2, 3, 0, -2};
    static const char *const labels[6] = {"a", "B", "c", "D", "e", "f"};
    taal_loop loop;
    open_loop(&loop);
    schedule(&loop, h, priorities, labels, 6);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "BD");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "BDae");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "BDaecf");
    taal_loop_close(&loop);
}

/* One handle at each of the 32 priorities, scheduled in a shuffled order:
 * 32 iterations, one handle each, from the highest priority to the lowest.
 * Every bit of the map is found, the lowest and highest included. */
TEST(every_priority_from_min_to_max_has_its_own_fifo)
{
    static taal_handle h[TAAL_PRIORITY_LEVELS];
    static char labels[TAAL_PRIORITY_LEVELS][8];
    taal_loop loop;
    open_loop(&loop);
    for (int i = 0; i < TAAL_PRIORITY_LEVELS; i++) {
        int priority = TAAL_PRIORITY_MIN + (i * 13) % TAAL_PRIORITY_LEVELS;
        snprintf(labels[i], sizeof labels[i], "%d,", priority);
        h[i] = (taal_handle){0};
        CHECK_EQ(taal_handle_set_priority(&h[i], priority), TAAL_OK);
        CHECK_EQ(taal_call_soon(&loop, &h[i], note_callback, labels[i]), TAAL_OK);
    }
    for (int p = TAAL_PRIORITY_MAX; p >= TAAL_PRIORITY_MIN; p--) {
        char want[8];
        snprintf(want, sizeof want, "%d,", p);
        trace[0] = '\0';
        CHECK_EQ(taal_run_once(&loop), TAAL_OK);
        CHECK_STR(trace, want);
    }
    CHECK_EQ(loop.ready_levels & ~UINT32_C(1), 0); /* the bits of the emptied FIFOs */
    taal_loop_close(&loop);
}

/* What a callback schedules runs in a later iteration, even at its own
 * priority; a higher priority scheduled meanwhile goes first. */
static taal_handle later[2];

static void schedule_two(void *data)
{
    (void)data;
    note("s");
    later[0] = later[1] = (taal_handle){0};
    taal_handle_set_priority(&later[0], 3);
    taal_call_soon(taal_running_loop(), &later[0], note_callback, "3");
    taal_handle_set_priority(&later[1], 5);
    taal_call_soon(taal_running_loop(), &later[1], note_callback, "5");
}

TEST(what_an_iteration_schedules_waits_for_a_later_one)
{
    taal_loop loop;
    open_loop(&loop);
    taal_handle first = {0}, low = {0};
    taal_handle_set_priority(&first, 3);
    taal_call_soon(&loop, &first, schedule_two, NULL);
    taal_handle_set_priority(&low, -1);
    taal_call_soon(&loop, &low, note_callback, "l");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "s");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "s5");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "s53");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "s53l");
    taal_loop_close(&loop);
}

/* A handle can leave its FIFO without the ready queue knowing (here a
 * done-callback removed from a done future): its FIFO's bit stays set.
 * The next search must find that FIFO empty, clear its bit, and go on to
 * the lower priorities that have work. */
static void done_note(taal_future *future, void *arg)
{
    (void)future;
    note(arg);
}

TEST(a_fifo_emptied_behind_the_queue_s_back_is_skipped_and_its_bit_cleared)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future f;
    taal_future_init(&f, &loop);
    taal_future_set_result(&f, NULL);
    taal_handle cb = {0}, low = {0};
    taal_handle_set_priority(&cb, 7);
    CHECK_EQ(taal_future_add_done_callback(&f, &cb, done_note, "x"), TAAL_OK);
    int seven = 7 - TAAL_PRIORITY_MIN;
    CHECK(loop.ready_levels & (UINT32_C(1) << seven)); /* done: it is ready */
    CHECK_EQ(taal_future_remove_done_callback(&f, &cb), TAAL_OK);
    taal_handle_set_priority(&low, -3);
    taal_call_soon(&loop, &low, note_callback, "l");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "l");
    CHECK_EQ(loop.ready_levels & (UINT32_C(1) << seven), 0);
    taal_loop_close(&loop);
}

TEST(tasks_of_higher_priority_run_all_their_steps_first)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t[3] = {
        spawn_spinner(&loop, "l", 3, -1),
        spawn_spinner(&loop, "m", 3, 0),
        spawn_spinner(&loop, "h", 3, TAAL_PRIORITY_MAX),
    };
    CHECK(finish(&loop, t, 3));
    CHECK_STR(trace, "hhhmmmlll");
    taal_loop_close(&loop);
}

/* Timers due at the same moment go to the FIFOs of their priorities: the
 * highest runs first, whatever the arming order. */
TEST(timers_due_together_run_by_priority)
{
    taal_loop loop;
    open_loop(&loop);
    taal_timer t[3];
    static const int priorities[3] = {-4, 6, 1};
    static const char *const labels[3] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
        t[i] = (taal_timer){0};
        taal_handle_set_priority(&t[i].handle, priorities[i]);
        CHECK_EQ(taal_call_later(&loop, &t[i], 1.0, note_callback, (void *)labels[i]),
                 TAAL_OK);
    }
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* sleeps to 1 s; all three due */
    CHECK_STR(trace, "b");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "bc");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "bca");
    CHECK(taal_loop_time(&loop) == 1.0);
    taal_loop_close(&loop);
}

/* The lowest priority is a priority like any other: with only its FIFO
 * holding work, that work runs (and the loop does not think itself idle,
 * which would make it sleep to the next timer). */
TEST(the_lowest_priority_runs_when_it_alone_has_work)
{
    taal_loop loop;
    open_loop(&loop);
    taal_handle h = {0};
    taal_timer t = {0};
    taal_call_later(&loop, &t, 5.0, note_callback, "t");
    taal_handle_set_priority(&h, TAAL_PRIORITY_MIN);
    taal_call_soon(&loop, &h, note_callback, "h");
    CHECK_EQ(loop.ready_levels, UINT32_C(1)); /* bit 0: the lowest priority */
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "h");
    CHECK(taal_loop_time(&loop) == 0.0);
    taal_timer_stop(&loop, &t);
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(each_iteration_runs_the_highest_priority_with_work_in_fifo_order),
    TEST_ENTRY(every_priority_from_min_to_max_has_its_own_fifo),
    TEST_ENTRY(what_an_iteration_schedules_waits_for_a_later_one),
    TEST_ENTRY(a_fifo_emptied_behind_the_queue_s_back_is_skipped_and_its_bit_cleared),
    TEST_ENTRY(tasks_of_higher_priority_run_all_their_steps_first),
    TEST_ENTRY(timers_due_together_run_by_priority),
    TEST_ENTRY(the_lowest_priority_runs_when_it_alone_has_work),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
