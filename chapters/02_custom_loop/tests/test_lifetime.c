/*
** test_lifetime.c -- chapter 02's unit tests of who frees what, and of the
** API's sharp edges: every rule of "Who frees what" in the tutorial, each
** the way a learner porting an asyncio program would trip over it.
**
** Most of these were crashes or silently lost callbacks once; run them
** under the sanitize and valgrind presets, where a use after free fails.
*/
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include "support.h"

#include <math.h> /* NAN */
#include <time.h>
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h> /* Sleep: Windows has no nanosleep */
#endif

/* ---- helpers ----------------------------------------------------------------- */

/* Sleeps `delay`, then returns `value` or fails with `error`. */
typedef struct valued {
    taal_coro co;
    double delay;
    void *value;
    int error;
    char own[8]; /* returned when value is NULL: a result inside the frame */
} valued;

static int valued_body(taal_coro *self)
{
    valued *f = (valued *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(f->delay);
    if (f->error != 0)
        TAAL_FAIL(f->error);
    if (f->value == NULL) {
        snprintf(f->own, sizeof f->own, "own");
        TAAL_RETURN_VALUE(f->own);
    }
    TAAL_RETURN_VALUE(f->value);
    TAAL_END();
}

static taal_task *spawn(taal_loop *loop, double delay, void *value, int error)
{
    valued frame = {.delay = delay, .value = value, .error = error};
    taal_task *task = NULL;
    taal_task_create(loop, valued_body, &frame, sizeof frame, NULL, &task);
    return task;
}

/* Nothing the loop allocated is left: every reference was dropped. */
static bool nothing_left(const taal_loop *loop)
{
    return loop->objects.next == &loop->objects;
}

static const taal_allocator counting = {taal_check_malloc, taal_check_realloc,
                                        taal_check_free};

/* Counts live blocks, including those a loop keeps on its free lists. */
static void count_allocations(void)
{
    taal_set_allocator(&counting);
    taal_check_alloc_reset(0);
}

/* ---- 1. a pending gather or wait keeps itself alive ------------------------- */

TEST(a_released_pending_gather_still_runs_its_callbacks)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *child = spawn(&loop, 1.0, "x", 0);
    taal_task *clock = spawn(&loop, 2.0, "x", 0);
    taal_future *children[] = {taal_task_future(child)}, *g;
    CHECK_EQ(taal_gather(&loop, 1, children, &g), TAAL_OK);
    taal_handle h = {0};
    CHECK_EQ(taal_future_add_done_callback(g, &h, note_done, "g"), TAAL_OK);
    taal_task_release(child);
    taal_future_release(g); /* pending: it must live on until it is done */
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(clock)), TAAL_OK);
    CHECK_STR(trace, "g");
    taal_task_release(clock);
    CHECK(nothing_left(&loop)); /* and once done, everything went */
    taal_loop_close(&loop);
}

TEST(a_released_pending_wait_still_runs_its_callbacks)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *child = spawn(&loop, 1.0, "x", 0);
    taal_task *clock = spawn(&loop, 2.0, "x", 0);
    taal_future *children[] = {taal_task_future(child)}, *w;
    CHECK_EQ(taal_wait(&loop, 1, children, TAAL_ALL_COMPLETED, TAAL_NO_TIMEOUT, &w),
             TAAL_OK);
    taal_handle h = {0};
    taal_future_add_done_callback(w, &h, note_done, "w");
    taal_task_release(child);
    taal_future_release(w);
    taal_run_until_complete(&loop, taal_task_future(clock));
    CHECK_STR(trace, "w");
    taal_task_release(clock);
    CHECK(nothing_left(&loop));
    taal_loop_close(&loop);
}

/* ---- 2. a scheduled done-callback keeps its future alive --------------------- */

typedef struct seen {
    taal_future *future; /* what the callback was given */
    void *result;
    int status;
} seen;

static void read_result(taal_future *future, void *data)
{
    seen *s = data;
    s->future = future;
    s->status = taal_future_result(future, &s->result);
}

TEST(a_done_callback_on_a_released_task_can_still_read_it)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *task = spawn(&loop, 0.5, "v", 0);
    taal_task *clock = spawn(&loop, 1.0, "x", 0);
    taal_handle h = {0};
    seen s = {0};
    taal_future_add_done_callback(taal_task_future(task), &h, read_result, &s);
    taal_future *expected = taal_task_future(task);
    taal_task_release(task); /* it finishes before its callback runs */
    taal_run_until_complete(&loop, taal_task_future(clock));
    CHECK(s.future == expected); /* the callback gets its future, as in asyncio */
    CHECK_EQ(s.status, TAAL_OK);
    CHECK_STR(s.result, "v");
    taal_task_release(clock);
    CHECK(nothing_left(&loop));
    taal_loop_close(&loop);
}

