/*
** test_sync.c -- chapter 03's unit tests: the semaphore, the bounded
** semaphore, the lock and the event. The queue has test_queue.c.
**
** The order in which tasks get what they wait for is the point of this
** chapter, so most tests run a few tasks and compare the order of what
** they did, noted in `trace`, with the order the rules promise.
*/
#include "support.h"

/* ---- tasks the tests run ------------------------------------------------------ */

/* Sleeps `before` (if > 0), acquires, notes "<label>+", holds for `hold`
 * (0: no await), releases, and, if `again`, notes whether the semaphore
 * looked locked right after and acquires once more. */
typedef struct user {
    taal_coro co;
    taal_semaphore *sem;
    const char *label;
    double before, hold;
    bool again;
} user;

static int user_body(taal_coro *self)
{
    user *f = (user *)self;
    TAAL_BEGIN(f);
    if (f->before > 0)
        TAAL_SLEEP(f->before);
    TAAL_ACQUIRE(f->sem);
    note(f->label);
    note("+");
    if (f->hold > 0)
        TAAL_SLEEP(f->hold);
    if (taal_semaphore_release(f->sem) != TAAL_OK)
        TAAL_FAIL(TAAL_EUSER);
    if (f->again) {
        note(taal_semaphore_locked(f->sem) ? "L" : "U");
        TAAL_ACQUIRE(f->sem);
        note(f->label);
        note("+");
        taal_semaphore_release(f->sem);
    }
    TAAL_END();
}

static taal_task *spawn_user(taal_loop *loop, user frame)
{
    taal_task *task = NULL;
    taal_task_create(loop, user_body, &frame, sizeof frame, frame.label, &task);
    return task;
}

/* Runs every task to its end, releases them, and checks nothing is left. */
static bool finish(taal_loop *loop, taal_task **tasks, int n)
{
    bool ok = true;
    for (int i = 0; i < n; i++) {
        ok = ok && taal_run_until_complete(loop, taal_task_future(tasks[i])) == TAAL_OK;
        taal_task_release(tasks[i]);
    }
    return ok && loop_is_empty(loop);
}

/* ---- the semaphore ---------------------------------------------------------- */

/* Notes "1", acquires a free permit, notes "2": no suspension between. */
typedef struct quick {
    taal_coro co;
    taal_semaphore *sem;
} quick;

static int quick_body(taal_coro *self)
{
    quick *f = (quick *)self;
    TAAL_BEGIN(f);
    note("1");
    TAAL_ACQUIRE(f->sem);
    note("2");
    taal_semaphore_release(f->sem);
    TAAL_END();
}

static int noter_body(taal_coro *self)
{
    quick *f = (quick *)self;
    TAAL_BEGIN(f);
    note("b");
    TAAL_END();
}

TEST(a_free_permit_is_taken_without_suspending)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_semaphore sem;
    CHECK_EQ(taal_semaphore_init(&sem, &loop, 1, "s"), TAAL_OK);
    taal_task *t[2];
    taal_task_create(&loop, quick_body, &(quick){.sem = &sem}, sizeof(quick), NULL,
                     &t[0]);
    taal_task_create(&loop, noter_body, NULL, sizeof(quick), NULL, &t[1]);
    CHECK(finish(&loop, t, 2));
    CHECK_STR(trace, "12b"); /* suspending would have given "1b2" */
    CHECK_EQ(taal_semaphore_destroy(&sem), TAAL_OK);
    taal_loop_close(&loop);
}

TEST(waiters_get_permits_first_come_first_served)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_semaphore sem;
    taal_semaphore_init(&sem, &loop, 0, "s");
    taal_task *t[3] = {
        spawn_user(&loop, (user){.sem = &sem, .label = "1"}),
        spawn_user(&loop, (user){.sem = &sem, .label = "2"}),
        spawn_user(&loop, (user){.sem = &sem, .label = "3"}),
    };
    taal_run_once(&loop); /* all three wait */
    CHECK(taal_semaphore_locked(&sem));
    for (int i = 0; i < 3; i++) /* three permits, in one go */
        CHECK_EQ(taal_semaphore_release(&sem), TAAL_OK);
    CHECK(taal_semaphore_locked(&sem)); /* every permit was handed over */
    CHECK(finish(&loop, t, 3));
    CHECK_STR(trace, "1+2+3+");
    CHECK_EQ(sem.value, 3); /* each gave its permit back */
    taal_loop_close(&loop);
}

