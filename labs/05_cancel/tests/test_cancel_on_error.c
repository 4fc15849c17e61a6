/*
** test_cancel_on_error.c -- lab 05, exercise 5: a gather that stops at
** its first failure.
**
**   taal_gather_ex(loop, n, futures, TAAL_CANCEL_ON_ERROR, &gathered)
**
** A gather ends at its first error, but its other children run on (chapter
** 02), which is what asyncio.gather does and rarely what is wanted when
** every result is needed. With TAAL_CANCEL_ON_ERROR, the first child to
** fail (an error other than TAAL_ECANCELLED) cancels every child that is
** not done, and the gather ends with that error at once: a task group's
** first rule, for a gather. A child cancelled on its own stops nothing;
** children already done are left alone. This file does not compile until
** the flag exists: that fails this exercise only.
*/
#include "lab.h"

/* Sleeps `seconds`, notes "<name>", and fails with `error` ("!"), or is
 * cancelled ("x"), or ends well ("."). */
typedef struct worker {
    taal_coro co;
    const char *name;
    double seconds;
    int error, st;
} worker;

static int worker_body(taal_coro *self)
{
    worker *f = (worker *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP_STATUS(f->st, f->seconds);
    note(f->name);
    if (f->st != TAAL_OK) {
        note("x");
        TAAL_FAIL(f->st);
    }
    if (f->error != TAAL_OK) {
        note("!");
        TAAL_FAIL(f->error);
    }
    note(".");
    TAAL_END();
}

static taal_task *spawn(taal_loop *loop, const char *name, double seconds, int error)
{
    taal_task *task = NULL;
    taal_task_create(loop, worker_body,
                     &(worker){.name = name, .seconds = seconds, .error = error},
                     sizeof(worker), name, &task);
    return task;
}

/* Runs the loop until `future` is done (bounded); true if it is. */
static bool until_done(taal_loop *loop, taal_future *future)
{
    for (int i = 0; i < 100 && !taal_future_done(future); i++)
        taal_run_once(loop);
    return taal_future_done(future);
}

TEST(the_first_failure_cancels_the_children_not_done_and_ends_the_gather)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t[3] = {spawn(&loop, "a", 0.5, TAAL_OK), spawn(&loop, "b", 1, TAAL_EUSER),
                       spawn(&loop, "c", 5, TAAL_OK)};
    taal_future *fs[3] = {taal_task_future(t[0]), taal_task_future(t[1]),
                          taal_task_future(t[2])};
    taal_future *g = NULL;
    CHECK_EQ(taal_gather_ex(&loop, 3, fs, TAAL_CANCEL_ON_ERROR, &g), TAAL_OK);
    CHECK(until_done(&loop, g));
    CHECK_EQ(taal_future_status(g), TAAL_EUSER); /* the error, not a cancellation */
    CHECK(taal_loop_time(&loop) == 1.0);
    CHECK_EQ(taal_task_cancelling(t[2]), 1); /* c was asked to stop ... */
    CHECK_EQ(loop.heap_len, 0);              /* ... and its sleep is over */
    CHECK_EQ(run_to_end(&loop, t[2]), TAAL_ECANCELLED);
    CHECK_STR(trace, "a.b!cx");
    CHECK(taal_loop_time(&loop) == 1.0);
    CHECK_EQ(taal_task_cancelling(t[0]), 0); /* done before: left alone */
    CHECK_EQ(taal_future_result(g, NULL), TAAL_EUSER);
    taal_future_release(g);
    for (int i = 0; i < 3; i++)
        taal_task_release(t[i]);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(without_the_flag_the_others_run_on)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t[2] = {spawn(&loop, "b", 1, TAAL_EUSER), spawn(&loop, "c", 5, TAAL_OK)};
    taal_future *fs[2] = {taal_task_future(t[0]), taal_task_future(t[1])};
    taal_future *g = NULL;
    CHECK_EQ(taal_gather_ex(&loop, 2, fs, 0, &g), TAAL_OK);
    CHECK(until_done(&loop, g));
    CHECK_EQ(taal_future_status(g), TAAL_EUSER);
    CHECK_EQ(run_to_end(&loop, t[1]), TAAL_OK);
    CHECK_STR(trace, "b!c.");
    CHECK(taal_loop_time(&loop) == 5.0);
    taal_future_result(g, NULL);
    taal_future_release(g);
    taal_task_release(t[0]);
    taal_task_release(t[1]);
    taal_loop_close(&loop);
}

/* A child cancelled on its own ends the gather with TAAL_ECANCELLED, as
 * any gather does, and stops nobody: it is no failure. */
