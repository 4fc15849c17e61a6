/*
** test_gather.c -- lab 02, exercise 2: gather_collect.
**
** The children here are plain futures, completed one loop iteration after
** another by callbacks, and tasks that only ever sleep(0): nothing arms a
** timer, so these tests run the same with or without a working heap, and a
** gather that never finishes ends in a reported deadlock, at once, rather
** than in a hang.
*/
#include "lab.h"

/* ---- children ----------------------------------------------------------------- */

/* Completes `future` when the loop runs it (with `error` if not 0, else
 * `result`), notes `label`, and schedules the next completion, if any. */
typedef struct completion {
    taal_handle handle;
    taal_future *future;
    void *result;
    int error;
    const char *label;
    struct completion *next;
} completion;

static void complete(void *arg)
{
    completion *c = arg;
    note(c->label);
    if (c->error != 0)
        taal_future_set_error(c->future, c->error);
    else
        taal_future_set_result(c->future, c->result);
    if (c->next != NULL)
        taal_call_soon(c->future->loop, &c->next->handle, complete, c->next);
}

/* A task that yields `turns` times, then returns `value` or fails with `error`. */
typedef struct child {
    taal_coro co;
    int turns, i;
    void *value;
    int error;
} child;

static int child_body(taal_coro *self)
{
    child *f = (child *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->turns; f->i++)
        TAAL_SLEEP(0);
    if (f->error != 0)
        TAAL_FAIL(f->error);
    TAAL_RETURN_VALUE(f->value);
    TAAL_END();
}

static taal_future *spawn(taal_loop *loop, int turns, void *value, int error)
{
    child frame = {.turns = turns, .value = value, .error = error};
    taal_task *task = NULL;
    if (taal_task_create(loop, child_body, &frame, sizeof frame, NULL, &task) != TAAL_OK)
        return NULL;
    return taal_task_future(task);
}

/* ---- the tests ------------------------------------------------------------------- */

TEST(results_come_back_in_argument_order)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future f[3];
    for (int i = 0; i < 3; i++)
        taal_future_init(&f[i], &loop);
    /* Completed in the order 2, 0, 1, one iteration apart. */
    completion c[3] = {
        {.future = &f[2], .result = "r2", .label = "2"},
        {.future = &f[0], .result = "r0", .label = "0"},
        {.future = &f[1], .result = "r1", .label = "1"},
    };
    c[0].next = &c[1];
    c[1].next = &c[2];
    trace[0] = '\0';
    taal_call_soon(&loop, &c[0].handle, complete, &c[0]);
    taal_future *children[3] = {&f[0], &f[1], &f[2]}, *g = NULL;
    CHECK_EQ(taal_gather(&loop, 3, children, &g), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_OK);
    CHECK_STR(trace, "201");
    CHECK_EQ(taal_gather_count(g), 3);
    void **results = NULL;
    CHECK_EQ(taal_future_result(g, (void **)&results), TAAL_OK);
    CHECK_STR(results[0], "r0");
    CHECK_STR(results[1], "r1");
    CHECK_STR(results[2], "r2");
    taal_future_release(g);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(the_first_error_finishes_the_gather_while_the_others_run_on)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future f[3];
    for (int i = 0; i < 3; i++)
        taal_future_init(&f[i], &loop);
    completion c[2] = {
        {.future = &f[1], .error = TAAL_EUSER - 1, .label = "1"},
        {.future = &f[2], .error = TAAL_EUSER - 2, .label = "2"},
    };
    c[0].next = &c[1];
    trace[0] = '\0';
    taal_call_soon(&loop, &c[0].handle, complete, &c[0]);
    taal_future *children[3] = {&f[0], &f[1], &f[2]}, *g = NULL;
    CHECK_EQ(taal_gather(&loop, 3, children, &g), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_EUSER - 1);
    CHECK(!taal_future_done(&f[0])); /* the gather did not wait for it */
    /* The others run on, and the gather keeps its first error. */
    CHECK_EQ(taal_future_set_result(&f[0], "late"), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, &f[0]), TAAL_OK);
    CHECK_STR(trace, "12");
    CHECK_EQ(taal_future_status(g), TAAL_EUSER - 1);
    taal_future_release(g);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(a_gather_finishes_once_whatever_its_children_do_after)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future *children[3] = {
        spawn(&loop, 0, NULL, TAAL_EUSER - 1), /* fails first */
        spawn(&loop, 2, "ok", 0),              /* then succeeds */
        spawn(&loop, 4, NULL, TAAL_EUSER - 2), /* then fails too */
    };
    taal_future *g = NULL;
    CHECK_EQ(taal_gather(&loop, 3, children, &g), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_EUSER - 1);
    CHECK_EQ(taal_run_until_complete(&loop, children[2]), TAAL_EUSER - 2);
    CHECK_EQ(taal_future_status(g), TAAL_EUSER - 1); /* still the first error */
    void *result = "untouched";
    CHECK_EQ(taal_future_result(g, &result), TAAL_EUSER - 1);
    CHECK_STR(result, "untouched");
    taal_future_release(g);
    for (int i = 0; i < 3; i++)
        taal_future_release(children[i]);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

