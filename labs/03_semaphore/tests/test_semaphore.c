/*
** test_semaphore.c -- lab 03, exercise 1: the semaphore's acquire and
** release (the LAB(semaphore) hole in src/sync.c), and so the lock, which
** is a bounded semaphore of one.
**
** The rules: a free permit is taken at once, without suspending; without
** one, the task waits, first come first served; release() hands the permit
** to the first waiting task there and then, so that no task that runs
** before it (a newcomer, or the releaser itself) can take it; a bounded
** semaphore refuses a release that would take it above its initial value,
** counting the permits on their way to woken tasks, and changes nothing.
** Each test checks the semaphore's fields right after the operation, so a
** wrong answer fails where it goes wrong.
*/
#include "lab.h"

/* ---- tasks ------------------------------------------------------------------- */

/* Acquires (noting "<label>" once it has the permit), yields `hold` times
 * while holding it, releases it; if `again`, notes whether the semaphore
 * looks locked right after the release ("L" or "U") and acquires and
 * releases once more. */
typedef struct user {
    taal_coro co;
    taal_semaphore *sem;
    const char *label;
    int hold, i;
    bool again;
} user;

static int user_body(taal_coro *self)
{
    user *f = (user *)self;
    TAAL_BEGIN(f);
    TAAL_ACQUIRE(f->sem);
    note(f->label);
    for (f->i = 0; f->i < f->hold; f->i++)
        TAAL_SLEEP(0);
    if (taal_semaphore_release(f->sem) != TAAL_OK)
        TAAL_FAIL(TAAL_EUSER);
    if (f->again) {
        note(taal_semaphore_locked(f->sem) ? "L" : "U");
        TAAL_ACQUIRE(f->sem);
        note(f->label);
        taal_semaphore_release(f->sem);
    }
    TAAL_END();
}

static taal_task *spawn_user(taal_loop *loop, user frame)
{
    return spawn(loop, user_body, &frame, sizeof frame, frame.label);
}

/* Notes "1", acquires twice, notes "2": with free permits, no suspension. */
typedef struct greedy {
    taal_coro co;
    taal_semaphore *sem;
} greedy;

static int greedy_body(taal_coro *self)
{
    greedy *f = (greedy *)self;
    TAAL_BEGIN(f);
    note("1");
    TAAL_ACQUIRE(f->sem);
    TAAL_ACQUIRE(f->sem);
    note("2");
    TAAL_END();
}

static int bystander_body(taal_coro *self)
{
    plain *f = (plain *)self;
    TAAL_BEGIN(f);
    note("b");
    TAAL_END();
}

/* ---- the tests ----------------------------------------------------------------- */

TEST(free_permits_are_taken_at_once_without_suspending)
{
    taal_loop loop;
    open_loop(&loop);
    taal_semaphore sem;
    CHECK_EQ(taal_semaphore_init(&sem, &loop, 2, "s"), TAAL_OK);
    taal_task *t[2] = {
        spawn(&loop, greedy_body, &(greedy){.sem = &sem}, sizeof(greedy), "greedy"),
        spawn(&loop, bystander_body, NULL, sizeof(plain), "bystander"),
    };
    CHECK(finish(&loop, t, 2));
    CHECK_STR(trace, "12b"); /* a suspension would have let b in: "1b2" */
    CHECK_EQ(sem.value, 0);
    CHECK(taal_semaphore_locked(&sem));
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_OK);
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_OK);
    CHECK_EQ(sem.value, 2);
    CHECK(!taal_semaphore_locked(&sem));
    CHECK_EQ(taal_semaphore_destroy(&sem), TAAL_OK);
    taal_loop_close(&loop);
}