TEST(a_child_cancelled_on_its_own_stops_nothing)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t[2] = {spawn(&loop, "a", 1, TAAL_OK), spawn(&loop, "b", 2, TAAL_OK)};
    taal_future *fs[2] = {taal_task_future(t[0]), taal_task_future(t[1])};
    taal_future *g = NULL;
    CHECK_EQ(taal_gather_ex(&loop, 2, fs, TAAL_CANCEL_ON_ERROR, &g), TAAL_OK);
    taal_run_once(&loop); /* both sleep */
    CHECK(taal_task_cancel(t[0]));
    CHECK(until_done(&loop, g));
    CHECK_EQ(taal_future_status(g), TAAL_ECANCELLED);
    CHECK_EQ(taal_task_cancelling(t[1]), 0);
    CHECK_EQ(run_to_end(&loop, t[1]), TAAL_OK);
    CHECK_STR(trace, "axb.");
    taal_future_result(g, NULL);
    taal_future_release(g);
    taal_task_release(t[0]);
    taal_task_release(t[1]);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

/* A child that has failed already when the gather is made: the gather is
 * done when taal_gather_ex() returns, and the others are cancelled there
 * and then. */
TEST(a_child_failed_before_the_gather_cancels_the_rest_at_once)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future failed;
    taal_future_init(&failed, &loop);
    taal_future_set_error(&failed, TAAL_EUSER - 1);
    taal_task *t = spawn(&loop, "b", 5, TAAL_OK);
    taal_future *fs[2] = {taal_task_future(t), &failed};
    taal_future *g = NULL;
    CHECK_EQ(taal_gather_ex(&loop, 2, fs, TAAL_CANCEL_ON_ERROR, &g), TAAL_OK);
    CHECK(taal_future_done(g));
    CHECK_EQ(taal_future_status(g), TAAL_EUSER - 1);
    CHECK_EQ(taal_task_cancelling(t), 1);
    CHECK_EQ(run_to_end(&loop, t), TAAL_ECANCELLED);
    CHECK_STR(trace, ""); /* cancelled before its first step */
    taal_future_result(g, NULL);
    taal_future_release(g);
    taal_task_release(t);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

/* Nobody holds the gather: it is freed as it finishes, and must have
 * cancelled the rest first (under a sanitizer, the other order is a use
 * of freed memory). */
TEST(a_gather_nobody_holds_still_cancels_the_rest)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t[2] = {spawn(&loop, "a", 1, TAAL_EUSER), spawn(&loop, "b", 5, TAAL_OK)};
    taal_future *fs[2] = {taal_task_future(t[0]), taal_task_future(t[1])};
    taal_future *g = NULL;
    CHECK_EQ(taal_gather_ex(&loop, 2, fs, TAAL_CANCEL_ON_ERROR, &g), TAAL_OK);
    taal_future_release(g);
    CHECK_EQ(run_to_end(&loop, t[1]), TAAL_ECANCELLED);
    CHECK(taal_loop_time(&loop) == 1.0);
    CHECK_STR(trace, "a!bx");
    taal_task_release(t[0]);
    taal_task_release(t[1]);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(the_flag_with_return_exceptions_or_an_unknown_flag_is_refused)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future f;
    taal_future_init(&f, &loop);
    taal_future *fs[1] = {&f};
    taal_future *g = NULL;
    CHECK_EQ(
        taal_gather_ex(&loop, 1, fs, TAAL_CANCEL_ON_ERROR | TAAL_RETURN_EXCEPTIONS, &g),
        TAAL_EINVAL);
    CHECK_EQ(taal_gather_ex(&loop, 1, fs, 2u, &g), TAAL_EINVAL); /* no such flag */
    CHECK_EQ(taal_gather_ex(&loop, 1, fs, TAAL_CANCEL_ON_ERROR, &g), TAAL_OK);
    CHECK(taal_future_cancel(&f));
    CHECK(until_done(&loop, g));
    CHECK_EQ(taal_future_result(g, NULL), TAAL_ECANCELLED);
    taal_future_release(g);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(the_first_failure_cancels_the_children_not_done_and_ends_the_gather),
    TEST_ENTRY(without_the_flag_the_others_run_on),
    TEST_ENTRY(a_child_cancelled_on_its_own_stops_nothing),
    TEST_ENTRY(a_child_failed_before_the_gather_cancels_the_rest_at_once),
    TEST_ENTRY(a_gather_nobody_holds_still_cancels_the_rest),
    TEST_ENTRY(the_flag_with_return_exceptions_or_an_unknown_flag_is_refused),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