/* A holds the only permit; B waits for it; C comes for it in the very
 * iteration that A releases it; A wants it again at once. B is first in
 * line, so B gets it; then A, who asked before C; then C. */
TEST(a_released_permit_goes_to_the_first_waiter_not_to_whoever_runs_first)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_semaphore sem;
    taal_semaphore_init(&sem, &loop, 1, "s");
    taal_task *t[3] = {
        spawn_user(&loop, (user){.sem = &sem, .label = "A", .hold = 1, .again = true}),
        spawn_user(&loop, (user){.sem = &sem, .label = "B"}),
        spawn_user(&loop, (user){.sem = &sem, .label = "C", .before = 1}),
    };
    CHECK(finish(&loop, t, 3));
    CHECK_STR(trace, "A+LB+A+C+"); /* L: still locked right after the release */
    taal_loop_close(&loop);
}

/* Holds a permit for a second, then releases it twice. */
typedef struct twice {
    taal_coro co;
    taal_semaphore *sem;
    int first, second;
    unsigned value_after;
} twice;

static int twice_body(taal_coro *self)
{
    twice *f = (twice *)self;
    TAAL_BEGIN(f);
    TAAL_ACQUIRE(f->sem);
    TAAL_SLEEP(1);
    f->first = taal_semaphore_release(f->sem);
    f->second = taal_semaphore_release(f->sem);
    f->value_after = f->sem->value;
    TAAL_END();
}

TEST(a_bounded_semaphore_refuses_a_release_too_many_and_stays_as_it_was)
{
    taal_loop loop;
    open_loop(&loop);
    taal_semaphore sem;
    CHECK_EQ(taal_bounded_semaphore_init(&sem, &loop, 2, "b"), TAAL_OK);
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_ERELEASE);
    CHECK_EQ(sem.value, 2);
    /* A permit on its way to a woken task is no longer out: after the
     * first release hands it to B, a second release is one too many,
     * although `value` is 0. (CPython 3.11-3.13 accept it, and refuse B's
     * own release later.) */
    trace[0] = '\0';
    taal_semaphore one;
    taal_bounded_semaphore_init(&one, &loop, 1, "one");
    taal_task *t[2];
    taal_task_create(&loop, twice_body, &(twice){.sem = &one}, sizeof(twice), NULL,
                     &t[0]);
    t[1] = spawn_user(&loop, (user){.sem = &one, .label = "B"});
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t[1])), TAAL_OK);
    twice *f = taal_task_frame(t[0]);
    CHECK_EQ(f->first, TAAL_OK);        /* handed to B */
    CHECK_EQ(f->second, TAAL_ERELEASE); /* one too many */
    CHECK_EQ(f->value_after, 0);        /* and nothing changed */
    CHECK_STR(trace, "B+");
    CHECK_EQ(one.value, 1); /* B gave it back */
    CHECK(finish(&loop, t, 2));
    taal_loop_close(&loop);
}

TEST(a_plain_semaphore_released_too_often_just_grows)
{
    taal_loop loop;
    open_loop(&loop);
    taal_semaphore sem;
    taal_semaphore_init(&sem, &loop, 1, NULL);
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_OK);
    CHECK_EQ(sem.value, 2); /* as asyncio.Semaphore does */
    taal_loop_close(&loop);
}

/* ---- the lock ------------------------------------------------------------------ */

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
    TAAL_SLEEP(0.5);
    taal_lock_release(f->lock);
    if (f->again) {
        note(taal_lock_locked(f->lock) ? "L" : "U");
        TAAL_LOCK(f->lock);
        note(f->label);
        taal_lock_release(f->lock);
    }
    TAAL_END();
}