/* ---- 3. gather and wait hold their children until they are freed -------------- */

TEST(a_wait_keeps_its_released_children_and_gives_done_and_pending)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *fast = spawn(&loop, 0.1, "fast", 0), *slow = spawn(&loop, 0.2, "slow", 0);
    taal_future *children[] = {taal_task_future(slow), taal_task_future(fast)}, *w;
    taal_wait(&loop, 2, children, TAAL_FIRST_COMPLETED, TAAL_NO_TIMEOUT, &w);
    taal_task_release(fast); /* the right pattern for gather: is it safe here too? */
    taal_task_release(slow);
    CHECK_EQ(taal_run_until_complete(&loop, w), TAAL_OK);
    void *result = NULL;
    CHECK_EQ(taal_future_result(w, &result), TAAL_OK);
    const taal_wait_sets *sets = result;
    CHECK_EQ(sets->done_count, 1);
    CHECK_EQ(sets->pending_count, 1);
    CHECK(sets->done[0] == children[1]);
    CHECK(sets->pending[0] == children[0]);
    CHECK(taal_future_done(children[1])); /* alive: the wait holds it */
    taal_run_until_complete(&loop, children[0]);
    CHECK(taal_future_done(children[0]));
    CHECK_EQ(sets->pending_count, 1); /* the sets were taken when first read */
    taal_future_release(w);           /* now all three go */
    CHECK(nothing_left(&loop));
    taal_loop_close(&loop);
}

TEST(gather_results_stay_valid_until_the_gather_is_released)
{
    count_allocations();
    taal_loop loop;
    open_loop(&loop);
    taal_task *a = spawn(&loop, 0.2, NULL, 0), *b = spawn(&loop, 0.1, NULL, 0);
    taal_future *children[] = {taal_task_future(a), taal_task_future(b)}, *g;
    taal_gather(&loop, 2, children, &g);
    taal_task_release(a);
    taal_task_release(b);
    CHECK_EQ(taal_gather_count(g), 2);
    CHECK_EQ(taal_gather_count(taal_task_future(a)), 0); /* not a gather */
    CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_OK);
    void *result;
    taal_future_result(g, &result);
    char **results = result;
    CHECK_STR(results[0], "own"); /* points into a's frame: still there */
    CHECK_STR(results[1], "own");
    taal_future_release(g);
    CHECK(nothing_left(&loop));
    taal_loop_close(&loop);
    CHECK_EQ(taal_check_alloc_live(), 0);
    taal_set_allocator(NULL);
}

/* ---- 4. a plain future in a task's frame ---------------------------------------- */

/* Awaits a future somewhere else, then reads its result. */
typedef struct reader {
    taal_coro co;
    taal_future *on;
    void *result;
    void **out;
} reader;

static int reader_body(taal_coro *self)
{
    reader *f = (reader *)self;
    TAAL_BEGIN(f);
    TAAL_AWAIT_FUTURE(f->on);
    taal_future_result(f->on, f->out);
    TAAL_END();
}

/* Owns a plain future in its frame: starts a reader on it, sets it, ends. */
typedef struct setter {
    taal_coro co;
    taal_future fut;
    void **out;
    taal_task **reader; /* the reader, for the test to wait for */
} setter;

static int setter_body(taal_coro *self)
{
    setter *f = (setter *)self;
    TAAL_BEGIN(f);
    taal_future_init(&f->fut, taal_running_loop());
    taal_task_create(taal_running_loop(), reader_body,
                     &(reader){.on = &f->fut, .out = f->out}, sizeof(reader), "reader",
                     f->reader);
    TAAL_SLEEP(0);                          /* the reader parks on our future */
    taal_future_set_result(&f->fut, "set"); /* "set it, then end" */
    TAAL_END();                             /* fire and forget: freed now? */
}

TEST(a_future_in_a_frame_outlives_the_task_while_someone_waits_on_it)
{
    taal_loop loop;
    open_loop(&loop);
    void *got = NULL;
    taal_task *r = NULL;
    setter frame = {.out = &got, .reader = &r};
    taal_task_create(&loop, setter_body, &frame, sizeof frame, "setter", NULL);
    taal_run_once(&loop); /* the setter starts the reader */
    taal_run_once(&loop); /* the reader parks on the setter's future */
    taal_run_once(&loop); /* the setter sets it and ends: its frame must stay */
    CHECK(!nothing_left(&loop));
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(r)), TAAL_OK);
    CHECK_STR(got, "set"); /* read from the setter's frame, after its end */
    taal_task_release(r);
    CHECK(nothing_left(&loop)); /* and then it went */
    taal_loop_close(&loop);
}

/* ---- 5. a report function that closes the loop -------------------------------- */

static taal_loop *closing_loop;
static int close_from_report_rc = 1;

