/*
** test_condition.c -- lab 03, exercise 4: a condition variable on top of
** the lock, asyncio's Condition.
**
**   int taal_condition_init(taal_condition *cond, taal_loop *loop,
**                           taal_lock *lock, const char *name);
**   TAAL_CONDITION_WAIT(wait, cond)    await cond.wait()
**   TAAL_CONDITION_WAIT_STATUS(st, wait, cond)
**   int taal_condition_notify(taal_condition *cond, size_t n);
**   int taal_condition_notify_all(taal_condition *cond);
**   int taal_condition_destroy(taal_condition *cond);
**
** `wait` is a taal_condition_wait, a frame field of the waiting task (a
** wait suspends twice: for the notify, then for the lock). The rules, as
** asyncio's: wait() needs the lock held, gives it up while it waits, and
** holds it again when it returns; notify(n) wakes the first n waiting tasks
** in the order they came, and needs the lock held; a notify with nobody
** waiting is not remembered; a woken task gets the lock only after the
** notifier lets it go. Waiting allocates nothing.
**
** The tests also look inside a taal_condition, at three fields it must
** have: `lock`, the taal_lock * it was made with; `waiting`, how many tasks
** wait on it now (an integer); and `wakeups`, the taal_semaphore of no
** permits the waiters wait in (`wakeups.value` stays 0 after a notify that
** found nobody: nothing is left over for a later wait).
**
** This file does not compile until the condition exists: that fails this
** exercise only.
*/
#include "lab.h"

/* Takes the lock, notes "<label>", waits; then notes "<LABEL>" if it holds
 * the lock ("!" if not), yields while holding it, and releases it. */
typedef struct waiter {
    taal_coro co;
    taal_condition *cond;
    const char *label, *woken;
    taal_condition_wait wait;
} waiter;

static int waiter_body(taal_coro *self)
{
    waiter *f = (waiter *)self;
    TAAL_BEGIN(f);
    TAAL_LOCK(f->cond->lock);
    note(f->label);
    TAAL_CONDITION_WAIT(&f->wait, f->cond);
    note(taal_lock_locked(f->cond->lock) ? f->woken : "!");
    TAAL_SLEEP(0);
    taal_lock_release(f->cond->lock);
    TAAL_END();
}

static taal_task *spawn_waiter(taal_loop *loop, taal_condition *cond, const char *label,
                               const char *woken)
{
    waiter frame = {.cond = cond, .label = label, .woken = woken};
    return spawn(loop, waiter_body, &frame, sizeof frame, label);
}

/* Yields `delay` times, takes the lock, notifies `n` (notes "n"), yields
 * once while still holding the lock, notes "-" and releases it. */
typedef struct notifier {
    taal_coro co;
    taal_condition *cond;
    size_t n;
    int delay, i, rc;
} notifier;

static int notifier_body(taal_coro *self)
{
    notifier *f = (notifier *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->delay; f->i++)
        TAAL_SLEEP(0);
    TAAL_LOCK(f->cond->lock);
    f->rc = f->n == SIZE_MAX ? taal_condition_notify_all(f->cond)
                             : taal_condition_notify(f->cond, f->n);
    note("n");
    if (f->rc != TAAL_OK)
        TAAL_FAIL(f->rc);
    TAAL_SLEEP(0);
    note("-");
    taal_lock_release(f->cond->lock);
    TAAL_END();
}

static taal_task *spawn_notifier(taal_loop *loop, taal_condition *cond, size_t n,
                                 int delay)
{
    notifier frame = {.cond = cond, .n = n, .delay = delay};
    return spawn(loop, notifier_body, &frame, sizeof frame, "notifier");
}

/* A lock and a condition on it, on an open loop. */
typedef struct setup {
    taal_loop loop;
    taal_lock lock;
    taal_condition cond;
} setup;

static bool set_up(setup *s)
{
    open_loop(&s->loop);
    return taal_lock_init(&s->lock, &s->loop, "lock") == TAAL_OK &&
           taal_condition_init(&s->cond, &s->loop, &s->lock, "cond") == TAAL_OK;
}

