/*
** test_future.c -- chapter 02's unit tests: futures, tasks, gather, wait,
** and the reports of errors nobody retrieved and tasks left pending.
*/
#define _POSIX_C_SOURCE 200809L /* setenv (TAAL_SETENV) */

#include "support.h"

#include <math.h> /* INFINITY, NAN */

/* ---- coroutines the tests run ------------------------------------------------ */

/* Sleeps `delay`, notes `label`, then returns `value` or fails with `error`. */
typedef struct valued {
    taal_coro co;
    double delay;
    const char *label;
    void *value;
    int error;
} valued;

static int valued_body(taal_coro *self)
{
    valued *f = (valued *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(f->delay);
    if (f->label != NULL)
        note(f->label);
    if (f->error != 0)
        TAAL_FAIL(f->error);
    TAAL_RETURN_VALUE(f->value);
    TAAL_END();
}

static taal_task *spawn_valued(taal_loop *loop, double delay, const char *label,
                               void *value, int error)
{
    taal_task *task = NULL;
    if (taal_task_create(loop, valued_body, NULL, sizeof(valued), NULL, &task) != TAAL_OK)
        return NULL;
    valued *f = taal_task_frame(task);
    f->delay = delay;
    f->label = label;
    f->value = value;
    f->error = error;
    return task;
}

/* Yields n times, noting its letter before each yield. */
typedef struct yielder {
    taal_coro co;
    const char *letter;
    int i, n;
    bool bare; /* TAAL_YIELD() instead of TAAL_SLEEP(0) */
} yielder;

static int yielder_body(taal_coro *self)
{
    yielder *f = (yielder *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->n; f->i++) {
        note(f->letter);
        if (f->bare) {
            TAAL_YIELD();
        } else {
            TAAL_SLEEP(0);
        }
    }
    TAAL_END();
}

static taal_task *spawn_yielder(taal_loop *loop, const char *letter, int n, bool bare)
{
    taal_task *task = NULL;
    if (taal_task_create(loop, yielder_body, NULL, sizeof(yielder), NULL, &task) !=
        TAAL_OK)
        return NULL;
    yielder *f = taal_task_frame(task);
    f->letter = letter;
    f->n = n;
    f->bare = bare;
    return task;
}

/* ---- futures ---------------------------------------------------------------- */

TEST(done_callbacks_are_scheduled_in_order_never_called_inline)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future fut;
    taal_handle a = {0}, b = {0};
    trace[0] = '\0';
    CHECK_EQ(taal_future_init(&fut, &loop), TAAL_OK);
    CHECK_EQ(taal_future_add_done_callback(&fut, &a, note_done, "a"), TAAL_OK);
    CHECK_EQ(taal_future_add_done_callback(&fut, &b, note_done, "b"), TAAL_OK);
    CHECK_EQ(taal_future_status(&fut), TAAL_SUSPENDED);
    CHECK_EQ(taal_future_set_result(&fut, "r"), TAAL_OK);
    CHECK_STR(trace, ""); /* not inline */
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "ab");
    void *result = NULL;
    CHECK_EQ(taal_future_result(&fut, &result), TAAL_OK);
    CHECK_STR(result, "r");
    taal_loop_close(&loop);
}

TEST(a_future_completes_once)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future fut;
    taal_future_init(&fut, &loop);
    void *result;
    CHECK_EQ(taal_future_result(&fut, &result), TAAL_ESTATE); /* not yet */
    CHECK_EQ(taal_future_set_error(&fut, TAAL_OK), TAAL_EINVAL);
    CHECK_EQ(taal_future_set_error(&fut, TAAL_EUSER), TAAL_OK);
    CHECK_EQ(taal_future_set_result(&fut, NULL), TAAL_ESTATE);
    CHECK_EQ(taal_future_set_error(&fut, TAAL_EUSER), TAAL_ESTATE);
    CHECK_EQ(taal_future_result(&fut, &result), TAAL_EUSER);
    CHECK_STR(taal_strerror(TAAL_ESTATE), "invalid state");
    taal_loop_close(&loop);
    CHECK_EQ(taal_future_set_result(NULL, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_future_init(NULL, &loop), TAAL_EINVAL);
    CHECK(!taal_future_done(NULL));
}

TEST(a_callback_added_to_a_done_future_is_scheduled_at_once_and_can_be_removed)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future fut;
    taal_future_init(&fut, &loop);
    taal_future_set_result(&fut, NULL);
    taal_handle a = {0}, b = {0};
    trace[0] = '\0';
    CHECK_EQ(taal_future_add_done_callback(&fut, &a, note_done, "a"), TAAL_OK);
    CHECK_EQ(taal_future_add_done_callback(&fut, &b, note_done, "b"), TAAL_OK);
    CHECK_EQ(taal_future_add_done_callback(&fut, &b, note_done, "b"), TAAL_EBUSY);
    CHECK_EQ(taal_future_remove_done_callback(&fut, &a), TAAL_OK);
    taal_run_once(&loop);
    CHECK_STR(trace, "b");
    taal_loop_close(&loop);
}

