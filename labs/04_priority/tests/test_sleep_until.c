/*
** test_sleep_until.c -- lab 04, exercise 6: sleeping until an absolute
** time, call_at for a task.
**
**   TAAL_SLEEP_UNTIL(when)                  fails the coroutine on an error
**   TAAL_SLEEP_UNTIL_STATUS(status, when)   the outcome into `status`
**
** `when` is a loop time in seconds, as taal_loop_time() and taal_call_at()
** count it. A time already past is due at once: the task still suspends,
** and resumes with the other timers due then, in deadline order, exactly
** as call_at's callbacks would run; equal times resume in the order the
** tasks went to sleep. NaN is TAAL_EINVAL, outside a task TAAL_ENOTASK.
**
** This file does not compile until the macros exist: that fails this
** exercise only.
*/
#include "lab.h"

#include <math.h> /* NAN */

/* Sleeps `first` seconds, then until `when`; notes its letter and the loop
 * time it resumed at, as "<letter>@<time>". */
typedef struct until {
    taal_coro co;
    const char *letter;
    double first, when;
    int rc;
} until;

static int until_body(taal_coro *self)
{
    until *f = (until *)self;
    char at[32];
    TAAL_BEGIN(f);
    if (f->first > 0)
        TAAL_SLEEP(f->first);
    TAAL_SLEEP_UNTIL_STATUS(f->rc, f->when);
    snprintf(at, sizeof at, "%s@%g ", f->letter, taal_loop_time(taal_running_loop()));
    note(at);
    TAAL_END();
}

static taal_task *spawn_until(taal_loop *loop, until frame)
{
    taal_task *task = NULL;
    if (taal_task_create(loop, until_body, &frame, sizeof frame, frame.letter, &task) !=
        TAAL_OK)
        return NULL;
    return task;
}

TEST(a_task_wakes_at_the_time_it_names)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t[2] = {
        spawn_until(&loop, (until){.letter = "a", .when = 2.5}),
        spawn_until(&loop, (until){.letter = "b", .first = 1, .when = 1.75})};
    CHECK(finish(&loop, t, 2));
    CHECK_STR(trace, "b@1.75 a@2.5 ");
    taal_loop_close(&loop);
}

/* At 5 s, three tasks sleep until 3, 1 and 2 s, in that order: all three
 * times are past, so all three are due at once, and they resume in the
 * order of their times, as three call_at callbacks would run. The clock
 * does not move. */
TEST(times_already_past_resume_at_once_in_deadline_order)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t[3] = {spawn_until(&loop, (until){.letter = "3", .first = 5, .when = 3}),
                       spawn_until(&loop, (until){.letter = "1", .first = 5, .when = 1}),
                       spawn_until(&loop, (until){.letter = "2", .first = 5, .when = 2})};
    CHECK(finish(&loop, t, 3));
    CHECK_STR(trace, "1@5 2@5 3@5 ");
    CHECK(taal_loop_time(&loop) == 5.0);
    taal_loop_close(&loop);
}

/* A time past still suspends the task: what was ready before it runs
 * first, and the task's sleep takes as many iterations as any timer's. */
TEST(a_time_past_still_suspends_the_task)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn_until(&loop, (until){.letter = "u", .when = -1});
    taal_handle h = {0};
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* the task's first step: it sleeps */
    CHECK_STR(trace, "");
    CHECK(!taal_future_done(taal_task_future(t)));
    taal_call_soon(&loop, &h, note_callback, "h ");
    CHECK(complete(&loop, &t, 1));
    CHECK_STR(trace, "h u@0 ");
    CHECK_EQ(((until *)taal_task_frame(t))->rc, TAAL_OK);
    CHECK(release_all(&loop, &t, 1));
    taal_loop_close(&loop);
}

TEST(equal_times_resume_in_the_order_the_tasks_slept)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t[3] = {spawn_until(&loop, (until){.letter = "a", .when = 4}),
                       spawn_until(&loop, (until){.letter = "b", .when = 4}),
                       spawn_until(&loop, (until){.letter = "c", .when = 4})};
    CHECK(finish(&loop, t, 3));
    CHECK_STR(trace, "a@4 b@4 c@4 ");
    taal_loop_close(&loop);
}

/* The time is absolute: a task that slept 1 s and then sleeps until 3 s
 * wakes at 3 s, not at 4. */
TEST(the_time_is_absolute_not_added_to_the_clock)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn_until(&loop, (until){.letter = "x", .first = 1, .when = 3});
    CHECK(finish(&loop, &t, 1));
    CHECK_STR(trace, "x@3 ");
    taal_loop_close(&loop);
}

/* NaN is refused without suspending: the status form says TAAL_EINVAL and
 * the coroutine carries on at once. */
TEST(nan_is_refused)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn_until(&loop, (until){.letter = "n", .when = NAN});
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK(taal_future_done(taal_task_future(t))); /* in one step: no suspension */
    CHECK_EQ(((until *)taal_task_frame(t))->rc, TAAL_EINVAL);
    CHECK_EQ(loop.heap_len, 0);
    CHECK(finish(&loop, &t, 1));
    taal_loop_close(&loop);
}

/* Outside a task there is no task to suspend. */
typedef struct bare {
    taal_coro co;
    int rc;
} bare;

static int bare_body(taal_coro *self)
{
    bare *f = (bare *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP_UNTIL_STATUS(f->rc, 1.0);
    TAAL_END();
}

TEST(outside_a_task_it_fails_with_enotask)
{
    bare b = {.rc = 12345};
    CHECK_EQ(taal_coro_init(&b.co, bare_body), TAAL_OK);
    CHECK_EQ(taal_send(&b.co), TAAL_OK);
    CHECK_EQ(b.rc, TAAL_ENOTASK);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_task_wakes_at_the_time_it_names),
    TEST_ENTRY(times_already_past_resume_at_once_in_deadline_order),
    TEST_ENTRY(a_time_past_still_suspends_the_task),
    TEST_ENTRY(equal_times_resume_in_the_order_the_tasks_slept),
    TEST_ENTRY(the_time_is_absolute_not_added_to_the_clock),
    TEST_ENTRY(nan_is_refused),
    TEST_ENTRY(outside_a_task_it_fails_with_enotask),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
