/*
** test_azip.c -- lab 06, exercise 4: an async zip.
**
**   int taal_azip_init(taal_azip *zip, taal_aiter *a, taal_aiter *b);
**
** A zip of two iterators yields pairs (`void **`, two values), one value
** of each, the first one's first; it ends when either has no more, fails
** with the first error either gives, and closes both however it ends:
** run out, failed, left early by a break, or cancelled. Each test reads
** the values and both generators' cleanups from the trace.
**
** This file does not compile until taal_azip exists: that fails this
** exercise only.
*/
#include "lab.h"

/* A zip of two counters, iterated with `async for`. */
typedef struct zipper {
    taal_coro co;
    counter a, b;
    taal_azip zip;
    taal_block loop;
    int break_after, seen, st;
} zipper;

static int zipper_body(taal_coro *self)
{
    zipper *f = (zipper *)self;
    TAAL_BEGIN(f);
    taal_agen_init(&f->a.gen, counter_body);
    taal_agen_init(&f->b.gen, counter_body);
    taal_azip_init(&f->zip, &f->a.gen, &f->b.gen);
    TAAL_ASYNC_FOR(&f->loop, &f->zip.gen) {
        void **pair = f->loop.value;
        notef("(%d,", *(int *)pair[0]);
        notef("%d)", *(int *)pair[1]);
        notef("@%d ", tenths());
        if (++f->seen == f->break_after)
            break;
    }
    TAAL_ASYNC_FOR_END_STATUS(f->st, &f->loop);
    notef("end=%d", f->st);
    TAAL_END();
}

TEST(pairs_come_one_value_of_each_until_the_shorter_ends_and_both_are_closed)
{
    zipper fr = {.a = {.n = 3}, .b = {.n = 5}};
    int st;
    CHECK(run_task(zipper_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    /* a runs out on the fourth anext, before b is asked: b is closed there */
    CHECK_STR(trace, "y1 y1 (1,1)@0 y2 y2 (2,2)@0 y3 y3 (3,3)@0 cleanup(0) "
                     "cleanup(-20) end=0");
    CHECK_EQ(fr.a.cleanups, 1);
    CHECK_EQ(fr.b.cleanups, 1);
    CHECK(taal_coro_done(&fr.zip.gen.co));
}

TEST(when_the_second_is_shorter_the_first_is_closed_after_it_gave_a_value)
{
    zipper fr = {.a = {.n = 5}, .b = {.n = 1}};
    int st;
    CHECK(run_task(zipper_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "y1 y1 (1,1)@0 y2 cleanup(0) cleanup(-20) end=0");
}

TEST(values_that_await_come_at_the_pace_of_both)
{
    zipper fr = {.a = {.n = 2, .nap = 1}, .b = {.n = 2, .nap = 2}};
    int st;
    CHECK(run_task(zipper_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "y1 y1 (1,1)@30 y2 y2 (2,2)@60 cleanup(0) cleanup(-20) end=0");
}

TEST(an_error_of_either_ends_the_zip_with_it_and_closes_both)
{
    zipper fr = {.a = {.n = 5}, .b = {.n = 5, .fail_at = 2}};
    int st;
    CHECK(run_task(zipper_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "y1 y1 (1,1)@0 y2 cleanup(-1000) cleanup(-20) end=-1000");
    CHECK_EQ(fr.a.cleanups, 1);
    CHECK_EQ(fr.b.cleanups, 1);
}

TEST(a_break_closes_the_zip_which_closes_both)
{
    zipper fr = {.a = {.n = 5}, .b = {.n = 5}, .break_after = 1};
    int st;
    CHECK(run_task(zipper_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "y1 y1 (1,1)@0 cleanup(-20) cleanup(-20) end=0");
}

TEST(a_cancellation_while_one_awaits_closes_the_other)
{
    zipper fr = {.a = {.n = 5, .nap = 1}, .b = {.n = 5, .nap = 1, .cleanup_nap = 1}};
    int st;
    CHECK(run_task_cancelled_at(zipper_body, &fr, sizeof fr, 2.5, &st));
    /* cancelled in a's sleep: a cleans up cancelled; then b is closed, its
     * cleanup awaiting a second (the task is back to normal by then) */
    CHECK_STR(trace, "y1 y1 (1,1)@20 cleanup(-16) cleanup(-20) end=-16");
}

TEST(init_refuses_nothing)
{
    taal_azip zip;
    counter c;
    CHECK_EQ(taal_azip_init(NULL, &c.gen, &c.gen), TAAL_EINVAL);
    CHECK_EQ(taal_azip_init(&zip, NULL, &c.gen), TAAL_EINVAL);
    CHECK_EQ(taal_azip_init(&zip, &c.gen, NULL), TAAL_EINVAL);
}

static const taal_test tests[] = {
    TEST_ENTRY(pairs_come_one_value_of_each_until_the_shorter_ends_and_both_are_closed),
    TEST_ENTRY(when_the_second_is_shorter_the_first_is_closed_after_it_gave_a_value),
    TEST_ENTRY(values_that_await_come_at_the_pace_of_both),
    TEST_ENTRY(an_error_of_either_ends_the_zip_with_it_and_closes_both),
    TEST_ENTRY(a_break_closes_the_zip_which_closes_both),
    TEST_ENTRY(a_cancellation_while_one_awaits_closes_the_other),
    TEST_ENTRY(init_refuses_nothing),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