/* ---- tasks ---------------------------------------------------------------------- */

TEST(a_task_returns_its_value_through_run_until_complete)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *task = spawn_valued(&loop, 2.5, NULL, "forty-two", 0);
    CHECK(task != NULL);
    CHECK(!taal_future_done(taal_task_future(task)));
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    void *value = NULL;
    CHECK_EQ(taal_future_result(taal_task_future(task), &value), TAAL_OK);
    CHECK_STR(value, "forty-two");
    CHECK(taal_loop_time(&loop) >= 2.5 && taal_loop_time(&loop) < 2.5 + 1e-9);
    taal_task_release(task);
    taal_loop_close(&loop);
    CHECK_STR(reports, "");
}

TEST(tasks_take_turns_at_every_sleep_zero)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *a = spawn_yielder(&loop, "a", 3, false);
    taal_task *b = spawn_yielder(&loop, "b", 3, false);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(b)), TAAL_OK);
    CHECK_STR(trace, "ababab");
    CHECK(taal_loop_time(&loop) == 0.0); /* sleep(0) arms no timer */
    taal_task_release(a);
    taal_task_release(b);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(a_bare_yield_in_a_task_requeues_it)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *x = spawn_yielder(&loop, "x", 2, true);
    taal_task *y = spawn_yielder(&loop, "y", 2, true);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(x)), TAAL_OK);
    CHECK_STR(trace, "xyxy");
    taal_task_release(x);
    taal_task_release(y);
    taal_run_once(&loop); /* y's last step */
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* Awaits another task, twice: once letting its error propagate, once
 * catching it. */
typedef struct awaiter {
    taal_coro co;
    taal_task *child;
    bool catch_it;
    int caught;
    void *value;
} awaiter;

static int awaiter_body(taal_coro *self)
{
    awaiter *f = (awaiter *)self;
    TAAL_BEGIN(f);
    if (f->catch_it) {
        TAAL_AWAIT_FUTURE_STATUS(f->caught, taal_task_future(f->child));
    } else {
        TAAL_AWAIT_TASK(f->child);
        taal_future_result(taal_task_future(f->child), &f->value);
    }
    TAAL_END();
}

TEST(awaiting_a_task_gives_its_value_or_its_error)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *ok_child = spawn_valued(&loop, 1, NULL, "v", 0);
    taal_task *bad_child = spawn_valued(&loop, 1, NULL, NULL, TAAL_EUSER - 1);
    taal_task *a[3];
    for (int i = 0; i < 3; i++)
        taal_task_create(&loop, awaiter_body, NULL, sizeof(awaiter), NULL, &a[i]);
    ((awaiter *)taal_task_frame(a[0]))->child = ok_child;
    ((awaiter *)taal_task_frame(a[1]))->child = bad_child;
    ((awaiter *)taal_task_frame(a[2]))->child = bad_child;
    ((awaiter *)taal_task_frame(a[2]))->catch_it = true;
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(a[2])), TAAL_OK);
    CHECK_STR(((awaiter *)taal_task_frame(a[0]))->value, "v");
    CHECK_EQ(taal_future_result(taal_task_future(a[1]), NULL), TAAL_EUSER - 1);
    CHECK_EQ(((awaiter *)taal_task_frame(a[2]))->caught, TAAL_EUSER - 1);
    for (int i = 0; i < 3; i++)
        taal_task_release(a[i]);
    taal_task_release(ok_child);
    taal_task_release(bad_child);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
    CHECK_STR(reports, ""); /* every error was retrieved by someone */
}

/* Awaits a plain future of its caller's storage, on the heap, and frees
 * it in the step it was woken into: it is done with it. */
typedef struct freer {
    taal_coro co;
    taal_future *future;
} freer;

static int freer_body(taal_coro *self)
{
    freer *f = (freer *)self;
    TAAL_BEGIN(f);
    TAAL_AWAIT_FUTURE(f->future);
    free(f->future);
    TAAL_END();
}

/* Nothing looks at the future once the task it woke has run: not the
 * task, nor the loop dropping the reference the task's handle held. */
