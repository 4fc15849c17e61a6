/*
** test_inherit.c -- lab 04, exercise 4: priority inheritance on a lock.
**
**   top_waiter(lock)               the highest priority among its waiters
**   taal__inherited_priority(t)    the highest priority lent to t by the
**                                  locks it holds
**   reweigh(t)                     t runs at its own priority or at what
**                                  it is lent; then the holder of the lock
**                                  t waits for, along the chain
**   taal__lend_priority(waiter)    it waits, or its priority changed: weigh
**                                  the holder of its lock again
**   lock_changes_hands(lock, next) the new owner (or none) and the old one
**                                  weighed again
**
** taal_task_priority() is the priority a task runs at now; its own stays
** what taal_task_set_priority() set. Every test checks the priority a task
** runs at while it holds a lock, and after it lets go.
*/
#include "lab.h"

/* Sleeps `start`, takes `lock` (then `inner`, if set), notes "<name>+",
 * holds them for `hold` seconds, notes "<name>-" and lets go (inner
 * first), recording its priority while holding and after each release. */
typedef struct locker {
    taal_coro co;
    taal_lock *lock, *inner;
    const char *name;
    double start, hold;
    int holding, after_inner, after;
} locker;

static int locker_body(taal_coro *self)
{
    locker *f = (locker *)self;
    taal_task *me = taal_current_task();
    TAAL_BEGIN(f);
    if (f->start > 0)
        TAAL_SLEEP(f->start);
    TAAL_LOCK(f->lock);
    if (f->inner != NULL)
        TAAL_LOCK(f->inner);
    note(f->name);
    note("+");
    TAAL_SLEEP(f->hold);
    f->holding = taal_task_priority(me);
    note(f->name);
    note("-");
    if (f->inner != NULL)
        taal_lock_release(f->inner);
    f->after_inner = taal_task_priority(me);
    taal_lock_release(f->lock);
    f->after = taal_task_priority(me);
    TAAL_END();
}

static taal_task *spawn_locker(taal_loop *loop, locker frame, int priority)
{
    taal_task *task = NULL;
    if (taal_task_create(loop, locker_body, &frame, sizeof frame, frame.name, &task) !=
        TAAL_OK)
        return NULL;
    taal_task_set_priority(task, priority);
    return task;
}

static locker *frame_of(taal_task *task)
{
    return taal_task_frame(task);
}

/* Sleeps `start`, then notes "m" and yields, `n` times. */
typedef struct busy {
    taal_coro co;
    double start;
    int i, n;
} busy;