static void close_again(void *ctx, const taal_report *report)
{
    (void)ctx;
    (void)report;
    close_from_report_rc = taal_loop_close(closing_loop);
}

TEST(a_report_function_that_closes_the_loop_is_refused_not_recursed)
{
    taal_loop loop;
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = close_again};
    taal_loop_init(&loop, &options);
    closing_loop = &loop;
    taal_task *t = spawn(&loop, 1.0, "x", 0); /* still pending at close: reported */
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
    CHECK_EQ(close_from_report_rc, TAAL_EBUSY);
    CHECK(loop.closed);
    taal_task_release(t);
}

/* ---- 6. what outlives the close ------------------------------------------------ */

/* Starts a child it holds in its frame, and never gets to release it. */
typedef struct parent {
    taal_coro co;
    taal_task *child;
} parent;

static int parent_body(taal_coro *self)
{
    parent *f = (parent *)self;
    TAAL_BEGIN(f);
    taal_task_create(taal_running_loop(), valued_body, &(valued){.delay = 5},
                     sizeof(valued), "child", &f->child);
    TAAL_SLEEP(10);
    TAAL_END();
}

TEST(what_main_holds_survives_the_close_and_what_tasks_made_does_not)
{
    count_allocations();
    taal_loop loop;
    open_loop(&loop);
    taal_task *done = spawn(&loop, 0.5, "v", 0);
    taal_task *pending = NULL;
    taal_task_create(&loop, parent_body, NULL, sizeof(parent), "parent", &pending);
    taal_future *both[] = {taal_task_future(done)}, *g;
    taal_gather(&loop, 1, both, &g);
    taal_task_release(done); /* held by the gather, which main holds */
    CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_OK);
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
    CHECK_STR(reports, "task parent was still pending when the loop closed\n"
                       "task child was still pending when the loop closed\n");
    /* Readable after the close, as in asyncio. */
    void *result = NULL;
    CHECK_EQ(taal_future_result(taal_task_future(done), &result), TAAL_OK);
    CHECK_STR(result, "v");
    CHECK(!taal_future_done(taal_task_future(pending)));
    char name[16];
    CHECK_STR(taal_task_name(pending, name, sizeof name), "parent");
    /* Inert. */
    taal_handle h = {0};
    CHECK_EQ(taal_future_add_done_callback(g, &h, note_done, "x"), TAAL_ECLOSED);
    taal_future *again;
    CHECK_EQ(taal_gather(&loop, 1, both, &again), TAAL_ECLOSED);
    /* The parent's child was freed with the loop; these two, and the task
     * the gather holds, go when released. */
    taal_task_release(pending);
    CHECK(taal_check_alloc_live() > 0);
    taal_future_release(g);
    CHECK_EQ(taal_check_alloc_live(), 0);
    taal_set_allocator(NULL);
}

/* A pending task whose frame holds an armed timer and a scheduled handle of
 * its own, when the loop closes: the close must let go of them before it
 * frees the frame, not write into it afterwards. */
typedef struct holder {
    taal_coro co;
    taal_timer timer;
    taal_handle soon;
} holder;

static void never(void *data)
{
    (void)data;
}

static int holder_body(taal_coro *self)
{
    holder *f = (holder *)self;
    TAAL_BEGIN(f);
    taal_call_soon(taal_running_loop(), &f->soon, never, NULL);
    taal_timer_start(taal_running_loop(), &f->timer, 10, never, NULL);
    TAAL_SLEEP(5);
    TAAL_END();
}

TEST(closing_forgets_the_handles_in_frames_it_frees_before_freeing_them)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task_create(&loop, holder_body, NULL, sizeof(holder), "holder", NULL);
    taal_task *t;
    taal_task_create(&loop, holder_body, NULL, sizeof(holder), "held", &t);
    taal_run_once(&loop); /* both arm a timer and queue a handle, and sleep */
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK); /* no write into freed frames */
    taal_task_release(t);                      /* held by main through the close */
}

/* ---- 7. removing a callback of another future ---------------------------------- */

TEST(removing_a_callback_from_the_wrong_future_is_refused)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_future a, b;
    taal_future_init(&a, &loop);
    taal_future_init(&b, &loop);
    taal_handle h = {0};
    taal_future_add_done_callback(&a, &h, note_done, "h");
    CHECK_EQ(taal_future_remove_done_callback(&b, &h), TAAL_EINVAL);
    CHECK(taal_handle_pending(&h)); /* still a's */
    taal_future_set_result(&a, NULL);
    CHECK_EQ(taal_future_remove_done_callback(&b, &h),
             TAAL_EINVAL); /* scheduled: still a's */
    taal_run_once(&loop);
    CHECK_STR(trace, "h");
    CHECK_EQ(taal_future_remove_done_callback(&a, &h), TAAL_EINVAL); /* it has run */
    taal_handle idle = {0};
    CHECK_EQ(taal_future_remove_done_callback(&a, &idle), TAAL_EINVAL); /* never added */
    taal_loop_close(&loop);
}