TEST(notify_wakes_the_first_waiter_which_gets_the_lock_after_the_notifier)
{
    setup s;
    CHECK(set_up(&s));
    taal_task *t[5] = {
        spawn_waiter(&s.loop, &s.cond, "a", "A"),
        spawn_waiter(&s.loop, &s.cond, "b", "B"),
        spawn_waiter(&s.loop, &s.cond, "c", "C"),
        spawn_notifier(&s.loop, &s.cond, 1, 0),
        spawn_notifier(&s.loop, &s.cond, 2, 5),
    };
    /* Until c is done, or the loop finds nothing left to run. */
    taal_run_until_complete(&s.loop, taal_task_future(t[2]));
    /* a, b, c each take the lock and wait, giving it up; the notifier takes
     * it and wakes a, who gets the lock only when the notifier lets it go;
     * later the second notifier wakes b and c, in order. */
    CHECK_STR(trace, "abcn-An-BC");
    CHECK(finish(&s.loop, t, 5));
    CHECK(!taal_lock_locked(&s.lock));
    CHECK_EQ(taal_condition_destroy(&s.cond), TAAL_OK);
    taal_loop_close(&s.loop);
}

TEST(wait_gives_the_lock_up_while_it_waits)
{
    setup s;
    CHECK(set_up(&s));
    taal_task *t[2] = {
        spawn_waiter(&s.loop, &s.cond, "a", "A"),
        spawn_notifier(&s.loop, &s.cond, 1, 0), /* needs the lock a took */
    };
    CHECK_EQ(taal_run_once(&s.loop), TAAL_OK);
    CHECK_STR(trace, "an"); /* the notifier got the lock while a waits */
    CHECK(finish(&s.loop, t, 2));
    CHECK_STR(trace, "an-A");
    taal_loop_close(&s.loop);
}

TEST(notify_all_wakes_every_waiter_in_the_order_they_came)
{
    setup s;
    CHECK(set_up(&s));
    taal_task *t[4] = {
        spawn_waiter(&s.loop, &s.cond, "a", "A"),
        spawn_waiter(&s.loop, &s.cond, "b", "B"),
        spawn_waiter(&s.loop, &s.cond, "c", "C"),
        spawn_notifier(&s.loop, &s.cond, SIZE_MAX, 0),
    };
    taal_run_until_complete(&s.loop, taal_task_future(t[2]));
    CHECK_STR(trace, "abcn-ABC");
    CHECK(finish(&s.loop, t, 4));
    taal_loop_close(&s.loop);
}

TEST(notify_wakes_at_most_n_and_the_rest_wait_on)
{
    setup s;
    CHECK(set_up(&s));
    taal_task *t[4] = {
        spawn_waiter(&s.loop, &s.cond, "a", "A"),
        spawn_waiter(&s.loop, &s.cond, "b", "B"),
        spawn_waiter(&s.loop, &s.cond, "c", "C"),
        spawn_notifier(&s.loop, &s.cond, 2, 0),
    };
    CHECK_EQ(taal_run_until_complete(&s.loop, taal_task_future(t[1])), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&s.loop, taal_task_future(t[2])), TAAL_EDEADLOCK);
    CHECK_STR(trace, "abcn-AB"); /* c was not woken */
    CHECK_EQ(s.cond.waiting, 1);
    CHECK_EQ(taal_condition_destroy(&s.cond), TAAL_EBUSY); /* c waits on it */
    taal_task *last = spawn_notifier(&s.loop, &s.cond, 5, 0);
    taal_task_release(t[0]);
    taal_task_release(t[1]);
    taal_task *rest[3] = {t[2], t[3], last};
    CHECK(finish(&s.loop, rest, 3));
    CHECK_STR(trace, "abcn-ABn-C");
    CHECK_EQ(s.cond.waiting, 0);
    CHECK_EQ(taal_condition_destroy(&s.cond), TAAL_OK);
    taal_loop_close(&s.loop);
}

