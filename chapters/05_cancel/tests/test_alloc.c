/*
** test_alloc.c -- chapter 05: out of memory is an error like any other,
** and no cancellation path allocates.
**
** One scenario cancels tasks in every state there is: before their first
** step, asleep, awaiting a plain future, awaiting a task, awaiting a
** gather and a shield, waiting in line on a semaphore, a lock, an event,
** a queue's get and put, handed a permit and not run yet; and times out a
** wait_for and a timeout scope, and lets a task group stop its children.
** It is run again and again with the n-th allocation failing, for n = 1,
** 2, ... until a run reaches none of its failures: every run must end with
** TAAL_OK or TAAL_ENOMEM and nothing allocated. Then it runs with an
** allocator that counts, and no allocation may happen from the first
** cancel to the last task's end.
*/
#include "support.h"

static const taal_allocator failing = {taal_check_malloc, taal_check_realloc,
                                       taal_check_free};

/* Allocations are forbidden (counted as a failure of the test) while
 * this is set: from the first cancel to the last task's end. */
static bool forbidden;
static long forbidden_allocs;

static void *guarded_malloc(size_t size)
{
    forbidden_allocs += forbidden;
    return taal_check_malloc(size);
}

static void *guarded_realloc(void *p, size_t size)
{
    forbidden_allocs += forbidden;
    return taal_check_realloc(p, size);
}

static const taal_allocator guarded = {guarded_malloc, guarded_realloc, taal_check_free};

/* What the last full run saw: every task's status, and whether task 9
 * really was handed its permit before it was cancelled. */
static int last_status[32];
static bool handed_then_cancelled;

/* ---- the tasks ---------------------------------------------------------------- */

typedef struct primitives {
    taal_semaphore sem;
    taal_lock lock;
    taal_event event;
    taal_queue gets, puts;
} primitives;

typedef enum job { SLEEP, AWAIT, ACQUIRE, LOCK, EVENT, GET, PUT, FAIL } job;

/* One task of the scenario: does its job, and if it is cancelled, cleans
 * up with an await of its own before it re-raises. */
typedef struct worker {
    taal_coro co;
    job job;
    double seconds;
    primitives *p;
    taal_future *awaited;
    void *item;
    int st;
} worker;

static int worker_body(taal_coro *self)
{
    worker *f = (worker *)self;
    TAAL_BEGIN(f);
    if (f->job == SLEEP || f->job == FAIL)
        TAAL_SLEEP_STATUS(f->st, f->seconds);
    else if (f->job == AWAIT)
        TAAL_AWAIT_FUTURE_STATUS(f->st, f->awaited);
    else if (f->job == ACQUIRE)
        TAAL_ACQUIRE_STATUS(f->st, &f->p->sem);
    else if (f->job == LOCK)
        TAAL_LOCK_STATUS(f->st, &f->p->lock);
    else if (f->job == EVENT)
        TAAL_EVENT_WAIT_STATUS(f->st, &f->p->event);
    else if (f->job == GET)
        TAAL_QUEUE_GET_STATUS(f->st, &f->p->gets, f->item);
    else
        TAAL_QUEUE_PUT_STATUS(f->st, &f->p->puts, f);
    if (f->st == TAAL_ECANCELLED)
        TAAL_SLEEP(0.001); /* cleanup that awaits */
    if (f->st == TAAL_OK && f->job == ACQUIRE)
        taal_semaphore_release(&f->p->sem);
    if (f->st == TAAL_OK && f->job == FAIL)
        f->st = TAAL_EUSER;
    TAAL_FAIL(f->st);
    TAAL_END();
}

/* ---- the scenario ---------------------------------------------------------------- */

enum { TASKS = 20, MEMBERS = 6, PADDING = 20 };

typedef struct boss {
    taal_coro co;
    primitives p;
    taal_future plain;
    taal_timer padding[PADDING];
    taal_task *tasks[TASKS];
    int n; /* tasks made */
    taal_future *gathered, *shielded;
    taal_timeout scope;
    taal_taskgroup tg;
    bool tg_open;
    struct ending {
        taal_coro co;
        struct boss *b;
        int i, st;
    } child; /* the boss's embedded coroutines: one at a time */
    int rc;
} boss;

