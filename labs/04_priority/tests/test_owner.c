/*
** test_owner.c -- lab 04, exercise 7: cancelling every handle of one task.
**
**   int taal_task_cancel_handles(taal_task *task);
**
** cancels every callback and timer that `task` scheduled while it ran
** (call_soon, call_later, call_at, timer_start) and that has not run yet,
** wherever it is: armed in the heap, due in the ready queue, or in the
** batch the loop is running; returns how many. Nothing else is touched:
** not the task's own step or sleep, not what others scheduled, not a
** handle someone else has scheduled again since. The heap stays a heap.
**
** This file does not compile until the function exists: that fails this
** exercise only.
*/
#include "lab.h"

/* A task that schedules what its frame says, then sleeps `nap` seconds
 * (or yields, if 0) and notes its letter when it wakes. */
enum { MAX_SOON = 4, MAX_LATER = 400 };

typedef struct scheduler {
    taal_coro co;
    const char *letter;
    int soon, later; /* how many call_soon and call_later handles */
    double nap;
    taal_handle *soon_handles;
    taal_timer *timers;
} scheduler;

static int scheduler_body(taal_coro *self)
{
    scheduler *f = (scheduler *)self;
    taal_loop *loop = taal_running_loop();
    TAAL_BEGIN(f);
    for (int i = 0; i < f->soon; i++)
        taal_call_soon(loop, &f->soon_handles[i], note_callback, (void *)f->letter);
    for (int i = 0; i < f->later; i++)
        taal_call_later(loop, &f->timers[i], 1.0 + (double)((i * 37) % f->later) / 100.0,
                        note_callback, (void *)f->letter);
    TAAL_SLEEP(f->nap);
    note(f->letter);
    TAAL_END();
}

static taal_task *spawn_scheduler(taal_loop *loop, scheduler frame)
{
    taal_task *task = NULL;
    if (taal_task_create(loop, scheduler_body, &frame, sizeof frame, frame.letter,
                         &task) != TAAL_OK)
        return NULL;
    return task;
}

static taal_handle soon_a[MAX_SOON], soon_b[MAX_SOON];
static taal_timer timers_a[MAX_LATER], timers_b[MAX_LATER];

static void reset_storage(void)
{
    for (int i = 0; i < MAX_SOON; i++)
        soon_a[i] = soon_b[i] = (taal_handle){0};
    for (int i = 0; i < MAX_LATER; i++)
        timers_a[i] = timers_b[i] = (taal_timer){0};
}

/* Counts the letter `c` in the trace. */
static int count_of(char c)
{
    int n = 0;
    for (const char *s = trace; *s != '\0'; s++)
        n += *s == c;
    return n;
}

TEST(every_callback_and_timer_of_the_task_is_cancelled_and_nothing_else)
{
    taal_loop loop;
    open_loop(&loop);
    reset_storage();
    taal_task *t[2] = {
        spawn_scheduler(&loop, (scheduler){.letter = "a",
                                           .soon = 2,
                                           .later = 3,
                                           .nap = 5,
                                           .soon_handles = soon_a,
                                           .timers = timers_a}),
        spawn_scheduler(&loop, (scheduler){.letter = "b",
                                           .soon = 2,
                                           .later = 3,
                                           .nap = 5,
                                           .soon_handles = soon_b,
                                           .timers = timers_b}),
    };
    taal_handle mine = {0};
    taal_timer my_timer = {0};
    taal_call_soon(&loop, &mine, note_callback, "m"); /* outside any task */
    taal_call_later(&loop, &my_timer, 2.0, note_callback, "M");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* both schedule, then sleep */
    CHECK_STR(trace, "m");
    CHECK_EQ(taal_task_cancel_handles(t[0]), 5);
    for (int i = 0; i < 2; i++) {
        CHECK(taal_handle_cancelled(&soon_a[i]));
        CHECK(!taal_handle_pending(&soon_a[i]));
        CHECK(!taal_handle_cancelled(&soon_b[i]));
    }
    for (int i = 0; i < 3; i++) {
        CHECK(taal_handle_cancelled(&timers_a[i].handle));
        CHECK_EQ(timers_a[i].index, 0);
        CHECK(timers_b[i].index != 0);
    }
    CHECK_EQ(loop.heap_len, 3 + 1 + 2);          /* b's, mine, and the two naps */
    CHECK_EQ(taal_task_cancel_handles(t[0]), 0); /* nothing left */
    CHECK(finish(&loop, t, 2));
    CHECK_EQ(count_of('a'), 1); /* a itself woke from its nap */
    CHECK_EQ(count_of('b'), 2 + 3 + 1);
    CHECK_EQ(count_of('M'), 1);
    taal_loop_close(&loop);
}

