/*
** test_send.c -- lab 01, exercise 1: taal_send, from its contract in taal.h.
**
** Each test drives a body written by hand that counts its calls and records
** what it saw, so that a test can tell exactly what taal_send did: whether
** it ran the body, how often, and what it left in the header. The
** chapter's own tests (tests/test_coro.c) check the same function through
** the macros; these look at it alone.
*/
#include "taal.h"
#include "taal_check.h"

/* A coroutine that suspends `steps` times, then finishes with `result`. */
typedef struct probe {
    taal_coro co;
    int steps;        /* suspensions before the end */
    int result;       /* what the body returns at the end */
    int calls;        /* how often the body ran */
    bool saw_running; /* co.running, as the body saw it */
    int saw_point;    /* co.point, as the body saw it */
} probe;

static int probe_body(taal_coro *self)
{
    probe *p = (probe *)self;
    p->calls++;
    p->saw_running = self->running;
    p->saw_point = self->point;
    if (p->calls <= p->steps) {
        self->point = 100 + p->calls; /* where it would resume */
        return TAAL_SUSPENDED;
    }
    return p->result;
}

static void probe_init(probe *p, int steps, int result)
{
    *p = (probe){.steps = steps, .result = result};
    taal_coro_init(&p->co, probe_body);
}

TEST(each_send_runs_the_body_once_until_it_finishes)
{
    probe p;
    probe_init(&p, 2, TAAL_OK);
    CHECK_EQ(taal_send(&p.co), TAAL_SUSPENDED);
    CHECK_EQ(p.calls, 1);
    CHECK(!taal_coro_done(&p.co));
    CHECK_EQ(taal_send(&p.co), TAAL_SUSPENDED);
    CHECK_EQ(p.calls, 2);
    CHECK(!taal_coro_done(&p.co));
    CHECK_EQ(taal_send(&p.co), TAAL_OK);
    CHECK_EQ(p.calls, 3);
    CHECK(taal_coro_done(&p.co));
    CHECK_EQ(p.co.status, TAAL_OK);
}

TEST(the_resume_point_is_the_body_s_own)
{
    probe p;
    probe_init(&p, 2, TAAL_OK);
    taal_send(&p.co);
    CHECK_EQ(p.saw_point, 0); /* a fresh coroutine starts at 0 */
    taal_send(&p.co);
    CHECK_EQ(p.saw_point, 101); /* where the body said it would resume */
    taal_send(&p.co);
    CHECK_EQ(p.saw_point, 102);
    CHECK_EQ(p.co.point, TAAL_POINT_DONE); /* and send marks the end */
}

TEST(the_body_runs_with_running_set_and_finds_it_cleared_after)
{
    probe p;
    probe_init(&p, 1, TAAL_OK);
    CHECK_EQ(taal_send(&p.co), TAAL_SUSPENDED);
    CHECK(p.saw_running);
    CHECK(!p.co.running); /* cleared after a suspension */
    CHECK_EQ(taal_send(&p.co), TAAL_OK);
    CHECK(p.saw_running);
    CHECK(!p.co.running); /* and after the end */
}

TEST(an_error_ends_the_coroutine_for_good)
{
    probe p;
    probe_init(&p, 1, TAAL_EUSER - 1);
    CHECK_EQ(taal_send(&p.co), TAAL_SUSPENDED);
    CHECK_EQ(taal_send(&p.co), TAAL_EUSER - 1);
    CHECK(taal_coro_done(&p.co));
    CHECK_EQ(p.co.status, TAAL_EUSER - 1);
    CHECK(!p.co.running); /* cleared after an error too */
    CHECK_EQ(taal_send(&p.co), TAAL_EDEAD);
    CHECK_EQ(taal_send(&p.co), TAAL_EDEAD);
    CHECK_EQ(p.calls, 2);                  /* never ran again */
    CHECK_EQ(p.co.status, TAAL_EUSER - 1); /* and kept how it ended */
}

TEST(misuse_is_refused_without_running_the_body)
{
    CHECK_EQ(taal_send(NULL), TAAL_EINVAL);
    probe p = {.steps = 0}; /* zeroed, never initialised: it has no body */
    CHECK_EQ(taal_send(&p.co), TAAL_EINVAL);
    probe_init(&p, 5, TAAL_OK);
    p.co.running = true; /* as if its body were on the C stack right now */
    CHECK_EQ(taal_send(&p.co), TAAL_ERUNNING);
    CHECK_EQ(p.calls, 0);
    CHECK(p.co.running); /* left exactly as it was */
    CHECK_EQ(p.co.point, 0);
    CHECK_EQ(p.co.status, TAAL_SUSPENDED);
}

TEST(a_positive_status_other_than_suspended_is_invalid)
{
    probe p;
    probe_init(&p, 0, 7);
    CHECK_EQ(taal_send(&p.co), TAAL_EINVAL);
    CHECK(taal_coro_done(&p.co));
    CHECK_EQ(p.co.status, TAAL_EINVAL);
    CHECK_EQ(taal_send(&p.co), TAAL_EDEAD);
}

static const taal_test tests[] = {
    TEST_ENTRY(each_send_runs_the_body_once_until_it_finishes),
    TEST_ENTRY(the_resume_point_is_the_body_s_own),
    TEST_ENTRY(the_body_runs_with_running_set_and_finds_it_cleared_after),
    TEST_ENTRY(an_error_ends_the_coroutine_for_good),
    TEST_ENTRY(misuse_is_refused_without_running_the_body),
    TEST_ENTRY(a_positive_status_other_than_suspended_is_invalid),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