TEST(waiters_are_served_first_come_first_served)
{
    taal_loop loop;
    open_loop(&loop);
    taal_semaphore sem;
    taal_semaphore_init(&sem, &loop, 0, "s");
    taal_task *t[3] = {
        spawn_user(&loop, (user){.sem = &sem, .label = "1"}),
        spawn_user(&loop, (user){.sem = &sem, .label = "2"}),
        spawn_user(&loop, (user){.sem = &sem, .label = "3"}),
    };
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* all three wait */
    CHECK_STR(trace, "");
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_OK);
    /* Handed to "1": not free, and on its way. */
    CHECK_EQ(sem.value, 0);
    CHECK_EQ(sem.handing, 1);
    CHECK(taal_semaphore_locked(&sem));
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_OK);
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_OK);
    CHECK_EQ(sem.handing, 3);
    CHECK(taal_semaphore_locked(&sem));
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* the three run, in order */
    CHECK_STR(trace, "123");
    CHECK_EQ(sem.handing, 0);
    CHECK_EQ(sem.value, 3); /* each gave its permit back */
    CHECK(finish(&loop, t, 3));
    taal_loop_close(&loop);
}

/* A holds the only permit and yields once; B comes and waits; A releases
 * and at once asks again; C comes after that. The permit goes to B, who
 * asked first; A waits behind B, and C behind A. */
TEST(a_released_permit_is_handed_over_so_nobody_barges)
{
    taal_loop loop;
    open_loop(&loop);
    taal_semaphore sem;
    taal_semaphore_init(&sem, &loop, 1, "s");
    taal_task *t[2] = {
        spawn_user(&loop, (user){.sem = &sem, .label = "A", .hold = 1, .again = true}),
        spawn_user(&loop, (user){.sem = &sem, .label = "B"}),
    };
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* A takes it and yields; B waits */
    CHECK_STR(trace, "A");
    taal_task *c = spawn_user(&loop, (user){.sem = &sem, .label = "C"});
    /* A resumes, releases (to B), finds it locked and waits; C waits. */
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "AL");
    CHECK_EQ(sem.value, 0);
    CHECK_EQ(sem.handing, 1);
    taal_task *all[3] = {t[0], t[1], c};
    CHECK(finish(&loop, all, 3));
    CHECK_STR(trace, "ALBAC");
    CHECK_EQ(sem.value, 1);
    CHECK_EQ(sem.handing, 0);
    taal_loop_close(&loop);
}

/* Holds a bounded semaphore's permit, yields, then releases it twice. */
typedef struct twice {
    taal_coro co;
    taal_semaphore *sem;
    int first, second;
    unsigned value, handing;
} twice;

static int twice_body(taal_coro *self)
{
    twice *f = (twice *)self;
    TAAL_BEGIN(f);
    TAAL_ACQUIRE(f->sem);
    TAAL_SLEEP(0);
    f->first = taal_semaphore_release(f->sem);
    f->second = taal_semaphore_release(f->sem);
    f->value = f->sem->value;
    f->handing = f->sem->handing;
    TAAL_END();
}

TEST(a_bounded_semaphore_counts_handed_permits_and_refuses_a_release_too_many)
{
    taal_loop loop;
    open_loop(&loop);
    taal_semaphore sem;
    CHECK_EQ(taal_bounded_semaphore_init(&sem, &loop, 1, "one"), TAAL_OK);
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_ERELEASE); /* never acquired */
    CHECK_EQ(sem.value, 1);
    taal_task *t[2] = {
        spawn(&loop, twice_body, &(twice){.sem = &sem}, sizeof(twice), "twice"),
        spawn_user(&loop, (user){.sem = &sem, .label = "B"}),
    };
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* twice holds it; B waits */
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* twice releases, twice */
    twice *f = taal_task_frame(t[0]);
    CHECK_EQ(f->first, TAAL_OK);        /* handed to B */
    CHECK_EQ(f->second, TAAL_ERELEASE); /* value is 0, but B's permit counts */
    CHECK_EQ(f->value, 0);              /* and nothing changed */
    CHECK_EQ(f->handing, 1);
    CHECK(finish(&loop, t, 2));
    CHECK_STR(trace, "B");
    CHECK_EQ(sem.value, 1); /* B gave it back */
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_ERELEASE);
    CHECK_EQ(sem.value, 1);
    taal_loop_close(&loop);
}

