/*
** test_giveback.c -- lab 05, exercise 2: a cancelled waiter passes on
** what it was handed.
**
**   woken()                      how a primitive's wait ended, on resume
**   taal__semaphore_acquired()   the semaphore's (and the lock's) resume
**   taal__queue_placed()         a putter's resume
**
** A waiter is in one of four states when it is cancelled: blocked and
** never cancelled (it is handed what it waits for); cancelled in line (it
** left the line at once: exercise 1); handed a permit, an item or a slot
** and cancelled before it ran (it must pass it on to the next in line, or
** back); cancelled, then something released in the same iteration (it is
** out of the line: the release goes to the next one). Each test checks the
** primitive's counts right after the cancelled waiter's step, and that
** nothing was lost at the end.
*/
#include "lab.h"

typedef enum wait_kind { SEM, LOCK, EVENT, GET, PUT } wait_kind;

typedef struct shared {
    taal_semaphore sem;
    taal_lock lock;
    taal_event event;
    taal_queue queue;
} shared;

/* Waits on `s` as `kind` says; notes "<name>" when the wait ends, then "x"
 * if it was cancelled. Given a permit or the lock, it gives it back at
 * once; given an item, it notes it. */
typedef struct waiter {
    taal_coro co;
    shared *s;
    wait_kind kind;
    const char *name;
    void *item;
    int st;
} waiter;

static int waiter_body(taal_coro *self)
{
    waiter *f = (waiter *)self;
    TAAL_BEGIN(f);
    if (f->kind == SEM)
        TAAL_ACQUIRE_STATUS(f->st, &f->s->sem);
    else if (f->kind == LOCK)
        TAAL_LOCK_STATUS(f->st, &f->s->lock);
    else if (f->kind == EVENT)
        TAAL_EVENT_WAIT_STATUS(f->st, &f->s->event);
    else if (f->kind == GET)
        TAAL_QUEUE_GET_STATUS(f->st, &f->s->queue, f->item);
    else
        TAAL_QUEUE_PUT_STATUS(f->st, &f->s->queue, (void *)f->name);
    note(f->name);
    if (f->st == TAAL_ECANCELLED)
        note("x");
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    if (f->kind == SEM)
        taal_semaphore_release(&f->s->sem);
    else if (f->kind == LOCK)
        taal_lock_release(&f->s->lock);
    else if (f->kind == GET)
        note((const char *)f->item);
    TAAL_END();
}

static taal_task *spawn(taal_loop *loop, shared *s, wait_kind kind, const char *name)
{
    taal_task *task = NULL;
    taal_task_create(loop, waiter_body, &(waiter){.s = s, .kind = kind, .name = name},
                     sizeof(waiter), name, &task);
    return task;
}

/* Runs every task to its end and releases it; true if each ended with its
 * expected status and the loop then holds nothing. */
static bool all_end(taal_loop *loop, taal_task **t, const int *expected, int n)
{
    bool ok = true;
    for (int i = 0; i < n; i++) {
        int rc = run_to_end(loop, t[i]);
        if (rc != expected[i]) {
            fprintf(stderr, "task %d ended with \"%s\"\n", i + 1, taal_strerror(rc));
            ok = false;
        }
        taal_task_release(t[i]);
    }
    return ok && live_objects(loop) == 0;
}

/* ---- the semaphore ---------------------------------------------------------------- */

