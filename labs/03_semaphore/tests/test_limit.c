/*
** test_limit.c -- lab 03, exercise 6: an acquire that refuses to queue
** behind too many, and the code it refuses with.
**
**   TAAL_ACQUIRE_LIMITED(sem, max_waiting)
**   TAAL_ACQUIRE_LIMITED_STATUS(status, sem, max_waiting)
**   TAAL_ETOOMANY, which taal_strerror() names "too many waiting"
**
** takes a free permit at once, as TAAL_ACQUIRE does; with none free, it
** waits (first come, first served, with the other waiters) if fewer than
** max_waiting tasks wait already, and otherwise fails at once with
** TAAL_ETOOMANY, without suspending and without changing anything. A task
** woken with a permit that has not run yet is not waiting any more.
**
** The macros call a function, as TAAL_ACQUIRE calls taal__semaphore_acquire:
**
**   int taal__semaphore_acquire_limited(taal_semaphore *sem, size_t max_waiting);
**
** declared in taal.h next to it; the tests call it directly too, outside a
** task (TAAL_ENOTASK, as any acquire) and with NULL (TAAL_EINVAL).
**
** This file does not compile until the macros and the code exist: that
** fails this exercise only.
*/
#include "lab.h"

TEST(the_code_is_new_and_has_a_name)
{
    CHECK(TAAL_ETOOMANY < 0);
    CHECK(TAAL_ETOOMANY > TAAL_EUSER);
    int others[] = {TAAL_EINVAL, TAAL_EDEAD,   TAAL_ERUNNING,  TAAL_ENOMEM,
                    TAAL_EPOINT, TAAL_ESTATE,  TAAL_ENOTASK,   TAAL_ELOOP,
                    TAAL_EBUSY,  TAAL_ECLOSED, TAAL_EDEADLOCK, TAAL_ESTOPPED,
                    TAAL_EFULL,  TAAL_EEMPTY,  TAAL_ERELEASE,  TAAL_ENOTIMPL};
    for (size_t i = 0; i < TAAL_COUNT(others); i++)
        CHECK(TAAL_ETOOMANY != others[i]);
    CHECK_STR(taal_strerror(TAAL_ETOOMANY), "too many waiting");
}

/* Notes "<label>" before it asks, acquires with the limit into `rc`, and
 * if it got the permit notes "<label>+", yields `hold` times and releases. */
typedef struct asker {
    taal_coro co;
    taal_semaphore *sem;
    size_t max_waiting;
    const char *label;
    int hold, i, rc;
} asker;

static int asker_body(taal_coro *self)
{
    asker *f = (asker *)self;
    TAAL_BEGIN(f);
    note(f->label);
    TAAL_ACQUIRE_LIMITED_STATUS(f->rc, f->sem, f->max_waiting);
    if (f->rc != TAAL_OK)
        TAAL_RETURN();
    note(f->label);
    note("+");
    for (f->i = 0; f->i < f->hold; f->i++)
        TAAL_SLEEP(0);
    taal_semaphore_release(f->sem);
    TAAL_END();
}

static taal_task *spawn_asker(taal_loop *loop, asker frame)
{
    return spawn(loop, asker_body, &frame, sizeof frame, frame.label);
}

static int rc_of(taal_task *task)
{
    return ((asker *)taal_task_frame(task))->rc;
}

TEST(a_free_permit_is_taken_at_once_whatever_the_limit)
{
    taal_loop loop;
    open_loop(&loop);
    taal_semaphore sem;
    taal_semaphore_init(&sem, &loop, 1, "s");
    taal_task *t = spawn_asker(&loop, (asker){.sem = &sem, .label = "a", .hold = 1});
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "aa+"); /* no suspension between asking and having */
    CHECK_EQ(rc_of(t), TAAL_OK);
    CHECK_EQ(sem.value, 0);
    CHECK(finish(&loop, &t, 1));
    CHECK_EQ(sem.value, 1);
    taal_loop_close(&loop);
}

/* No permit; a limit of 2: the first two wait, the third is refused at
 * once, and the two get their permits in order. */
TEST(tasks_wait_while_fewer_than_the_limit_wait_and_the_next_is_refused)
{
    taal_loop loop;
    open_loop(&loop);
    taal_semaphore sem;
    taal_semaphore_init(&sem, &loop, 0, "s");
    taal_task *t[3] = {
        spawn_asker(&loop, (asker){.sem = &sem, .max_waiting = 2, .label = "1"}),
        spawn_asker(&loop, (asker){.sem = &sem, .max_waiting = 2, .label = "2"}),
        spawn_asker(&loop, (asker){.sem = &sem, .max_waiting = 2, .label = "3"}),
    };
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "123");
    CHECK(taal_future_done(taal_task_future(t[2]))); /* refused, not waiting */
    CHECK_EQ(rc_of(t[2]), TAAL_ETOOMANY);
    CHECK(!taal_future_done(taal_task_future(t[0])));
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_OK);
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t[1])), TAAL_OK);
    CHECK_EQ(rc_of(t[0]), TAAL_OK);
    CHECK_EQ(rc_of(t[1]), TAAL_OK);
    CHECK(finish(&loop, t, 3));
    CHECK_STR(trace, "1231+2+");
    CHECK_EQ(sem.value, 2);
    taal_loop_close(&loop);
}

