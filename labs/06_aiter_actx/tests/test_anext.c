/*
** test_anext.c -- lab 06, exercise 1: the generator's driver.
**
**   bool taal__anext_start(taal_aiter *it, int *status);
**   int taal__anext_step(taal_aiter *it);
**   static bool enter_cleanup(taal_aiter *gen, int rc);
**
** An anext of a generator resumes its body; the body returns
** TAAL_SUSPENDED both when it awaits (the task must wait: the step returns
** TAAL_SUSPENDED) and when it yields (a value: TAAL_OK, and no
** suspension), and the `yielded` flag tells which. A body that ends before
** its cleanup is sent back to it, at TAAL__POINT_FINALLY, with `exit`
** saying why; once it has run, an anext says TAAL_STOP, or the error. An
** __anext__ iterator starts its body over at each anext. Every test reads
** the outcome of each anext, in order, from the trace.
*/
#include "lab.h"

/* Takes `n` anexts of `it` by hand, noting "v<value>" or "st=<status>". */
typedef struct taker {
    taal_coro co;
    counter c;
    range r;
    bool use_range;
    int n, i, st;
} taker;

static int taker_body(taal_coro *self)
{
    taker *f = (taker *)self;
    TAAL_BEGIN(f);
    if (f->use_range)
        taal_aiter_init(&f->r.it, range_anext);
    else
        taal_agen_init(&f->c.gen, counter_body);
    for (f->i = 0; f->i < f->n; f->i++) {
        TAAL_ANEXT_STATUS(f->st, f->use_range ? &f->r.it : &f->c.gen);
        if (f->st == TAAL_OK)
            notef("v%d", *(int *)(f->use_range ? f->r.it.value : f->c.gen.value));
        else
            notef("st=%d", f->st);
        notef("@%d ", tenths());
    }
    TAAL_END();
}