TEST(a_task_may_free_the_plain_future_that_woke_it)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future *future = malloc(sizeof *future);
    CHECK(future != NULL);
    CHECK_EQ(taal_future_init(future, &loop), TAAL_OK);
    taal_task *t = NULL;
    taal_task_create(&loop, freer_body, &(freer){.future = future}, sizeof(freer), NULL,
                     &t);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* it waits */
    CHECK_EQ(taal_future_set_result(future, NULL), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* ---- gather ---------------------------------------------------------------------- */

TEST(gather_gives_results_in_argument_order_whatever_the_finishing_order)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_future *children[3] = {
        taal_task_future(spawn_valued(&loop, 0.3, "1", "first", 0)),
        taal_task_future(spawn_valued(&loop, 0.1, "2", "second", 0)),
        taal_task_future(spawn_valued(&loop, 0.2, "3", "third", 0)),
    };
    taal_future *g = NULL;
    CHECK_EQ(taal_gather(&loop, 3, children, &g), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_OK);
    CHECK_STR(trace, "231"); /* finishing order */
    void **results = NULL;
    CHECK_EQ(taal_future_result(g, (void **)&results), TAAL_OK);
    CHECK_STR(results[0], "first");
    CHECK_STR(results[1], "second");
    CHECK_STR(results[2], "third");
    taal_future_release(g);
    for (int i = 0; i < 3; i++)
        taal_future_release(children[i]);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(gather_fails_with_the_first_error_while_the_others_run_on)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_future *children[3] = {
        taal_task_future(spawn_valued(&loop, 1.0, "slow", "s", 0)),
        taal_task_future(spawn_valued(&loop, 0.1, "fail", NULL, TAAL_EUSER - 2)),
        taal_task_future(spawn_valued(&loop, 0.5, "fail2", NULL, TAAL_EUSER - 3)),
    };
    taal_future *g = NULL;
    CHECK_EQ(taal_gather(&loop, 3, children, &g), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_EUSER - 2);
    CHECK(taal_loop_time(&loop) < 0.2); /* at once, not after the slow one */
    CHECK(!taal_future_done(children[0]));
    CHECK_EQ(taal_run_until_complete(&loop, children[0]), TAAL_OK); /* it ran on */
    CHECK_STR(trace, "failfail2slow");
    CHECK_EQ(taal_future_status(g), TAAL_EUSER - 2); /* still the first error */
    CHECK(children[2]->retrieved); /* the gather's callback looked at the later one */
    taal_future_release(g);
    for (int i = 0; i < 3; i++)
        taal_future_release(children[i]);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
    CHECK_STR(reports, ""); /* gather retrieved both errors, as asyncio does */
}