static int busy_body(taal_coro *self)
{
    busy *f = (busy *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(f->start);
    for (f->i = 0; f->i < f->n; f->i++) {
        note("m");
        TAAL_SLEEP(0);
    }
    TAAL_END();
}

/* The inversion: L (-1) holds the lock 0.2 s; H (1) wants it at 0.1 s; M
 * (0), which needs no lock, has four steps of work from 0.2 s on. With
 * inheritance L runs at H's priority, before M, then H; without it M runs
 * first and H waits for it. */
static bool inversion(bool inherit, const char *want, int holding, int after)
{
    taal_loop loop;
    open_loop(&loop);
    taal_lock lock;
    taal_lock_init(&lock, &loop, "l");
    taal_lock_set_inheritance(&lock, inherit);
    taal_task *t[3] = {
        spawn_locker(&loop, (locker){.lock = &lock, .name = "L", .hold = 0.2}, -1),
        spawn_locker(&loop, (locker){.lock = &lock, .name = "H", .start = 0.1}, 1),
        NULL,
    };
    taal_task_create(&loop, busy_body, &(busy){.start = 0.2, .n = 4}, sizeof(busy), "M",
                     &t[2]);
    bool ok = t[0] != NULL && t[1] != NULL && t[2] != NULL;
    if (ok) {
        ok = taal_run_until_complete(&loop, taal_task_future(t[1])) == TAAL_OK;
        ok = ok && frame_of(t[0])->holding == holding && frame_of(t[0])->after == after;
        ok = ok && taal_task_priority(t[0]) == -1;
    }
    ok = finish(&loop, t, 3) && ok;
    ok = ok && strcmp(trace, want) == 0;
    if (!ok)
        fprintf(stderr, "inversion with inherit=%d: trace %s, want %s\n", inherit, trace,
                want);
    taal_lock_destroy(&lock);
    taal_loop_close(&loop);
    return ok;
}

TEST(the_holder_runs_at_the_waiter_s_priority_until_it_lets_go_unless_turned_off)
{
    CHECK(inversion(true, "L+L-H+H-mmmm", 1, -1));
    CHECK(inversion(false, "L+mmmmL-H+H-", -1, -1));
}

/* L holds the lock; M (0) and H (4) wait for it, M first. L runs at 4.
 * L lets go: the lock goes to M (first come, first served), and M runs at
 * H's priority while H still waits; then H has it. */
TEST(a_new_owner_is_lent_the_priority_of_those_still_waiting)
{
    taal_loop loop;
    open_loop(&loop);
    taal_lock lock;
    taal_lock_init(&lock, &loop, "l");
    taal_task *t[3] = {
        spawn_locker(&loop, (locker){.lock = &lock, .name = "L", .hold = 1}, -2),
        spawn_locker(&loop, (locker){.lock = &lock, .name = "M", .start = 0.1, .hold = 1},
                     0),
        spawn_locker(&loop, (locker){.lock = &lock, .name = "H", .start = 0.2}, 4),
    };
    CHECK(complete(&loop, t, 3));
    CHECK_STR(trace, "L+L-M+M-H+H-");
    CHECK_EQ(frame_of(t[0])->holding, 4);
    CHECK_EQ(frame_of(t[0])->after, -2);
    CHECK_EQ(frame_of(t[1])->holding, 4); /* lent H's while H waited */
    CHECK_EQ(frame_of(t[1])->after, 0);
    CHECK_EQ(frame_of(t[2])->holding, 4);
    CHECK(release_all(&loop, t, 3));
    taal_lock_destroy(&lock);
    taal_loop_close(&loop);
}

/* L holds outer then inner; M (0) waits for outer, H (2) for inner. L runs
 * at 2; letting inner go, it still holds what M waits for: 0, not -3. */
TEST(a_task_holding_two_locks_keeps_what_the_other_still_lends)
{
    taal_loop loop;
    open_loop(&loop);
    taal_lock outer, inner;
    taal_lock_init(&outer, &loop, "outer");
    taal_lock_init(&inner, &loop, "inner");
    taal_task *t[3] = {
        spawn_locker(
            &loop, (locker){.lock = &outer, .inner = &inner, .name = "L", .hold = 1}, -3),
        spawn_locker(&loop, (locker){.lock = &outer, .name = "M", .start = 0.1}, 0),
        spawn_locker(&loop, (locker){.lock = &inner, .name = "H", .start = 0.2}, 2),
    };
    CHECK(complete(&loop, t, 3));
    CHECK_EQ(frame_of(t[0])->holding, 2);
    CHECK_EQ(frame_of(t[0])->after_inner, 0);
    CHECK_EQ(frame_of(t[0])->after, -3);
    CHECK(release_all(&loop, t, 3));
    CHECK_STR(trace, "L+L-H+H-M+M-");
    taal_lock_destroy(&outer);
    taal_lock_destroy(&inner);
    taal_loop_close(&loop);
}

/* A chain: Lo (-5) holds b; M (0) holds a and waits for b; H (5) waits for
 * a. H's priority reaches Lo through M; a probe at 0.5 s reads both. */
static taal_task *probed[2];
static int seen[2];

static void probe(void *data)
{
    (void)data;
    seen[0] = taal_task_priority(probed[0]);
    seen[1] = taal_task_priority(probed[1]);
}

TEST(a_priority_is_lent_along_a_chain_of_locks_and_given_back)
{
    taal_loop loop;
    open_loop(&loop);
    taal_lock a, b;
    taal_lock_init(&a, &loop, "a");
    taal_lock_init(&b, &loop, "b");
    taal_task *t[3] = {
        spawn_locker(&loop, (locker){.lock = &b, .name = "Lo", .hold = 1}, -5),
        spawn_locker(&loop, (locker){.lock = &a, .inner = &b, .name = "M", .start = 0.1},
                     0),
        spawn_locker(&loop, (locker){.lock = &a, .name = "H", .start = 0.2}, 5),
    };
    probed[0] = t[0];
    probed[1] = t[1];
    seen[0] = seen[1] = 99;
    taal_timer look = {0};
    taal_call_at(&loop, &look, 0.5, probe, NULL);
    CHECK(complete(&loop, t, 3));
    CHECK_EQ(seen[0], 5);
    CHECK_EQ(seen[1], 5);
    CHECK_STR(trace, "Lo+Lo-M+M-H+H-");
    CHECK_EQ(frame_of(t[0])->after, -5);
    CHECK_EQ(frame_of(t[1])->after, 0);
    CHECK(release_all(&loop, t, 3));
    taal_lock_destroy(&a);
    taal_lock_destroy(&b);
    taal_loop_close(&loop);
}

/* A waiter whose own priority rises while it waits lends the new one. */
TEST(raising_a_waiter_raises_the_holder)
{
    taal_loop loop;
    open_loop(&loop);
    taal_lock lock;
    taal_lock_init(&lock, &loop, "l");
    taal_task *t[2] = {
        spawn_locker(&loop, (locker){.lock = &lock, .name = "L", .hold = 1}, -4),
        spawn_locker(&loop, (locker){.lock = &lock, .name = "W", .start = 0.1}, -2),
    };
    probed[0] = t[0];
    probed[1] = t[1];
    taal_timer look = {0};
    taal_call_at(&loop, &look, 0.5, probe, NULL);
    iterations(&loop, 4); /* W sleeps, L takes the lock, W wakes at 0.1 s and waits */
    CHECK_EQ(taal_task_priority(t[0]), -2);
    CHECK_EQ(taal_task_set_priority(t[1], 6), TAAL_OK);
    CHECK_EQ(taal_task_priority(t[0]), 6);
    CHECK(complete(&loop, t, 2));
    CHECK_EQ(seen[0], 6);
    CHECK_EQ(frame_of(t[0])->after, -4);
    CHECK(release_all(&loop, t, 2));
    taal_lock_destroy(&lock);
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(
        the_holder_runs_at_the_waiter_s_priority_until_it_lets_go_unless_turned_off),
    TEST_ENTRY(a_new_owner_is_lent_the_priority_of_those_still_waiting),
    TEST_ENTRY(a_task_holding_two_locks_keeps_what_the_other_still_lends),
    TEST_ENTRY(a_priority_is_lent_along_a_chain_of_locks_and_given_back),
    TEST_ENTRY(raising_a_waiter_raises_the_holder),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
