/*
** test_timed.c -- lab 06, exercise 5: a context manager that times its
** body.
**
**   int taal_timed_init(taal_timed *timed);
**
** `async with timer:` records, in the timer, how long the body took on the
** loop's clock and how it ended, however it ended (normally, with an
** error, cancelled), and swallows nothing: the block's outcome is the
** body's. The enter gives the timer itself; the counts add up over blocks.
**
** This file does not compile until taal_timed exists: that fails this
** exercise only.
*/
#include "lab.h"

typedef struct timing {
    taal_coro co;
    taal_timed timer;
    taal_block with;
    double nap;
    int fail, st, i, rounds;
    bool as_value_ok;
} timing;

static int timing_body(taal_coro *self)
{
    timing *f = (timing *)self;
    TAAL_BEGIN(f);
    taal_timed_init(&f->timer);
    for (f->i = 0; f->i < (f->rounds > 0 ? f->rounds : 1); f->i++) {
        TAAL_SLEEP(0.5); /* not timed */
        TAAL_ASYNC_WITH(&f->with, &f->timer.cm) {
            f->as_value_ok = f->with.value == &f->timer;
            TAAL_SLEEP(f->nap);
            if (f->fail != 0)
                TAAL_FAIL(f->fail);
        }
        TAAL_ASYNC_WITH_END_STATUS(f->st, &f->with);
        notef("st=%d ", f->st);
    }
    TAAL_END();
}

TEST(the_body_s_time_is_recorded_on_the_loop_s_clock)
{
    timing fr = {.nap = 1.5};
    int st;
    CHECK(run_task(timing_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK(fr.as_value_ok);
    CHECK_EQ((int)(fr.timer.elapsed * 1000 + 0.5), 1500);
    CHECK_EQ((int)(fr.timer.started * 1000 + 0.5), 500);
    CHECK_EQ(fr.timer.status, TAAL_OK);
    CHECK_EQ(fr.timer.count, 1);
    CHECK_STR(trace, "st=0 ");
}

TEST(an_error_is_timed_recorded_and_not_swallowed)
{
    timing fr = {.nap = 2, .fail = TAAL_EUSER};
    int st;
    CHECK(run_task(timing_body, &fr, sizeof fr, &st));
    CHECK_EQ((int)(fr.timer.elapsed * 1000 + 0.5), 2000);
    CHECK_EQ(fr.timer.status, TAAL_EUSER);
    CHECK_STR(trace, "st=-1000 ");
}

TEST(a_cancelled_body_is_timed_to_the_moment_of_the_cancel)
{
    timing fr = {.nap = 10};
    int st;
    CHECK(run_task_cancelled_at(timing_body, &fr, sizeof fr, 3, &st));
    CHECK_EQ((int)(fr.timer.elapsed * 1000 + 0.5), 2500);
    CHECK_EQ(fr.timer.status, TAAL_ECANCELLED);
    CHECK_STR(trace, "st=-16 ");
}

TEST(blocks_add_up)
{
    timing fr = {.nap = 1, .rounds = 3};
    int st;
    CHECK(run_task(timing_body, &fr, sizeof fr, &st));
    CHECK_EQ(fr.timer.count, 3);
    CHECK_EQ((int)(fr.timer.total * 1000 + 0.5), 3000);
    CHECK_EQ((int)(fr.timer.started * 1000 + 0.5), 3500); /* the last one's */
}

TEST(init_refuses_nothing)
{
    CHECK_EQ(taal_timed_init(NULL), TAAL_EINVAL);
}

static const taal_test tests[] = {
    TEST_ENTRY(the_body_s_time_is_recorded_on_the_loop_s_clock),
    TEST_ENTRY(an_error_is_timed_recorded_and_not_swallowed),
    TEST_ENTRY(a_cancelled_body_is_timed_to_the_moment_of_the_cancel),
    TEST_ENTRY(blocks_add_up),
    TEST_ENTRY(init_refuses_nothing),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