TEST(gather_of_nothing_is_done_at_once)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future *g = NULL;
    CHECK_EQ(taal_gather(&loop, 0, NULL, &g), TAAL_OK);
    CHECK(taal_future_done(g));
    CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_OK);
    taal_future_release(g);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(gather_checks_its_arguments)
{
    taal_loop loop, other;
    open_loop(&loop);
    open_loop(&other);
    taal_future mine, theirs, *g = NULL;
    taal_future_init(&mine, &loop);
    taal_future_init(&theirs, &other);
    taal_future *mixed[2] = {&mine, &theirs};
    taal_future *holes[2] = {&mine, NULL};
    CHECK_EQ(taal_gather(&loop, 2, mixed, &g), TAAL_ELOOP);
    CHECK_EQ(taal_gather(&loop, 2, holes, &g), TAAL_EINVAL);
    CHECK_EQ(taal_gather(&loop, 2, NULL, &g), TAAL_EINVAL);
    CHECK_EQ(taal_gather(&loop, 1, mixed, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_gather(NULL, 1, mixed, &g), TAAL_EINVAL);
    CHECK(g == NULL);
    taal_loop_close(&loop);
    taal_loop_close(&other);
    CHECK_EQ(taal_gather(&loop, 1, mixed, &g), TAAL_ECLOSED);
}

/* ---- wait ------------------------------------------------------------------------- */

TEST(wait_first_completed_returns_after_the_first_and_cancels_nothing)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future *children[2] = {
        taal_task_future(spawn_valued(&loop, 0.2, NULL, NULL, 0)),
        taal_task_future(spawn_valued(&loop, 0.5, NULL, NULL, 0)),
    };
    taal_future *w = NULL;
    CHECK_EQ(taal_wait(&loop, 2, children, TAAL_FIRST_COMPLETED, TAAL_NO_TIMEOUT, &w),
             TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, w), TAAL_OK);
    CHECK(taal_future_done(children[0]));
    CHECK(!taal_future_done(children[1]));
    CHECK_EQ(taal_run_until_complete(&loop, children[1]), TAAL_OK); /* not cancelled */
    taal_future_release(w);
    taal_future_release(children[0]);
    taal_future_release(children[1]);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(wait_all_completed_and_first_exception)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future *all[2] = {
        taal_task_future(spawn_valued(&loop, 0.2, NULL, NULL, 0)),
        taal_task_future(spawn_valued(&loop, 0.4, NULL, NULL, 0)),
    };
    taal_future *w = NULL;
    CHECK_EQ(taal_wait(&loop, 2, all, TAAL_ALL_COMPLETED, TAAL_NO_TIMEOUT, &w), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, w), TAAL_OK);
    CHECK(taal_future_done(all[0]) && taal_future_done(all[1]));
    CHECK(taal_loop_time(&loop) > 0.39);
    taal_future_release(w);

    taal_future *some[2] = {
        taal_task_future(spawn_valued(&loop, 0.1, NULL, NULL, TAAL_EUSER)),
        taal_task_future(spawn_valued(&loop, 0.3, NULL, NULL, 0)),
    };
    CHECK_EQ(taal_wait(&loop, 2, some, TAAL_FIRST_EXCEPTION, TAAL_NO_TIMEOUT, &w),
             TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, w), TAAL_OK);
    CHECK(taal_future_done(some[0]) && !taal_future_done(some[1]));
    CHECK_EQ(taal_future_status(some[0]), TAAL_EUSER);
    CHECK(some[0]->retrieved); /* FIRST_EXCEPTION looked at it, as asyncio does */
    CHECK_EQ(taal_run_until_complete(&loop, some[1]), TAAL_OK);
    taal_future_release(w);
    for (int i = 0; i < 2; i++) {
        taal_future_release(all[i]);
        taal_future_release(some[i]);
    }
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(wait_with_a_timeout_returns_with_nothing_done)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future *slow[1] = {taal_task_future(spawn_valued(&loop, 5, NULL, NULL, 0))};
    taal_future *w = NULL;
    CHECK_EQ(taal_wait(&loop, 1, slow, TAAL_ALL_COMPLETED, 1.5, &w), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, w), TAAL_OK);
    CHECK(taal_loop_time(&loop) >= 1.5 && taal_loop_time(&loop) < 1.6);
    CHECK(!taal_future_done(slow[0]));
    taal_future_release(w); /* freed now: nothing watches the child any more */
    CHECK_EQ(taal_run_until_complete(&loop, slow[0]), TAAL_OK);
    taal_future_release(slow[0]);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* asyncio.wait([t], timeout=-1) returns at once, t pending: a negative
 * timeout is "now", like a negative delay. TAAL_NO_TIMEOUT and infinity
 * arm no timer at all. */
TEST(a_negative_wait_timeout_ends_the_wait_at_once)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future *slow[1] = {taal_task_future(spawn_valued(&loop, 5, NULL, NULL, 0))};
    taal_future *w = NULL;
    CHECK_EQ(taal_wait(&loop, 1, slow, TAAL_ALL_COMPLETED, -2, &w), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, w), TAAL_OK);
    CHECK(taal_loop_time(&loop) == 0.0);
    CHECK(!taal_future_done(slow[0]));
    taal_future_release(w);
    taal_future *never = NULL, *forever = NULL;
    CHECK_EQ(taal_wait(&loop, 1, slow, TAAL_ALL_COMPLETED, TAAL_NO_TIMEOUT, &never),
             TAAL_OK);
    CHECK_EQ(taal_wait(&loop, 1, slow, TAAL_ALL_COMPLETED, INFINITY, &forever), TAAL_OK);
    CHECK_EQ(loop.heap_len, 1); /* the child's sleep, and no timeout */
    CHECK_EQ(taal_run_until_complete(&loop, forever), TAAL_OK);
    CHECK(taal_future_done(never) && taal_future_done(slow[0]));
    taal_future_release(never);
    taal_future_release(forever);
    taal_future_release(slow[0]);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(wait_checks_its_arguments)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future f, *w = NULL;
    taal_future_init(&f, &loop);
    taal_future *one[1] = {&f};
    CHECK_EQ(taal_wait(&loop, 0, one, TAAL_ALL_COMPLETED, 1, &w), TAAL_EINVAL);
    CHECK_EQ(taal_wait(&loop, 1, one, (taal_wait_mode)9, 1, &w), TAAL_EINVAL);
    CHECK_EQ(taal_wait(&loop, 1, one, TAAL_ALL_COMPLETED, NAN, &w), TAAL_EINVAL);
    CHECK(w == NULL);
    taal_loop_close(&loop);
}

/* ---- deadlocks and reports --------------------------------------------------------- */

typedef struct stuck {
    taal_coro co;
    taal_future *on;
} stuck;

static int stuck_body(taal_coro *self)
{
    stuck *f = (stuck *)self;
    TAAL_BEGIN(f);
    TAAL_AWAIT_FUTURE(f->on);
    TAAL_END();
}

