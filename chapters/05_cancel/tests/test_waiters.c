/*
** test_waiters.c -- chapter 05's unit tests of cancel-safe primitives: the
** semaphore, the lock, the event, and the queue's get, put and join, each
** with waiters in all four states of a waiter:
**   1. blocked, and later handed what it waits for, normally;
**   2. cancelled while it waits in line;
**   3. handed what it waited for (woken), then cancelled before it runs:
**      it must pass it on to the next in line;
**   4. cancelled, then what it waited for released in the same iteration:
**      the release must go to the next in line, or back.
** Each test runs to the end: every waiter finished, none stuck, and the
** counts (free permits, items, slots) back where they started.
*/
#include "support.h"

/* ---- a waiter for any primitive ------------------------------------------------ */

typedef enum what { SEMAPHORE, LOCK, EVENT, GET, PUT, JOIN } what;

typedef struct shared {
    taal_semaphore sem;
    taal_lock lock;
    taal_event event;
    taal_queue queue;
} shared;

/* Waits on `s` as `kind` says, notes "<name>" if it got what it waited
 * for (and gives it back at once: a permit, the lock) or "<name>x" if it
 * was cancelled. */
typedef struct waiter {
    taal_coro co;
    shared *s;
    what kind;
    const char *name;
    void *item;
    int st;
} waiter;

static int waiter_body(taal_coro *self)
{
    waiter *f = (waiter *)self;
    TAAL_BEGIN(f);
    if (f->kind == SEMAPHORE)
        TAAL_ACQUIRE_STATUS(f->st, &f->s->sem);
    else if (f->kind == LOCK)
        TAAL_LOCK_STATUS(f->st, &f->s->lock);
    else if (f->kind == EVENT)
        TAAL_EVENT_WAIT_STATUS(f->st, &f->s->event);
    else if (f->kind == GET)
        TAAL_QUEUE_GET_STATUS(f->st, &f->s->queue, f->item);
    else if (f->kind == PUT)
        TAAL_QUEUE_PUT_STATUS(f->st, &f->s->queue, (void *)f->name);
    else
        TAAL_QUEUE_JOIN_STATUS(f->st, &f->s->queue);
    note(f->name);
    if (f->st == TAAL_ECANCELLED) {
        note("x");
        TAAL_FAIL(f->st);
    }
    if (f->st != TAAL_OK)
        TAAL_FAIL(TAAL_EUSER); /* anything else is a bug */
    if (f->kind == SEMAPHORE)
        taal_semaphore_release(&f->s->sem);
    else if (f->kind == LOCK)
        taal_lock_release(&f->s->lock);
    else if (f->kind == GET)
        note((const char *)f->item);
    TAAL_END();
}

static taal_task *spawn(taal_loop *loop, shared *s, what kind, const char *name)
{
    taal_task *task = NULL;
    taal_task_create(loop, waiter_body, &(waiter){.s = s, .kind = kind, .name = name},
                     sizeof(waiter), name, &task);
    return task;
}

/* Four waiters, 1 to 4, in line in that order on `kind`. */
static void line_up(taal_loop *loop, shared *s, what kind, taal_task *w[4])
{
    static const char *const names[4] = {"1", "2", "3", "4"};
    for (int i = 0; i < 4; i++)
        w[i] = spawn(loop, s, kind, names[i]);
    taal_run_once(loop); /* all four wait */
}

/* Runs every waiter to its end: each either got what it waited for or was
 * cancelled; none is stuck. */
static bool all_end(taal_loop *loop, taal_task *w[4], const int expected[4])
{
    bool ok = true;
    for (int i = 0; i < 4; i++) {
        int rc = taal_run_until_complete(loop, taal_task_future(w[i]));
        if (rc != expected[i]) {
            fprintf(stderr, "waiter %d ended with \"%s\"\n", i + 1, taal_strerror(rc));
            ok = false;
        }
        taal_task_release(w[i]);
    }
    return ok;
}