TEST(a_lock_is_handed_over_in_order_and_its_releaser_queues_behind)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_lock lock;
    CHECK_EQ(taal_lock_init(&lock, &loop, "l"), TAAL_OK);
    CHECK(!taal_lock_locked(&lock));
    taal_task *t[3];
    const char *labels[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++)
        taal_task_create(&loop, locker_body,
                         &(locker){.lock = &lock, .label = labels[i], .again = i == 0},
                         sizeof(locker), labels[i], &t[i]);
    CHECK(finish(&loop, t, 3));
    CHECK_STR(trace, "aLbca");
    CHECK(!taal_lock_locked(&lock));
    CHECK_EQ(taal_lock_release(&lock), TAAL_ERELEASE); /* "Lock is not acquired" */
    CHECK_STR(taal_strerror(TAAL_ERELEASE), "released more than acquired");
    CHECK_EQ(taal_lock_destroy(&lock), TAAL_OK);
    taal_loop_close(&loop);
}

/* ---- the event ------------------------------------------------------------------- */

typedef struct waiter {
    taal_coro co;
    taal_event *event;
    const char *label;
    double before;
} waiter;

static int waiter_body(taal_coro *self)
{
    waiter *f = (waiter *)self;
    TAAL_BEGIN(f);
    if (f->before > 0)
        TAAL_SLEEP(f->before);
    note(f->label);
    TAAL_EVENT_WAIT(f->event);
    note(f->label);
    TAAL_END();
}

static taal_task *spawn_waiter(taal_loop *loop, waiter frame)
{
    taal_task *task = NULL;
    taal_task_create(loop, waiter_body, &frame, sizeof frame, frame.label, &task);
    return task;
}

/* Sets the event and clears it at once, at 1 s; sets it for good at 2 s. */
typedef struct pulser {
    taal_coro co;
    taal_event *event;
} pulser;

static int pulser_body(taal_coro *self)
{
    pulser *f = (pulser *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(1);
    note("!");
    taal_event_set(f->event);
    taal_event_clear(f->event); /* a pulse */
    TAAL_SLEEP(1);
    note("!");
    taal_event_set(f->event);
    TAAL_END();
}

TEST(setting_an_event_wakes_every_waiter_even_if_it_is_cleared_at_once)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_event event;
    CHECK_EQ(taal_event_init(&event, &loop, "go"), TAAL_OK);
    taal_task *t[4] = {
        spawn_waiter(&loop, (waiter){.event = &event, .label = "1"}),
        spawn_waiter(&loop, (waiter){.event = &event, .label = "2"}),
        spawn_waiter(&loop, (waiter){.event = &event, .label = "3", .before = 1.5}),
    };
    taal_task_create(&loop, pulser_body, &(pulser){.event = &event}, sizeof(pulser), NULL,
                     &t[3]);
    CHECK(finish(&loop, t, 4));
    /* 1 and 2 wait; the pulse wakes both; 3 comes after the clear and waits
     * for the second set. */
    CHECK_STR(trace, "12!123!3");
    CHECK(taal_event_is_set(&event));
    taal_loop_close(&loop);
}

TEST(waiting_on_a_set_event_does_not_suspend)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_event event;
    taal_event_init(&event, &loop, NULL);
    taal_event_set(&event);
    taal_task *t[2] = {spawn_waiter(&loop, (waiter){.event = &event, .label = "w"})};
    taal_task_create(&loop, noter_body, NULL, sizeof(quick), NULL, &t[1]);
    CHECK(finish(&loop, t, 2));
    CHECK_STR(trace, "wwb");
    taal_loop_close(&loop);
}

/* ---- in use until the tasks it woke have run -------------------------------------- */

