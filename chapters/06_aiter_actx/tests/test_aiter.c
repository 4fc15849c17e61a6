/*
** test_aiter.c -- chapter 06: the async iterator protocol, and TAAL_STOP.
**
** An async iterator's __anext__ runs from its first line at every anext,
** on the same frame; it ends with a value, with TAAL_STOP (no more
** values: a status, not an error) or with an error. TAAL_STOP is a finish
** taal_send() accepts, the _STATUS forms pass it through, and a task or a
** generator that ends with it fails with TAAL_ESTRAY.
*/
#include "support.h"

/* ---- a range: the seed's AsyncRange, with a way to fail --------------------------- */

typedef struct range {
    taal_aiter it; /* first: the iterator */
    int start, stop;
    double nap;  /* each anext sleeps this long first, if > 0 */
    int fail_at; /* if not 0: the anext that reaches it fails with TAAL_EUSER */
    int value, calls;
} range;

static int range_anext(taal_coro *self)
{
    range *f = (range *)self;
    TAAL_BEGIN(&f->it);
    f->calls++;
    if (f->start >= f->stop)
        TAAL_FAIL(TAAL_STOP);
    if (f->fail_at != 0 && f->start == f->fail_at)
        TAAL_FAIL(TAAL_EUSER);
    f->value = f->start++;
    if (f->nap > 0)
        TAAL_SLEEP(f->nap);
    TAAL_RETURN_VALUE(&f->value);
    TAAL_END();
}

/* Takes `n` values by hand with TAAL_ANEXT_STATUS, noting each outcome. */
typedef struct taker {
    taal_coro co;
    range r;
    int n, i, st;
    int close;
} taker;

static int taker_body(taal_coro *self)
{
    taker *f = (taker *)self;
    TAAL_BEGIN(f);
    taal_aiter_init(&f->r.it, range_anext);
    for (f->i = 0; f->i < f->n; f->i++) {
        TAAL_ANEXT_STATUS(f->st, &f->r.it);
        if (f->st == TAAL_OK)
            notef("%d ", *(int *)f->r.it.value);
        else
            notef("st=%d ", f->st);
    }
    TAAL_ACLOSE_STATUS(f->close, &f->r.it);
    TAAL_END();
}