/* The task's own sleep is not one of its handles, and nothing scheduled
 * outside a task belongs to a task. */
TEST(a_task_s_own_sleep_and_other_s_handles_are_left_alone)
{
    taal_loop loop;
    open_loop(&loop);
    reset_storage();
    taal_task *t = spawn_scheduler(&loop, (scheduler){.letter = "a", .nap = 1});
    taal_handle h = {0};
    taal_timer outside = {0};
    taal_call_soon(&loop, &h, note_callback, "h");
    taal_call_later(&loop, &outside, 0.5, note_callback, "o");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_EQ(taal_task_cancel_handles(t), 0);
    CHECK(finish(&loop, &t, 1));
    CHECK_STR(trace, "hoa");
    taal_loop_close(&loop);
}

/* A scheduled its callback in iteration 1; in iteration 2 the batch holds
 * it, after c's step, which cancels a's handles: the callback is in the
 * very batch that runs, and must not run. */
static taal_task *victim;
static int cancelled_in_batch;

typedef struct canceller {
    taal_coro co;
} canceller;

static int canceller_body(taal_coro *self)
{
    canceller *f = (canceller *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(0);
    note("c");
    cancelled_in_batch = taal_task_cancel_handles(victim);
    TAAL_END();
}

TEST(a_handle_in_the_batch_being_run_is_cancelled_too)
{
    taal_loop loop;
    open_loop(&loop);
    reset_storage();
    taal_task *t[2] = {NULL, NULL};
    taal_task_create(&loop, canceller_body, NULL, sizeof(canceller), "c", &t[0]);
    t[1] = spawn_scheduler(
        &loop, (scheduler){.letter = "a", .soon = 1, .nap = 0, .soon_handles = soon_a});
    victim = t[1];
    cancelled_in_batch = -1;
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* c yields; a schedules, yields */
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* batch: c, a's callback, a */
    CHECK_EQ(cancelled_in_batch, 1);
    CHECK_STR(trace, "ca");
    CHECK(taal_handle_cancelled(&soon_a[0]));
    CHECK(finish(&loop, t, 2));
    CHECK_STR(trace, "ca");
    taal_loop_close(&loop);
}

/* A timer due but not run yet waits in the ready queue: here one of
 * priority -1, due at 1 s with one of priority 0, which alone runs in the
 * iteration at 1 s. */
typedef struct arms_low {
    taal_coro co;
    taal_timer *low, *high;
} arms_low;

static int arms_low_body(taal_coro *self)
{
    arms_low *f = (arms_low *)self;
    TAAL_BEGIN(f);
    taal_handle_set_priority(&f->low->handle, -1);
    taal_call_later(taal_running_loop(), f->low, 1.0, note_callback, "l");
    taal_call_later(taal_running_loop(), f->high, 1.0, note_callback, "h");
    TAAL_END();
}

TEST(a_due_timer_waiting_in_the_ready_queue_is_cancelled)
{
    taal_loop loop;
    open_loop(&loop);
    taal_timer low = {0}, high = {0};
    taal_task *t = NULL;
    taal_task_create(&loop, arms_low_body, &(arms_low){.low = &low, .high = &high},
                     sizeof(arms_low), "arms", &t);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK); /* armed */
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* 1 s: both due, "h" runs */
    CHECK_STR(trace, "h");
    CHECK(taal_handle_pending(&low.handle)); /* due, in the ready queue */
    CHECK_EQ(taal_task_cancel_handles(t), 1);
    CHECK(!taal_handle_pending(&low.handle));
    CHECK(taal_handle_cancelled(&low.handle));
    taal_run_once(&loop);
    CHECK_STR(trace, "h");
    taal_task_release(t);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

/* Many timers of two tasks, interleaved in the heap; all of one task's are
 * cancelled. What is left is a heap (every entry no later than its
 * children, every timer's index its entry's), and fires in order. */
static bool heap_is_sound(const taal_loop *loop)
{
    for (uint32_t i = 0; i < loop->heap_len; i++) {
        const taal_heap_entry *e = &loop->heap[i];
        if (e->timer->index != i + 1)
            return false;
        if (i > 0) {
            const taal_heap_entry *p = &loop->heap[(i - 1) / 2];
            if (p->deadline > e->deadline ||
                (p->deadline == e->deadline && p->seq > e->seq))
                return false;
        }
    }
    return true;
}

TEST(the_heap_is_still_a_heap_after_many_are_cancelled)
{
    taal_loop loop;
    open_loop(&loop);
    reset_storage();
    taal_task *t[2] = {
        spawn_scheduler(&loop, (scheduler){.letter = "a",
                                           .later = MAX_LATER,
                                           .nap = 10,
                                           .timers = timers_a}),
        spawn_scheduler(&loop, (scheduler){.letter = "b",
                                           .later = MAX_LATER,
                                           .nap = 10,
                                           .timers = timers_b}),
    };
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_EQ(loop.heap_len, 2 * MAX_LATER + 2);
    CHECK_EQ(taal_task_cancel_handles(t[0]), MAX_LATER);
    CHECK_EQ(loop.heap_len, MAX_LATER + 2);
    CHECK(heap_is_sound(&loop));
    int64_t previous = INT64_MIN;
    for (int i = 0; i < 4 * MAX_LATER && loop.heap_len > 0; i++) {
        CHECK(loop.heap[0].deadline >= previous);
        previous = loop.heap[0].deadline;
        taal_run_once(&loop);
    }
    CHECK(finish(&loop, t, 2));
    CHECK_EQ(count_of('a'), 1);
    CHECK_EQ(count_of('b'), MAX_LATER + 1);
    taal_loop_close(&loop);
}

/* A handle a task scheduled, which ran and was scheduled again from
 * outside, is no longer the task's. */
TEST(a_handle_scheduled_again_by_someone_else_is_theirs)
{
    taal_loop loop;
    open_loop(&loop);
    reset_storage();
    taal_task *t = spawn_scheduler(
        &loop, (scheduler){.letter = "a", .soon = 1, .nap = 1, .soon_handles = soon_a});
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "a");
    CHECK_EQ(taal_call_soon(&loop, &soon_a[0], note_callback, "x"), TAAL_OK);
    CHECK_EQ(taal_task_cancel_handles(t), 0);
    CHECK(finish(&loop, &t, 1));
    CHECK_STR(trace, "axa");
    taal_loop_close(&loop);
}

TEST(bad_input_is_refused)
{
    CHECK_EQ(taal_task_cancel_handles(NULL), TAAL_EINVAL);
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn_scheduler(&loop, (scheduler){.letter = "a", .nap = 0});
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    taal_loop_close(&loop); /* t was made outside the loop: it survives, inert */
    CHECK_EQ(taal_task_cancel_handles(t), TAAL_ECLOSED);
    taal_task_release(t);
}

static const taal_test tests[] = {
    TEST_ENTRY(every_callback_and_timer_of_the_task_is_cancelled_and_nothing_else),
    TEST_ENTRY(a_task_s_own_sleep_and_other_s_handles_are_left_alone),
    TEST_ENTRY(a_handle_in_the_batch_being_run_is_cancelled_too),
    TEST_ENTRY(a_due_timer_waiting_in_the_ready_queue_is_cancelled),
    TEST_ENTRY(the_heap_is_still_a_heap_after_many_are_cancelled),
    TEST_ENTRY(a_handle_scheduled_again_by_someone_else_is_theirs),
    TEST_ENTRY(bad_input_is_refused),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
