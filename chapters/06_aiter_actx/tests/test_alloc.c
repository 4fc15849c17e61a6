/*
** test_alloc.c -- chapter 06: out of memory is an error like any other,
** and nothing of async iteration or async with allocates.
**
** One scenario has tasks in every state this chapter adds: an `async for`
** whose generator awaits, or waits at a yield while the body awaits; an
** `async with` waiting for a semaphore or a lock, inside its body, or in
** its manager's enter or exit; a generator closing, in its cleanup; and a
** block nested in a block. Then it cancels them all, and runs a pipeline
** of generators and blocks to its end. It is run again and again with the
** n-th allocation failing, for n = 1, 2, ... until a run reaches none of
** its failures: every run must end with TAAL_OK or TAAL_ENOMEM and
** nothing allocated. Then it runs with an allocator that counts, and no
** allocation may happen from the first cancel to the end: generators,
** blocks and managers are caller storage, and every cleanup and exit
** they run on the way out allocates nothing.
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

/* What the last full run saw: every task's status, and what cleaned up. */
enum { WORKERS = 10 };
static int last_status[WORKERS];
static int cleanups, exits;

/* ---- a generator, a manager, and the shared primitives ---------------------------- */

typedef struct ticks {
    taal_aiter gen;
    double nap;         /* before each value */
    double cleanup_nap; /* its cleanup awaits this long (0: 0.001 s) */
    int i;
} ticks;

static int ticks_body(taal_coro *self)
{
    ticks *f = (ticks *)self;
    TAAL_AGEN_BEGIN(&f->gen);
    for (f->i = 0; f->i < 100; f->i++) {
        if (f->nap > 0)
            TAAL_SLEEP(f->nap);
        TAAL_AGEN_YIELD(&f->i);
    }
    TAAL_AGEN_FINALLY();
    cleanups++;
    TAAL_SLEEP(f->cleanup_nap > 0 ? f->cleanup_nap : 0.001); /* cleanup that awaits */
    TAAL_AGEN_END();
}

typedef struct slow {
    taal_actx cm;
    double enter_nap, exit_nap;
} slow;

static int slow_enter(taal_coro *self)
{
    slow *f = (slow *)self;
    TAAL_BEGIN(&f->cm);
    TAAL_SLEEP(f->enter_nap);
    TAAL_END();
}

static int slow_exit(taal_coro *self)
{
    slow *f = (slow *)self;
    TAAL_BEGIN(&f->cm);
    exits++;
    TAAL_SLEEP(f->exit_nap);
    TAAL_END();
}

typedef struct shared {
    taal_semaphore sem;
    taal_lock lock;
} shared;

/* ---- the workers --------------------------------------------------------------------
 */

typedef enum job {
    GEN_AWAITS,   /* async for; cancelled while the generator sleeps */
    BODY_AWAITS,  /* async for; cancelled while the body sleeps */
    SEM_HOLDS,    /* async with sem; cancelled in the body */
    SEM_WAITS,    /* async with sem; cancelled in line */
    ENTER_AWAITS, /* async with a manager; cancelled in its enter */
    BODY_IN_WITH, /* cancelled in the body; the exit awaits */
    EXIT_AWAITS,  /* cancelled in the exit */
    CLOSING,      /* cancelled in a generator's cleanup during aclose */
    NESTED,       /* async with lock { async for { sleep } }; cancelled inside */
    LOCK_WAITS    /* async with lock; cancelled in line */
} job;

typedef struct worker {
    taal_coro co;
    job job;
    shared *s;
    ticks t;
    slow m;
    taal_block outer, inner;
    int st;
} worker;