TEST(the_end_of_the_iteration_is_a_status_that_is_not_an_error)
{
    CHECK(TAAL_STOP > 0);
    CHECK(TAAL_STOP != TAAL_SUSPENDED);
    CHECK_STR(taal_strerror(TAAL_STOP), "no more values");
    taker fr = {.r = {.start = 0, .stop = 3}, .n = 5};
    int st;
    CHECK(run_task(taker_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    /* an exhausted __anext__ iterator is asked again, and says so again */
    CHECK_STR(trace, "0 1 2 st=2 st=2 ");
    CHECK_EQ(fr.r.calls, 5);
    CHECK_EQ(fr.close, TAAL_OK); /* nothing to close */
}

TEST(each_anext_runs_the_body_from_its_first_line_on_the_same_frame)
{
    taker fr = {.r = {.start = 10, .stop = 13, .nap = 0.5}, .n = 3};
    int st;
    CHECK(run_task(taker_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "10 11 12 ");
    CHECK_EQ(fr.r.start, 13); /* `self.start` kept between anexts */
    CHECK_EQ(fr.r.calls, 3);
}

TEST(an_iterator_that_fails_mid_way_gives_its_error_then_may_go_on)
{
    taker fr = {.r = {.start = 0, .stop = 5, .fail_at = 2}, .n = 4};
    int st;
    CHECK(run_task(taker_body, &fr, sizeof fr, &st));
    /* the failing anext changed nothing: the next one fails again */
    CHECK_STR(trace, "0 1 st=-1000 st=-1000 ");
}

/* ---- async for over it ----------------------------------------------------------- */

typedef struct looper {
    taal_coro co;
    range r;
    taal_block loop;
    int break_at, skip, fail_at_value;
    double body_nap;
    int v, st;
    bool after;
} looper;

static int looper_body(taal_coro *self)
{
    looper *f = (looper *)self;
    TAAL_BEGIN(f);
    taal_aiter_init(&f->r.it, range_anext);
    TAAL_ASYNC_FOR(&f->loop, &f->r.it) {
        f->v = *(int *)f->loop.value;
        if (f->v == f->skip)
            continue;
        notef("%d", f->v);
        notef("@%d ", tenths());
        if (f->v == f->fail_at_value)
            TAAL_FAIL(TAAL_EUSER);
        if (f->body_nap > 0)
            TAAL_SLEEP(f->body_nap);
        if (*(int *)f->loop.value == f->break_at)
            break;
    }
    TAAL_ASYNC_FOR_END_STATUS(f->st, &f->loop);
    f->after = true;
    notef("end=%d", f->st);
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(async_for_runs_the_body_once_per_value_and_ends_at_stop)
{
    looper fr = {.r = {.start = 0, .stop = 3, .nap = 0.1},
                 .break_at = -1,
                 .skip = -1,
                 .fail_at_value = -1};
    int st;
    CHECK(run_task(looper_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "0@1 1@2 2@3 end=0");
    CHECK(fr.co.blocks == NULL);
}

TEST(break_and_continue_leave_and_resume_the_loop)
{
    looper fr = {
        .r = {.start = 0, .stop = 9}, .break_at = 4, .skip = 2, .fail_at_value = -1};
    int st;
    CHECK(run_task(looper_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "0@0 1@0 3@0 4@0 end=0");
    CHECK_EQ(fr.r.calls, 5);
}

TEST(an_iterator_that_fails_mid_way_ends_the_loop_with_its_error)
{
    looper fr = {.r = {.start = 0, .stop = 9, .fail_at = 2},
                 .break_at = -1,
                 .skip = -1,
                 .fail_at_value = -1};
    int st;
    CHECK(run_task(looper_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "0@0 1@0 end=-1000");
    CHECK(fr.after);
}

TEST(a_return_from_the_body_leaves_the_loop_and_skips_what_follows)
{
    looper fr = {
        .r = {.start = 0, .stop = 9}, .break_at = -1, .skip = -1, .fail_at_value = 1};
    int st;
    CHECK(run_task(looper_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_EUSER);
    /* END's status form ran (it carried on), after the loop was left */
    CHECK_STR(trace, "0@0 1@0 end=-1000");
}

TEST(a_cancellation_in_the_body_leaves_the_loop)
{
    looper fr = {.r = {.start = 0, .stop = 9},
                 .break_at = -1,
                 .skip = -1,
                 .fail_at_value = -1,
                 .body_nap = 1};
    CHECK_EQ(cancelled_at(looper_body, &fr, sizeof fr, 1.5), TAAL_ECANCELLED);
    CHECK_STR(trace, "0@0 1@10 end=-16");
    CHECK_EQ(fr.loop.phase, TAAL_BLOCK_IDLE);
}

/* One block for a loop inside a loop of another block, used again and
 * again: a block is idle once its END has run. */
typedef struct nested {
    taal_coro co;
    range outer, inner;
    taal_block a, b;
    int sum;
} nested;

static int nested_body(taal_coro *self)
{
    nested *f = (nested *)self;
    TAAL_BEGIN(f);
    taal_aiter_init(&f->outer.it, range_anext);
    TAAL_ASYNC_FOR(&f->a, &f->outer.it) {
        f->inner.start = 0;
        f->inner.stop = *(int *)f->a.value;
        taal_aiter_init(&f->inner.it, range_anext);
        TAAL_ASYNC_FOR(&f->b, &f->inner.it) {
            f->sum += *(int *)f->b.value;
            TAAL_SLEEP(0.1);
        }
        TAAL_ASYNC_FOR_END(&f->b);
        notef("%d ", f->sum);
    }
    TAAL_ASYNC_FOR_END(&f->a);
    TAAL_END();
}

TEST(loops_nest_and_a_block_is_used_again_once_its_end_ran)
{
    nested fr = {.outer = {.start = 1, .stop = 5}};
    int st;
    CHECK(run_task(nested_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "0 1 4 10 ");
}

/* ---- TAAL_STOP through the rest of taal -------------------------------------------- */

static int returns_stop(taal_coro *self)
{
    (void)self;
    return TAAL_STOP;
}

static int returns_three(taal_coro *self)
{
    (void)self;
    return 3;
}

TEST(taal_send_accepts_stop_as_a_finish_and_nothing_else_positive)
{
    taal_coro co;
    taal_coro_init(&co, returns_stop);
    CHECK_EQ(taal_send(&co), TAAL_STOP);
    CHECK(taal_coro_done(&co));
    CHECK_EQ(co.status, TAAL_STOP);
    CHECK_EQ(taal_send(&co), TAAL_EDEAD);
    taal_coro_init(&co, returns_three);
    CHECK_EQ(taal_send(&co), TAAL_EINVAL);
}

typedef struct parent {
    taal_coro co;
    taal_coro child;
    int st;
} parent;

static int status_parent_body(taal_coro *self)
{
    parent *f = (parent *)self;
    TAAL_BEGIN(f);
    taal_coro_init(&f->child, returns_stop);
    TAAL_AWAIT_STATUS(f->st, (parent *)&f->child); /* the _STATUS form passes it */
    TAAL_END();
}

static int failing_parent_body(taal_coro *self)
{
    parent *f = (parent *)self;
    TAAL_BEGIN(f);
    taal_coro_init(&f->child, returns_stop);
    TAAL_AWAIT((parent *)&f->child); /* `raise` goes on up, as in Python */
    note("never");
    TAAL_END();
}

TEST(stop_goes_through_the_status_forms_and_fails_a_task_with_estray)
{
    parent fr = {0};
    taal_coro_init(&fr.co, status_parent_body);
    CHECK_EQ(taal_send(&fr.co), TAAL_OK);
    CHECK_EQ(fr.st, TAAL_STOP);
    taal_coro_init(&fr.co, failing_parent_body);
    trace[0] = '\0';
    CHECK_EQ(taal_send(&fr.co), TAAL_STOP);
    CHECK_STR(trace, "");
    /* A future ends with a result or an error: a task whose coroutine
     * ends with TAAL_STOP fails with TAAL_ESTRAY, and so does taal_run(). */
    int st;
    parent task_fr = {0};
    CHECK(run_task(failing_parent_body, &task_fr, sizeof task_fr, &st));
    CHECK_EQ(st, TAAL_ESTRAY);
    taal_loop_options quiet = {.clock = TAAL_CLOCK_VIRTUAL, .report = collect_report};
    CHECK_EQ(taal_run(returns_stop, NULL, sizeof(taal_coro), &quiet, NULL), TAAL_ESTRAY);
    CHECK_STR(taal_strerror(TAAL_ESTRAY), "end of iteration outside an iterator");
}

/* A body that opens a block at a line it does not have (only hand-written
 * code can) and returns: taal_send() cannot leave the block through its
 * END, and gives up with TAAL_EPOINT instead of trying forever. */
typedef struct bogus {
    taal_coro co;
    range r;
    taal_block loop;
} bogus;

static int bogus_body(taal_coro *self)
{
    bogus *f = (bogus *)self;
    TAAL_BEGIN(f);
    taal__for_begin(taal__self, &f->loop, &f->r.it, 99999);
    TAAL_FAIL(TAAL_EUSER);
    TAAL_END();
}

TEST(a_block_whose_line_the_body_lacks_ends_the_coroutine_with_epoint)
{
    bogus fr = {0};
    taal_aiter_init(&fr.r.it, range_anext);
    taal_coro_init(&fr.co, bogus_body);
    CHECK_EQ(taal_send(&fr.co), TAAL_EPOINT);
    CHECK(fr.co.blocks == NULL);
    CHECK(taal_coro_done(&fr.co));
}

/* ---- by hand, and two at once ----------------------------------------------------- */

TEST(an_iterator_that_never_awaits_runs_without_a_loop)
{
    looper fr = {
        .r = {.start = 0, .stop = 3}, .break_at = -1, .skip = -1, .fail_at_value = -1};
    trace[0] = '\0';
    taal_coro_init(&fr.co, looper_body);
    /* tenths() reads no loop: 0 */
    CHECK_EQ(taal_send(&fr.co), TAAL_OK);
    CHECK_STR(trace, "0@0 1@0 2@0 end=0");
}

typedef struct pair_frame {
    taal_coro co;
    range r;
    taal_task *other;
    int mine, st;
} pair_frame;

typedef struct intruder {
    taal_coro co;
    taal_aiter *it;
    int st;
} intruder;

static int intruder_body(taal_coro *self)
{
    intruder *f = (intruder *)self;
    TAAL_BEGIN(f);
    TAAL_ANEXT_STATUS(f->st, f->it);
    TAAL_END();
}

static int pair_body(taal_coro *self)
{
    pair_frame *f = (pair_frame *)self;
    TAAL_BEGIN(f);
    taal_aiter_init(&f->r.it, range_anext);
    taal_task_create(taal_running_loop(), intruder_body, &(intruder){.it = &f->r.it},
                     sizeof(intruder), NULL, &f->other);
    TAAL_ANEXT_STATUS(f->mine, &f->r.it); /* sleeps in it, while the other tries */
    TAAL_AWAIT_TASK(f->other);
    f->st = ((intruder *)taal_task_frame(f->other))->st;
    taal_task_release(f->other);
    TAAL_END();
}

TEST(an_anext_while_another_runs_is_erunning)
{
    pair_frame fr = {.r = {.start = 0, .stop = 3, .nap = 1}};
    int st;
    CHECK(run_task(pair_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_EQ(fr.mine, TAAL_OK);
    CHECK_EQ(fr.st, TAAL_ERUNNING);
}

TEST(bad_input_to_the_iterator_functions_is_refused)
{
    CHECK_EQ(taal_aiter_init(NULL, range_anext), TAAL_EINVAL);
    range r;
    CHECK_EQ(taal_aiter_init(&r.it, NULL), TAAL_EINVAL);
    CHECK_EQ((taal_aiter_init)(&r.it, range_anext), TAAL_OK);
    CHECK(r.it.co.name == NULL);
    CHECK_EQ(taal_aiter_init(&r.it, range_anext), TAAL_OK);
    CHECK_STR(r.it.co.name, "range_anext");
}

/* TAAL_CHAPTER and TAAL_VERSION. These tests run against every later
 * chapter too: the header is chapter 06 or later, and exactly the one the
 * build says it built them against, of the CMake project's version. */
TEST(the_header_says_which_chapter_and_which_version_of_taal_it_is)
{
    CHECK(TAAL_CHAPTER >= 6);
    CHECK_EQ(TAAL_CHAPTER, TAAL_TESTED_CHAPTER);
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", TAAL_VERSION_MAJOR, TAAL_VERSION_MINOR,
             TAAL_VERSION_PATCH);
    CHECK_STR(version, TAAL_VERSION);
    CHECK_STR(TAAL_VERSION, TAAL_TESTED_VERSION);
}

static const taal_test tests[] = {
    TEST_ENTRY(the_end_of_the_iteration_is_a_status_that_is_not_an_error),
    TEST_ENTRY(each_anext_runs_the_body_from_its_first_line_on_the_same_frame),
    TEST_ENTRY(an_iterator_that_fails_mid_way_gives_its_error_then_may_go_on),
    TEST_ENTRY(async_for_runs_the_body_once_per_value_and_ends_at_stop),
    TEST_ENTRY(break_and_continue_leave_and_resume_the_loop),
    TEST_ENTRY(an_iterator_that_fails_mid_way_ends_the_loop_with_its_error),
    TEST_ENTRY(a_return_from_the_body_leaves_the_loop_and_skips_what_follows),
    TEST_ENTRY(a_cancellation_in_the_body_leaves_the_loop),
    TEST_ENTRY(loops_nest_and_a_block_is_used_again_once_its_end_ran),
    TEST_ENTRY(taal_send_accepts_stop_as_a_finish_and_nothing_else_positive),
    TEST_ENTRY(stop_goes_through_the_status_forms_and_fails_a_task_with_estray),
    TEST_ENTRY(a_block_whose_line_the_body_lacks_ends_the_coroutine_with_epoint),
    TEST_ENTRY(an_iterator_that_never_awaits_runs_without_a_loop),
    TEST_ENTRY(an_anext_while_another_runs_is_erunning),
    TEST_ENTRY(bad_input_to_the_iterator_functions_is_refused),
    TEST_ENTRY(the_header_says_which_chapter_and_which_version_of_taal_it_is),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