/* ---- 8. a due timer stopped through another loop ------------------------------- */

static taal_loop *other_loop;
static taal_timer due_timer;
static int stop_rc;

static void stop_through_other(void *data)
{
    (void)data;
    stop_rc = taal_timer_stop(other_loop, &due_timer);
}

TEST(a_due_timer_cannot_be_stopped_through_another_loop)
{
    taal_loop a, b;
    open_loop(&a);
    open_loop(&b);
    other_loop = &b;
    trace[0] = '\0';
    taal_handle first = {0};
    due_timer = (taal_timer){0};
    taal_call_soon(&a, &first, stop_through_other, NULL);
    taal_timer_start(&a, &due_timer, 0, note_callback, "t");
    taal_run_once(&a); /* the timer is due, behind `first`, which tries to stop it */
    CHECK_EQ(stop_rc, TAAL_ELOOP);
    CHECK_STR(trace, "t"); /* it still ran */
    taal_loop_close(&a);
    taal_loop_close(&b);
}

/* ---- 9. a closed loop, a future never initialised ------------------------------ */

TEST(a_closed_loop_takes_no_futures_stops_or_callbacks)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future early;
    taal_future_init(&early, &loop);
    taal_loop_close(&loop);
    taal_future fut;
    CHECK_EQ(taal_future_init(&fut, &loop), TAAL_ECLOSED);
    CHECK_EQ(taal_stop(&loop), TAAL_ECLOSED);
    taal_handle h = {0};
    CHECK_EQ(taal_future_add_done_callback(&early, &h, note_done, "x"), TAAL_ECLOSED);
    CHECK(!taal_handle_pending(&h));
    CHECK_EQ(taal_future_set_result(&early, NULL), TAAL_ECLOSED);
    CHECK_EQ(taal_call_soon(&loop, &h, note_callback, "x"), TAAL_ECLOSED);
}

TEST(a_future_never_initialised_is_refused_everywhere)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future zeroed = {0}; /* status 0 would read as "done, OK" */
    CHECK(!taal_future_done(&zeroed));
    CHECK_EQ(taal_future_status(&zeroed), TAAL_EINVAL);
    CHECK_EQ(taal_future_result(&zeroed, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_future_set_result(&zeroed, NULL), TAAL_EINVAL);
    taal_handle h = {0};
    CHECK_EQ(taal_future_add_done_callback(&zeroed, &h, note_done, "x"), TAAL_EINVAL);
    taal_future *one[] = {&zeroed}, *g;
    CHECK_EQ(taal_gather(&loop, 1, one, &g), TAAL_EINVAL);
    CHECK_EQ(taal_run_until_complete(&loop, &zeroed), TAAL_EINVAL);
    taal_loop_close(&loop);
}

/* ---- 12. Python 3.12: a gather of finished futures is finished at once ------------ */

TEST(a_gather_of_finished_futures_is_finished_at_once)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future a, b;
    taal_future_init(&a, &loop);
    taal_future_init(&b, &loop);
    taal_future_set_result(&a, "a");
    taal_future_set_result(&b, "b");
    taal_future *both[] = {&a, &b}, *g;
    taal_gather(&loop, 2, both, &g);
    CHECK(taal_future_done(g)); /* 3.11 needed an iteration for this */
    void *result;
    CHECK_EQ(taal_future_result(g, &result), TAAL_OK);
    CHECK_STR(((char **)result)[1], "b");
    taal_future_release(g);

    taal_future bad;
    taal_future_init(&bad, &loop);
    taal_future_set_error(&bad, TAAL_EUSER);
    taal_future *mixed[] = {&a, &bad}, *h;
    taal_gather(&loop, 2, mixed, &h);
    CHECK_EQ(taal_future_status(h), TAAL_EUSER); /* its first error, at once */
    CHECK(bad.retrieved);
    CHECK_EQ(taal_future_result(h, NULL), TAAL_EUSER);
    taal_future_release(h);
    CHECK(nothing_left(&loop));
    taal_loop_close(&loop);
}

/* taal_gather checks each child as it fills its slot (one pass over a
 * million children, not two); a bad child after good ones must undo what
 * the good ones' slots took: their callbacks, their references, the block. */