TEST(a_deadlock_is_reported_with_who_waits_for_what)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future never;
    taal_future_init(&never, &loop);
    taal_task *inner, *outer;
    taal_task_create(&loop, stuck_body, NULL, sizeof(stuck), NULL, &inner);
    ((stuck *)taal_task_frame(inner))->on = &never;
    taal_task_set_name(inner, "inner");
    taal_task_create(&loop, stuck_body, NULL, sizeof(stuck), NULL, &outer);
    ((stuck *)taal_task_frame(outer))->on = taal_task_future(inner);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(outer)), TAAL_EDEADLOCK);
    CHECK(strstr(reports, "  inner waits for a future\n") != NULL);
    CHECK(strstr(reports, "  Task-2 waits for task inner\n") != NULL);
    reports[0] = '\0';
    taal_loop_close(&loop);
    CHECK_STR(reports, "task inner was still pending when the loop closed\n"
                       "task Task-2 was still pending when the loop closed\n");
    taal_task_release(inner); /* held through the close, still pending */
    taal_task_release(outer);
}

TEST(an_error_nobody_retrieved_is_reported_when_the_task_is_freed)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *quiet = spawn_valued(&loop, 0, NULL, NULL, TAAL_ENOMEM);
    taal_task *seen = spawn_valued(&loop, 0, NULL, NULL, TAAL_ENOMEM);
    taal_task_set_name(quiet, "quiet");
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(seen)), TAAL_ENOMEM);
    CHECK_STR(reports, "");
    taal_task_release(quiet); /* done and released: freed, and reported, now */
    CHECK_STR(
        reports,
        "task quiet failed with \"out of memory\" and nobody retrieved the error\n");
    taal_task_release(seen);
    taal_loop_close(&loop);
    CHECK_STR(
        reports,
        "task quiet failed with \"out of memory\" and nobody retrieved the error\n");
}

TEST(an_error_nobody_retrieved_is_reported_at_close)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *failed =
        spawn_valued(&loop, 0, NULL, NULL, TAAL_EUSER); /* never looked at */
    taal_task *other = spawn_valued(&loop, 1, NULL, NULL, 0);
    taal_task_release(failed); /* done or not, nobody will look now */
    taal_run_until_complete(&loop, taal_task_future(other));
    CHECK_STR(reports,
              "task Task-1 failed with \"user error\" and nobody retrieved the error\n");
    taal_task_release(other);
    taal_loop_close(&loop);
}

TEST(an_error_held_through_the_close_is_reported_when_released)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *failed = spawn_valued(&loop, 0, NULL, NULL, TAAL_EUSER);
    taal_task *other = spawn_valued(&loop, 1, NULL, NULL, 0);
    taal_run_until_complete(&loop, taal_task_future(other));
    taal_loop_close(&loop);
    CHECK_STR(reports, ""); /* still held: it may yet be looked at */
    CHECK_EQ(taal_future_status(taal_task_future(failed)), TAAL_EUSER);
    taal_task_release(other);
    taal_task_release(failed); /* the loop is gone: to stderr, where we can't see */
    CHECK_STR(reports, "");
}

TEST(a_fire_and_forget_task_is_freed_when_it_ends)
{
    taal_loop loop;
    open_loop(&loop);
    CHECK_EQ(taal_task_create(&loop, valued_body, NULL, sizeof(valued), NULL, NULL),
             TAAL_OK);
    CHECK(loop.objects.next != &loop.objects);
    taal_run_once(&loop);                      /* its one step: sleep(0) ... */
    taal_run_once(&loop);                      /* ... and return */
    CHECK(loop.objects.next == &loop.objects); /* nothing left to free */
    taal_loop_close(&loop);
}

/* ---- bad input in tasks ------------------------------------------------------------ */

TEST(task_creation_checks_its_arguments)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = NULL;
    CHECK_EQ(taal_task_create(NULL, valued_body, NULL, sizeof(valued), NULL, &t),
             TAAL_EINVAL);
    CHECK_EQ(taal_task_create(&loop, NULL, NULL, sizeof(valued), NULL, &t), TAAL_EINVAL);
    CHECK_EQ(taal_task_create(&loop, valued_body, NULL, 1, NULL, &t), TAAL_EINVAL);
    CHECK_EQ(taal_task_create(&loop, valued_body, NULL, (size_t)-1, NULL, &t),
             TAAL_EINVAL);
    CHECK(t == NULL);
    CHECK(taal_task_frame(NULL) == NULL);
    CHECK(taal_task_future(NULL) == NULL);
    CHECK_EQ(taal_task_set_name(NULL, "x"), TAAL_EINVAL);
    taal_task_release(NULL); /* harmless */
    char buf[16];
    CHECK_STR(taal_task_name(NULL, buf, sizeof buf), "(no task)");
    taal_loop_close(&loop);
    CHECK_EQ(taal_task_create(&loop, valued_body, NULL, sizeof(valued), NULL, &t),
             TAAL_ECLOSED);
}