/*
** A primitive that has woken a task (handed it a permit, the lock, "it was
** set") is still in use until that task has run: the task points at it,
** and collects from it when it runs. Destroying it before is refused with
** TAAL_EBUSY, and changes nothing; once the task has run, it succeeds.
** (Issue 19: destroy said TAAL_OK, and the woken task then used what was
** destroyed.) Each test parks a task, wakes it from outside any task, and
** tries to destroy at once.
*/
TEST(a_semaphore_is_in_use_until_the_task_it_handed_a_permit_has_run)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_semaphore sem;
    taal_semaphore_init(&sem, &loop, 0, "s");
    taal_task *t[1] = {spawn_user(&loop, (user){.sem = &sem, .label = "w"})};
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* w waits */
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_OK);
    CHECK_EQ(taal_semaphore_destroy(&sem), TAAL_EBUSY); /* w holds a permit */
    CHECK(finish(&loop, t, 1));
    CHECK_STR(trace, "w+");
    CHECK_EQ(taal_semaphore_destroy(&sem), TAAL_OK);
    taal_loop_close(&loop);
}

/* Takes the lock and ends holding it (asyncio allows that). */
static int grab_body(taal_coro *self)
{
    locker *f = (locker *)self;
    TAAL_BEGIN(f);
    TAAL_LOCK(f->lock);
    TAAL_END();
}

TEST(a_lock_is_in_use_until_the_task_it_was_handed_to_has_run)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_lock lock;
    taal_lock_init(&lock, &loop, "l");
    taal_task *t[2];
    taal_task_create(&loop, grab_body, &(locker){.lock = &lock}, sizeof(locker), NULL,
                     &t[0]);
    taal_task_create(&loop, locker_body, &(locker){.lock = &lock, .label = "b"},
                     sizeof(locker), NULL, &t[1]);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* the grab holds it, b waits */
    CHECK_EQ(taal_lock_release(&lock), TAAL_OK);
    CHECK_EQ(taal_lock_destroy(&lock), TAAL_EBUSY); /* b holds it, not run yet */
    CHECK(finish(&loop, t, 2));
    CHECK_STR(trace, "b");
    CHECK_EQ(taal_lock_destroy(&lock), TAAL_OK);
    taal_loop_close(&loop);
}

TEST(an_event_is_in_use_until_the_tasks_it_woke_have_run)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_event event;
    taal_event_init(&event, &loop, "e");
    taal_task *t[2] = {spawn_waiter(&loop, (waiter){.event = &event, .label = "1"}),
                       spawn_waiter(&loop, (waiter){.event = &event, .label = "2"})};
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* both wait */
    CHECK_EQ(taal_event_set(&event), TAAL_OK);
    CHECK_EQ(taal_event_destroy(&event), TAAL_EBUSY);
    CHECK(finish(&loop, t, 2));
    CHECK_STR(trace, "1212");
    CHECK_EQ(taal_event_destroy(&event), TAAL_OK);
    taal_loop_close(&loop);
}

/* Acquires a semaphore of its own making, then destroys it and frees its
 * storage, in the step it was woken into. */
static int last_user_body(taal_coro *self)
{
    quick *f = (quick *)self;
    TAAL_BEGIN(f);
    TAAL_ACQUIRE(f->sem);
    taal_semaphore_release(f->sem);
    if (taal_semaphore_destroy(f->sem) != TAAL_OK)
        TAAL_FAIL(TAAL_EUSER);
    free(f->sem);
    note("freed");
    TAAL_END();
}

/* Once the woken task has collected its permit, nothing looks at the
 * semaphore any more: not the task, nor the loop after the task's step. */
TEST(the_task_a_semaphore_woke_may_destroy_and_free_it_at_once)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_semaphore *sem = malloc(sizeof *sem);
    CHECK(sem != NULL);
    taal_semaphore_init(sem, &loop, 0, "s");
    taal_task *t[1];
    taal_task_create(&loop, last_user_body, &(quick){.sem = sem}, sizeof(quick), NULL,
                     &t[0]);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* it waits */
    CHECK_EQ(taal_semaphore_release(sem), TAAL_OK);
    CHECK(finish(&loop, t, 1));
    CHECK_STR(trace, "freed");
    taal_loop_close(&loop);
}

/* ---- a newcomer and a woken task ----------------------------------------------------
 */

