/*
** test_aclose.c -- lab 06, exercise 2: closing a generator.
**
**   bool taal__aclose_start(taal_aiter *it, int *status);
**   int taal__aclose_step(taal_aiter *it);
**
** A generator suspended at a yield is resumed with its yield saying
** TAAL_EGENEXIT: its body ends there and its cleanup runs, awaiting as it
** likes; the close then says TAAL_OK, or the cleanup's error. One that
** never started is closed without running anything (its body never
** began), one that finished is closed already, and a second close is
** harmless. A yield during the close is TAAL_EIGNORED, and ends the
** generator all the same. An __anext__ iterator has nothing to close.
** These tests need exercise 1's driver: the generators are started with
** it first.
*/
#include "lab.h"

/* Takes `take` values, then closes `closes` times, then asks once more;
 * notes every outcome, with the time. */
typedef struct closer {
    taal_coro co;
    counter c;
    range r;
    bool use_range;
    int take, closes, i, st;
} closer;

static int closer_body(taal_coro *self)
{
    closer *f = (closer *)self;
    TAAL_BEGIN(f);
    if (f->use_range)
        taal_aiter_init(&f->r.it, range_anext);
    else
        taal_agen_init(&f->c.gen, counter_body);
    for (f->i = 0; f->i < f->take; f->i++) {
        TAAL_ANEXT_STATUS(f->st, f->use_range ? &f->r.it : &f->c.gen);
        notef("next=%d ", f->st);
    }
    for (f->i = 0; f->i < f->closes; f->i++) {
        TAAL_ACLOSE_STATUS(f->st, f->use_range ? &f->r.it : &f->c.gen);
        notef("close=%d", f->st);
        notef("@%d ", tenths());
    }
    TAAL_ANEXT_STATUS(f->st, f->use_range ? &f->r.it : &f->c.gen);
    notef("then=%d", f->st);
    TAAL_END();
}