static int waiting_on(const taal_waiters *w)
{
    int n = 0;
    for (const taal_link *l = w->future.waiters.next; l != &w->future.waiters;
         l = l->next)
        n++;
    return n;
}

static const int cancelled_2_1_4[4] = {TAAL_ECANCELLED, TAAL_ECANCELLED, TAAL_OK,
                                       TAAL_ECANCELLED};

/* ---- the semaphore ------------------------------------------------------------- */

TEST(a_semaphore_keeps_its_permits_whatever_state_a_waiter_is_cancelled_in)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    shared s;
    taal_semaphore_init(&s.sem, &loop, 0, "s");
    taal_task *w[4];
    line_up(&loop, &s, SEMAPHORE, w);
    CHECK_EQ(waiting_on(&s.sem.waiters), 4);
    /* 2: cancelled in line; it leaves the line at once. */
    CHECK(taal_task_cancel(w[1]));
    CHECK_EQ(waiting_on(&s.sem.waiters), 3);
    taal_run_once(&loop);
    CHECK_STR(trace, "2x");
    /* 3: a permit handed to 1, then 1 cancelled before it runs: it passes
     * the permit to 3 when it resumes. */
    CHECK_EQ(taal_semaphore_release(&s.sem), TAAL_OK);
    CHECK_EQ(s.sem.handing, 1);
    CHECK(taal_task_cancel(w[0]));
    taal_run_once(&loop);
    CHECK_STR(trace, "2x1x");
    CHECK_EQ(s.sem.handing, 1); /* now 3's */
    CHECK_EQ(s.sem.value, 0);
    /* 4: cancelled, then a permit released in the same iteration: 4 is out
     * of the line already, so the permit is free. */
    CHECK(taal_task_cancel(w[3]));
    CHECK_EQ(taal_semaphore_release(&s.sem), TAAL_OK);
    CHECK_EQ(s.sem.value, 1);
    /* 1 (the ordinary state): 3 runs with the permit 1 passed on. */
    CHECK(all_end(&loop, w, cancelled_2_1_4));
    CHECK_STR(trace, "2x1x34x");
    /* Two permits released, and both free again: nothing lost. */
    CHECK_EQ(s.sem.value, 2);
    CHECK_EQ(s.sem.handing, 0);
    CHECK_EQ(waiting_on(&s.sem.waiters), 0);
    CHECK_EQ(taal_semaphore_destroy(&s.sem), TAAL_OK);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* A bounded semaphore counts a permit passed on by a cancelled waiter as
 * before: a release too many is still refused. */
TEST(a_bounded_semaphore_still_refuses_a_release_too_many_after_a_give_back)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    shared s;
    taal_bounded_semaphore_init(&s.sem, &loop, 1, "b");
    taal_task *holder = spawn(&loop, &s, SEMAPHORE, "h");
    taal_run_once(&loop); /* h takes it and gives it back at once */
    CHECK_EQ(finish_task(&loop, holder), TAAL_OK);
    CHECK_EQ(s.sem.value, 1);
    taal_task *w = spawn(&loop, &s, SEMAPHORE, "w");
    CHECK_EQ(taal_semaphore_release(&s.sem), TAAL_ERELEASE);
    taal_task_cancel(w); /* before its first step: never takes it */
    CHECK_EQ(finish_task(&loop, w), TAAL_ECANCELLED);
    CHECK_EQ(s.sem.value, 1);
    CHECK_EQ(taal_semaphore_release(&s.sem), TAAL_ERELEASE);
    CHECK_EQ(taal_semaphore_destroy(&s.sem), TAAL_OK);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* ---- the lock ------------------------------------------------------------------------
 */

/* Takes the lock, sleeps 1 s holding it, releases it. */
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

