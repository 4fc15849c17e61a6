/*
** test_deadline.c -- lab 04, exercise 5: earliest deadline first.
**
**   int taal_task_set_deadline(taal_task *task, double when);
**   int taal_task_clear_deadline(taal_task *task);
**
** Within one priority, the tasks with a deadline (a loop time, in seconds,
** as call_at takes it) run first, the earliest first; equal deadlines, and
** tasks without one, keep their FIFO order; priority still comes first. A
** ready task whose deadline changes moves at once. Every test drives the
** loop one iteration at a time and reads the order from the trace.
**
** This file does not compile until the two functions exist: that fails
** this exercise only.
*/
#include "lab.h"

#include <math.h> /* NAN */

TEST(of_tasks_at_one_priority_the_earliest_deadline_runs_first)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t[3] = {spawn_spinner(&loop, "a", 3, 0), spawn_spinner(&loop, "b", 3, 0),
                       spawn_spinner(&loop, "c", 3, 0)};
    CHECK_EQ(taal_task_set_deadline(t[0], 3.0), TAAL_OK);
    CHECK_EQ(taal_task_set_deadline(t[1], 1.0), TAAL_OK);
    CHECK_EQ(taal_task_set_deadline(t[2], 2.0), TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "bca");
    CHECK(finish(&loop, t, 3));
    CHECK_STR(trace, "bcabcabca"); /* after each yield, in order again */
    taal_loop_close(&loop);
}

TEST(tasks_without_a_deadline_come_after_in_fifo_order)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t[4] = {spawn_spinner(&loop, "a", 2, 0), spawn_spinner(&loop, "b", 2, 0),
                       spawn_spinner(&loop, "c", 2, 0), spawn_spinner(&loop, "d", 2, 0)};
    CHECK_EQ(taal_task_set_deadline(t[1], 5.0), TAAL_OK);
    CHECK_EQ(taal_task_set_deadline(t[3], 1.0), TAAL_OK);
    CHECK(finish(&loop, t, 4));
    CHECK_STR(trace, "dbacdbac");
    taal_loop_close(&loop);
}

TEST(equal_deadlines_keep_their_order)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t[4] = {spawn_spinner(&loop, "a", 2, 0), spawn_spinner(&loop, "b", 2, 0),
                       spawn_spinner(&loop, "c", 2, 0), spawn_spinner(&loop, "d", 2, 0)};
    CHECK_EQ(taal_task_set_deadline(t[0], 2.0), TAAL_OK);
    CHECK_EQ(taal_task_set_deadline(t[2], 2.0), TAAL_OK);
    CHECK_EQ(taal_task_set_deadline(t[3], 2.0), TAAL_OK);
    CHECK(finish(&loop, t, 4));
    CHECK_STR(trace, "acdbacdb"); /* a, c, d in the order they were given one */
    taal_loop_close(&loop);
}

TEST(priority_comes_before_deadline)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t[2] = {spawn_spinner(&loop, "l", 2, -1), spawn_spinner(&loop, "h", 2, 1)};
    CHECK_EQ(taal_task_set_deadline(t[0], 0.001), TAAL_OK);
    CHECK(finish(&loop, t, 2));
    CHECK_STR(trace, "hhll");
    taal_loop_close(&loop);
}

TEST(a_ready_task_moves_when_its_deadline_changes_or_is_cleared)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t[3] = {spawn_spinner(&loop, "a", 3, 0), spawn_spinner(&loop, "b", 3, 0),
                       spawn_spinner(&loop, "c", 3, 0)};
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "abc");
    CHECK_EQ(taal_task_set_deadline(t[2], 4.0), TAAL_OK); /* all three ready */
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "abccab");
    CHECK_EQ(taal_task_set_deadline(t[1], 3.0), TAAL_OK);
    CHECK_EQ(taal_task_clear_deadline(t[2]), TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "abccabbac");
    CHECK(finish(&loop, t, 3));
    taal_loop_close(&loop);
}

/* Two tasks wake from a sleep in the same iteration: their timers fire in
 * arming order, and their steps take their places by deadline. */
typedef struct sleeper {
    taal_coro co;
    const char *letter;
} sleeper;

static int sleeper_body(taal_coro *self)
{
    sleeper *f = (sleeper *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(1.0);
    note(f->letter);
    TAAL_END();
}

TEST(a_task_woken_by_its_timer_takes_its_place_by_deadline)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t[2] = {NULL, NULL};
    taal_task_create(&loop, sleeper_body, &(sleeper){.letter = "a"}, sizeof(sleeper), "a",
                     &t[0]);
    taal_task_create(&loop, sleeper_body, &(sleeper){.letter = "b"}, sizeof(sleeper), "b",
                     &t[1]);
    CHECK_EQ(taal_task_set_deadline(t[0], 9.0), TAAL_OK);
    CHECK_EQ(taal_task_set_deadline(t[1], 2.0), TAAL_OK);
    CHECK(finish(&loop, t, 2));
    CHECK_STR(trace, "ba");
    taal_loop_close(&loop);
}

/* Plain callbacks have no deadline: they keep their place behind tasks
 * that have one, and in front of what was queued after them. */
TEST(plain_callbacks_queue_as_tasks_without_a_deadline_do)
{
    taal_loop loop;
    open_loop(&loop);
    taal_handle h = {0};
    taal_call_soon(&loop, &h, note_callback, "x");
    taal_task *t[2] = {spawn_spinner(&loop, "a", 1, 0), spawn_spinner(&loop, "d", 1, 0)};
    CHECK_EQ(taal_task_set_deadline(t[1], 1.0), TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "dxa");
    CHECK(finish(&loop, t, 2));
    taal_loop_close(&loop);
}

TEST(bad_input_is_refused)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn_spinner(&loop, "a", 1, 0);
    CHECK_EQ(taal_task_set_deadline(NULL, 1.0), TAAL_EINVAL);
    CHECK_EQ(taal_task_set_deadline(t, NAN), TAAL_EINVAL);
    CHECK_EQ(taal_task_clear_deadline(NULL), TAAL_EINVAL);
    CHECK_EQ(taal_task_set_deadline(t, -1e300), TAAL_OK); /* far past: the earliest */
    CHECK_EQ(taal_task_set_deadline(t, 1e300), TAAL_OK);  /* far future: still one */
    CHECK(finish(&loop, &t, 1));
    CHECK_STR(trace, "a");
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(of_tasks_at_one_priority_the_earliest_deadline_runs_first),
    TEST_ENTRY(tasks_without_a_deadline_come_after_in_fifo_order),
    TEST_ENTRY(equal_deadlines_keep_their_order),
    TEST_ENTRY(priority_comes_before_deadline),
    TEST_ENTRY(a_ready_task_moves_when_its_deadline_changes_or_is_cleared),
    TEST_ENTRY(a_task_woken_by_its_timer_takes_its_place_by_deadline),
    TEST_ENTRY(plain_callbacks_queue_as_tasks_without_a_deadline_do),
    TEST_ENTRY(bad_input_is_refused),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