static int worker_body(taal_coro *self)
{
    worker *f = (worker *)self;
    TAAL_BEGIN(f);
    taal_agen_init(&f->t.gen, ticks_body);
    taal_actx_init(&f->m.cm, slow_enter, slow_exit);
    if (f->job == GEN_AWAITS || f->job == BODY_AWAITS) {
        f->t.nap = f->job == GEN_AWAITS ? 10 : 0;
        TAAL_ASYNC_FOR(&f->outer, &f->t.gen) {
            TAAL_SLEEP(f->job == BODY_AWAITS ? 10 : 0);
        }
        TAAL_ASYNC_FOR_END(&f->outer);
    } else if (f->job == SEM_HOLDS || f->job == SEM_WAITS) {
        TAAL_ASYNC_WITH(&f->outer, &f->s->sem) {
            TAAL_SLEEP(10);
        }
        TAAL_ASYNC_WITH_END(&f->outer);
    } else if (f->job == ENTER_AWAITS || f->job == BODY_IN_WITH ||
               f->job == EXIT_AWAITS) {
        f->m.enter_nap = f->job == ENTER_AWAITS ? 10 : 0;
        f->m.exit_nap = f->job == EXIT_AWAITS ? 10 : 0.001;
        TAAL_ASYNC_WITH(&f->outer, &f->m.cm) {
            TAAL_SLEEP(f->job == BODY_IN_WITH ? 10 : 0);
        }
        TAAL_ASYNC_WITH_END(&f->outer);
    } else if (f->job == CLOSING) {
        f->t.cleanup_nap = 10;
        TAAL_ANEXT_STATUS(f->st, &f->t.gen);
        TAAL_ACLOSE_STATUS(f->st, &f->t.gen); /* its cleanup sleeps: cancelled there */
        TAAL_FAIL(f->st);
    } else {
        TAAL_ASYNC_WITH(&f->outer, &f->s->lock) {
            TAAL_ASYNC_FOR(&f->inner, &f->t.gen) {
                TAAL_SLEEP(10);
            }
            TAAL_ASYNC_FOR_END(&f->inner);
        }
        TAAL_ASYNC_WITH_END(&f->outer);
    }
    TAAL_END();
}

/* ---- a pipeline run to its end ------------------------------------------------------
 */

typedef struct doubled {
    taal_aiter gen;
    ticks inner;
    taal_block loop;
    int value;
} doubled;

static int doubled_body(taal_coro *self)
{
    doubled *f = (doubled *)self;
    TAAL_AGEN_BEGIN(&f->gen);
    taal_agen_init(&f->inner.gen, ticks_body);
    TAAL_ASYNC_FOR(&f->loop, &f->inner.gen) {
        f->value = 2 * *(int *)f->loop.value;
        TAAL_AGEN_YIELD(&f->value);
    }
    TAAL_ASYNC_FOR_END(&f->loop);
    TAAL_AGEN_FINALLY();
    TAAL_AGEN_END();
}

/* ---- the scenario --------------------------------------------------------------------
 */

enum { PADDING = 20 };

typedef struct boss {
    taal_coro co;
    shared s;
    taal_timer padding[PADDING];
    taal_task *tasks[WORKERS];
    int n, i, st, rc, sum;
    doubled pipe;
    slow m;
    taal_block with, loop;
} boss;

static void never_called(void *data)
{
    (void)data;
}

static void keep(boss *f, int rc)
{
    if (f->rc == TAAL_OK)
        f->rc = rc;
}

/* The timer heap grows to hold every timer the run will arm at once, so
 * that arming never allocates later. */
static void grow_heap(boss *f)
{
    taal_loop *loop = taal_running_loop();
    for (int i = 0; i < PADDING && f->rc == TAAL_OK; i++)
        keep(f, taal_call_later(loop, &f->padding[i], 1000, never_called, NULL));
    for (int i = 0; i < PADDING; i++)
        taal_timer_cancel(loop, &f->padding[i]);
}

static void make(boss *f, job what)
{
    if (f->rc != TAAL_OK)
        return;
    worker w = {.job = what, .s = &f->s};
    keep(f, taal_task_create(taal_running_loop(), worker_body, &w, sizeof w, NULL,
                             &f->tasks[f->n]));
    if (f->rc == TAAL_OK)
        f->n++;
}