static void never_called(void *data)
{
    (void)data;
}

/* Makes a worker; the first failure is kept in f->rc. */
static taal_task *make(boss *f, worker w)
{
    if (f->rc != TAAL_OK || f->n == TASKS)
        return NULL;
    w.p = &f->p;
    int rc = taal_task_create(taal_running_loop(), worker_body, &w, sizeof w, NULL,
                              &f->tasks[f->n]);
    if (rc != TAAL_OK) {
        f->rc = rc;
        return NULL;
    }
    return f->tasks[f->n++];
}

static void keep(boss *f, int rc)
{
    if (f->rc == TAAL_OK)
        f->rc = rc;
}

/* The timer heap grows to hold every timer the run will arm at once, so
 * that arming never allocates later: 20 timers, then none. */
static void grow_heap(boss *f)
{
    taal_loop *loop = taal_running_loop();
    for (int i = 0; i < PADDING && f->rc == TAAL_OK; i++)
        keep(f, taal_call_later(loop, &f->padding[i], 1000, never_called, NULL));
    for (int i = 0; i < PADDING; i++)
        taal_timer_cancel(loop, &f->padding[i]);
}

static void init_primitives(boss *f)
{
    taal_loop *loop = taal_running_loop();
    taal_semaphore_init(&f->p.sem, loop, 0, "sem");
    taal_lock_init(&f->p.lock, loop, "lock");
    taal_event_init(&f->p.event, loop, "event");
    taal_future_init(&f->plain, loop);
    keep(f, taal_queue_init(&f->p.gets, loop, 2, "gets"));
    keep(f, taal_queue_init(&f->p.puts, loop, 1, "puts"));
    if (f->rc == TAAL_OK)
        taal_queue_put_nowait(&f->p.puts, f); /* full */
}

/* Every task that waits somewhere, and the futures made of them. */
static void make_everything(boss *f)
{
    taal_loop *loop = taal_running_loop();
    make(f, (worker){.job = SLEEP, .seconds = 10});                    /* 0: first step */
    make(f, (worker){.job = SLEEP, .seconds = 10});                    /* 1: asleep */
    make(f, (worker){.job = AWAIT, .awaited = &f->plain});             /* 2: a future */
    taal_task *inner = make(f, (worker){.job = SLEEP, .seconds = 10}); /* 3 */
    if (inner != NULL)                                                 /* 4: a task */
        make(f, (worker){.job = AWAIT, .awaited = taal_task_future(inner)});
    taal_task *g1 = make(f, (worker){.job = SLEEP, .seconds = 10}); /* 5 */
    taal_task *g2 = make(f, (worker){.job = SLEEP, .seconds = 10}); /* 6 */
    if (g2 != NULL) {
        taal_future *both[2] = {taal_task_future(g1), taal_task_future(g2)};
        keep(f, taal_gather(loop, 2, both, &f->gathered));
    }
    if (f->gathered != NULL) /* 7: a gather */
        make(f, (worker){.job = AWAIT, .awaited = f->gathered});
    make(f, (worker){.job = ACQUIRE}); /* 8: in line */
    make(f, (worker){.job = ACQUIRE}); /* 9: handed a permit, then cancelled */
    make(f, (worker){.job = ACQUIRE}); /* 10: gets it from 9 */
    make(f, (worker){.job = LOCK});    /* 11 */
    make(f, (worker){.job = EVENT});   /* 12 */
    make(f, (worker){.job = GET});     /* 13 */
    make(f, (worker){.job = PUT});     /* 14 */
    taal_task *s = make(f, (worker){.job = SLEEP, .seconds = 10}); /* 15 */
    if (s != NULL)
        keep(f, taal_shield(loop, taal_task_future(s), &f->shielded));
    if (f->shielded != NULL) /* 16: a shield */
        make(f, (worker){.job = AWAIT, .awaited = f->shielded});
    make(f, (worker){.job = SLEEP, .seconds = 10}); /* 17: for wait_for */
}