/* At 1 s, releases twice (the first permit goes to the task that waits,
 * the second is free), notes whether the semaphore looks locked, then
 * acquires it: it is a newcomer. */
static int newcomer_body(taal_coro *self)
{
    quick *f = (quick *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(1);
    taal_semaphore_release(f->sem);
    taal_semaphore_release(f->sem);
    note(taal_semaphore_locked(f->sem) ? "L" : "U");
    TAAL_ACQUIRE(f->sem);
    note("n");
    taal_semaphore_release(f->sem);
    TAAL_END();
}

/* asyncio's rule, checked on CPython 3.12 and 3.13: a newcomer queues
 * behind a woken task that has not run yet, even when a permit is free,
 * and locked() says so; the woken task, once it has run, hands the free
 * permit on to the newcomer. Nobody runs ahead of a task woken before it
 * asked. */
TEST(a_newcomer_queues_behind_a_woken_task_even_with_a_permit_free)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_semaphore sem;
    taal_semaphore_init(&sem, &loop, 0, "s");
    taal_task *t[2] = {spawn_user(&loop, (user){.sem = &sem, .label = "w"})};
    taal_task_create(&loop, newcomer_body, &(quick){.sem = &sem}, sizeof(quick), NULL,
                     &t[1]);
    CHECK(finish(&loop, t, 2));
    CHECK_STR(trace, "Lw+n"); /* not "Unw+": the newcomer went first */
    CHECK_EQ(sem.value, 2);   /* both permits back */
    CHECK(!taal_semaphore_locked(&sem));
    taal_loop_close(&loop);
}

/* ---- what a stuck task waits for --------------------------------------------------- */

TEST(a_deadlock_report_names_the_primitive_and_its_state)
{
    taal_loop loop;
    open_loop(&loop);
    taal_semaphore sem;
    taal_semaphore_init(&sem, &loop, 0, "db");
    taal_event never, unnamed;
    taal_event_init(&never, &loop, "ready");
    taal_event_init(&unnamed, &loop, NULL);
    taal_task *t[4];
    const char *names[] = {"worker-1", "worker-2", "worker-3"};
    for (int i = 0; i < 3; i++)
        taal_task_create(&loop, user_body, &(user){.sem = &sem, .label = "x"},
                         sizeof(user), names[i], &t[i]);
    t[3] = spawn_waiter(&loop, (waiter){.event = &never, .label = "e"});
    taal_task *u = spawn_waiter(&loop, (waiter){.event = &unnamed, .label = "u"});
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t[0])), TAAL_EDEADLOCK);
    CHECK(strstr(reports, "  worker-1 waits for semaphore \"db\" (0 free, 3 waiting)\n"));
    CHECK(strstr(reports, "  worker-3 waits for semaphore \"db\" (0 free, 3 waiting)\n"));
    CHECK(strstr(reports, "  e waits for event \"ready\" (not set, 1 waiting)\n"));
    CHECK(strstr(reports, "  u waits for an event (not set, 1 waiting)\n"));
    CHECK_EQ(taal_semaphore_destroy(&sem), TAAL_EBUSY); /* they still wait */
    taal_loop_close(&loop);
    CHECK_EQ(taal_semaphore_destroy(&sem), TAAL_OK); /* the close took them off */
    for (int i = 0; i < 4; i++)
        taal_task_release(t[i]);
    taal_task_release(u);
}

/* ---- bad input ------------------------------------------------------------------------
 */