static int boss_body(taal_coro *self)
{
    boss *f = (boss *)self;
    TAAL_BEGIN(f);
    grow_heap(f);
    taal_semaphore_init(&f->s.sem, taal_running_loop(), 1, "sem");
    taal_lock_init(&f->s.lock, taal_running_loop(), "lock");
    for (int j = 0; j < WORKERS; j++)
        make(f, (job)j);
    /* Workers 2 and 3 share the one permit, in that order: 2 takes it and
     * sleeps in its body, 3 waits in line; 8 and 9 share the lock the same
     * way (8 sleeps in its loop's body). After 0.01 s, every worker is
     * where its job says. */
    if (f->rc == TAAL_OK)
        TAAL_SLEEP(0.01);
    forbidden = true;
    for (f->i = 0; f->i < f->n; f->i++)
        taal_task_cancel(f->tasks[f->i]);
    for (f->i = 0; f->i < f->n; f->i++) {
        TAAL_AWAIT_TASK_STATUS(f->st, f->tasks[f->i]);
        last_status[f->i] = f->st;
    }
    /* a pipeline and a block, to their ends */
    taal_agen_init(&f->pipe.gen, doubled_body);
    taal_actx_init(&f->m.cm, slow_enter, slow_exit);
    TAAL_ASYNC_WITH(&f->with, &f->m.cm) {
        TAAL_ASYNC_FOR(&f->loop, &f->pipe.gen) {
            f->sum += *(int *)f->loop.value;
        }
        TAAL_ASYNC_FOR_END(&f->loop);
    }
    TAAL_ASYNC_WITH_END(&f->with);
    forbidden = false;
    for (f->i = 0; f->i < f->n; f->i++)
        taal_task_release(f->tasks[f->i]);
    if (taal_semaphore_destroy(&f->s.sem) != TAAL_OK ||
        taal_lock_destroy(&f->s.lock) != TAAL_OK || f->sum != 2 * 4950)
        keep(f, TAAL_EUSER);
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
    cleanups = exits = 0;
    int rc = taal_loop_init(&loop, &options);
    if (rc == TAAL_OK)
        rc = taal_task_create(&loop, boss_body, NULL, sizeof(boss), NULL, &main_task);
    if (rc == TAAL_OK)
        rc = taal_run_until_complete(&loop, taal_task_future(main_task));
    taal_task_release(main_task);
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
    /* the boss; the heap at 16 and at 32 entries; the 10 workers: nothing
     * else. From chapter 08 on, tasks are cut from a slab: one allocation
     * per chunk, here two (the boss's size class and the workers'). */
#if TAAL_CHAPTER >= 8
    CHECK_EQ(failures, 2 + 2);
#else
    CHECK_EQ(failures, 1 + 2 + WORKERS);
#endif
}

TEST(no_cleanup_or_exit_on_a_cancellation_path_allocates)
{
    CHECK_EQ(taal_set_allocator(&guarded), TAAL_OK);
    taal_check_alloc_reset(0);
    forbidden_allocs = 0;
    CHECK_EQ(run_scenario(), TAAL_OK); /* a cold run: fresh blocks */
    CHECK_EQ(forbidden_allocs, 0);
    for (int i = 0; i < WORKERS; i++) {
        if (last_status[i] != TAAL_ECANCELLED)
            fprintf(stderr, "worker %d ended with %s\n", i,
                    taal_strerror(last_status[i]));
        CHECK_EQ(last_status[i], TAAL_ECANCELLED);
    }
    /* the cleanups: the workers' generators that started (0, 1, 7 and 8)
     * and the pipeline's inner one; the exits: workers 5 and 6, and the
     * boss's */
    CHECK_EQ(cleanups, 4 + 1);
    CHECK_EQ(exits, 2 + 1);
    CHECK_EQ(run_scenario(), TAAL_OK);
    CHECK_EQ(forbidden_allocs, 0);
    CHECK_EQ(taal_check_alloc_live(), 0);
    taal_set_allocator(NULL);
}

static const taal_test tests[] = {
    TEST_ENTRY(every_allocation_failure_ends_in_a_clean_error_and_no_leak),
    TEST_ENTRY(no_cleanup_or_exit_on_a_cancellation_path_allocates),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