static void make_group(boss *f)
{
    if (f->rc != TAAL_OK)
        return;
    keep(f, taal_taskgroup_init(&f->tg));
    f->tg_open = f->rc == TAAL_OK;
    for (int i = 0; i < MEMBERS && f->rc == TAAL_OK; i++) {
        worker w = {
            .job = i == 0 ? FAIL : SLEEP, .seconds = i == 0 ? 0.5 : 10, .p = &f->p};
        keep(f,
             taal_taskgroup_create_task(&f->tg, worker_body, &w, sizeof w, NULL, NULL));
    }
}

/* Cancels every task made, for the end (or an early way out). */
static void cancel_all(boss *f)
{
    for (int i = 0; i < f->n; i++)
        taal_task_cancel(f->tasks[i]);
}

static bool task_at(boss *f, int i)
{
    return i < f->n;
}

/* The cancellations, in every state; no allocation from here on. */
static void cancel_in_every_state(boss *f)
{
    for (int i = 1; i <= 16; i++) /* asleep, awaiting, in line */
        if (i != 3 && i != 5 && i != 6 && i != 9 && i != 10 && i != 15 && task_at(f, i))
            taal_task_cancel(f->tasks[i]);
    if (task_at(f, 10)) {
        taal_semaphore_release(&f->p.sem); /* handed to 9 (8 left the line) */
        handed_then_cancelled = f->tasks[9]->future.handed;
        taal_task_cancel(f->tasks[9]); /* which passes it to 10 */
    }
}

/* The way to the end, from any point: every task made is cancelled and
 * run to its end, and so is the group if it still has members. An
 * embedded coroutine of the boss's: `b` is the boss's frame. */
typedef struct ending ending;

static int ending_body(taal_coro *self)
{
    ending *f = (ending *)self;
    boss *b = f->b;
    TAAL_BEGIN(f);
    cancel_all(b);
    for (f->i = 0; f->i < b->n; f->i++) {
        TAAL_AWAIT_TASK_STATUS(f->st, b->tasks[f->i]);
        last_status[f->i] = f->st;
    }
    if (b->tg_open && b->tg.running > 0) { /* stop the members too */
        f->st = TAAL_ECANCELLED;
        TAAL_TASKGROUP_JOIN_STATUS(f->st, &b->tg);
    }
    TAAL_END();
}

/* Lets go of everything the boss made; no task is left running. */
static void release_all(boss *f)
{
    for (int i = 0; i < f->n; i++)
        taal_task_release(f->tasks[i]);
    taal_future_release(f->gathered);
    taal_future_release(f->shielded);
    if (f->tg_open)
        taal_taskgroup_destroy(&f->tg);
    taal_lock_release(&f->p.lock);
    taal_queue_destroy(&f->p.gets);
    taal_queue_destroy(&f->p.puts);
    if (taal_semaphore_destroy(&f->p.sem) != TAAL_OK ||
        taal_lock_destroy(&f->p.lock) != TAAL_OK ||
        taal_event_destroy(&f->p.event) != TAAL_OK)
        keep(f, TAAL_EUSER); /* a waiter left behind */
}

/* Times out a wait_for and a timeout scope, and joins the group, whose
 * first member fails at 0.5 s. */
static int timeouts_body(taal_coro *self)
{
    ending *f = (ending *)self;
    boss *b = f->b;
    TAAL_BEGIN(f);
    TAAL_WAIT_FOR_STATUS(f->st, &b->scope, taal_task_future(b->tasks[17]), 0.1);
    if (f->st != TAAL_ETIMEDOUT)
        keep(b, TAAL_EUSER);
    taal_timeout_open(&b->scope, 0.1);
    TAAL_SLEEP_STATUS(f->st, 10);
    if (taal_timeout_close(&b->scope, f->st) != TAAL_ETIMEDOUT)
        keep(b, TAAL_EUSER);
    f->st = TAAL_OK;
    TAAL_TASKGROUP_JOIN_STATUS(f->st, &b->tg);
    if (f->st != TAAL_EGROUP)
        keep(b, TAAL_EUSER);
    TAAL_END();
}