TEST(a_generator_at_a_yield_runs_its_cleanup_with_genexit)
{
    closer fr = {.c = {.n = 5}, .take = 2, .closes = 1};
    int st;
    CHECK(run_task(closer_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "y1 next=0 y2 next=0 cleanup(-20) close=0@0 then=2");
    CHECK_EQ(fr.c.cleanups, 1);
    CHECK(taal_coro_done(&fr.c.gen.co));
    CHECK(!fr.c.gen.busy);
    CHECK(!fr.c.gen.closing);
}

TEST(a_cleanup_that_awaits_makes_the_close_wait_for_it)
{
    closer fr = {.c = {.n = 5, .cleanup_nap = 2}, .take = 1, .closes = 1};
    int st;
    CHECK(run_task(closer_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "y1 next=0 cleanup(-20) close=0@20 then=2");
}

TEST(a_generator_never_started_is_closed_without_running_anything)
{
    closer fr = {.c = {.n = 5}, .take = 0, .closes = 1};
    int st;
    CHECK(run_task(closer_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "close=0@0 then=2");
    CHECK_EQ(fr.c.cleanups, 0);
    CHECK(taal_coro_done(&fr.c.gen.co));
}

TEST(a_finished_generator_and_a_second_close_are_harmless)
{
    closer fr = {.c = {.n = 1}, .take = 2, .closes = 2};
    int st;
    CHECK(run_task(closer_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "y1 next=0 cleanup(0) next=2 close=0@0 close=0@0 then=2");
    CHECK_EQ(fr.c.cleanups, 1);
    closer twice = {.c = {.n = 5}, .take = 1, .closes = 2};
    CHECK(run_task(closer_body, &twice, sizeof twice, &st));
    CHECK_STR(trace, "y1 next=0 cleanup(-20) close=0@0 close=0@0 then=2");
    CHECK_EQ(twice.c.cleanups, 1);
}

TEST(a_yield_during_the_close_is_eignored_and_ends_the_generator)
{
    closer fr = {.c = {.n = 5, .yield_in_cleanup = true}, .take = 1, .closes = 2};
    int st;
    CHECK(run_task(closer_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "y1 next=0 cleanup(-20) close=-21@0 close=0@0 then=2");
    CHECK(!fr.c.gen.busy);
}

TEST(a_cleanup_cut_short_by_a_cancellation_ends_the_close_with_it)
{
    closer fr = {.c = {.n = 5, .cleanup_nap = 2}, .take = 1, .closes = 1};
    int st;
    CHECK(run_task_cancelled_at(closer_body, &fr, sizeof fr, 1, &st));
    CHECK_STR(trace, "y1 next=0 cleanup(-20) close=-16@10 then=2");
}

TEST(an_anext_iterator_has_nothing_to_close)
{
    closer fr = {.r = {.start = 0, .stop = 5}, .use_range = true, .take = 1, .closes = 1};
    int st;
    CHECK(run_task(closer_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "next=0 close=0@0 then=0");
}

/* A close while an anext of another task awaits in the generator. */
typedef struct intruder {
    taal_coro co;
    taal_aiter *it;
    int st;
} intruder;

static int intruder_body(taal_coro *self)
{
    intruder *f = (intruder *)self;
    TAAL_BEGIN(f);
    TAAL_ACLOSE_STATUS(f->st, f->it);
    TAAL_END();
}

typedef struct host {
    taal_coro co;
    counter c;
    taal_task *other;
    int st, other_st, closed;
} host;

static int host_body(taal_coro *self)
{
    host *f = (host *)self;
    TAAL_BEGIN(f);
    taal_agen_init(&f->c.gen, counter_body);
    taal_task_create(taal_running_loop(), intruder_body, &(intruder){.it = &f->c.gen},
                     sizeof(intruder), NULL, &f->other);
    TAAL_ANEXT_STATUS(f->st, &f->c.gen);
    TAAL_AWAIT_TASK(f->other);
    f->other_st = ((intruder *)taal_task_frame(f->other))->st;
    taal_task_release(f->other);
    TAAL_ACLOSE_STATUS(f->closed, &f->c.gen);
    TAAL_END();
}

TEST(a_close_while_an_anext_is_in_progress_is_erunning)
{
    host fr = {.c = {.n = 3, .nap = 1}};
    int st;
    CHECK(run_task(host_body, &fr, sizeof fr, &st));
    CHECK_EQ(fr.other_st, TAAL_ERUNNING);
    CHECK_EQ(fr.st, TAAL_OK);
    CHECK_EQ(fr.closed, TAAL_OK);
    CHECK_STR(trace, "y1 cleanup(-20) ");
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
    TAAL_ACLOSE_STATUS(f->null_st, (taal_aiter *)NULL);
    TAAL_ACLOSE_STATUS(f->zero_st, &f->zero);
    TAAL_END();
}

TEST(a_close_of_nothing_or_of_zeroed_storage_is_einval)
{
    misuse fr = {0};
    int st;
    CHECK(run_task(misuse_body, &fr, sizeof fr, &st));
    CHECK_EQ(fr.null_st, TAAL_EINVAL);
    CHECK_EQ(fr.zero_st, TAAL_EINVAL);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_generator_at_a_yield_runs_its_cleanup_with_genexit),
    TEST_ENTRY(a_cleanup_that_awaits_makes_the_close_wait_for_it),
    TEST_ENTRY(a_generator_never_started_is_closed_without_running_anything),
    TEST_ENTRY(a_finished_generator_and_a_second_close_are_harmless),
    TEST_ENTRY(a_yield_during_the_close_is_eignored_and_ends_the_generator),
    TEST_ENTRY(a_cleanup_cut_short_by_a_cancellation_ends_the_close_with_it),
    TEST_ENTRY(an_anext_iterator_has_nothing_to_close),
    TEST_ENTRY(a_close_while_an_anext_is_in_progress_is_erunning),
    TEST_ENTRY(a_close_of_nothing_or_of_zeroed_storage_is_einval),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