TEST(a_plain_semaphore_released_too_often_grows)
{
    taal_loop loop;
    open_loop(&loop);
    taal_semaphore sem;
    taal_semaphore_init(&sem, &loop, 1, NULL);
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_OK);
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_OK);
    CHECK_EQ(sem.value, 3); /* as asyncio.Semaphore does */
    CHECK_EQ(sem.handing, 0);
    taal_loop_close(&loop);
}

/* The lock is a bounded semaphore of one: the same code. */
typedef struct locker {
    taal_coro co;
    taal_lock *lock;
    const char *label;
    bool again;
} locker;

static int locker_body(taal_coro *self)
{
    locker *f = (locker *)self;
    TAAL_BEGIN(f);
    TAAL_LOCK(f->lock);
    note(f->label);
    TAAL_SLEEP(0);
    taal_lock_release(f->lock);
    if (f->again) {
        note(taal_lock_locked(f->lock) ? "L" : "U");
        TAAL_LOCK(f->lock);
        note(f->label);
        taal_lock_release(f->lock);
    }
    TAAL_END();
}

TEST(a_lock_is_handed_over_in_order_and_stays_locked)
{
    taal_loop loop;
    open_loop(&loop);
    taal_lock lock;
    CHECK_EQ(taal_lock_init(&lock, &loop, "l"), TAAL_OK);
    CHECK(!taal_lock_locked(&lock));
    taal_task *t[3];
    const char *labels[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++)
        t[i] = spawn(&loop, locker_body,
                     &(locker){.lock = &lock, .label = labels[i], .again = i == 0},
                     sizeof(locker), labels[i]);
    CHECK(finish(&loop, t, 3));
    CHECK_STR(trace, "aLbca");
    CHECK(!taal_lock_locked(&lock));
    CHECK_EQ(taal_lock_release(&lock), TAAL_ERELEASE); /* "Lock is not acquired" */
    CHECK(!taal_lock_locked(&lock));
    CHECK_EQ(taal_lock_destroy(&lock), TAAL_OK);
    taal_loop_close(&loop);
}

TEST(acquiring_outside_a_task_or_on_another_loop_is_refused)
{
    taal_loop loop, other;
    open_loop(&loop);
    open_loop(&other);
    taal_semaphore sem, theirs;
    taal_semaphore_init(&sem, &loop, 1, NULL);
    CHECK_EQ(taal__semaphore_acquire(&sem), TAAL_ENOTASK);
    CHECK_EQ(sem.value, 1);
    taal_semaphore_init(&theirs, &other, 1, NULL);
    taal_task *t = spawn_user(&loop, (user){.sem = &theirs, .label = "x"});
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_ELOOP);
    taal_task_release(t);
    CHECK_EQ(theirs.value, 1);
    taal_semaphore zeroed = {0}; /* never initialised */
    CHECK_EQ(taal_semaphore_release(&zeroed), TAAL_EINVAL);
    CHECK_EQ(taal_semaphore_release(NULL), TAAL_EINVAL);
    CHECK(live_objects(&loop) == 0);
    taal_loop_close(&loop);
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_ECLOSED);
    taal_loop_close(&other);
}

static const taal_test tests[] = {
    TEST_ENTRY(free_permits_are_taken_at_once_without_suspending),
    TEST_ENTRY(waiters_are_served_first_come_first_served),
    TEST_ENTRY(a_released_permit_is_handed_over_so_nobody_barges),
    TEST_ENTRY(a_bounded_semaphore_counts_handed_permits_and_refuses_a_release_too_many),
    TEST_ENTRY(a_plain_semaphore_released_too_often_grows),
    TEST_ENTRY(a_lock_is_handed_over_in_order_and_stays_locked),
    TEST_ENTRY(acquiring_outside_a_task_or_on_another_loop_is_refused),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