TEST(a_nan_sleep_fails_the_task)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *nan = spawn_valued(&loop, NAN, NULL, NULL, 0);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(nan)), TAAL_EINVAL);
    taal_task_release(nan);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* A delay computed as `deadline - now` is negative once the deadline has
 * passed. asyncio's sleep(delay <= 0) is a bare yield, so
 *     async def a(): await asyncio.sleep(-1); print("A")
 *     async def b(): await asyncio.sleep(0); print("B")
 * run as two tasks prints A then B on 3.12 and 3.13. A sleep on a timer
 * due at now - 1 would wake `a` one iteration after `b` (B, A). */
TEST(a_negative_sleep_is_a_bare_yield_as_in_asyncio)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *a = spawn_valued(&loop, -1, "A", NULL, 0);
    taal_task *b = spawn_valued(&loop, 0, "B", NULL, 0);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(b)), TAAL_OK);
    CHECK_EQ(taal_future_status(taal_task_future(a)), TAAL_OK);
    CHECK_STR(trace, "AB");
    CHECK(taal_loop_time(&loop) == 0.0); /* no timer, and no time */
    taal_task_release(a);
    taal_task_release(b);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(awaiting_a_future_of_another_loop_fails)
{
    taal_loop loop, other;
    open_loop(&loop);
    open_loop(&other);
    taal_future foreign;
    taal_future_init(&foreign, &other);
    taal_task *t;
    taal_task_create(&loop, stuck_body, NULL, sizeof(stuck), NULL, &t);
    ((stuck *)taal_task_frame(t))->on = &foreign;
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_ELOOP);
    CHECK_EQ(taal_run_until_complete(&loop, &foreign), TAAL_ELOOP);
    CHECK_STR(taal_strerror(TAAL_ELOOP), "belongs to another loop");
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
    taal_loop_close(&other);
}

TEST(awaiting_outside_a_task_fails)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future fut;
    taal_future_init(&fut, &loop);
    stuck frame = {.on = &fut};
    taal_coro_init(&frame.co, stuck_body);
    CHECK_EQ(taal_send(&frame.co), TAAL_ENOTASK); /* driven by hand, no loop */
    CHECK_STR(taal_strerror(TAAL_ENOTASK), "not inside a task");
    taal_loop_close(&loop);
}

TEST(a_task_awaiting_itself_fails)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t;
    taal_task_create(&loop, stuck_body, NULL, sizeof(stuck), NULL, &t);
    ((stuck *)taal_task_frame(t))->on = taal_task_future(t);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_ERUNNING);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

static void stop_it(void *loop)
{
    taal_stop(loop);
}