TEST(a_gather_refused_for_a_bad_child_keeps_nothing_of_the_children_before_it)
{
    count_allocations();
    taal_loop loop, other;
    open_loop(&loop);
    open_loop(&other);
    taal_task *one = spawn(&loop, 0.1, "one", 0), *two = spawn(&loop, 0.2, "two", 0);
    taal_future done, foreign;
    taal_future_init(&done, &loop);
    taal_future_set_result(&done, NULL);
    taal_future_init(&foreign, &other);
    taal_future *hole_last[] = {&one->future, &done, &two->future, NULL};
    taal_future *foreign_last[] = {&one->future, &two->future, &foreign};
    taal_future *g = NULL;
    CHECK_EQ(taal_gather(&loop, 4, hole_last, &g), TAAL_EINVAL);
    CHECK_EQ(taal_gather(&loop, 3, foreign_last, &g), TAAL_ELOOP);
    CHECK(g == NULL);
    CHECK(one->future.waiters.next == &one->future.waiters); /* no callback left */
    CHECK(two->future.waiters.next == &two->future.waiters);
    CHECK_EQ(one->future.refs, 2); /* its creator's and its own: no gather's */
    CHECK_EQ(two->future.refs, 2);
    CHECK_EQ(taal_run_until_complete(&loop, &two->future), TAAL_OK);
    taal_task_release(one);
    taal_task_release(two);
    CHECK(nothing_left(&loop)); /* both freed: nothing else held them */
    taal_loop_close(&loop);
    taal_loop_close(&other);
    CHECK_EQ(taal_check_alloc_live(), 0);
    taal_set_allocator(NULL);
}

/* ---- 13. taal_run takes options ------------------------------------------------- */

typedef struct timed {
    taal_coro co;
    double *elapsed;
} timed;

static int timed_body(taal_coro *self)
{
    timed *f = (timed *)self;
    TAAL_BEGIN(f);
    taal_task_create(taal_running_loop(), valued_body, &(valued){.error = TAAL_EUSER},
                     sizeof(valued), "doomed", NULL);
    TAAL_SLEEP(3600);
    *f->elapsed = taal_loop_time(taal_running_loop());
    TAAL_END();
}

TEST(taal_run_takes_loop_options)
{
    double elapsed = 0;
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = collect_report};
    reports[0] = '\0';
    CHECK_EQ(taal_run(timed_body, &(timed){.elapsed = &elapsed}, sizeof(timed), &options,
                      NULL),
             TAAL_OK);
    CHECK(elapsed == 3600.0); /* an hour, at once: the virtual clock */
    CHECK_STR(reports,
              "task doomed failed with \"user error\" and nobody retrieved the error\n");
}

/* ---- 14. reports are structs; a program names its own codes ------------------- */

static taal_report last_report;
static char last_message[256];

static void keep_report(void *ctx, const taal_report *report)
{
    (void)ctx;
    last_report = *report;
    snprintf(last_message, sizeof last_message, "%s", report->message);
}

enum { E_OVERDRAWN = TAAL_EUSER - 1 };

static const char *bank_errors(int status)
{
    return status == E_OVERDRAWN ? "account overdrawn" : NULL;
}

TEST(reports_say_what_and_whom_and_programs_name_their_codes)
{
    taal_set_strerror(bank_errors);
    CHECK_STR(taal_strerror(E_OVERDRAWN), "account overdrawn");
    CHECK_STR(taal_strerror(TAAL_EUSER - 2), "user error"); /* not named */
    taal_loop loop;
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = keep_report};
    taal_loop_init(&loop, &options);
    taal_task *t = spawn(&loop, 0, "x", E_OVERDRAWN);
    taal_task_set_name(t, "withdraw");
    taal_run_once(&loop);
    taal_run_once(&loop);
    CHECK(taal_future_done(taal_task_future(t)));
    taal_task_release(t); /* nobody looked: reported now */
    CHECK_EQ(last_report.kind, TAAL_REPORT_UNRETRIEVED);
    CHECK(last_report.loop == &loop);
    CHECK(last_report.task == t);
    CHECK(last_report.future == taal_task_future(t));
    CHECK_EQ(last_report.status, E_OVERDRAWN);
    CHECK_STR(
        last_message,
        "task withdraw failed with \"account overdrawn\" and nobody retrieved the error");
    taal_loop_close(&loop);
    taal_set_strerror(NULL);
    CHECK_STR(taal_strerror(E_OVERDRAWN), "user error");
}

/* ---- 15. a task is created from its frame, with a name ------------------------- */

TEST(a_task_starts_from_a_copy_of_its_frame_and_has_its_name)
{
    taal_loop loop;
    open_loop(&loop);
    valued frame = {.delay = 0.25, .value = "copied"};
    taal_task *t;
    CHECK_EQ(taal_task_create(&loop, valued_body, &frame, sizeof frame, "copy", &t),
             TAAL_OK);
    frame.value = "changed later"; /* the task has its own copy */
    CHECK(taal_task_frame(t) != (void *)&frame);
    char name[16];
    CHECK_STR(taal_task_name(t, name, sizeof name), "copy");
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    void *result;
    taal_future_result(taal_task_future(t), &result);
    CHECK_STR(result, "copied");
    CHECK(taal_loop_time(&loop) == 0.25);
    taal_task_release(t);
    /* Fire and forget, with a name and arguments. */
    CHECK_EQ(taal_task_create(&loop, valued_body, &frame, sizeof frame, "fire", NULL),
             TAAL_OK);
    taal_task *unnamed;
    taal_task_create(&loop, valued_body, NULL, sizeof(valued), NULL, &unnamed);
    CHECK_STR(taal_task_name(unnamed, name, sizeof name), "Task-3");
    taal_task_release(unnamed);
    taal_loop_close(&loop);
}

