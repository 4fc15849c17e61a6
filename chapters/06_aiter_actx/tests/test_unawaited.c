/*
** test_unawaited.c -- chapter 06: a coroutine initialised and never
** awaited is reported, as asyncio's "coroutine ... was never awaited".
**
** Where taal can know that a frame is dropped it checks: when a task ends
** (its frame goes), when an async with's enter or exit ends, when an
** __anext__ ends, and when a coroutine is initialised again before it
** ever ran. What was awaited is never reported; frames outside a task's
** are not checked (taal cannot know when they go).
*/
#include "support.h"

#include <math.h>

/* ---- a coroutine to await, or not ----------------------------------------------------
 */

typedef struct child {
    taal_coro co;
} child;

static int child_body(taal_coro *self)
{
    child *f = (child *)self;
    TAAL_BEGIN(f);
    note("child ");
    TAAL_END();
}

typedef struct forgetful {
    taal_coro co;
    child a, b;
    taal_sleep nap;
    int mode;
} forgetful;

enum { FORGET_CHILD, AWAIT_BOTH, INIT_TWICE, FORGET_SLEEP, AWAIT_LATER };

static int forgetful_body(taal_coro *self)
{
    forgetful *f = (forgetful *)self;
    TAAL_BEGIN(f);
    if (f->mode == FORGET_CHILD) {
        taal_coro_init(&f->a.co, child_body); /* and never awaited */
    } else if (f->mode == AWAIT_BOTH) {
        taal_coro_init(&f->a.co, child_body);
        taal_coro_init(&f->b.co, child_body);
        TAAL_AWAIT(&f->a);
        TAAL_AWAIT(&f->b);
    } else if (f->mode == INIT_TWICE) {
        taal_coro_init(&f->a.co, child_body);
        taal_coro_init(&f->a.co, child_body); /* the first one is dropped */
        TAAL_AWAIT(&f->a);
    } else if (f->mode == FORGET_SLEEP) {
        taal_sleep_init(&f->nap, 1); /* asyncio.sleep(1), no await */
    } else {
        taal_sleep_init(&f->nap, 1);
        TAAL_SLEEP(0.5); /* a suspension between: still awaited later */
        TAAL_AWAIT(&f->nap);
        notef("@%d", tenths());
    }
    TAAL_END();
}