TEST(a_lock_is_never_lost_whatever_state_a_waiter_is_cancelled_in)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    shared s;
    taal_lock_init(&s.lock, &loop, "l");
    taal_task *h = NULL;
    taal_task_create(&loop, holder_body, &(holder){.lock = &s.lock}, sizeof(holder), "h",
                     &h);
    taal_task *w[4];
    line_up(&loop, &s, LOCK, w); /* h holds it; 1 to 4 wait */
    CHECK(s.lock.owner == h);
    /* 2: cancelled in line. */
    taal_task_cancel(w[1]);
    taal_run_once(&loop);
    CHECK_STR(trace, "2x");
    /* 3: h releases it to 1 (at 1 s); 1 is cancelled before it runs. */
    while (s.lock.owner == h)
        taal_run_once(&loop);
    CHECK(s.lock.owner == w[0]);
    taal_task_cancel(w[0]);
    taal_run_once(&loop);
    CHECK(s.lock.owner == w[2]); /* passed on */
    CHECK(taal_lock_locked(&s.lock));
    /* 4: cancelled in the iteration in which 3 releases the lock. */
    taal_task_cancel(w[3]);
    CHECK(all_end(&loop, w, cancelled_2_1_4));
    CHECK_STR(trace, "2x1x34x"); /* 3 runs first, and releases: 4 has left */
    CHECK(!taal_lock_locked(&s.lock));
    CHECK(s.lock.owner == NULL);
    CHECK_EQ(finish_task(&loop, h), TAAL_OK);
    CHECK_EQ(taal_lock_destroy(&s.lock), TAAL_OK);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* A waiter of high priority lends it to the lock's holder; cancelled, it
 * leaves the line, and the holder runs at its own priority again. */
TEST(a_cancelled_waiter_takes_back_the_priority_it_lent_the_holder)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    shared s;
    taal_lock_init(&s.lock, &loop, "l");
    taal_task *h = NULL;
    taal_task_create(&loop, holder_body, &(holder){.lock = &s.lock}, sizeof(holder), "h",
                     &h);
    taal_run_once(&loop); /* h holds it */
    taal_task *w = spawn(&loop, &s, LOCK, "w");
    taal_task_set_priority(w, 9);
    taal_run_once(&loop); /* w waits, and lends h its priority */
    CHECK_EQ(taal_task_priority(h), 9);
    taal_task_cancel(w);
    CHECK_EQ(taal_task_priority(h), 0);
    CHECK_EQ(finish_task(&loop, w), TAAL_ECANCELLED);
    CHECK_EQ(finish_task(&loop, h), TAAL_OK);
    CHECK(!taal_lock_locked(&s.lock));
    CHECK_EQ(taal_lock_destroy(&s.lock), TAAL_OK);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* ---- the event
 * -------------------------------------------------------------------------- */

TEST(an_event_wakes_every_waiter_left_whatever_state_one_is_cancelled_in)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    shared s;
    taal_event_init(&s.event, &loop, "e");
    taal_task *w[4];
    line_up(&loop, &s, EVENT, w);
    taal_task_cancel(w[1]); /* 2 */
    taal_run_once(&loop);
    taal_task_cancel(w[3]); /* 4: cancelled, then set in the same iteration */
    CHECK_EQ(taal_event_set(&s.event), TAAL_OK);
    taal_task_cancel(w[0]); /* 3: woken by the set, then cancelled */
    CHECK_EQ(waiting_on(&s.event.waiters), 0);
    CHECK(all_end(&loop, w, cancelled_2_1_4));
    CHECK_STR(trace, "2x4x1x3"); /* in the order they were woken */
    CHECK(taal_event_is_set(&s.event));
    CHECK_EQ(taal_event_destroy(&s.event), TAAL_OK);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* ---- the queue
 * ---------------------------------------------------------------------------- */