TEST(a_waiter_handed_a_permit_then_cancelled_passes_it_to_the_next)
{
    taal_loop loop;
    open_loop(&loop);
    shared s;
    taal_semaphore_init(&s.sem, &loop, 0, "s");
    taal_task *t[2] = {spawn(&loop, &s, SEM, "1"), spawn(&loop, &s, SEM, "2")};
    taal_run_once(&loop);
    CHECK_EQ(in_line(&s.sem.waiters), 2);
    CHECK_EQ(taal_semaphore_release(&s.sem), TAAL_OK); /* handed to 1 */
    CHECK_EQ(s.sem.handing, 1);
    CHECK(taal_task_cancel(t[0])); /* before 1 runs */
    taal_run_once(&loop);
    CHECK_STR(trace, "1x");
    CHECK_EQ(s.sem.handing, 1); /* 2's now */
    CHECK_EQ(s.sem.value, 0);
    CHECK_EQ(in_line(&s.sem.waiters), 0);
    taal_run_once(&loop);
    CHECK_STR(trace, "1x2");
    CHECK_EQ(s.sem.value, 1); /* 2 gave it back: one permit, as released */
    CHECK_EQ(s.sem.handing, 0);
    static const int expected[2] = {TAAL_ECANCELLED, TAAL_OK};
    CHECK(all_end(&loop, t, expected, 2));
    CHECK_EQ(taal_semaphore_destroy(&s.sem), TAAL_OK);
    taal_loop_close(&loop);
}

TEST(a_permit_handed_to_a_cancelled_waiter_with_nobody_behind_it_is_free_again)
{
    taal_loop loop;
    open_loop(&loop);
    shared s;
    taal_semaphore_init(&s.sem, &loop, 0, "s");
    taal_task *t[1] = {spawn(&loop, &s, SEM, "1")};
    taal_run_once(&loop);
    taal_semaphore_release(&s.sem);
    CHECK(taal_task_cancel(t[0]));
    taal_run_once(&loop);
    CHECK_STR(trace, "1x");
    CHECK_EQ(s.sem.value, 1);
    CHECK_EQ(s.sem.handing, 0);
    CHECK(!taal_semaphore_locked(&s.sem));
    static const int expected[1] = {TAAL_ECANCELLED};
    CHECK(all_end(&loop, t, expected, 1));
    taal_loop_close(&loop);
}

/* States 2 and 4: cancelled in line, and cancelled just before a release
 * in the same iteration. Neither was handed anything, so neither gives
 * anything back: a waiter that "gives back" what it never had makes a
 * permit out of nothing. */
TEST(waiters_cancelled_in_line_give_back_nothing)
{
    taal_loop loop;
    open_loop(&loop);
    shared s;
    taal_semaphore_init(&s.sem, &loop, 0, "s");
    taal_task *t[3] = {spawn(&loop, &s, SEM, "1"), spawn(&loop, &s, SEM, "2"),
                       spawn(&loop, &s, SEM, "3")};
    taal_run_once(&loop);
    CHECK(taal_task_cancel(t[1]));                     /* 2: cancelled in line */
    CHECK_EQ(taal_semaphore_release(&s.sem), TAAL_OK); /* to 1 */
    CHECK(taal_task_cancel(t[2]));                     /* 3: cancelled, then a release */
    CHECK_EQ(taal_semaphore_release(&s.sem), TAAL_OK); /* to nobody: free */
    CHECK_EQ(s.sem.value, 1);
    CHECK_EQ(s.sem.handing, 1);
    taal_run_once(&loop);
    CHECK_STR(trace, "2x13x");
    CHECK_EQ(s.sem.value, 2); /* two releases, two permits */
    CHECK_EQ(s.sem.handing, 0);
    static const int expected[3] = {TAAL_OK, TAAL_ECANCELLED, TAAL_ECANCELLED};
    CHECK(all_end(&loop, t, expected, 3));
    taal_loop_close(&loop);
}

/* ---- the lock --------------------------------------------------------------------- */

/* Takes the lock, holds it 1 s, lets it go. */
typedef struct holder {
    taal_coro co;
    taal_lock *lock;
} holder;

static int holder_body(taal_coro *self)
{
    holder *f = (holder *)self;
    TAAL_BEGIN(f);
    TAAL_LOCK(f->lock);
    TAAL_SLEEP(1);
    taal_lock_release(f->lock);
    TAAL_END();
}