TEST(a_coroutine_initialised_in_a_task_and_never_awaited_is_reported_when_it_ends)
{
    forgetful fr = {.mode = FORGET_CHILD};
    int st;
    CHECK(run_task(forgetful_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(reports, "coroutine 'child_body' was never awaited\n");
    CHECK_STR(trace, "");
}

TEST(coroutines_that_were_awaited_are_not_reported)
{
    forgetful fr = {.mode = AWAIT_BOTH};
    int st;
    CHECK(run_task(forgetful_body, &fr, sizeof fr, &st));
    CHECK_STR(reports, "");
    CHECK_STR(trace, "child child ");
    forgetful later = {.mode = AWAIT_LATER};
    CHECK(run_task(forgetful_body, &later, sizeof later, &st));
    CHECK_STR(reports, "");
    CHECK_STR(trace, "@15");
}

TEST(a_coroutine_initialised_again_before_it_ran_is_reported_then)
{
    forgetful fr = {.mode = INIT_TWICE};
    int st;
    CHECK(run_task(forgetful_body, &fr, sizeof fr, &st));
    CHECK_STR(reports, "coroutine 'child_body' was never awaited\n");
    CHECK_STR(trace, "child ");
}

TEST(a_sleep_never_awaited_is_reported_and_takes_no_time)
{
    forgetful fr = {.mode = FORGET_SLEEP};
    taal_loop loop;
    taal_task *task;
    open_loop(&loop);
    CHECK_EQ(taal_task_create(&loop, forgetful_body, &fr, sizeof fr, NULL, &task),
             TAAL_OK);
    CHECK_EQ(finish_task(&loop, task), TAAL_OK);
    CHECK_STR(reports, "coroutine 'sleep' was never awaited\n");
    CHECK_EQ(taal_loop_time(&loop), 0.0);
    taal_loop_close(&loop);
}

/* ---- in an async with's enter and exit ------------------------------------------------
 */

typedef struct resource {
    taal_actx cm;
    taal_sleep nap;
} resource;

static int resource_enter(taal_coro *self)
{
    resource *f = (resource *)self;
    TAAL_BEGIN(&f->cm);
    note("enter ");
    taal_sleep_init(&f->nap, 1); /* the seed's mistake: no await */
    TAAL_END();
}

static int resource_exit(taal_coro *self)
{
    resource *f = (resource *)self;
    TAAL_BEGIN(&f->cm);
    note("exit ");
    taal_sleep_init(&f->nap, 1);
    TAAL_END();
}

/* Notes each report into the trace as it comes, to show when it came. */
static void report_into_trace(void *ctx, const taal_report *report)
{
    (void)ctx;
    note("[");
    note(report->message);
    note("] ");
}

typedef struct with_user {
    taal_coro co;
    resource r;
    taal_block with;
} with_user;

static int with_user_body(taal_coro *self)
{
    with_user *f = (with_user *)self;
    TAAL_BEGIN(f);
    taal_actx_init(&f->r.cm, resource_enter, resource_exit);
    TAAL_ASYNC_WITH(&f->with, &f->r.cm) {
        note("body ");
        TAAL_SLEEP(1);
    }
    TAAL_ASYNC_WITH_END(&f->with);
    notef("@%d", tenths());
    TAAL_END();
}

TEST(an_enter_or_exit_that_forgets_an_await_is_reported_as_it_ends)
{
    taal_loop loop;
    taal_task *task;
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL,
                                 .report = report_into_trace};
    taal_loop_init(&loop, &options);
    trace[0] = '\0';
    CHECK_EQ(
        taal_task_create(&loop, with_user_body, NULL, sizeof(with_user), NULL, &task),
        TAAL_OK);
    CHECK_EQ(finish_task(&loop, task), TAAL_OK);
    /* at once, as Python's collector would: not when the task ends */
    CHECK_STR(trace, "enter [coroutine 'sleep' was never awaited] body "
                     "exit [coroutine 'sleep' was never awaited] @10");
    taal_loop_close(&loop);
}

/* ---- in an __anext__
 * ------------------------------------------------------------------- */

typedef struct lazy_range {
    taal_aiter it;
    taal_sleep nap;
    int i, value;
} lazy_range;

static int lazy_anext(taal_coro *self)
{
    lazy_range *f = (lazy_range *)self;
    TAAL_BEGIN(&f->it);
    if (f->i == 2)
        TAAL_FAIL(TAAL_STOP);
    f->value = f->i++;
    taal_sleep_init(&f->nap, 0.1); /* forgotten */
    TAAL_RETURN_VALUE(&f->value);
    TAAL_END();
}

typedef struct lazy_user {
    taal_coro co;
    lazy_range r;
    taal_block loop;
} lazy_user;

static int lazy_user_body(taal_coro *self)
{
    lazy_user *f = (lazy_user *)self;
    TAAL_BEGIN(f);
    taal_aiter_init(&f->r.it, lazy_anext);
    TAAL_ASYNC_FOR(&f->loop, &f->r.it) {
        notef("%d ", *(int *)f->loop.value);
    }
    TAAL_ASYNC_FOR_END(&f->loop);
    TAAL_END();
}

TEST(an_anext_that_forgets_an_await_is_reported_as_each_anext_ends)
{
    taal_loop loop;
    taal_task *task;
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL,
                                 .report = report_into_trace};
    taal_loop_init(&loop, &options);
    trace[0] = '\0';
    CHECK_EQ(
        taal_task_create(&loop, lazy_user_body, NULL, sizeof(lazy_user), NULL, &task),
        TAAL_OK);
    CHECK_EQ(finish_task(&loop, task), TAAL_OK);
    CHECK_STR(trace, "[coroutine 'sleep' was never awaited] 0 "
                     "[coroutine 'sleep' was never awaited] 1 ");
    taal_loop_close(&loop);
}

/* ---- async generators ---------------------------------------------------------------
 */

typedef struct gen {
    taal_aiter gen;
    int i;
} gen;