TEST(a_queue_keeps_its_items_whatever_state_a_getter_is_cancelled_in)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    shared s;
    taal_queue_init(&s.queue, &loop, 2, "q");
    taal_task *w[4];
    line_up(&loop, &s, GET, w);
    taal_task_cancel(w[1]); /* 2: in line */
    taal_run_once(&loop);
    /* 3: an item handed to 1, then 1 cancelled: it goes to 3. */
    CHECK_EQ(taal_queue_put_nowait(&s.queue, "a"), TAAL_OK);
    CHECK_EQ(s.queue.items_handed, 1);
    taal_task_cancel(w[0]);
    taal_run_once(&loop);
    CHECK_EQ(s.queue.items_handed, 1); /* now 3's */
    /* 4: cancelled, then an item put in the same iteration: it stays. */
    taal_task_cancel(w[3]);
    CHECK_EQ(taal_queue_put_nowait(&s.queue, "b"), TAAL_OK);
    CHECK(all_end(&loop, w, cancelled_2_1_4));
    CHECK_STR(trace, "2x1x3a4x");
    CHECK_EQ(s.queue.items_handed, 0);
    CHECK_EQ(taal_queue_qsize(&s.queue), 1); /* "b", free for anyone */
    void *item = NULL;
    CHECK_EQ(taal_queue_get_nowait(&s.queue, &item), TAAL_OK);
    CHECK_STR(item, "b");
    CHECK_EQ(taal_queue_task_done(&s.queue), TAAL_OK);
    CHECK_EQ(taal_queue_task_done(&s.queue), TAAL_OK);
    CHECK_EQ(s.queue.unfinished, 0);
    CHECK_EQ(taal_queue_destroy(&s.queue), TAAL_OK);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(a_queue_keeps_its_free_slots_whatever_state_a_putter_is_cancelled_in)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    shared s;
    taal_queue_init(&s.queue, &loop, 1, "q");
    CHECK_EQ(taal_queue_put_nowait(&s.queue, "0"), TAAL_OK); /* full */
    taal_task *w[4];
    line_up(&loop, &s, PUT, w);
    CHECK_EQ(waiting_on(&s.queue.putters), 4);
    taal_task_cancel(w[1]); /* 2: in line */
    taal_run_once(&loop);
    /* 3: a slot handed to 1, then 1 cancelled: the slot goes to 3. */
    void *item = NULL;
    CHECK_EQ(taal_queue_get_nowait(&s.queue, &item), TAAL_OK);
    CHECK_EQ(s.queue.slots_handed, 1);
    taal_task_cancel(w[0]);
    taal_run_once(&loop);
    CHECK_EQ(s.queue.slots_handed, 1); /* now 3's */
    CHECK_EQ(taal_queue_qsize(&s.queue), 0);
    taal_run_once(&loop); /* 3 puts its item into the slot */
    CHECK_EQ(s.queue.slots_handed, 0);
    CHECK_EQ(taal_queue_qsize(&s.queue), 1);
    /* 4: cancelled, then a slot freed in the same iteration: it stays free. */
    taal_task_cancel(w[3]);
    CHECK_EQ(taal_queue_get_nowait(&s.queue, &item), TAAL_OK);
    CHECK_STR(item, "3");
    CHECK(all_end(&loop, w, cancelled_2_1_4));
    CHECK_STR(trace, "2x1x34x");
    CHECK_EQ(taal_queue_qsize(&s.queue), 0);
    CHECK_EQ(s.queue.slots_handed, 0);
    CHECK(!taal_queue_full(&s.queue));
    CHECK_EQ(waiting_on(&s.queue.putters), 0);
    CHECK_EQ(taal_queue_destroy(&s.queue), TAAL_OK);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(a_cancelled_join_leaves_the_unfinished_count_alone)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    shared s;
    taal_queue_init(&s.queue, &loop, 0, "q");
    taal_queue_put_nowait(&s.queue, "a");
    taal_task *j1 = spawn(&loop, &s, JOIN, "j"), *j2 = spawn(&loop, &s, JOIN, "k");
    taal_run_once(&loop);
    taal_task_cancel(j1);
    CHECK_EQ(finish_task(&loop, j1), TAAL_ECANCELLED);
    CHECK_EQ(s.queue.unfinished, 1);
    void *item;
    taal_queue_get_nowait(&s.queue, &item);
    taal_queue_task_done(&s.queue); /* k is woken */
    taal_task_cancel(j2);           /* and cancelled before it runs */
    CHECK_EQ(finish_task(&loop, j2), TAAL_ECANCELLED);
    CHECK_STR(trace, "jxkx");
    CHECK_EQ(s.queue.unfinished, 0);
    CHECK_EQ(taal_queue_destroy(&s.queue), TAAL_OK);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* A primitive's waiters: a primitive that lives in a task's frame, and a
 * waiter cancelled after that task has ended: the waiter's handle held
 * the frame, and the cancelled await does not touch the primitive. */