static int boss_body(taal_coro *self)
{
    boss *f = (boss *)self;
    TAAL_BEGIN(f);
    grow_heap(f);
    init_primitives(f);
    if (f->rc == TAAL_OK)
        TAAL_LOCK_STATUS(f->rc, &f->p.lock); /* free: taken at once */
    make_everything(f);
    make_group(f);
    forbidden = true;
    if (task_at(f, 0))
        taal_task_cancel(f->tasks[0]); /* before its first step */
    if (f->rc == TAAL_OK) {
        TAAL_SLEEP(0.01); /* every task waits where it waits */
        cancel_in_every_state(f);
        f->child = (ending){.b = f};
        taal_coro_init(&f->child.co, timeouts_body);
        TAAL_AWAIT(&f->child);
    }
    f->child = (ending){.b = f};
    taal_coro_init(&f->child.co, ending_body);
    TAAL_AWAIT(&f->child);
    forbidden = false;
    release_all(f);
    TAAL_FAIL(f->rc);
    TAAL_END();
}

static void ignore_report(void *ctx, const taal_report *report)
{
    (void)ctx;
    (void)report;
}

static int run_scenario(void)
{
    taal_loop loop;
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = ignore_report};
    taal_task *main_task = NULL;
    int rc = taal_loop_init(&loop, &options);
    if (rc == TAAL_OK)
        rc = taal_task_create(&loop, boss_body, NULL, sizeof(boss), NULL, &main_task);
    if (rc == TAAL_OK)
        rc = taal_run_until_complete(&loop, taal_task_future(main_task));
    taal_task_release(main_task); /* done: this frees it */
    if (rc == TAAL_OK && !loop_is_empty(&loop))
        rc = TAAL_EBUSY; /* something was left alive */
    taal_loop_close(&loop);
    forbidden = false;
    return rc;
}

TEST(every_allocation_failure_ends_in_a_clean_error_and_no_leak)
{
    CHECK_EQ(taal_set_allocator(&failing), TAAL_OK);
    long n;
    int failures = 0;
    for (n = 1; n < 1000; n++) {
        taal_check_alloc_reset(n);
        int rc = run_scenario();
        if (rc != TAAL_OK && rc != TAAL_ENOMEM)
            fprintf(stderr, "allocation %ld failed: the run ended with %s\n", n,
                    taal_strerror(rc));
        CHECK(rc == TAAL_OK || rc == TAAL_ENOMEM);
        if (taal_check_alloc_live() != 0)
            fprintf(stderr, "allocation %ld failed: %ld blocks left\n", n,
                    taal_check_alloc_live());
        CHECK_EQ(taal_check_alloc_live(), 0);
        if (taal_check_alloc.attempts < n) { /* the failure was never reached */
            CHECK_EQ(rc, TAAL_OK);
            break;
        }
        CHECK_EQ(rc, TAAL_ENOMEM);
        failures++;
    }
    taal_set_allocator(NULL);
    /* the boss; the heap at 16 and at 32 entries; the two queues' rings;
     * 18 workers, the gather and the shield; the group's first two blocks
     * of slots (4, then 8) and its 6 members. From chapter 08 on, tasks
     * are cut from a slab: one allocation per chunk, here two (the boss,
     * the workers and the members have frames of two size classes). */
#if TAAL_CHAPTER >= 8
    CHECK_EQ(failures, 2 + 2 + 2 + 2 + 2);
#else
    CHECK_EQ(failures, 1 + 2 + 2 + 18 + 2 + 2 + MEMBERS);
#endif
}

TEST(no_cancellation_path_allocates)
{
    CHECK_EQ(taal_set_allocator(&guarded), TAAL_OK);
    taal_check_alloc_reset(0);
    forbidden_allocs = 0;
    CHECK_EQ(run_scenario(), TAAL_OK); /* a cold run: fresh blocks */
    CHECK_EQ(forbidden_allocs, 0);
    /* Every task was reached where it waited and ended cancelled, but 10,
     * which got the permit that 9 was handed and passed on. */
    CHECK(handed_then_cancelled);
    for (int i = 0; i < 18; i++)
        CHECK_EQ(last_status[i], i == 10 ? TAAL_OK : TAAL_ECANCELLED);
    CHECK_EQ(run_scenario(), TAAL_OK);
    CHECK_EQ(forbidden_allocs, 0);
    CHECK_EQ(taal_check_alloc_live(), 0);
    taal_set_allocator(NULL);
}

static const taal_test tests[] = {
    TEST_ENTRY(every_allocation_failure_ends_in_a_clean_error_and_no_leak),
    TEST_ENTRY(no_cancellation_path_allocates),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
