/*
** test_alloc.c -- chapter 03: out of memory is an error like any other,
** and waiting on a primitive allocates nothing.
**
** A program that uses all four primitives (workers sharing a semaphore and
** a lock, started by an event, feeding a bounded queue and an unbounded
** one that must grow) is run again and again with the n-th allocation
** failing, for n = 1, 2, ... until a run reaches none of its failures.
** Every run must end with TAAL_OK or TAAL_ENOMEM and nothing allocated.
*/
#include "support.h"

enum { WORKERS = 6, ITEMS = 40 };

static const taal_allocator failing = {taal_check_malloc, taal_check_realloc,
                                       taal_check_free};

typedef struct shared {
    taal_semaphore sem;
    taal_lock lock;
    taal_event start;
    taal_queue bounded, unbounded;
} shared;

typedef struct worker {
    taal_coro co;
    shared *s;
    int i;
    void *item;
} worker;

static int worker_body(taal_coro *self)
{
    worker *f = (worker *)self;
    static char token;
    TAAL_BEGIN(f);
    TAAL_EVENT_WAIT(&f->s->start);
    for (f->i = 0; f->i < ITEMS / WORKERS + 1; f->i++) {
        TAAL_ACQUIRE(&f->s->sem);
        TAAL_LOCK(&f->s->lock);
        TAAL_SLEEP(0.001);
        taal_lock_release(&f->s->lock);
        taal_semaphore_release(&f->s->sem);
        TAAL_QUEUE_PUT(&f->s->bounded, &token);
        TAAL_QUEUE_GET(&f->s->bounded, f->item);
        TAAL_QUEUE_PUT(&f->s->unbounded, f->item); /* grows: 16, 32, 64 */
    }
    TAAL_END();
}

typedef struct boss {
    taal_coro co;
    shared s;
    taal_future *workers[WORKERS];
    taal_future *all;
    int started;
} boss;

/* Every path out of the body destroys the queues: the bounded one owns
 * its ring, allocated by taal_queue_init(), and a frame that is freed
 * without destroying it would leak it. */
static int boss_body(taal_coro *self)
{
    boss *f = (boss *)self;
    taal_loop *loop = taal_running_loop();
    int rc = TAAL_OK;
    TAAL_BEGIN(f);
    taal_semaphore_init(&f->s.sem, loop, 2, "sem");
    taal_lock_init(&f->s.lock, loop, "lock");
    taal_event_init(&f->s.start, loop, "start");
    rc = taal_queue_init(&f->s.bounded, loop, 3, "bounded");
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    taal_queue_init(&f->s.unbounded, loop, 0, "unbounded");
    for (f->started = 0; f->started < WORKERS && rc == TAAL_OK; f->started++) {
        taal_task *task;
        rc = taal_task_create(loop, worker_body, &(worker){.s = &f->s}, sizeof(worker),
                              NULL, &task);
        f->workers[f->started] = rc == TAAL_OK ? taal_task_future(task) : NULL;
    }
    if (rc == TAAL_OK)
        rc = taal_gather(loop, WORKERS, f->workers, &f->all);
    for (int i = 0; i < WORKERS; i++)
        taal_future_release(f->workers[i]);
    taal_event_set(&f->s.start);
    if (rc == TAAL_OK) {
        TAAL_AWAIT_FUTURE_STATUS(rc, f->all);
        taal_future_release(f->all);
    }
    if (rc == TAAL_OK &&
        taal_queue_qsize(&f->s.unbounded) != WORKERS * (ITEMS / WORKERS + 1))
        rc = TAAL_EUSER;
    taal_queue_destroy(&f->s.bounded);
    taal_queue_destroy(&f->s.unbounded);
    TAAL_FAIL(rc);
    TAAL_END();
}

static void ignore_report(void *ctx, const taal_report *report)
{
    (void)ctx;
    (void)report;
}

static int run_program(void)
{
    taal_loop loop;
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = ignore_report};
    taal_task *main_task = NULL;
    int rc = taal_loop_init(&loop, &options);
    if (rc == TAAL_OK)
        rc = taal_task_create(&loop, boss_body, NULL, sizeof(boss), NULL, &main_task);
    if (rc == TAAL_OK)
        rc = taal_run_until_complete(&loop, taal_task_future(main_task));
    taal_loop_close(&loop);
    taal_task_release(main_task);
    return rc;
}

TEST(every_allocation_failure_ends_in_a_clean_error_and_no_leak)
{
    CHECK_EQ(taal_set_allocator(&failing), TAAL_OK);
    long n;
    int failures = 0;
    for (n = 1; n < 1000; n++) {
        taal_check_alloc_reset(n);
        int rc = run_program();
        if (rc != TAAL_OK && rc != TAAL_ENOMEM) {
            fprintf(stderr, "allocation %ld failed: run ended with %s\n", n,
                    taal_strerror(rc));
            CHECK(false);
        }
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
    /* the boss, the bounded queue's ring, 6 workers, the gather, the heap
     * of timers, the unbounded queue growing to 16, 32 and 64. From
     * chapter 08 on, tasks are cut from a slab: one allocation per chunk,
     * here two (the boss's size class and the workers'). */
#if TAAL_CHAPTER >= 8
    CHECK_EQ(failures, 2 + 1 + 1 + 1 + 3);
#else
    CHECK_EQ(failures, 1 + 1 + WORKERS + 1 + 1 + 3);
#endif
}

static int counting_malloc_calls;
static void *counting_malloc(size_t size)
{
    counting_malloc_calls++;
    return taal_check_malloc(size);
}

TEST(waiting_on_a_primitive_allocates_nothing)
{
    taal_allocator counting = {counting_malloc, taal_check_realloc, taal_check_free};
    taal_set_allocator(&counting);
    taal_check_alloc_reset(0);
    counting_malloc_calls = 0;
    int rc = run_program(); /* warm up: every block the program will need */
    CHECK_EQ(rc, TAAL_OK);
    int one_run = counting_malloc_calls;
    counting_malloc_calls = 0;
    run_program();
    /* The same allocations again, and no more: none per acquire, lock,
     * event wait, put or get, of which there are hundreds. */
    CHECK_EQ(counting_malloc_calls, one_run);
    CHECK(one_run <= 1 + 1 + WORKERS + 1 + 3);
    CHECK_EQ(taal_check_alloc_live(), 0);
    taal_set_allocator(NULL);
}

static const taal_test tests[] = {
    TEST_ENTRY(every_allocation_failure_ends_in_a_clean_error_and_no_leak),
    TEST_ENTRY(waiting_on_a_primitive_allocates_nothing),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
