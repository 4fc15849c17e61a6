/*
** test_fast_step.c -- chapter 08: the step's fast path. A task that yields
** (sleep(0)) while nothing else could run before it is resumed at once,
** in the same step, without going round the loop. These tests check every
** case where it must NOT be: another handle in the batch or in the ready
** queue, a callback or a timer the step scheduled, a timer that came due
** on the real clock, a watcher whose socket became readable, a stop asked
** for (during the run or before it), taal_run_once(), the future a
** taal_run_until_complete() waits for completed by the step, a
** cancellation arriving from a callback, and debug mode, which times each
** step. Each log is what CPython 3.12 prints for the same program
** (asyncio.sleep(0) for the yield, call_soon and call_later for the
** callbacks); with the fast path firing where it must not, each differs.
*/
#include "io_support.h"
#include "taal.h"
#include "taal_check.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

/* The wall clock, to keep the loop busy for a while: C11's timespec_get. */
static int64_t wall_ns(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void busy_for_ms(int ms)
{
    int64_t until = wall_ns() + (int64_t)ms * 1000000;
    while (wall_ns() < until) {
    }
}

/* ---- a log of what ran, in order ------------------------------------------ */

static char ran[256];
static size_t ran_len;

static void log_char(char c)
{
    if (ran_len + 1 < sizeof ran) {
        ran[ran_len++] = c;
        ran[ran_len] = '\0';
    }
}

static void log_data(void *data)
{
    log_char(*(const char *)data);
}

static void reset_log(void)
{
    ran_len = 0;
    ran[0] = '\0';
}

/* ---- a task that yields `steps` times ---------------------------------------- */

typedef struct yielder yielder;
struct yielder {
    taal_coro co;
    char label;               /* logged at each step; upper case at its end */
    int steps;                /* yields to make */
    int i;                    /* yields made */
    void (*each)(yielder *f); /* called at each step before the yield, or NULL */
    int status;               /* how the last sleep ended */
    taal_handle handles[8];   /* for callbacks the step schedules */
    taal_timer timers[8];     /* for timers the step arms */
};

static int yielder_body(taal_coro *self)
{
    yielder *f = (yielder *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->steps; f->i++) {
        log_char(f->label);
        if (f->each != NULL)
            f->each(f);
        TAAL_SLEEP_STATUS(f->status, 0);
        if (f->status != TAAL_OK)
            TAAL_FAIL(f->status);
    }
    log_char((char)(f->label - 'a' + 'A'));
    TAAL_END();
}

/* A task running yielder_body, or NULL (the test then fails). */
static taal_task *spawn(taal_loop *loop, char label, int steps, void (*each)(yielder *))
{
    yielder frame = {.label = label, .steps = steps, .each = each};
    taal_task *task = NULL;
    int rc = taal_task_create(loop, yielder_body, &frame, sizeof frame, NULL, &task);
    if (rc != TAAL_OK)
        taal_check_report(__FILE__, __LINE__, "taal_task_create() failed");
    return task;
}

static void open_clock(taal_loop *loop, taal_clock clock)
{
    taal_loop_options options = {.clock = clock};
    CHECK_EQ(taal_loop_init(loop, &options), TAAL_OK);
    reset_log();
}

/* Runs until `task` is done; its status. */
static int finish(taal_loop *loop, taal_task *task)
{
    return taal_run_until_complete(loop, taal_task_future(task));
}

static void close_loop(taal_loop *loop, taal_task *a, taal_task *b)
{
    taal_task_release(a);
    taal_task_release(b);
    CHECK_EQ(taal_loop_close(loop), TAAL_OK);
}

/* ---- the fast path when it may fire --------------------------------------- */

/* Alone, the task makes all its yields and ends, in one run. */
TEST(a_lone_yielder_runs_to_its_end)
{
    taal_loop loop;
    open_clock(&loop, TAAL_CLOCK_VIRTUAL);
    taal_task *t = spawn(&loop, 'a', 5, NULL);
    CHECK_EQ(finish(&loop, t), TAAL_OK);
    CHECK_STR(ran, "aaaaaA");
    close_loop(&loop, t, NULL);
}

/* ---- ... and where it must not ------------------------------------------------ */

/* Two tasks: each step of one is followed by a step of the other. A's
 * yield comes while B is still in the batch; B's while A is in the ready
 * queue again. */
TEST(two_yielders_take_turns)
{
    taal_loop loop;
    open_clock(&loop, TAAL_CLOCK_VIRTUAL);
    taal_task *a = spawn(&loop, 'a', 3, NULL), *b = spawn(&loop, 'b', 3, NULL);
    CHECK_EQ(finish(&loop, b), TAAL_OK);
    CHECK_STR(ran, "abababAB");
    close_loop(&loop, a, b);
}

static void schedule_x(yielder *f)
{
    static const char x = 'x';
    CHECK_EQ(taal_call_soon(taal_running_loop(), &f->handles[f->i], log_data, (void *)&x),
             TAAL_OK);
}

/* A callback the step scheduled runs before the task's next step. */
TEST(a_callback_the_step_scheduled_runs_first)
{
    taal_loop loop;
    open_clock(&loop, TAAL_CLOCK_VIRTUAL);
    taal_task *t = spawn(&loop, 'a', 3, schedule_x);
    CHECK_EQ(finish(&loop, t), TAAL_OK);
    CHECK_STR(ran, "axaxaxA");
    close_loop(&loop, t, NULL);
}

static void arm_t_now(yielder *f)
{
    static const char t = 't';
    CHECK_EQ(
        taal_call_later(taal_running_loop(), &f->timers[f->i], 0, log_data, (void *)&t),
        TAAL_OK);
}

/* A timer the step armed with a delay of 0 is due when the task yields:
 * the next iteration moves it to the ready queue behind the task's step,
 * so it runs after the task's next step, not after its end. */
TEST(a_timer_due_runs_before_the_next_step)
{
    taal_loop loop;
    open_clock(&loop, TAAL_CLOCK_VIRTUAL);
    taal_task *t = spawn(&loop, 'a', 3, arm_t_now);
    CHECK_EQ(finish(&loop, t), TAAL_OK);
    CHECK_STR(ran, "aatatAt");
    close_loop(&loop, t, NULL);
}

static void arm_t_later(yielder *f)
{
    static const char t = 't';
    if (f->i == 0)
        CHECK_EQ(taal_call_later(taal_running_loop(), &f->timers[0], 10.0, log_data,
                                 (void *)&t),
                 TAAL_OK);
}

/* A timer that is not due does not stop the task: it ends first. */
TEST(a_timer_not_due_lets_the_task_run_on)
{
    taal_loop loop;
    open_clock(&loop, TAAL_CLOCK_VIRTUAL);
    taal_task *t = spawn(&loop, 'a', 3, arm_t_later);
    CHECK_EQ(finish(&loop, t), TAAL_OK);
    CHECK_STR(ran, "aaaA");
    CHECK_EQ(loop.heap_len, 1);
    yielder *f = taal_task_frame(t);
    CHECK_EQ(taal_timer_stop(&loop, &f->timers[0]), TAAL_OK);
    close_loop(&loop, t, NULL);
}

/* On the real clock: the step arms a timer 2 ms ahead, then keeps the
 * loop for 5 ms. When it yields, the timer is due, and fires before the
 * task's step after next (the next one was queued before the timer came
 * out of the heap, in the same iteration). */
static void arm_then_wait(yielder *f)
{
    static const char t = 't';
    if (f->i != 1)
        return;
    taal_loop *loop = taal_running_loop();
    CHECK_EQ(taal_call_later(loop, &f->timers[0], 0.002, log_data, (void *)&t), TAAL_OK);
    busy_for_ms(5);
}

TEST(a_timer_that_came_due_on_the_real_clock_runs_first)
{
    taal_loop loop;
    open_clock(&loop, TAAL_CLOCK_MONOTONIC);
    taal_task *t = spawn(&loop, 'a', 4, arm_then_wait);
    CHECK_EQ(finish(&loop, t), TAAL_OK);
    CHECK_STR(ran, "aaataA");
    close_loop(&loop, t, NULL);
}

static void stop_at_1(yielder *f)
{
    if (f->i == 1)
        CHECK_EQ(taal_stop(taal_running_loop()), TAAL_OK);
}

/* taal_stop() from the step: the run ends after this iteration, with the
 * task still pending; the next run goes on from there. */
TEST(a_stop_from_the_step_ends_the_run)
{
    taal_loop loop;
    open_clock(&loop, TAAL_CLOCK_VIRTUAL);
    taal_task *t = spawn(&loop, 'a', 5, stop_at_1);
    CHECK_EQ(taal_run_forever(&loop), TAAL_OK);
    CHECK_STR(ran, "aa");
    CHECK(!taal_future_done(taal_task_future(t)));
    CHECK_EQ(finish(&loop, t), TAAL_OK);
    CHECK_STR(ran, "aaaaaA");
    close_loop(&loop, t, NULL);
}

/* taal_stop() before taal_run_forever(): one iteration, as in asyncio. */
TEST(a_stop_before_the_run_allows_one_iteration)
{
    taal_loop loop;
    open_clock(&loop, TAAL_CLOCK_VIRTUAL);
    taal_task *t = spawn(&loop, 'a', 5, NULL);
    CHECK_EQ(taal_stop(&loop), TAAL_OK);
    CHECK_EQ(taal_run_forever(&loop), TAAL_OK);
    CHECK_STR(ran, "a");
    CHECK_EQ(finish(&loop, t), TAAL_OK);
    CHECK_STR(ran, "aaaaaA");
    close_loop(&loop, t, NULL);
}

/* taal_run_once() runs one iteration: one step. */
TEST(run_once_runs_one_step)
{
    taal_loop loop;
    open_clock(&loop, TAAL_CLOCK_VIRTUAL);
    taal_task *t = spawn(&loop, 'a', 5, NULL);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(ran, "a");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(ran, "aa");
    CHECK_EQ(finish(&loop, t), TAAL_OK);
    close_loop(&loop, t, NULL);
}

static taal_future awaited;

static void complete_at_1(yielder *f)
{
    if (f->i == 1)
        CHECK_EQ(taal_future_set_result(&awaited, NULL), TAAL_OK);
}

/* The step completes the future taal_run_until_complete() waits for: its
 * stopper is scheduled, runs in the next iteration, before the task's
 * next step, which runs in that iteration too; then the run ends. */
TEST(completing_the_awaited_future_ends_the_run)
{
    taal_loop loop;
    open_clock(&loop, TAAL_CLOCK_VIRTUAL);
    CHECK_EQ(taal_future_init(&awaited, &loop), TAAL_OK);
    taal_task *t = spawn(&loop, 'a', 5, complete_at_1);
    CHECK_EQ(taal_run_until_complete(&loop, &awaited), TAAL_OK);
    CHECK_STR(ran, "aaa");
    CHECK_EQ(finish(&loop, t), TAAL_OK);
    CHECK_STR(ran, "aaaaaA");
    close_loop(&loop, t, NULL);
}

static taal_task *victim;

static void cancel_victim(void *data)
{
    (void)data;
    log_char('c');
    CHECK(taal_task_cancel(victim));
}

static void arm_cancel_at_1(yielder *f)
{
    if (f->i == 1)
        CHECK_EQ(
            taal_call_later(taal_running_loop(), &f->timers[0], 0, cancel_victim, NULL),
            TAAL_OK);
}

/* A timer's callback cancels the task: the cancellation arrives at the
 * step after the callback, which fails the yield it resumes. */
TEST(a_cancellation_from_a_callback_arrives_at_the_next_step)
{
    taal_loop loop;
    open_clock(&loop, TAAL_CLOCK_VIRTUAL);
    taal_task *t = victim = spawn(&loop, 'a', 5, arm_cancel_at_1);
    CHECK_EQ(finish(&loop, t), TAAL_ECANCELLED);
    CHECK_STR(ran, "aaac");
    close_loop(&loop, t, NULL);
}

static void cancel_self_at_1(yielder *f)
{
    if (f->i == 1)
        CHECK(taal_task_cancel(taal_current_task()));
}

/* The task cancels itself: the yield it makes then fails on resume. */
TEST(a_cancellation_asked_by_the_step_fails_its_yield)
{
    taal_loop loop;
    open_clock(&loop, TAAL_CLOCK_VIRTUAL);
    taal_task *t = spawn(&loop, 'a', 5, cancel_self_at_1);
    CHECK_EQ(finish(&loop, t), TAAL_ECANCELLED);
    CHECK_STR(ran, "aa");
    close_loop(&loop, t, NULL);
}

static taal_io watcher;
static taal_socket pair[2];

static void on_readable(void *data)
{
    (void)data;
    log_char('r');
    CHECK_EQ(taal_remove_reader(&watcher), TAAL_OK);
}

static void watch_at_1(yielder *f)
{
    if (f->i == 1)
        CHECK_EQ(taal_add_reader(&watcher, on_readable, NULL), TAAL_OK);
}

/* A watcher whose socket is readable: with io_interval 1, the loop polls
 * in every iteration, as asyncio does, and the reader runs before the
 * task's step after next. */
TEST(a_readable_socket_is_polled_between_steps)
{
    taal_loop loop;
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .io_interval = 1};
    CHECK_EQ(taal_loop_init(&loop, &options), TAAL_OK);
    reset_log();
    CHECK(socket_pair(pair));
    sock_startup();
    CHECK_EQ(sock_write(pair[1], "!", 1), 1);
    CHECK_EQ(taal_io_open(&watcher, &loop, pair[0]), TAAL_OK);
    taal_task *t = spawn(&loop, 'a', 5, watch_at_1);
    CHECK_EQ(finish(&loop, t), TAAL_OK);
    CHECK_STR(ran, "aaaraaA");
    CHECK_EQ(taal_io_close(&watcher), TAAL_OK);
    sock_close(pair[0]);
    sock_close(pair[1]);
    close_loop(&loop, t, NULL);
}