typedef struct owner {
    taal_coro co;
    shared s;
    taal_task *waiter;
} owner;

static int owner_body(taal_coro *self)
{
    owner *f = (owner *)self;
    TAAL_BEGIN(f);
    taal_semaphore_init(&f->s.sem, taal_running_loop(), 0, "mine");
    f->waiter = spawn(taal_running_loop(), &f->s, SEMAPHORE, "w");
    TAAL_SLEEP(0);
    TAAL_END(); /* ends with w waiting on its semaphore */
}

TEST(a_waiter_cancelled_after_the_frame_of_its_semaphore_ended_is_safe)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *o = NULL;
    taal_task_create(&loop, owner_body, NULL, sizeof(owner), "o", &o);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(o)), TAAL_OK);
    taal_task *w = ((owner *)taal_task_frame(o))->waiter;
    taal_task_release(o); /* o's frame lives on: w's wait holds it */
    taal_task_cancel(w);
    CHECK_EQ(finish_task(&loop, w), TAAL_ECANCELLED); /* and o's frame goes */
    CHECK_STR(trace, "wx");
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* Takes the lock and ends, holding it (asyncio allows that, and another
 * task's release): the lock must not keep naming the finished task. */
typedef struct keeper {
    taal_coro co;
    taal_lock *lock;
} keeper;

static int keeper_body(taal_coro *self)
{
    keeper *f = (keeper *)self;
    TAAL_BEGIN(f);
    TAAL_LOCK(f->lock);
    TAAL_END();
}

TEST(a_lock_whose_holder_ended_holding_it_can_be_released_by_another)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    shared s;
    taal_lock_init(&s.lock, &loop, "l");
    taal_task *k = NULL;
    taal_task_create(&loop, keeper_body, &(keeper){.lock = &s.lock}, sizeof(keeper), "k",
                     &k);
    CHECK_EQ(finish_task(&loop, k), TAAL_OK); /* freed, the lock still locked */
    CHECK(taal_lock_locked(&s.lock));
    CHECK(s.lock.owner == NULL);
    taal_task *w = spawn(&loop, &s, LOCK, "w");
    taal_task_set_priority(w, 5);
    taal_run_once(&loop); /* w waits: nobody to lend its priority to */
    CHECK_EQ(taal_lock_release(&s.lock), TAAL_OK); /* from outside any task */
    CHECK(s.lock.owner == w);
    CHECK_EQ(finish_task(&loop, w), TAAL_OK);
    CHECK_STR(trace, "w");
    CHECK(!taal_lock_locked(&s.lock));
    CHECK_EQ(taal_lock_destroy(&s.lock), TAAL_OK);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* ---- destroy: in use until every task it woke has run --------------------------- */

/* Makes `kind`'s primitive in `s`, ready for one waiter to wait on it:
 * the lock held (by a task that ended holding it), the queue full for a
 * putter, one item unfinished for a joiner. */
static void prepare(taal_loop *loop, shared *s, what kind)
{
    void *item;
    if (kind == SEMAPHORE)
        taal_semaphore_init(&s->sem, loop, 0, "s");
    else if (kind == LOCK) {
        taal_lock_init(&s->lock, loop, "l");
        taal_task *k = NULL;
        taal_task_create(loop, keeper_body, &(keeper){.lock = &s->lock}, sizeof(keeper),
                         "k", &k);
        finish_task(loop, k);
    } else if (kind == EVENT)
        taal_event_init(&s->event, loop, "e");
    else {
        taal_queue_init(&s->queue, loop, 1, "q");
        if (kind != GET)
            taal_queue_put_nowait(&s->queue, "0");
        if (kind == JOIN)
            taal_queue_get_nowait(&s->queue, &item);
    }
}

/* Gives the waiter what it waits for, from outside any task. */
static int wake(shared *s, what kind)
{
    void *item;
    switch (kind) {
    case SEMAPHORE: return taal_semaphore_release(&s->sem);
    case LOCK: return taal_lock_release(&s->lock);
    case EVENT: return taal_event_set(&s->event);
    case GET: return taal_queue_put_nowait(&s->queue, "i");
    case PUT: return taal_queue_get_nowait(&s->queue, &item);
    default: return taal_queue_task_done(&s->queue);
    }
}

static int destroy(shared *s, what kind)
{
    switch (kind) {
    case SEMAPHORE: return taal_semaphore_destroy(&s->sem);
    case LOCK: return taal_lock_destroy(&s->lock);
    case EVENT: return taal_event_destroy(&s->event);
    default: return taal_queue_destroy(&s->queue);
    }
}

/*
** One task waits on `kind`; it is handed what it waits for (if `handed`:
** state 3) or not (state 2), then cancelled before it runs. Until it has
** run, the primitive is in use: the task points at it, and when it runs
** it passes on what it was handed, through the primitive. Destroy is
** refused, and changes nothing; once the task has run, it succeeds.
** (Issue 19: destroy said TAAL_OK, and the task then walked the destroyed
** line.)
*/
static void in_use_until_the_cancelled_waiter_has_run(what kind, bool handed)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    shared s;
    prepare(&loop, &s, kind);
    taal_task *w = spawn(&loop, &s, kind, "w");
    taal_run_once(&loop); /* it waits */
    if (handed)
        CHECK_EQ(wake(&s, kind), TAAL_OK);
    CHECK(taal_task_cancel(w));
    CHECK_EQ(destroy(&s, kind), TAAL_EBUSY);
    CHECK_EQ(finish_task(&loop, w), TAAL_ECANCELLED);
    CHECK_STR(trace, "wx");
    CHECK_EQ(destroy(&s, kind), TAAL_OK);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(a_primitive_is_in_use_until_a_waiter_handed_something_then_cancelled_has_run)
{
    static const what kinds[] = {SEMAPHORE, LOCK, EVENT, GET, PUT, JOIN};
    for (size_t i = 0; i < TAAL_COUNT(kinds); i++)
        in_use_until_the_cancelled_waiter_has_run(kinds[i], true);
}

TEST(a_primitive_is_in_use_until_a_waiter_cancelled_in_line_has_run)
{
    static const what kinds[] = {SEMAPHORE, LOCK, EVENT, GET, PUT, JOIN};
    for (size_t i = 0; i < TAAL_COUNT(kinds); i++)
        in_use_until_the_cancelled_waiter_has_run(kinds[i], false);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_semaphore_keeps_its_permits_whatever_state_a_waiter_is_cancelled_in),
    TEST_ENTRY(a_bounded_semaphore_still_refuses_a_release_too_many_after_a_give_back),
    TEST_ENTRY(a_lock_is_never_lost_whatever_state_a_waiter_is_cancelled_in),
    TEST_ENTRY(a_cancelled_waiter_takes_back_the_priority_it_lent_the_holder),
    TEST_ENTRY(an_event_wakes_every_waiter_left_whatever_state_one_is_cancelled_in),
    TEST_ENTRY(a_queue_keeps_its_items_whatever_state_a_getter_is_cancelled_in),
    TEST_ENTRY(a_queue_keeps_its_free_slots_whatever_state_a_putter_is_cancelled_in),
    TEST_ENTRY(a_cancelled_join_leaves_the_unfinished_count_alone),
    TEST_ENTRY(a_waiter_cancelled_after_the_frame_of_its_semaphore_ended_is_safe),
    TEST_ENTRY(a_lock_whose_holder_ended_holding_it_can_be_released_by_another),
    TEST_ENTRY(
        a_primitive_is_in_use_until_a_waiter_handed_something_then_cancelled_has_run),
    TEST_ENTRY(a_primitive_is_in_use_until_a_waiter_cancelled_in_line_has_run),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
