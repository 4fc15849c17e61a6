/*
** test_timeout.c -- lab 02, exercise 3: run_until_complete with a timeout.
**
**   int taal_run_until_complete_timeout(taal_loop *loop, taal_future *future,
**                                       double seconds);
**
** runs the loop until `future` is done, as taal_run_until_complete() does,
** but for at most `seconds` of loop time: then it returns TAAL_ETIMEDOUT,
** a new code that taal_strerror() names "timed out", and leaves the future
** running. Whichever way it returns, no timer of its own is left armed.
**
** This file does not compile until the function and the code exist: that
** fails this exercise only.
*/
#include "lab.h"

#include <math.h> /* NAN */

/* A task that sleeps `delay` seconds, then returns `value` or fails. */
typedef struct sleeper {
    taal_coro co;
    double delay;
    void *value;
    int error;
} sleeper;

static int sleeper_body(taal_coro *self)
{
    sleeper *f = (sleeper *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(f->delay);
    if (f->error != 0)
        TAAL_FAIL(f->error);
    TAAL_RETURN_VALUE(f->value);
    TAAL_END();
}

static taal_task *spawn(taal_loop *loop, double delay, void *value, int error)
{
    sleeper frame = {.delay = delay, .value = value, .error = error};
    taal_task *task = NULL;
    taal_task_create(loop, sleeper_body, &frame, sizeof frame, NULL, &task);
    return task;
}

TEST(the_code_is_new_and_has_a_name)
{
    CHECK(TAAL_ETIMEDOUT < 0);
    CHECK(TAAL_ETIMEDOUT > TAAL_EUSER);
    int others[] = {TAAL_EINVAL,  TAAL_EDEAD,   TAAL_ERUNNING,  TAAL_ENOMEM,
                    TAAL_EPOINT,  TAAL_ESTATE,  TAAL_ENOTASK,   TAAL_ELOOP,
                    TAAL_EBUSY,   TAAL_ECLOSED, TAAL_EDEADLOCK, TAAL_ESTOPPED,
                    TAAL_ENOTIMPL};
    for (size_t i = 0; i < TAAL_COUNT(others); i++)
        CHECK(TAAL_ETIMEDOUT != others[i]);
    CHECK_STR(taal_strerror(TAAL_ETIMEDOUT), "timed out");
}

TEST(the_future_wins_and_no_timer_is_left)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn(&loop, 0.5, "done", 0);
    CHECK_EQ(taal_run_until_complete_timeout(&loop, taal_task_future(t), 2.0), TAAL_OK);
    CHECK(taal_loop_time(&loop) < 1.0); /* it did not wait for the timeout */
    CHECK_EQ(loop.heap_len, 0);         /* its timer is gone */
    void *value = NULL;
    CHECK_EQ(taal_future_result(taal_task_future(t), &value), TAAL_OK);
    CHECK_STR(value, "done");
    taal_task_release(t);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(the_timer_wins_and_the_future_runs_on)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn(&loop, 5.0, "late", 0);
    CHECK_EQ(taal_run_until_complete_timeout(&loop, taal_task_future(t), 1.0),
             TAAL_ETIMEDOUT);
    CHECK(taal_loop_time(&loop) >= 1.0 && taal_loop_time(&loop) < 1.5);
    CHECK(!taal_future_done(taal_task_future(t))); /* not cancelled */
    CHECK_EQ(loop.heap_len, 1);                    /* only the task's own sleep */
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    CHECK_EQ(loop.heap_len, 0);
    taal_task_release(t);
    taal_loop_close(&loop);
}

TEST(the_future_s_error_is_its_own_not_a_timeout)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn(&loop, 0.1, NULL, TAAL_EUSER - 4);
    CHECK_EQ(taal_run_until_complete_timeout(&loop, taal_task_future(t), 1.0),
             TAAL_EUSER - 4);
    CHECK_EQ(loop.heap_len, 0);
    taal_task_release(t);
    taal_loop_close(&loop);
    CHECK_STR(reports, ""); /* the error counts as retrieved */
}

static void stop_loop(void *loop)
{
    taal_stop(loop);
}

TEST(a_stop_from_elsewhere_is_not_a_timeout)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn(&loop, 5.0, NULL, 0);
    taal_handle stopper = {0};
    taal_call_soon(&loop, &stopper, stop_loop, &loop);
    CHECK_EQ(taal_run_until_complete_timeout(&loop, taal_task_future(t), 1.0),
             TAAL_ESTOPPED);
    CHECK_EQ(loop.heap_len, 1); /* the task's sleep; not the timeout's timer */
    taal_task_release(t);
    taal_loop_close(&loop);
}

/* A negative timeout is up at once, as a negative delay is "now": a time
 * limit computed as `deadline - now` after the deadline has passed. */
TEST(a_negative_timeout_is_up_at_once)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future f;
    taal_future_init(&f, &loop);
    CHECK_EQ(taal_run_until_complete_timeout(&loop, &f, -1.0), TAAL_ETIMEDOUT);
    CHECK(taal_loop_time(&loop) == 0.0);
    CHECK_EQ(loop.heap_len, 0);
    taal_loop_close(&loop);
}

TEST(bad_arguments_are_refused_and_arm_nothing)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future f;
    taal_future_init(&f, &loop);
    CHECK_EQ(taal_run_until_complete_timeout(&loop, &f, NAN), TAAL_EINVAL);
    CHECK_EQ(taal_run_until_complete_timeout(NULL, &f, 1.0), TAAL_EINVAL);
    CHECK_EQ(taal_run_until_complete_timeout(&loop, NULL, 1.0), TAAL_EINVAL);
    CHECK_EQ(loop.heap_len, 0);
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(the_code_is_new_and_has_a_name),
    TEST_ENTRY(the_future_wins_and_no_timer_is_left),
    TEST_ENTRY(the_timer_wins_and_the_future_runs_on),
    TEST_ENTRY(the_future_s_error_is_its_own_not_a_timeout),
    TEST_ENTRY(a_stop_from_elsewhere_is_not_a_timeout),
    TEST_ENTRY(a_negative_timeout_is_up_at_once),
    TEST_ENTRY(bad_arguments_are_refused_and_arm_nothing),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