static int slow_steps;

static void count_slow(void *ctx, const taal_report *report)
{
    (void)ctx;
    if (report->kind == TAAL_REPORT_SLOW_STEP)
        slow_steps++;
}

static void keep_30ms(yielder *f)
{
    (void)f;
    busy_for_ms(30);
}

/* Debug mode times each step: ten steps of 30 ms are not one slow step of
 * 300 ms, so no step is reported (the threshold is 200 ms). */
TEST(debug_mode_times_every_step_alone)
{
    taal_loop loop;
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL,
                                 .debug = TAAL_ON,
                                 .slow_step = 0.2,
                                 .report = count_slow};
    CHECK_EQ(taal_loop_init(&loop, &options), TAAL_OK);
    reset_log();
    slow_steps = 0;
    taal_task *t = spawn(&loop, 'a', 10, keep_30ms);
    CHECK_EQ(finish(&loop, t), TAAL_OK);
    CHECK_STR(ran, "aaaaaaaaaaA");
    CHECK_EQ(slow_steps, 0);
    close_loop(&loop, t, NULL);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_lone_yielder_runs_to_its_end),
    TEST_ENTRY(two_yielders_take_turns),
    TEST_ENTRY(a_callback_the_step_scheduled_runs_first),
    TEST_ENTRY(a_timer_due_runs_before_the_next_step),
    TEST_ENTRY(a_timer_not_due_lets_the_task_run_on),
    TEST_ENTRY(a_timer_that_came_due_on_the_real_clock_runs_first),
    TEST_ENTRY(a_stop_from_the_step_ends_the_run),
    TEST_ENTRY(a_stop_before_the_run_allows_one_iteration),
    TEST_ENTRY(run_once_runs_one_step),
    TEST_ENTRY(completing_the_awaited_future_ends_the_run),
    TEST_ENTRY(a_cancellation_from_a_callback_arrives_at_the_next_step),
    TEST_ENTRY(a_cancellation_asked_by_the_step_fails_its_yield),
    TEST_ENTRY(a_readable_socket_is_polled_between_steps),
    TEST_ENTRY(debug_mode_times_every_step_alone),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