TEST(a_lock_handed_to_a_cancelled_waiter_goes_to_the_next_one)
{
    taal_loop loop;
    open_loop(&loop);
    shared s;
    taal_lock_init(&s.lock, &loop, "l");
    taal_task *t[3] = {NULL, NULL, NULL};
    taal_task_create(&loop, holder_body, &(holder){.lock = &s.lock}, sizeof(holder), "h",
                     &t[0]);
    t[1] = spawn(&loop, &s, LOCK, "1");
    t[2] = spawn(&loop, &s, LOCK, "2");
    taal_run_once(&loop); /* h takes the lock for 1 s; 1 and 2 wait */
    CHECK(s.lock.owner == t[0]);
    CHECK_EQ(in_line(&s.lock.sem.waiters), 2);
    for (int i = 0; i < 5 && s.lock.owner == t[0]; i++)
        taal_run_once(&loop); /* at 1 s, h lets it go: handed to 1 */
    CHECK(s.lock.owner == t[1]);
    CHECK_EQ(s.lock.sem.handing, 1);
    CHECK(taal_task_cancel(t[1])); /* before 1 runs */
    taal_run_once(&loop);
    CHECK_STR(trace, "1x");
    CHECK(s.lock.owner == t[2]); /* passed on to 2 */
    CHECK(taal_lock_locked(&s.lock));
    CHECK_EQ(s.lock.sem.handing, 1);
    static const int expected[3] = {TAAL_OK, TAAL_ECANCELLED, TAAL_OK};
    CHECK(all_end(&loop, t, expected, 3));
    CHECK_STR(trace, "1x2");
    CHECK(!taal_lock_locked(&s.lock));
    CHECK(s.lock.owner == NULL);
    CHECK_EQ(taal_lock_destroy(&s.lock), TAAL_OK);
    taal_loop_close(&loop);
}

/* ---- the event -------------------------------------------------------------------- */

TEST(an_event_waiter_cancelled_after_the_set_ends_cancelled_and_the_rest_run)
{
    taal_loop loop;
    open_loop(&loop);
    shared s;
    taal_event_init(&s.event, &loop, "e");
    taal_task *t[3] = {spawn(&loop, &s, EVENT, "1"), spawn(&loop, &s, EVENT, "2"),
                       spawn(&loop, &s, EVENT, "3")};
    taal_run_once(&loop);
    CHECK_EQ(taal_event_set(&s.event), TAAL_OK);
    CHECK(taal_task_cancel(t[1]));
    taal_run_once(&loop);
    CHECK_STR(trace, "12x3");
    static const int expected[3] = {TAAL_OK, TAAL_ECANCELLED, TAAL_OK};
    CHECK(all_end(&loop, t, expected, 3));
    taal_loop_close(&loop);
}

/* ---- the queue -------------------------------------------------------------------- */

TEST(an_item_handed_to_a_cancelled_getter_goes_to_the_next_getter)
{
    taal_loop loop;
    open_loop(&loop);
    shared s;
    taal_queue_init(&s.queue, &loop, 0, "q");
    taal_task *t[2] = {spawn(&loop, &s, GET, "1"), spawn(&loop, &s, GET, "2")};
    taal_run_once(&loop);
    CHECK_EQ(taal_queue_put_nowait(&s.queue, "A"), TAAL_OK); /* handed to 1 */
    CHECK_EQ(s.queue.items_handed, 1);
    CHECK(taal_task_cancel(t[0]));
    taal_run_once(&loop);
    CHECK_STR(trace, "1x");
    CHECK_EQ(s.queue.items_handed, 1); /* 2's now */
    CHECK_EQ(taal_queue_qsize(&s.queue), 1);
    taal_run_once(&loop);
    CHECK_STR(trace, "1x2A");
    CHECK_EQ(taal_queue_qsize(&s.queue), 0);
    static const int expected[2] = {TAAL_ECANCELLED, TAAL_OK};
    CHECK(all_end(&loop, t, expected, 2));
    CHECK_EQ(taal_queue_destroy(&s.queue), TAAL_OK);
    taal_loop_close(&loop);
}