/* ---- 16. asking is not retrieving ------------------------------------------------- */

TEST(asking_a_status_does_not_retrieve_the_error)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *asked = spawn(&loop, 0, "x", TAAL_EUSER);
    taal_task *taken = spawn(&loop, 0, "x", TAAL_EUSER);
    taal_task_set_name(asked, "asked");
    taal_task_set_name(taken, "taken");
    taal_run_once(&loop);
    taal_run_once(&loop);
    CHECK_EQ(taal_future_status(taal_task_future(asked)), TAAL_EUSER);
    CHECK_EQ(taal_future_result(taal_task_future(taken), NULL), TAAL_EUSER);
    taal_task_release(asked);
    taal_task_release(taken);
    CHECK_STR(reports,
              "task asked failed with \"user error\" and nobody retrieved the error\n");
    taal_loop_close(&loop);
}

/* ---- 19. every await has a form that hands back its status ---------------------- */

typedef struct careful {
    taal_coro co;
    taal_task *child;
    int slept, awaited, cleaned;
} careful;

static int careful_body(taal_coro *self)
{
    careful *f = (careful *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP_STATUS(f->slept, NAN); /* cannot start: cleanup still runs */
    TAAL_AWAIT_TASK_STATUS(f->awaited, f->child);
    f->cleaned = 1;
    TAAL_SLEEP_STATUS(f->slept, 0.5);
    TAAL_END();
}

TEST(every_await_has_a_status_form)
{
    taal_loop loop;
    open_loop(&loop);
    careful frame = {.child = spawn(&loop, 0.1, "x", TAAL_EUSER)};
    taal_task *t;
    taal_task_create(&loop, careful_body, &frame, sizeof frame, NULL, &t);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    careful *f = taal_task_frame(t);
    CHECK_EQ(f->awaited, TAAL_EUSER);
    CHECK_EQ(f->cleaned, 1);
    CHECK_EQ(f->slept, TAAL_OK);
    /* (double): with x87 maths (32-bit x86, FLT_EVAL_METHOD 2) the constant
     * 0.6 keeps long double precision, and is not the double nearest 0.6 */
    CHECK(taal_loop_time(&loop) == (double)0.6);
    taal_task_release(f->child);
    taal_task_release(t);
    taal_loop_close(&loop);
}

/* ---- tracing ------------------------------------------------------------------------
 */

/* Reads a whole (small) file into buf. */
static const char *slurp(const char *path, char *buf, size_t size)
{
    FILE *in = fopen(path, "r");
    size_t n = in ? fread(buf, 1, size - 1, in) : 0;
    buf[n] = '\0';
    if (in)
        fclose(in);
    return buf;
}

typedef struct awaits {
    taal_coro co;
    taal_task *on;
} awaits;

static int awaits_body(taal_coro *self)
{
    awaits *f = (awaits *)self;
    TAAL_BEGIN(f);
    TAAL_AWAIT_TASK(f->on);
    TAAL_END();
}

TEST(the_trace_records_every_step_park_sleep_and_wake_in_order)
{
    const char *path = "ch02_trace_test.json";
    taal_loop loop;
    taal_loop_options options = {
        .clock = TAAL_CLOCK_VIRTUAL, .report = collect_report, .trace = path};
    taal_loop_init(&loop, &options);
    taal_task *sleeper;
    taal_task_create(&loop, valued_body, &(valued){.delay = 0.5, .value = "x"},
                     sizeof(valued), "sleeper", &sleeper);
    taal_task *waiter;
    taal_task_create(&loop, awaits_body, &(awaits){.on = sleeper}, sizeof(awaits),
                     "waiter", &waiter);
    taal_run_until_complete(&loop, taal_task_future(waiter));
    taal_task_release(sleeper);
    taal_task_release(waiter);
    taal_loop_close(&loop);
    char got[4096];
    CHECK_STR(slurp(path, got, sizeof got),
              "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"
              "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{"
              "\"name\":\"sleeper\"}},\n"
              "{\"name\":\"create\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":1,\"ts\":"
              "0.000,\"args\":{\"by\":0}},\n"
              "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":2,\"args\":{"
              "\"name\":\"waiter\"}},\n"
              "{\"name\":\"create\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":2,\"ts\":"
              "0.000,\"args\":{\"by\":0}},\n"
              "{\"name\":\"step\",\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":0.000},\n"
              "{\"name\":\"step\",\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":0.000,\"args\":"
              "{\"then\":\"sleep\",\"until\":500000.000}},\n"
              "{\"name\":\"step\",\"ph\":\"B\",\"pid\":1,\"tid\":2,\"ts\":0.000},\n"
              "{\"name\":\"step\",\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":0.000,\"args\":"
              "{\"then\":\"park\",\"on\":\"task sleeper\",\"on_tid\":1}},\n"
              "{\"name\":\"wake\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":1,\"ts\":"
              "500000.000,\"args\":{\"by\":0,\"why\":\"timer\"}},\n"
              "{\"name\":\"step\",\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":500000.000},\n"
              "{\"name\":\"step\",\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":500000.000,"
              "\"args\":{\"then\":\"done\",\"status\":\"ok\"}},\n"
              "{\"name\":\"wake\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":2,\"ts\":"
              "500000.000,\"args\":{\"by\":1,\"why\":\"task\"}},\n"
              "{\"name\":\"step\",\"ph\":\"B\",\"pid\":1,\"tid\":2,\"ts\":500000.000},\n"
              "{\"name\":\"step\",\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":500000.000,"
              "\"args\":{\"then\":\"done\",\"status\":\"ok\"}},\n"
              "{\"name\":\"callback\",\"ph\":\"X\",\"pid\":1,\"tid\":0,\"ts\":500000.000,"
              "\"dur\":0.000}\n"
              "]}\n");
    CHECK_STR(reports, "");
    remove(path);
}