static int gen_body(taal_coro *self)
{
    gen *f = (gen *)self;
    TAAL_AGEN_BEGIN(&f->gen);
    for (f->i = 0; f->i < 3; f->i++)
        TAAL_AGEN_YIELD(&f->i);
    TAAL_AGEN_FINALLY();
    note("cleanup ");
    TAAL_AGEN_END();
}

typedef struct gen_user {
    taal_coro co;
    gen g;
    int take, st;
} gen_user;

static int gen_user_body(taal_coro *self)
{
    gen_user *f = (gen_user *)self;
    TAAL_BEGIN(f);
    taal_agen_init(&f->g.gen, gen_body);
    for (; f->take > 0; f->take--)
        TAAL_ANEXT_STATUS(f->st, &f->g.gen); /* by hand, never closed */
    TAAL_END();
}

TEST(a_generator_left_at_a_yield_when_its_task_ends_is_reported)
{
    gen_user fr = {.take = 1};
    int st;
    CHECK(run_task(gen_user_body, &fr, sizeof fr, &st));
    CHECK_STR(reports, "async generator 'gen_body' was never closed: its cleanup did "
                       "not run\n");
    CHECK_STR(trace, "");
}

TEST(a_generator_never_started_or_run_to_its_end_is_not_reported)
{
    gen_user none = {.take = 0}; /* Python does not warn about these either */
    int st;
    CHECK(run_task(gen_user_body, &none, sizeof none, &st));
    CHECK_STR(reports, "");
    gen_user all = {.take = 4};
    CHECK(run_task(gen_user_body, &all, sizeof all, &st));
    CHECK_STR(reports, "");
    CHECK_STR(trace, "cleanup ");
}

/* ---- where taal cannot tell
 * ------------------------------------------------------------ */

static child outside; /* static storage: it never "ends" */

typedef struct outsider {
    taal_coro co;
} outsider;

static int outsider_body(taal_coro *self)
{
    outsider *f = (outsider *)self;
    TAAL_BEGIN(f);
    taal_coro_init(&outside.co, child_body);
    TAAL_END();
}

TEST(a_frame_outside_the_task_s_is_not_checked)
{
    outsider fr = {0};
    int st;
    CHECK(run_task(outsider_body, &fr, sizeof fr, &st));
    CHECK_STR(reports, "");
    /* nor outside a task at all */
    child local;
    CHECK_EQ(taal_coro_init(&local.co, child_body), TAAL_OK);
    CHECK_STR(local.co.name, "child_body");
    CHECK_EQ((taal_coro_init)(&local.co, child_body), TAAL_OK);
    CHECK(local.co.name == NULL);
}