TEST(a_notify_with_nobody_waiting_is_not_remembered)
{
    setup s;
    CHECK(set_up(&s));
    taal_task *t[3] = {
        spawn_notifier(&s.loop, &s.cond, 1, 0),
        spawn_waiter(&s.loop, &s.cond, "a", "A"),
    };
    /* The notifier takes the lock first and notifies nobody; a then waits. */
    CHECK_EQ(taal_run_until_complete(&s.loop, taal_task_future(t[1])), TAAL_EDEADLOCK);
    CHECK_STR(trace, "n-a");
    CHECK_EQ(s.cond.waiting, 1);
    CHECK_EQ(s.cond.wakeups.value, 0); /* no permit was left over for a */
    t[2] = spawn_notifier(&s.loop, &s.cond, 1, 0);
    CHECK(finish(&s.loop, t, 3));
    CHECK_STR(trace, "n-an-A");
    taal_loop_close(&s.loop);
}

/* Calls wait without holding the lock, and keeps the status. */
typedef struct careless {
    taal_coro co;
    taal_condition *cond;
    taal_condition_wait wait;
    int rc;
} careless;

static int careless_body(taal_coro *self)
{
    careless *f = (careless *)self;
    TAAL_BEGIN(f);
    TAAL_CONDITION_WAIT_STATUS(f->rc, &f->wait, f->cond);
    TAAL_END();
}

TEST(wait_and_notify_without_the_lock_are_refused)
{
    setup s;
    CHECK(set_up(&s));
    CHECK_EQ(taal_condition_notify(&s.cond, 1), TAAL_ESTATE);
    CHECK_EQ(taal_condition_notify_all(&s.cond), TAAL_ESTATE);
    taal_task *t = spawn(&s.loop, careless_body, &(careless){.cond = &s.cond},
                         sizeof(careless), "careless");
    CHECK_EQ(taal_run_until_complete(&s.loop, taal_task_future(t)), TAAL_OK);
    careless *f = taal_task_frame(t);
    CHECK_EQ(f->rc, TAAL_ESTATE);
    CHECK_EQ(s.cond.waiting, 0); /* it never waited */
    CHECK(!taal_lock_locked(&s.lock));
    taal_task_release(t);
    taal_condition c;
    CHECK_EQ(taal_condition_init(&c, &s.loop, NULL, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_condition_init(NULL, &s.loop, &s.lock, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_condition_notify(NULL, 1), TAAL_EINVAL);
    CHECK_EQ(live_objects(&s.loop), 0);
    taal_loop_close(&s.loop);
}

TEST(waiting_and_notifying_allocate_nothing)
{
    static const taal_allocator counting = {taal_check_malloc, taal_check_realloc,
                                            taal_check_free};
    taal_set_allocator(&counting);
    setup s;
    CHECK(set_up(&s));
    taal_task *t[4] = {
        spawn_waiter(&s.loop, &s.cond, "a", "A"),
        spawn_waiter(&s.loop, &s.cond, "b", "B"),
        spawn_notifier(&s.loop, &s.cond, SIZE_MAX, 1),
    };
    taal_check_alloc_reset(0); /* count from here: the tasks exist */
    CHECK_EQ(taal_run_until_complete(&s.loop, taal_task_future(t[2])), TAAL_OK);
    CHECK_EQ(taal_check_alloc.allocs, 0);
    CHECK(finish(&s.loop, t, 3));
    CHECK_STR(trace, "abn-AB");
    taal_loop_close(&s.loop);
    taal_set_allocator(NULL);
}

static const taal_test tests[] = {
    TEST_ENTRY(notify_wakes_the_first_waiter_which_gets_the_lock_after_the_notifier),
    TEST_ENTRY(wait_gives_the_lock_up_while_it_waits),
    TEST_ENTRY(notify_all_wakes_every_waiter_in_the_order_they_came),
    TEST_ENTRY(notify_wakes_at_most_n_and_the_rest_wait_on),
    TEST_ENTRY(a_notify_with_nobody_waiting_is_not_remembered),
    TEST_ENTRY(wait_and_notify_without_the_lock_are_refused),
    TEST_ENTRY(waiting_and_notifying_allocate_nothing),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