TEST(tracing_allocates_nothing_per_event)
{
    const char *path = "ch02_trace_alloc.json";
    count_allocations();
    taal_loop loop;
    taal_loop_options options = {
        .clock = TAAL_CLOCK_VIRTUAL, .report = collect_report, .trace = path};
    taal_loop_init(&loop, &options);
    long after_open = taal_check_alloc.allocs;
    CHECK_EQ(after_open, 1); /* the buffer */
    taal_task *t;
    taal_task_create(&loop, valued_body, &(valued){.delay = 0}, sizeof(valued), NULL, &t);
    taal_run_until_complete(&loop, taal_task_future(t));
    for (int i = 0; i < 2000; i++) { /* far more events than the buffer holds */
        taal_task_create(&loop, valued_body, NULL, sizeof(valued), NULL, NULL);
        taal_run_once(&loop);
        taal_run_once(&loop);
    }
    /* Two blocks: the held task's, and one that every other task reuses
     * (from chapter 08 on, one chunk of the slab holds both). */
#if TAAL_CHAPTER >= 8
    CHECK_EQ(taal_check_alloc.allocs, after_open + 1);
#else
    CHECK_EQ(taal_check_alloc.allocs, after_open + 2);
#endif
    taal_task_release(t);
    taal_loop_close(&loop);
    CHECK_EQ(taal_check_alloc_live(), 0);
    taal_set_allocator(NULL);
    remove(path);
}

TEST(a_tracing_failure_turns_tracing_off_with_a_report)
{
    taal_set_allocator(&counting);
    taal_check_alloc_reset(1); /* the trace buffer's allocation fails */
    taal_loop loop;
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL,
                                 .report = collect_report,
                                 .trace = "ch02_never_written.json"};
    reports[0] = '\0';
    CHECK_EQ(taal_loop_init(&loop, &options), TAAL_OK); /* the loop works without */
    CHECK(loop.trace == NULL);
    CHECK_STR(reports, "tracing turned off: out of memory for the trace buffer\n");
    taal_task *t = spawn(&loop, 0.1, "x", 0);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    taal_task_release(t);
    taal_loop_close(&loop);
    taal_set_allocator(NULL);

    reports[0] = '\0';
    options.trace = "/no/such/folder/trace.json";
    CHECK_EQ(taal_loop_init(&loop, &options), TAAL_OK);
    CHECK_STR(reports, "tracing turned off: the trace file could not be opened\n");
    taal_loop_close(&loop);
}

/* ---- debug mode
 * ------------------------------------------------------------------------ */

typedef struct blocker {
    taal_coro co;
    long ms; /* how long its one step blocks the thread */
} blocker;

static int blocker_body(taal_coro *self)
{
    blocker *f = (blocker *)self;
    TAAL_BEGIN(f);
    {
#ifdef _WIN32
        Sleep((DWORD)f->ms); /* time.sleep(): the pitfall debug mode finds */
#else
        struct timespec pause = {0, f->ms * 1000000L};
        nanosleep(&pause, NULL); /* time.sleep(): the pitfall debug mode finds */
#endif
    }
    TAAL_END();
}