TEST(a_task_still_pending_at_close_has_its_frame_checked_too)
{
    taal_loop loop;
    taal_task *task;
    open_loop(&loop);
    CHECK_EQ(taal_task_create(&loop, forgetful_body, &(forgetful){.mode = AWAIT_LATER},
                              sizeof(forgetful), "late", &task),
             TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* it initialised the nap, and sleeps */
    taal_task_release(task);
    taal_loop_close(&loop);
    CHECK_STR(reports, "task late was still pending when the loop closed\n"
                       "coroutine 'sleep' was never awaited\n");
}

/* A frame copied over another can make the task's list loop back on
 * itself: the check must still end. */
typedef struct copier {
    taal_coro co;
    child a, b;
} copier;

static int copier_body(taal_coro *self)
{
    copier *f = (copier *)self;
    TAAL_BEGIN(f);
    taal_coro_init(&f->a.co, child_body);
    taal_coro_init(&f->b.co, child_body); /* the list: b, a */
    f->a = f->b;                          /* a.next = b.next = &a: a cycle */
    taal_coro_init(&f->b.co, child_body); /* b again: a report, and a walk */
    TAAL_END();
}

TEST(a_copied_frame_cannot_make_the_check_loop_forever)
{
    copier fr = {0};
    int st;
    CHECK(run_task(copier_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    /* b dropped at its second init; then both at the end (the list's walk
     * is bounded by how many headers fit in the frame) */
    CHECK(strncmp(reports, "coroutine 'child_body' was never awaited\n", 41) == 0);
}

/* A child started again. Assigning its whole frame, as `f->b = (child){0}`,
 * overwrites its header's link in the task's list (b, then a), which would
 * cut `a` off, never awaited and never reported. taal says so instead; the
 * documented way, taal_coro_init() alone, keeps the list. */
typedef struct restarter {
    taal_coro co;
    child a, b;
    bool assign;
} restarter;

static int restarter_body(taal_coro *self)
{
    restarter *f = (restarter *)self;
    TAAL_BEGIN(f);
    taal_coro_init(&f->a.co, child_body); /* and never awaited */
    taal_coro_init(&f->b.co, child_body);
    TAAL_AWAIT(&f->b);
    if (f->assign)
        f->b = (child){0};
    taal_coro_init(&f->b.co, child_body);
    TAAL_AWAIT(&f->b);
    TAAL_END();
}

TEST(a_coroutine_header_overwritten_on_the_task_s_list_is_reported_not_a_silent_loss)
{
    restarter fr = {.assign = true};
    int st;
    CHECK(run_task(restarter_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "child child ");
    CHECK(strstr(reports, "was overwritten after taal_coro_init() (assigned whole, or "
                          "cleared)") != NULL);
    restarter again = {.assign = false};
    CHECK(run_task(restarter_body, &again, sizeof again, &st));
    CHECK_STR(reports, "coroutine 'child_body' was never awaited\n");
}

TEST(a_task_cancelled_before_its_first_step_is_not_reported)
{
    taal_loop loop;
    taal_task *task;
    open_loop(&loop);
    CHECK_EQ(taal_task_create(&loop, forgetful_body, &(forgetful){.mode = FORGET_CHILD},
                              sizeof(forgetful), NULL, &task),
             TAAL_OK);
    taal_task_cancel(task);
    CHECK_EQ(finish_task(&loop, task), TAAL_ECANCELLED);
    CHECK_STR(reports, "");
    taal_loop_close(&loop);
}

/* ---- bad input ------------------------------------------------------------------ */

typedef struct bad_nap {
    taal_coro co;
    taal_sleep nap;
    int st;
} bad_nap;

static int bad_nap_body(taal_coro *self)
{
    bad_nap *f = (bad_nap *)self;
    TAAL_BEGIN(f);
    taal_sleep_init(&f->nap, NAN);
    TAAL_AWAIT_STATUS(f->st, &f->nap);
    TAAL_END();
}

TEST(a_sleep_of_null_is_refused_and_one_of_nan_fails_when_awaited)
{
    CHECK_EQ(taal_sleep_init(NULL, 1), TAAL_EINVAL);
    bad_nap fr = {0};
    int st;
    CHECK(run_task(bad_nap_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK); /* the body went on with the status */
    CHECK_EQ(fr.st, TAAL_EINVAL);
}

static const taal_test tests[] = {
    TEST_ENTRY(
        a_coroutine_initialised_in_a_task_and_never_awaited_is_reported_when_it_ends),
    TEST_ENTRY(coroutines_that_were_awaited_are_not_reported),
    TEST_ENTRY(a_coroutine_initialised_again_before_it_ran_is_reported_then),
    TEST_ENTRY(a_sleep_never_awaited_is_reported_and_takes_no_time),
    TEST_ENTRY(an_enter_or_exit_that_forgets_an_await_is_reported_as_it_ends),
    TEST_ENTRY(an_anext_that_forgets_an_await_is_reported_as_each_anext_ends),
    TEST_ENTRY(a_generator_left_at_a_yield_when_its_task_ends_is_reported),
    TEST_ENTRY(a_generator_never_started_or_run_to_its_end_is_not_reported),
    TEST_ENTRY(a_frame_outside_the_task_s_is_not_checked),
    TEST_ENTRY(a_task_still_pending_at_close_has_its_frame_checked_too),
    TEST_ENTRY(a_copied_frame_cannot_make_the_check_loop_forever),
    TEST_ENTRY(
        a_coroutine_header_overwritten_on_the_task_s_list_is_reported_not_a_silent_loss),
    TEST_ENTRY(a_task_cancelled_before_its_first_step_is_not_reported),
    TEST_ENTRY(a_sleep_of_null_is_refused_and_one_of_nan_fails_when_awaited),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