TEST(stopping_before_the_future_completes_is_reported)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *slow = spawn_valued(&loop, 10, NULL, NULL, 0);
    taal_handle stopper = {0};
    taal_call_soon(&loop, &stopper, stop_it, &loop);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(slow)), TAAL_ESTOPPED);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(slow)), TAAL_OK);
    taal_task_release(slow);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(taal_run_runs_a_coroutine_to_the_end_on_a_loop_of_its_own)
{
    TAAL_SETENV("TAAL_CLOCK", "virtual"); /* taal_run reads the environment */
    valued ok = {.delay = 3600, .value = "an hour later"};
    valued bad = {.error = TAAL_EUSER - 5};
    void *result = NULL;
    CHECK_EQ(taal_run(valued_body, &ok, sizeof(valued), NULL, &result), TAAL_OK);
    CHECK_STR(result, "an hour later");
    CHECK_EQ(taal_run(valued_body, &bad, sizeof(valued), NULL, NULL), TAAL_EUSER - 5);
    CHECK_EQ(taal_run(valued_body, NULL, sizeof(valued), NULL, NULL),
             TAAL_OK); /* zeroed */
    CHECK_EQ(taal_run(NULL, NULL, sizeof(valued), NULL, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_run(valued_body, NULL, 1, NULL, NULL), TAAL_EINVAL);
    TAAL_UNSETENV("TAAL_CLOCK");
}

/* ---- regressions found by review ------------------------------------------------- */

/* Drives two children by hand inside one task: the first sleeps, the second
 * would park on a future. A task waits for one thing at a time. */
typedef struct sleeper {
    taal_coro co;
} sleeper;

static int sleeper_body(taal_coro *self)
{
    sleeper *f = (sleeper *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(1);
    TAAL_END();
}

typedef struct juggler {
    taal_coro co;
    sleeper nap;
    stuck wait;
    int nap_rc, wait_rc;
} juggler;

static int juggler_body(taal_coro *self)
{
    juggler *f = (juggler *)self;
    TAAL_BEGIN(f);
    taal_coro_init(&f->nap.co, sleeper_body);
    f->nap_rc = taal_send(&f->nap.co);   /* the task's timer is now armed */
    f->wait_rc = taal_send(&f->wait.co); /* so it cannot park as well */
    TAAL_END();                          /* and it finishes with its timer armed */
}

TEST(a_task_cannot_sleep_and_await_at_once_and_ends_unhooked)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future never;
    taal_future_init(&never, &loop);
    taal_task *t;
    taal_task_create(&loop, juggler_body, NULL, sizeof(juggler), NULL, &t);
    juggler *f = taal_task_frame(t);
    f->wait.on = &never;
    taal_coro_init(&f->wait.co, stuck_body);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    CHECK_EQ(f->nap_rc, TAAL_SUSPENDED);
    CHECK_EQ(f->wait_rc, TAAL_EBUSY);
    CHECK_EQ(loop.heap_len, 0); /* its timer was stopped when it finished */
    CHECK(!taal_handle_pending(&t->step.handle));
    taal_task_release(t);
    taal_loop_close(&loop);
}

typedef struct quitter {
    taal_coro co;
    stuck child;
} quitter;

static int quitter_body(taal_coro *self)
{
    quitter *f = (quitter *)self;
    TAAL_BEGIN(f);
    taal_send(&f->child.co); /* the child parks the task on its future ... */
    TAAL_END();              /* ... and the parent ends anyway */
}

TEST(a_task_that_ends_while_parked_is_never_woken_again)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future later;
    taal_future_init(&later, &loop);
    taal_task *t;
    taal_task_create(&loop, quitter_body, NULL, sizeof(quitter), NULL, &t);
    quitter *f = taal_task_frame(t);
    f->child.on = &later;
    taal_coro_init(&f->child.co, stuck_body);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    CHECK(later.waiters.next == &later.waiters); /* no task parked on it */
    CHECK_EQ(taal_future_set_result(&later, NULL), TAAL_OK);
    taal_handle stopper = {0};
    taal_call_soon(&loop, &stopper, stop_it, &loop);
    CHECK_EQ(taal_run_forever(&loop), TAAL_OK); /* nothing wakes the task */
    CHECK_EQ(taal_future_status(taal_task_future(t)), TAAL_OK);
    taal_task_release(t);
    taal_loop_close(&loop);
}

TEST(run_until_complete_runs_an_iteration_even_for_a_done_future)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future done;
    taal_future_init(&done, &loop);
    taal_future_set_result(&done, NULL);
    taal_handle h = {0};
    trace[0] = '\0';
    taal_call_soon(&loop, &h, note_callback, "ran");
    CHECK_EQ(taal_run_until_complete(&loop, &done), TAAL_OK);
    CHECK_STR(trace, "ran"); /* as asyncio: the loop ran once */
    taal_loop_close(&loop);
}

TEST(only_a_plain_future_can_be_completed_from_outside)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn_valued(&loop, 1, NULL, "real", 0);
    CHECK_EQ(taal_future_set_result(taal_task_future(t), "fake"), TAAL_EINVAL);
    CHECK_EQ(taal_future_set_error(taal_task_future(t), TAAL_EUSER), TAAL_EINVAL);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    void *value = NULL;
    taal_future_result(taal_task_future(t), &value);
    CHECK_STR(value, "real");
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(wait_first_exception_retrieves_the_error_it_stops_for)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future *some[2] = {
        taal_task_future(spawn_valued(&loop, 0.1, NULL, NULL, TAAL_EUSER)),
        taal_task_future(spawn_valued(&loop, 0.3, NULL, NULL, 0)),
    };
    taal_future *w = NULL;
    taal_wait(&loop, 2, some, TAAL_FIRST_EXCEPTION, TAAL_NO_TIMEOUT, &w);
    CHECK_EQ(taal_run_until_complete(&loop, w), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, some[1]), TAAL_OK);
    taal_future_release(w);
    taal_future_release(some[0]);
    taal_future_release(some[1]);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
    CHECK_STR(reports, ""); /* asyncio's wait looked at it: no report */
}