/* A limit of 0 is a try-acquire: the permit now, or nothing. */
TEST(a_limit_of_zero_never_waits_and_changes_nothing)
{
    taal_loop loop;
    open_loop(&loop);
    taal_semaphore sem;
    taal_semaphore_init(&sem, &loop, 1, "s");
    taal_task *t[2] = {
        spawn_asker(&loop, (asker){.sem = &sem, .label = "a", .hold = 2}),
        spawn_asker(&loop, (asker){.sem = &sem, .label = "b"}),
    };
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* a has it; b is refused */
    CHECK_STR(trace, "aa+b");
    CHECK_EQ(rc_of(t[1]), TAAL_ETOOMANY);
    CHECK(taal_future_done(taal_task_future(t[1])));
    CHECK_EQ(sem.value, 0);
    CHECK_EQ(sem.handing, 0);
    CHECK(finish(&loop, t, 2));
    CHECK_EQ(sem.value, 1);                          /* a gave it back... */
    CHECK_EQ(taal_semaphore_destroy(&sem), TAAL_OK); /* ...and nobody was left waiting */
    taal_loop_close(&loop);
}

/* A refused task is not parked anywhere: it can wait normally afterwards. */
typedef struct stubborn {
    taal_coro co;
    taal_semaphore *sem;
    int first;
} stubborn;

static int stubborn_body(taal_coro *self)
{
    stubborn *f = (stubborn *)self;
    TAAL_BEGIN(f);
    TAAL_ACQUIRE_LIMITED_STATUS(f->first, f->sem, 0);
    note("s");
    TAAL_ACQUIRE(f->sem); /* now wait, like anyone */
    note("S");
    taal_semaphore_release(f->sem);
    TAAL_END();
}

TEST(a_refused_task_can_still_wait_as_usual)
{
    taal_loop loop;
    open_loop(&loop);
    taal_semaphore sem;
    taal_semaphore_init(&sem, &loop, 0, "s");
    taal_task *t =
        spawn(&loop, stubborn_body, &(stubborn){.sem = &sem}, sizeof(stubborn), "s");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "s");
    CHECK_EQ(((stubborn *)taal_task_frame(t))->first, TAAL_ETOOMANY);
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_OK); /* handed to it */
    CHECK_EQ(sem.handing, 1);
    CHECK(finish(&loop, &t, 1));
    CHECK_STR(trace, "sS");
    taal_loop_close(&loop);
}

/* A holds the permit and B waits. A releases it (to B) and yields; C asks
 * with a limit of 0 before B has run. B was handed the permit, so nobody
 * waits: but no permit is free either, so C is still refused. D asks with
 * a limit of 1 and waits: B does not count. */
TEST(a_task_woken_with_a_permit_is_not_waiting_and_the_permit_is_not_free)
{
    taal_loop loop;
    open_loop(&loop);
    taal_semaphore sem;
    taal_semaphore_init(&sem, &loop, 1, "s");
    taal_task *t[4] = {
        spawn_asker(&loop, (asker){.sem = &sem, .label = "A", .hold = 1}),
        spawn_asker(&loop, (asker){.sem = &sem, .max_waiting = 5, .label = "B"}),
    };
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* A has it, yields; B waits */
    CHECK_STR(trace, "AA+B");
    t[2] = spawn_asker(&loop, (asker){.sem = &sem, .label = "C"});
    t[3] = spawn_asker(&loop, (asker){.sem = &sem, .max_waiting = 1, .label = "D"});
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* A releases to B; C, D ask */
    CHECK_STR(trace, "AA+BCD");
    CHECK_EQ(rc_of(t[2]), TAAL_ETOOMANY);
    CHECK(!taal_future_done(taal_task_future(t[3]))); /* D waits */
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t[3])), TAAL_OK);
    CHECK_EQ(rc_of(t[3]), TAAL_OK);
    CHECK(finish(&loop, t, 4));
    CHECK_STR(trace, "AA+BCDB+D+");
    taal_loop_close(&loop);
}

TEST(outside_a_task_it_is_refused_like_any_acquire)
{
    taal_loop loop;
    open_loop(&loop);
    taal_semaphore sem;
    taal_semaphore_init(&sem, &loop, 1, NULL);
    CHECK_EQ(taal__semaphore_acquire_limited(&sem, 3), TAAL_ENOTASK);
    CHECK_EQ(taal__semaphore_acquire_limited(NULL, 3), TAAL_EINVAL);
    CHECK_EQ(sem.value, 1);
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(the_code_is_new_and_has_a_name),
    TEST_ENTRY(a_free_permit_is_taken_at_once_whatever_the_limit),
    TEST_ENTRY(tasks_wait_while_fewer_than_the_limit_wait_and_the_next_is_refused),
    TEST_ENTRY(a_limit_of_zero_never_waits_and_changes_nothing),
    TEST_ENTRY(a_refused_task_can_still_wait_as_usual),
    TEST_ENTRY(a_task_woken_with_a_permit_is_not_waiting_and_the_permit_is_not_free),
    TEST_ENTRY(outside_a_task_it_is_refused_like_any_acquire),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