TEST(a_slot_handed_to_a_cancelled_putter_goes_to_the_next_putter)
{
    taal_loop loop;
    open_loop(&loop);
    shared s;
    taal_queue_init(&s.queue, &loop, 1, "q");
    CHECK_EQ(taal_queue_put_nowait(&s.queue, "0"), TAAL_OK); /* full */
    taal_task *t[2] = {spawn(&loop, &s, PUT, "1"), spawn(&loop, &s, PUT, "2")};
    taal_run_once(&loop);
    CHECK_EQ(in_line(&s.queue.putters), 2);
    void *item = NULL;
    CHECK_EQ(taal_queue_get_nowait(&s.queue, &item), TAAL_OK); /* a slot for 1 */
    CHECK_EQ(s.queue.slots_handed, 1);
    CHECK(taal_task_cancel(t[0]));
    taal_run_once(&loop);
    CHECK_STR(trace, "1x");
    CHECK_EQ(s.queue.slots_handed, 1); /* 2's now */
    CHECK_EQ(taal_queue_qsize(&s.queue), 0);
    CHECK(taal_queue_full(&s.queue)); /* the free slot is spoken for */
    CHECK_EQ(in_line(&s.queue.putters), 0);
    taal_run_once(&loop);
    CHECK_STR(trace, "1x2");
    CHECK_EQ(s.queue.slots_handed, 0);
    CHECK_EQ(taal_queue_get_nowait(&s.queue, &item), TAAL_OK);
    CHECK_STR((const char *)item, "2");
    static const int expected[2] = {TAAL_ECANCELLED, TAAL_OK};
    CHECK(all_end(&loop, t, expected, 2));
    CHECK_EQ(taal_queue_destroy(&s.queue), TAAL_OK);
    taal_loop_close(&loop);
}

TEST(a_slot_handed_to_a_cancelled_putter_with_nobody_behind_it_is_free_again)
{
    taal_loop loop;
    open_loop(&loop);
    shared s;
    taal_queue_init(&s.queue, &loop, 1, "q");
    taal_queue_put_nowait(&s.queue, "0");
    taal_task *t[1] = {spawn(&loop, &s, PUT, "1")};
    taal_run_once(&loop);
    void *item = NULL;
    taal_queue_get_nowait(&s.queue, &item);
    CHECK(taal_task_cancel(t[0]));
    taal_run_once(&loop);
    CHECK_STR(trace, "1x");
    CHECK_EQ(s.queue.slots_handed, 0);
    CHECK(!taal_queue_full(&s.queue));
    CHECK_EQ(taal_queue_put_nowait(&s.queue, "n"), TAAL_OK);
    static const int expected[1] = {TAAL_ECANCELLED};
    CHECK(all_end(&loop, t, expected, 1));
    CHECK_EQ(taal_queue_get_nowait(&s.queue, &item), TAAL_OK);
    CHECK_EQ(taal_queue_destroy(&s.queue), TAAL_OK);
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_waiter_handed_a_permit_then_cancelled_passes_it_to_the_next),
    TEST_ENTRY(a_permit_handed_to_a_cancelled_waiter_with_nobody_behind_it_is_free_again),
    TEST_ENTRY(waiters_cancelled_in_line_give_back_nothing),
    TEST_ENTRY(a_lock_handed_to_a_cancelled_waiter_goes_to_the_next_one),
    TEST_ENTRY(an_event_waiter_cancelled_after_the_set_ends_cancelled_and_the_rest_run),
    TEST_ENTRY(an_item_handed_to_a_cancelled_getter_goes_to_the_next_getter),
    TEST_ENTRY(a_slot_handed_to_a_cancelled_putter_goes_to_the_next_putter),
    TEST_ENTRY(a_slot_handed_to_a_cancelled_putter_with_nobody_behind_it_is_free_again),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
