/*
** by_hand.c -- lab 01, exercise 2: a loop with a yield in it, by hand.
**
** counter_by_hand is the coroutine counter_body of chapter 01's tests
** (tests/test_coro.c), written without the macros, as
** examples/awaitable_steps.c writes its coroutines: a `switch` on the
** resume point. The macros are taken away below, so that a body using them
** does not compile.
**
** Every test sends a bounded number of times: a body that never finishes
** (the usual mistake puts the loop's first clause where a resume runs it
** again) fails with a message instead of spinning until the time limit.
*/
#include "taal.h"
#include "taal_check.h"

#undef TAAL_BEGIN
#undef TAAL_YIELD
#undef TAAL_AWAIT
#undef TAAL_AWAIT_STATUS
#undef TAAL_RETURN
#undef TAAL_FAIL
#undef TAAL_END

/* Sums 1 + 2 + ... + n into sum, yielding after each addition. */
typedef struct counter {
    taal_coro co;
    int i, n, sum;
} counter;

static int counter_by_hand(taal_coro *self)
{
    /* LAB(by_hand) BEGIN: counter_body without the macros, TAAL_EPOINT at a lost point */
    counter *f = (counter *)self;
    switch (self->point) {
    case 0:
        for (f->i = 1; f->i <= f->n; f->i++) {
            f->sum += f->i;
            self->point = 1; /* the next send resumes inside the loop */
            return TAAL_SUSPENDED;
        case 1:; /* a jump here skips the loop's first clause, as it should */
        }
        return TAAL_OK;
    }
    return TAAL_EPOINT; /* what TAAL_END() does for a point the body lacks */
    /* LAB(by_hand) END: (void)self; return TAAL_ENOTIMPL; */
}

static void counter_init(counter *f, int n)
{
    *f = (counter){.n = n};
    taal_coro_init(&f->co, counter_by_hand);
}

/* Sends until the coroutine finishes, at most `limit` times; returns the
 * number of suspensions, and the last status in *rc. */
static int drive(counter *f, int limit, int *rc)
{
    int suspensions = 0;
    while ((*rc = taal_send(&f->co)) == TAAL_SUSPENDED && suspensions < limit)
        suspensions++;
    return suspensions;
}

TEST(it_sums_one_to_ten_suspending_ten_times)
{
    counter f;
    counter_init(&f, 10);
    int rc;
    int suspensions = drive(&f, 100, &rc);
    CHECK_EQ(rc, TAAL_OK); /* not still suspended after 100 sends */
    CHECK_EQ(suspensions, 10);
    CHECK_EQ(f.sum, 55);
    CHECK(taal_coro_done(&f.co));
}

TEST(each_send_adds_the_next_term)
{
    counter f;
    counter_init(&f, 4);
    int expected[] = {1, 3, 6, 10};
    for (int k = 0; k < 4; k++) {
        CHECK_EQ(taal_send(&f.co), TAAL_SUSPENDED);
        CHECK_EQ(f.sum, expected[k]);
    }
    CHECK_EQ(taal_send(&f.co), TAAL_OK);
    CHECK_EQ(f.sum, 10);
}

TEST(with_nothing_to_add_it_finishes_at_the_first_send)
{
    counter f;
    counter_init(&f, 0);
    CHECK_EQ(taal_send(&f.co), TAAL_OK);
    CHECK_EQ(f.sum, 0);
}

TEST(a_finished_counter_cannot_be_resumed)
{
    counter f;
    counter_init(&f, 2);
    int rc;
    drive(&f, 100, &rc);
    CHECK_EQ(rc, TAAL_OK);
    CHECK_EQ(taal_send(&f.co), TAAL_EDEAD);
    CHECK_EQ(f.sum, 3);
}

TEST(an_unknown_resume_point_fails_with_epoint)
{
    counter f;
    counter_init(&f, 3);
    CHECK_EQ(taal_send(&f.co), TAAL_SUSPENDED);
    f.co.point = 99; /* a point the body does not have */
    CHECK_EQ(taal_send(&f.co), TAAL_EPOINT);
    CHECK_EQ(f.sum, 1); /* nothing more ran */
}

static const taal_test tests[] = {
    TEST_ENTRY(it_sums_one_to_ten_suspending_ten_times),
    TEST_ENTRY(each_send_adds_the_next_term),
    TEST_ENTRY(with_nothing_to_add_it_finishes_at_the_first_send),
    TEST_ENTRY(a_finished_counter_cannot_be_resumed),
    TEST_ENTRY(an_unknown_resume_point_fails_with_epoint),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