TEST(a_released_gather_still_counts_its_children_errors_as_seen)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future *children[2] = {
        taal_task_future(spawn_valued(&loop, 0.1, NULL, NULL, TAAL_EUSER - 1)),
        taal_task_future(spawn_valued(&loop, 0.5, NULL, NULL, TAAL_EUSER - 2)),
    };
    taal_future *g = NULL;
    taal_gather(&loop, 2, children, &g);
    CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_EUSER - 1);
    taal_future_release(g); /* before the second child fails */
    CHECK_EQ(taal_run_until_complete(&loop, children[1]), TAAL_EUSER - 2);
    taal_future_release(children[0]);
    taal_future_release(children[1]);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
    CHECK_STR(reports, "");
}

typedef struct nester {
    taal_coro co;
    int rc;
} nester;

static int nester_body(taal_coro *self)
{
    nester *f = (nester *)self;
    TAAL_BEGIN(f);
    f->rc = taal_run(valued_body, NULL, sizeof(valued), NULL, NULL);
    TAAL_END();
}

TEST(taal_run_inside_a_running_loop_is_refused_up_front)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *t;
    taal_task_create(&loop, nester_body, NULL, sizeof(nester), NULL, &t);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    CHECK_EQ(((nester *)taal_task_frame(t))->rc, TAAL_EBUSY);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
    CHECK_STR(reports, "");
}

TEST(a_tiny_positive_sleep_arms_a_timer)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *tiny = spawn_valued(&loop, 1e-10, "T", NULL, 0);
    taal_task *y = spawn_yielder(&loop, "y", 3, false);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(y)), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(tiny)), TAAL_OK);
    /* A timer, unlike sleep(0), waits until nothing else is ready. */
    CHECK_STR(trace, "yyyT");
    taal_task_release(tiny);
    taal_task_release(y);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(done_callbacks_are_scheduled_in_order_never_called_inline),
    TEST_ENTRY(a_future_completes_once),
    TEST_ENTRY(a_callback_added_to_a_done_future_is_scheduled_at_once_and_can_be_removed),
    TEST_ENTRY(a_task_returns_its_value_through_run_until_complete),
    TEST_ENTRY(tasks_take_turns_at_every_sleep_zero),
    TEST_ENTRY(a_bare_yield_in_a_task_requeues_it),
    TEST_ENTRY(awaiting_a_task_gives_its_value_or_its_error),
    TEST_ENTRY(a_task_may_free_the_plain_future_that_woke_it),
    TEST_ENTRY(gather_gives_results_in_argument_order_whatever_the_finishing_order),
    TEST_ENTRY(gather_fails_with_the_first_error_while_the_others_run_on),
    TEST_ENTRY(gather_of_nothing_is_done_at_once),
    TEST_ENTRY(gather_checks_its_arguments),
    TEST_ENTRY(wait_first_completed_returns_after_the_first_and_cancels_nothing),
    TEST_ENTRY(wait_all_completed_and_first_exception),
    TEST_ENTRY(wait_with_a_timeout_returns_with_nothing_done),
    TEST_ENTRY(a_negative_wait_timeout_ends_the_wait_at_once),
    TEST_ENTRY(wait_checks_its_arguments),
    TEST_ENTRY(a_deadlock_is_reported_with_who_waits_for_what),
    TEST_ENTRY(an_error_nobody_retrieved_is_reported_when_the_task_is_freed),
    TEST_ENTRY(an_error_nobody_retrieved_is_reported_at_close),
    TEST_ENTRY(an_error_held_through_the_close_is_reported_when_released),
    TEST_ENTRY(a_fire_and_forget_task_is_freed_when_it_ends),
    TEST_ENTRY(task_creation_checks_its_arguments),
    TEST_ENTRY(a_nan_sleep_fails_the_task),
    TEST_ENTRY(a_negative_sleep_is_a_bare_yield_as_in_asyncio),
    TEST_ENTRY(awaiting_a_future_of_another_loop_fails),
    TEST_ENTRY(awaiting_outside_a_task_fails),
    TEST_ENTRY(a_task_awaiting_itself_fails),
    TEST_ENTRY(stopping_before_the_future_completes_is_reported),
    TEST_ENTRY(taal_run_runs_a_coroutine_to_the_end_on_a_loop_of_its_own),
    TEST_ENTRY(a_task_cannot_sleep_and_await_at_once_and_ends_unhooked),
    TEST_ENTRY(a_task_that_ends_while_parked_is_never_woken_again),
    TEST_ENTRY(run_until_complete_runs_an_iteration_even_for_a_done_future),
    TEST_ENTRY(only_a_plain_future_can_be_completed_from_outside),
    TEST_ENTRY(wait_first_exception_retrieves_the_error_it_stops_for),
    TEST_ENTRY(a_released_gather_still_counts_its_children_errors_as_seen),
    TEST_ENTRY(taal_run_inside_a_running_loop_is_refused_up_front),
    TEST_ENTRY(a_tiny_positive_sleep_arms_a_timer),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