/* asyncio's gather marks the error of a child that fails after the gather
 * has finished as retrieved: nobody is told twice. */
TEST(a_child_failing_after_the_gather_finished_is_not_reported)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future *children[2] = {
        spawn(&loop, 0, NULL, TAAL_EUSER - 1),
        spawn(&loop, 3, NULL, TAAL_EUSER - 2),
    };
    taal_future *g = NULL;
    CHECK_EQ(taal_gather(&loop, 2, children, &g), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_EUSER - 1);
    /* Run until the second child fails, then once more: its done-callback,
     * the gather's, runs in that iteration. (Not run_until_complete(),
     * which would retrieve the error itself.) */
    for (int i = 0; i < 8 && !taal_future_done(children[1]); i++)
        taal_run_once(&loop);
    CHECK(taal_future_done(children[1]));
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    taal_future_release(children[0]);
    taal_future_release(children[1]);
    taal_future_release(g); /* frees the gather, and its children with it */
    CHECK_EQ(live_objects(&loop), 0);
    CHECK_STR(reports, ""); /* no "nobody retrieved the error" */
    taal_loop_close(&loop);
}

TEST(a_gather_is_freed_once_it_is_done_and_released)
{
    taal_loop loop;
    open_loop(&loop);
    /* Success: every child done, the gather done. */
    taal_future *ok[2] = {spawn(&loop, 1, "a", 0), spawn(&loop, 2, "b", 0)};
    taal_future *g = NULL;
    CHECK_EQ(taal_gather(&loop, 2, ok, &g), TAAL_OK);
    taal_future_release(ok[0]);
    taal_future_release(ok[1]);
    CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_OK);
    CHECK_EQ(live_objects(&loop), 3); /* the gather holds its children */
    taal_future_release(g);
    CHECK_EQ(live_objects(&loop), 0); /* and lets them go with itself */
    /* Failure: the gather done at the first error, the rest after. */
    taal_future *mixed[2] = {spawn(&loop, 0, NULL, TAAL_EUSER - 1),
                             spawn(&loop, 2, "c", 0)};
    CHECK_EQ(taal_gather(&loop, 2, mixed, &g), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_EUSER - 1);
    CHECK_EQ(taal_run_until_complete(&loop, mixed[1]), TAAL_OK);
    taal_future_release(mixed[0]);
    taal_future_release(mixed[1]);
    taal_future_release(g);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(children_already_done_are_collected_at_once)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future f[2], *g = NULL;
    taal_future_init(&f[0], &loop);
    taal_future_init(&f[1], &loop);
    taal_future_set_result(&f[0], "r0");
    taal_future_set_result(&f[1], "r1");
    taal_future *children[2] = {&f[0], &f[1]};
    CHECK_EQ(taal_gather(&loop, 2, children, &g), TAAL_OK);
    CHECK(taal_future_done(g)); /* Python 3.12: done before the loop runs */
    void **results = NULL;
    CHECK_EQ(taal_future_result(g, (void **)&results), TAAL_OK);
    CHECK_STR(results[0], "r0");
    CHECK_STR(results[1], "r1");
    taal_future_release(g);
    /* One done with an error, one pending: done at once, with the error. */
    taal_future bad, pending;
    taal_future_init(&bad, &loop);
    taal_future_init(&pending, &loop);
    taal_future_set_error(&bad, TAAL_EUSER - 5);
    taal_future *some[2] = {&pending, &bad};
    CHECK_EQ(taal_gather(&loop, 2, some, &g), TAAL_OK);
    CHECK_EQ(taal_future_status(g), TAAL_EUSER - 5);
    taal_future_set_result(&pending, NULL);
    CHECK_EQ(taal_run_until_complete(&loop, &pending), TAAL_OK);
    taal_future_release(g);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(results_come_back_in_argument_order),
    TEST_ENTRY(the_first_error_finishes_the_gather_while_the_others_run_on),
    TEST_ENTRY(a_gather_finishes_once_whatever_its_children_do_after),
    TEST_ENTRY(a_child_failing_after_the_gather_finished_is_not_reported),
    TEST_ENTRY(a_gather_is_freed_once_it_is_done_and_released),
    TEST_ENTRY(children_already_done_are_collected_at_once),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