TEST(a_yield_hands_a_value_over_without_suspending_the_task)
{
    taal_loop loop;
    taal_task *task;
    open_loop(&loop);
    taker fr = {.c = {.n = 3}, .n = 5};
    CHECK_EQ(taal_task_create(&loop, taker_body, &fr, sizeof fr, NULL, &task), TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* the whole of it, in one step */
    CHECK(taal_future_done(taal_task_future(task)));
    CHECK_STR(trace, "y1 v1@0 y2 v2@0 y3 v3@0 cleanup(0) st=2@0 st=2@0 ");
    taker *f = taal_task_frame(task);
    CHECK(f->c.gen.value == NULL || f->c.gen.value == &f->c.i);
    CHECK(!f->c.gen.busy);
    taal_task_release(task);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(an_await_in_the_generator_suspends_the_task_until_it_is_done)
{
    taker fr = {.c = {.n = 2, .nap = 1, .cleanup_nap = 0.5}, .n = 3};
    int st;
    CHECK(run_task(taker_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    /* the cleanup's own await is part of the last anext */
    CHECK_STR(trace, "y1 v1@10 y2 v2@20 cleanup(0) st=2@25 ");
}

TEST(an_error_of_the_body_runs_the_cleanup_then_reaches_the_consumer)
{
    taker fr = {.c = {.n = 5, .fail_at = 2}, .n = 3};
    int st;
    CHECK(run_task(taker_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "y1 v1@0 cleanup(-1000) st=-1000@0 st=2@0 ");
    CHECK_EQ(fr.c.cleanups, 1);
}

TEST(a_cancelled_await_in_the_generator_runs_its_cleanup_which_may_await)
{
    taker fr = {.c = {.n = 5, .nap = 1, .cleanup_nap = 1}, .n = 2};
    int st;
    CHECK(run_task_cancelled_at(taker_body, &fr, sizeof fr, 1.5, &st));
    CHECK_EQ(st, TAAL_OK); /* the taker looked at the status, and went on */
    CHECK_STR(trace, "y1 v1@10 cleanup(-16) st=-16@25 ");
}

TEST(a_yield_in_the_cleanup_after_the_end_is_one_more_value)
{
    taker fr = {.c = {.n = 1, .yield_in_cleanup = true}, .n = 3};
    int st;
    CHECK(run_task(taker_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "y1 v1@0 cleanup(0) v99@0 st=2@0 ");
}

/* A generator that returns early, or raises TAAL_STOP, at its second value. */
typedef struct early {
    taal_aiter gen;
    int how, i;
} early;

static int early_body(taal_coro *self)
{
    early *f = (early *)self;
    TAAL_AGEN_BEGIN(&f->gen);
    for (f->i = 1; f->i <= 3; f->i++) {
        if (f->i == 2 && f->how == 0)
            TAAL_RETURN();
        if (f->i == 2 && f->how == 1)
            TAAL_FAIL(TAAL_STOP);
        TAAL_AGEN_YIELD(&f->i);
    }
    TAAL_AGEN_FINALLY();
    notef("cleanup(%d) ", f->gen.exit);
    TAAL_AGEN_END();
}

typedef struct early_taker {
    taal_coro co;
    early e;
    int st, i;
} early_taker;

static int early_taker_body(taal_coro *self)
{
    early_taker *f = (early_taker *)self;
    TAAL_BEGIN(f);
    taal_agen_init(&f->e.gen, early_body);
    for (f->i = 0; f->i < 3; f->i++) {
        TAAL_ANEXT_STATUS(f->st, &f->e.gen);
        notef("st=%d ", f->st);
    }
    TAAL_END();
}

TEST(a_return_before_the_cleanup_runs_it_and_ends_the_values)
{
    early_taker fr = {.e = {.how = 0}};
    int st;
    CHECK(run_task(early_taker_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "st=0 cleanup(0) st=2 st=2 ");
}

TEST(stop_raised_by_a_generator_runs_its_cleanup_and_is_estray)
{
    early_taker fr = {.e = {.how = 1}};
    int st;
    CHECK(run_task(early_taker_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "st=0 cleanup(-19) st=-19 st=2 ");
}

TEST(an_anext_iterator_runs_its_body_from_the_top_at_each_anext)
{
    taker fr = {.r = {.start = 3, .stop = 5, .nap = 0.5}, .use_range = true, .n = 4};
    int st;
    CHECK(run_task(taker_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "v3@5 v4@10 st=2@10 st=2@10 ");
    CHECK_EQ(fr.r.calls, 4);
}

/* Two tasks, one generator: an anext while another one awaits in it. */
typedef struct second {
    taal_coro co;
    taal_aiter *it;
    int st;
} second;

static int second_body(taal_coro *self)
{
    second *f = (second *)self;
    TAAL_BEGIN(f);
    TAAL_ANEXT_STATUS(f->st, f->it);
    TAAL_END();
}

typedef struct first {
    taal_coro co;
    counter c;
    taal_task *other;
    int st, other_st;
} first;

static int first_body(taal_coro *self)
{
    first *f = (first *)self;
    TAAL_BEGIN(f);
    taal_agen_init(&f->c.gen, counter_body);
    taal_task_create(taal_running_loop(), second_body, &(second){.it = &f->c.gen},
                     sizeof(second), NULL, &f->other);
    TAAL_ANEXT_STATUS(f->st, &f->c.gen);
    TAAL_AWAIT_TASK(f->other);
    f->other_st = ((second *)taal_task_frame(f->other))->st;
    taal_task_release(f->other);
    TAAL_END();
}

TEST(an_anext_while_another_is_in_progress_is_erunning)
{
    first fr = {.c = {.n = 3, .nap = 1}};
    int st;
    CHECK(run_task(first_body, &fr, sizeof fr, &st));
    CHECK_EQ(fr.st, TAAL_OK);
    CHECK_EQ(fr.other_st, TAAL_ERUNNING);
    CHECK_STR(trace, "y1 ");
}

typedef struct misuse {
    taal_coro co;
    taal_aiter zero;
    int null_st, zero_st;
} misuse;

static int misuse_body(taal_coro *self)
{
    misuse *f = (misuse *)self;
    TAAL_BEGIN(f);
    TAAL_ANEXT_STATUS(f->null_st, (taal_aiter *)NULL);
    TAAL_ANEXT_STATUS(f->zero_st, &f->zero);
    TAAL_END();
}

TEST(an_anext_of_nothing_or_of_zeroed_storage_is_einval)
{
    misuse fr = {0};
    int st;
    CHECK(run_task(misuse_body, &fr, sizeof fr, &st));
    CHECK_EQ(fr.null_st, TAAL_EINVAL);
    CHECK_EQ(fr.zero_st, TAAL_EINVAL);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_yield_hands_a_value_over_without_suspending_the_task),
    TEST_ENTRY(an_await_in_the_generator_suspends_the_task_until_it_is_done),
    TEST_ENTRY(an_error_of_the_body_runs_the_cleanup_then_reaches_the_consumer),
    TEST_ENTRY(a_cancelled_await_in_the_generator_runs_its_cleanup_which_may_await),
    TEST_ENTRY(a_yield_in_the_cleanup_after_the_end_is_one_more_value),
    TEST_ENTRY(a_return_before_the_cleanup_runs_it_and_ends_the_values),
    TEST_ENTRY(stop_raised_by_a_generator_runs_its_cleanup_and_is_estray),
    TEST_ENTRY(an_anext_iterator_runs_its_body_from_the_top_at_each_anext),
    TEST_ENTRY(an_anext_while_another_is_in_progress_is_erunning),
    TEST_ENTRY(an_anext_of_nothing_or_of_zeroed_storage_is_einval),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