TEST(bad_input_is_refused_with_a_code)
{
    taal_loop loop, other;
    open_loop(&loop);
    open_loop(&other);
    taal_semaphore sem, theirs;
    CHECK_EQ(taal_semaphore_init(NULL, &loop, 1, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_semaphore_init(&sem, NULL, 1, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_semaphore_init(&sem, &loop, -1, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_bounded_semaphore_init(&sem, &loop, -3, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_semaphore_release(NULL), TAAL_EINVAL);
    CHECK(!taal_semaphore_locked(NULL));
    taal_semaphore zeroed = {0}; /* never initialised */
    CHECK_EQ(taal_semaphore_release(&zeroed), TAAL_EINVAL);
    CHECK_EQ(taal_semaphore_destroy(&zeroed), TAAL_EINVAL);
    CHECK_EQ(taal_lock_init(NULL, &loop, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_event_init(NULL, &loop, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_event_set(NULL), TAAL_EINVAL);

    /* Acquiring outside a task, or another loop's semaphore. */
    taal_semaphore_init(&sem, &loop, 1, NULL);
    CHECK_EQ(taal__semaphore_acquire(&sem), TAAL_ENOTASK);
    taal_semaphore_init(&theirs, &other, 1, NULL);
    taal_task *t = spawn_user(&loop, (user){.sem = &theirs, .label = "x"});
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_ELOOP);
    taal_task_release(t);

    /* A primitive's waiters are not a future to use. */
    taal_handle h = {0};
    CHECK_EQ(taal_future_add_done_callback(&sem.waiters.future, &h, note_done, "x"),
             TAAL_EINVAL);
    CHECK_EQ(taal_future_set_result(&sem.waiters.future, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_run_until_complete(&loop, &sem.waiters.future), TAAL_EINVAL);

    /* Destroyed, it is as if never initialised. */
    CHECK_EQ(taal_semaphore_destroy(&sem), TAAL_OK);
    CHECK_EQ(taal_semaphore_release(&sem), TAAL_EINVAL);
    CHECK_EQ(taal_semaphore_destroy(&sem), TAAL_EINVAL);

    /* A closed loop. */
    taal_event event;
    taal_event_init(&event, &loop, NULL);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
    CHECK_EQ(taal_event_set(&event), TAAL_ECLOSED);
    CHECK_EQ(taal_semaphore_init(&sem, &loop, 1, NULL), TAAL_ECLOSED);
    taal_loop_close(&other);
}

/* TAAL_CHAPTER and TAAL_VERSION. These tests run against every later
 * chapter too: the header is chapter 03 or later, and exactly the one the
 * build says it built them against, of the CMake project's version. */
TEST(the_header_says_which_chapter_and_which_version_of_taal_it_is)
{
    CHECK(TAAL_CHAPTER >= 3);
    CHECK_EQ(TAAL_CHAPTER, TAAL_TESTED_CHAPTER);
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", TAAL_VERSION_MAJOR, TAAL_VERSION_MINOR,
             TAAL_VERSION_PATCH);
    CHECK_STR(version, TAAL_VERSION);
    CHECK_STR(TAAL_VERSION, TAAL_TESTED_VERSION);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_free_permit_is_taken_without_suspending),
    TEST_ENTRY(waiters_get_permits_first_come_first_served),
    TEST_ENTRY(a_released_permit_goes_to_the_first_waiter_not_to_whoever_runs_first),
    TEST_ENTRY(a_bounded_semaphore_refuses_a_release_too_many_and_stays_as_it_was),
    TEST_ENTRY(a_plain_semaphore_released_too_often_just_grows),
    TEST_ENTRY(a_lock_is_handed_over_in_order_and_its_releaser_queues_behind),
    TEST_ENTRY(setting_an_event_wakes_every_waiter_even_if_it_is_cleared_at_once),
    TEST_ENTRY(waiting_on_a_set_event_does_not_suspend),
    TEST_ENTRY(a_semaphore_is_in_use_until_the_task_it_handed_a_permit_has_run),
    TEST_ENTRY(a_lock_is_in_use_until_the_task_it_was_handed_to_has_run),
    TEST_ENTRY(an_event_is_in_use_until_the_tasks_it_woke_have_run),
    TEST_ENTRY(the_task_a_semaphore_woke_may_destroy_and_free_it_at_once),
    TEST_ENTRY(a_newcomer_queues_behind_a_woken_task_even_with_a_permit_free),
    TEST_ENTRY(a_deadlock_report_names_the_primitive_and_its_state),
    TEST_ENTRY(bad_input_is_refused_with_a_code),
    TEST_ENTRY(the_header_says_which_chapter_and_which_version_of_taal_it_is),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
