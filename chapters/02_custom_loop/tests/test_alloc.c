/*
** test_alloc.c -- out of memory is an error like any other.
**
** A program of several tasks, a gather, a wait and enough timers to make
** the heap grow is run again and again, with the n-th allocation failing,
** for n = 1, 2, ... until a run needs no more than n - 1 allocations. Every
** run must end with TAAL_OK or TAAL_ENOMEM, never a crash, and with nothing
** left allocated once the loop is closed.
*/
#include "taal.h"
#include "taal_check.h"

enum { WORKERS = 20 }; /* more than the heap's first 16 entries */

static const taal_allocator failing = {taal_check_malloc, taal_check_realloc,
                                       taal_check_free};

static void ignore_report(void *ctx, const taal_report *report)
{
    (void)ctx;
    (void)report;
}

typedef struct worker {
    taal_coro co;
    double delay;
} worker;

static int worker_body(taal_coro *self)
{
    worker *f = (worker *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(f->delay);
    TAAL_RETURN_VALUE(f);
    TAAL_END();
}

typedef struct boss {
    taal_coro co;
    taal_future *workers[WORKERS];
    taal_future *all;
    taal_future *first;
} boss;

static int boss_body(taal_coro *self)
{
    boss *f = (boss *)self;
    taal_loop *loop = taal_running_loop();
    taal_task *task;
    int rc;
    TAAL_BEGIN(f);
    for (int i = 0; i < WORKERS; i++) {
        rc = taal_task_create(loop, worker_body, NULL, sizeof(worker), NULL, &task);
        if (rc != TAAL_OK)
            TAAL_FAIL(rc);
        ((worker *)taal_task_frame(task))->delay = 0.01 * (WORKERS - i);
        f->workers[i] = taal_task_future(task);
    }
    rc = taal_wait(loop, WORKERS, f->workers, TAAL_FIRST_COMPLETED, 1.0, &f->first);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_FUTURE(f->first);
    rc = taal_gather(loop, WORKERS, f->workers, &f->all);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_FUTURE(f->all);
    TAAL_END();
}

/* One run of the program; returns its status. */
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
    taal_task_release(main_task); /* held through the close: this frees it */
    return rc;
}

TEST(every_allocation_failure_ends_in_a_clean_error_and_no_leak)
{
    CHECK_EQ(taal_set_allocator(&failing), TAAL_OK);
    long n;
    int failures = 0;
    for (n = 1;; n++) {
        taal_check_alloc_reset(n);
        int rc = run_program();
        if (rc != TAAL_OK && rc != TAAL_ENOMEM) {
            fprintf(stderr, "allocation %ld failed: run ended with %s\n", n,
                    taal_strerror(rc));
            CHECK(false);
        }
        CHECK_EQ(taal_check_alloc_live(), 0);
        if (taal_check_alloc.attempts < n) { /* the failure was never reached */
            CHECK_EQ(rc, TAAL_OK);
            break;
        }
        CHECK_EQ(rc, TAAL_ENOMEM);
        failures++;
    }
    taal_set_allocator(NULL);
    /* 1 boss + 20 workers + a wait + a gather + the heap growing to 16, 32.
     * From chapter 08 on, tasks are cut from a slab: one allocation per
     * chunk, here two (the boss's size class and the workers'). */
#if TAAL_CHAPTER >= 8
    CHECK_EQ(failures, 2 + 2 + 2);
#else
    CHECK_EQ(failures, 1 + WORKERS + 2 + 2);
#endif
}

TEST(the_allocator_must_be_complete)
{
    taal_allocator partial = {taal_check_malloc, NULL, taal_check_free};
    CHECK_EQ(taal_set_allocator(&partial), TAAL_EINVAL);
    CHECK_EQ(taal_set_allocator(NULL), TAAL_OK);
}

static int counting_malloc_calls;
static void *counting_malloc(size_t size)
{
    counting_malloc_calls++;
    return taal_check_malloc(size);
}

TEST(a_task_is_one_allocation_and_a_wake_up_is_none)
{
    taal_allocator counting = {counting_malloc, taal_check_realloc, taal_check_free};
    taal_set_allocator(&counting);
    taal_check_alloc_reset(0);
    counting_malloc_calls = 0;
    taal_loop loop;
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = ignore_report};
    taal_loop_init(&loop, &options);
    CHECK_EQ(counting_malloc_calls, 0); /* the loop itself allocates nothing */
    taal_task *task;
    taal_task_create(&loop, worker_body, NULL, sizeof(worker), NULL, &task);
    CHECK_EQ(counting_malloc_calls, 1);
    ((worker *)taal_task_frame(task))->delay = 0; /* one bare yield */
    taal_run_until_complete(&loop, taal_task_future(task));
    CHECK_EQ(counting_malloc_calls, 1); /* stepping, yielding, waking: nothing */
    taal_task_release(task);
    CHECK_EQ(taal_check_alloc_live(), 1); /* done and released: on the free list */
    taal_task *again;
    taal_task_create(&loop, worker_body, NULL, sizeof(worker), NULL, &again);
    CHECK(again == task);               /* the same block, reused ... */
    CHECK_EQ(counting_malloc_calls, 1); /* ... without a malloc */
    taal_run_until_complete(&loop, taal_task_future(again));
    taal_task_release(again);
    taal_loop_close(&loop);
    CHECK_EQ(taal_check_alloc_live(), 0); /* the close gave the block back */
    taal_set_allocator(NULL);
}

static const taal_test tests[] = {
    TEST_ENTRY(every_allocation_failure_ends_in_a_clean_error_and_no_leak),
    TEST_ENTRY(the_allocator_must_be_complete),
    TEST_ENTRY(a_task_is_one_allocation_and_a_wake_up_is_none),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