TEST(debug_mode_reports_a_step_that_blocks_the_loop_and_not_others)
{
    taal_loop loop;
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL,
                                 .report = collect_report,
                                 .debug = TAAL_ON,
                                 .slow_step = 0.05};
    reports[0] = '\0';
    taal_loop_init(&loop, &options);
    taal_task *quick, *slow;
    taal_task_create(&loop, blocker_body, &(blocker){.ms = 0}, sizeof(blocker), "quick",
                     &quick);
    taal_task_create(&loop, blocker_body, &(blocker){.ms = 120}, sizeof(blocker), "slow",
                     &slow);
    taal_run_until_complete(&loop, taal_task_future(slow));
    CHECK(strncmp(reports, "task slow (created at test_lifetime.c:", 38) == 0);
    CHECK(strstr(reports, ") blocked the loop for 0.1") != NULL);
    CHECK(strstr(reports, "quick") == NULL);
    CHECK(strchr(reports, '\n') == reports + strlen(reports) - 1); /* one report */
    taal_task_release(quick);
    taal_task_release(slow);
    taal_loop_close(&loop);

    reports[0] = '\0';
    options.debug = TAAL_OFF; /* off: not measured, not reported */
    taal_loop_init(&loop, &options);
    taal_task_create(&loop, blocker_body, &(blocker){.ms = 120}, sizeof(blocker), "slow",
                     &slow);
    taal_run_until_complete(&loop, taal_task_future(slow));
    CHECK_STR(reports, "");
    taal_task_release(slow);
    taal_loop_close(&loop);
}

TEST(the_dump_says_what_every_task_is_doing)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task *sleeper = spawn(&loop, 2.0, "x", 0);
    taal_task_set_name(sleeper, "sleeper");
    taal_task *waiter;
    taal_task_create(&loop, awaits_body, &(awaits){.on = sleeper}, sizeof(awaits),
                     "waiter", &waiter);
    taal_task *failed = spawn(&loop, 0, "x", TAAL_EUSER);
    taal_task *fresh = spawn(&loop, 0, "x", 0);
    taal_run_once(&loop);
    taal_run_once(&loop);
    taal_task_set_name(fresh, "fresh"); /* spawned after the steps ran ... */
    reports[0] = '\0';
    CHECK_EQ(taal_loop_dump(&loop), 4);
    CHECK_STR(reports, "sleeper: sleeping until 2.000 s\n"
                       "waiter: waiting for task sleeper\n"
                       "Task-3: done: user error\n"
                       "fresh: done: ok\n");
    taal_future_result(taal_task_future(failed), NULL);
    taal_task_release(sleeper);
    taal_task_release(waiter);
    taal_task_release(failed);
    taal_task_release(fresh);
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_released_pending_gather_still_runs_its_callbacks),
    TEST_ENTRY(a_released_pending_wait_still_runs_its_callbacks),
    TEST_ENTRY(a_done_callback_on_a_released_task_can_still_read_it),
    TEST_ENTRY(a_wait_keeps_its_released_children_and_gives_done_and_pending),
    TEST_ENTRY(gather_results_stay_valid_until_the_gather_is_released),
    TEST_ENTRY(a_future_in_a_frame_outlives_the_task_while_someone_waits_on_it),
    TEST_ENTRY(a_report_function_that_closes_the_loop_is_refused_not_recursed),
    TEST_ENTRY(what_main_holds_survives_the_close_and_what_tasks_made_does_not),
    TEST_ENTRY(closing_forgets_the_handles_in_frames_it_frees_before_freeing_them),
    TEST_ENTRY(removing_a_callback_from_the_wrong_future_is_refused),
    TEST_ENTRY(a_due_timer_cannot_be_stopped_through_another_loop),
    TEST_ENTRY(a_closed_loop_takes_no_futures_stops_or_callbacks),
    TEST_ENTRY(a_future_never_initialised_is_refused_everywhere),
    TEST_ENTRY(a_gather_of_finished_futures_is_finished_at_once),
    TEST_ENTRY(a_gather_refused_for_a_bad_child_keeps_nothing_of_the_children_before_it),
    TEST_ENTRY(taal_run_takes_loop_options),
    TEST_ENTRY(reports_say_what_and_whom_and_programs_name_their_codes),
    TEST_ENTRY(a_task_starts_from_a_copy_of_its_frame_and_has_its_name),
    TEST_ENTRY(asking_a_status_does_not_retrieve_the_error),
    TEST_ENTRY(every_await_has_a_status_form),
    TEST_ENTRY(the_trace_records_every_step_park_sleep_and_wake_in_order),
    TEST_ENTRY(tracing_allocates_nothing_per_event),
    TEST_ENTRY(a_tracing_failure_turns_tracing_off_with_a_report),
    TEST_ENTRY(debug_mode_reports_a_step_that_blocks_the_loop_and_not_others),
    TEST_ENTRY(the_dump_says_what_every_task_is_doing),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
