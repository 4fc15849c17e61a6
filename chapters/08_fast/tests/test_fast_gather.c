/*
** test_fast_gather.c -- chapter 08: the gather without a done-callback per
** child. A child's completion collects it in place, and the child that
** decides the gather (its last, or its first error) schedules the gather's
** own end, so that the gather still finishes one iteration after that
** child, as asyncio's gather does. These tests pin that iteration in every
** order of finishing, against a hand-checked CPython trace, with the
** gather cancelled or released or its loop closed while its end is
** scheduled, and under the allocation sweep.
*/
#include "taal.h"
#include "taal_check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const taal_allocator counting = {taal_check_malloc, taal_check_realloc,
                                        taal_check_free};

/* Reports, counted by kind; the last message kept. */
static int reports[TAAL_REPORT_NOT_CLOSED + 1];
static char last_report[256];

static void count_report(void *ctx, const taal_report *report)
{
    (void)ctx;
    if ((int)report->kind >= 0 && report->kind <= TAAL_REPORT_NOT_CLOSED)
        reports[report->kind]++;
    snprintf(last_report, sizeof last_report, "%s", report->message);
}

/* `trace`: NULL for $TAAL_TRACE, "" for none (the loop's own options). */
static void open_loop_traced(taal_loop *loop, const char *trace)
{
    memset(reports, 0, sizeof reports);
    taal_loop_options options = {
        .clock = TAAL_CLOCK_VIRTUAL, .report = count_report, .trace = trace};
    CHECK_EQ(taal_loop_init(loop, &options), TAAL_OK);
}

static void open_loop(taal_loop *loop)
{
    open_loop_traced(loop, NULL);
}

/* A done-callback that notes the iteration it ran in. */
static int iteration;
static int ran_in;

static void note_iteration(taal_future *future, void *data)
{
    (void)future;
    (void)data;
    ran_in = iteration;
}

/* An iteration with something in it, so that taal_run_once() never finds
 * the loop idle (that would be a deadlock): asyncio's loop runs one too. */
static taal_handle tick;

static void nothing(void *data)
{
    (void)data;
}

static int run_iteration(taal_loop *loop)
{
    int rc = taal_call_soon(loop, &tick, nothing, NULL);
    return rc == TAAL_OK ? taal_run_once(loop) : rc;
}

/* ---- every order ----------------------------------------------------------- */

enum { KIDS = 4 };

static bool next_permutation(int *a, int n)
{
    int i = n - 2;
    while (i >= 0 && a[i] >= a[i + 1])
        i--;
    if (i < 0)
        return false;
    int j = n - 1;
    while (a[j] <= a[i])
        j--;
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--) {
        t = a[l];
        a[l] = a[r];
        a[r] = t;
    }
    return true;
}

/* Four plain futures finish one per iteration, in `order`; the child
 * `failing` (or none, -1) with an error. The gather must not be done while
 * the iteration of the child that decides it runs, must be done after the
 * next one, and its own done-callback runs in the one after that: asyncio's
 * timing, where the gather's callback on the child is scheduled with
 * call_soon, and the gather's callbacks after it. */
static void run_order(const int *order, int failing, unsigned flags)
{
    static int values[KIDS];
    taal_loop loop;
    open_loop(&loop);
    taal_future kids[KIDS];
    taal_future *ptrs[KIDS];
    for (int i = 0; i < KIDS; i++) {
        CHECK_EQ(taal_future_init(&kids[i], &loop), TAAL_OK);
        ptrs[i] = &kids[i];
    }
    taal_future *g = NULL;
    CHECK_EQ(taal_gather_ex(&loop, KIDS, ptrs, flags, &g), TAAL_OK);
    taal_handle on_done = {0};
    CHECK_EQ(taal_future_add_done_callback(g, &on_done, note_iteration, NULL), TAAL_OK);
    /* The step of the order whose child decides the gather. */
    int decides = KIDS - 1;
    if (failing >= 0 && !(flags & TAAL_RETURN_EXCEPTIONS))
        for (int s = 0; s < KIDS; s++)
            if (order[s] == failing) {
                decides = s;
                break;
            }
    ran_in = -1;
    for (iteration = 0; iteration < KIDS + 2; iteration++) {
        if (iteration < KIDS) {
            int k = order[iteration];
            if (k == failing)
                CHECK_EQ(taal_future_set_error(&kids[k], TAAL_EUSER - k), TAAL_OK);
            else
                CHECK_EQ(taal_future_set_result(&kids[k], &values[k]), TAAL_OK);
        }
        CHECK_EQ(taal_future_done(g), iteration > decides);
        CHECK_EQ(run_iteration(&loop), TAAL_OK);
        CHECK_EQ(taal_future_done(g), iteration >= decides);
    }
    CHECK_EQ(ran_in, decides + 1);
    void **results = NULL;
    int rc = taal_future_result(g, (void **)&results);
    if (failing >= 0 && !(flags & TAAL_RETURN_EXCEPTIONS)) {
        CHECK_EQ(rc, TAAL_EUSER - failing);
    } else {
        CHECK_EQ(rc, TAAL_OK);
        for (int i = 0; i < KIDS; i++) {
            CHECK(results[i] == (i == failing ? NULL : (void *)&values[i]));
            CHECK_EQ(taal_gather_status(g, (size_t)i), i == failing ? TAAL_EUSER - i : 0);
        }
    }
    taal_future_release(g);
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
    CHECK_EQ(reports[TAAL_REPORT_UNRETRIEVED], 0);
}

TEST(a_gather_ends_one_iteration_after_the_child_that_decides_it_in_every_order)
{
    int order[KIDS] = {0, 1, 2, 3};
    int orders = 0;
    do {
        for (int failing = -1; failing < KIDS; failing++) {
            run_order(order, failing, 0);
            run_order(order, failing, TAAL_RETURN_EXCEPTIONS);
        }
        orders++;
    } while (next_permutation(order, KIDS));
    CHECK_EQ(orders, 24);
}

/* A gather of a gather, with a child given twice; in asyncio (3.12.1):
**
**   f = loop.create_future(); inner = asyncio.gather(f)
**   outer = asyncio.gather(inner, f, f); f.set_result(7)
**   for i in range(3): print(i, inner.done(), outer.done()); await sleep(0)
**
** prints 0 False False, 1 True False, 2 True True, and [[7], 7, 7]: the
** inner gather ends one iteration after f, the outer one after that. */
TEST(a_gather_of_a_gather_and_a_child_given_twice)
{
    static int seven = 7;
    taal_loop loop;
    open_loop(&loop);
    taal_future f;
    CHECK_EQ(taal_future_init(&f, &loop), TAAL_OK);
    taal_future *fs[1] = {&f}, *inner = NULL, *outer = NULL;
    CHECK_EQ(taal_gather(&loop, 1, fs, &inner), TAAL_OK);
    taal_future *three[3] = {inner, &f, &f};
    CHECK_EQ(taal_gather(&loop, 3, three, &outer), TAAL_OK);
    CHECK_EQ(taal_future_set_result(&f, &seven), TAAL_OK);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(taal_future_done(inner), i >= 1);
        CHECK_EQ(taal_future_done(outer), i >= 2);
        CHECK_EQ(run_iteration(&loop), TAAL_OK);
    }
    void **r = NULL, **in = NULL;
    CHECK_EQ(taal_future_result(outer, (void **)&r), TAAL_OK);
    CHECK_EQ(taal_future_result(inner, (void **)&in), TAAL_OK);
    CHECK(r[0] == (void *)in && in[0] == &seven && r[1] == &seven && r[2] == &seven);
    taal_future_release(outer);
    taal_future_release(inner);
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
}

/* ---- many children, as tasks -------------------------------------------------- */

enum { MANY = 2000 };

typedef struct kid {
    taal_coro co;
    int index;
    int yields; /* sleep(0)s before it ends */
    int n;
} kid;

static int ended_in[MANY];

static int kid_body(taal_coro *self)
{
    kid *f = (kid *)self;
    TAAL_BEGIN(f);
    for (f->n = 0; f->n < f->yields; f->n++)
        TAAL_SLEEP(0);
    ended_in[f->index] = iteration;
    TAAL_RETURN_VALUE((void *)(intptr_t)(f->index + 1));
    TAAL_END();
}

/* Two thousand tasks end in a scrambled order over 16 iterations; the
 * gather collects every result in argument order, finishes in the
 * iteration after the last one ended, and its callback runs one later. */
TEST(a_gather_of_many_tasks_finishing_in_a_scrambled_order)
{
    static taal_future *ptrs[MANY];
    taal_loop loop;
    open_loop(&loop);
    int last = 0; /* the iteration the last one ends in: its sleep(0)s */
    for (int i = 0; i < MANY; i++) {
        kid frame = {.index = i, .yields = (int)((uint32_t)i * 2654435761u >> 28)};
        if (frame.yields > last)
            last = frame.yields;
        ended_in[i] = -1;
        taal_task *task = NULL;
        CHECK_EQ(taal_task_create(&loop, kid_body, &frame, sizeof frame, NULL, &task),
                 TAAL_OK);
        ptrs[i] = taal_task_future(task);
    }
    taal_future *g = NULL;
    CHECK_EQ(taal_gather(&loop, MANY, ptrs, &g), TAAL_OK);
    for (int i = 0; i < MANY; i += 2) /* half released at once, half at the end */
        taal_future_release(ptrs[i]);
    taal_handle on_done = {0};
    CHECK_EQ(taal_future_add_done_callback(g, &on_done, note_iteration, NULL), TAAL_OK);
    ran_in = -1;
    for (iteration = 0; ran_in < 0 && iteration < 40; iteration++) {
        CHECK_EQ(taal_future_done(g), iteration >= last + 2);
        CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    }
    CHECK_EQ(last, 15);
    CHECK_EQ(ran_in, last + 2);
    for (int i = 0; i < MANY; i++)
        CHECK_EQ(ended_in[i], (int)((uint32_t)i * 2654435761u >> 28));
    void **results = NULL;
    CHECK_EQ(taal_future_result(g, (void **)&results), TAAL_OK);
    for (int i = 0; i < MANY; i++)
        CHECK_EQ((intptr_t)results[i], i + 1);
    for (int i = 1; i < MANY; i += 2)
        taal_future_release(ptrs[i]);
    taal_future_release(g);
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
}

/* ---- a CPython trace ------------------------------------------------------------ */

/*
** The program below, run on CPython 3.12.1 and 3.13.0 (the same output),
** and checked by hand, iteration by iteration:
**
**   async def child(name, n):
**       for _ in range(n): await asyncio.sleep(0)
**       log.append(f"{name} ends"); return name
**   async def ticker():
**       for i in range(6): log.append(f"tick {i}"); await asyncio.sleep(0)
**   async def main():
**       t = asyncio.create_task(ticker())
**       a = asyncio.create_task(child("a", 1))
**       b = asyncio.create_task(child("b", 2))
**       b.add_done_callback(lambda f: log.append(f"before: gather done {G.done()}"))
**       G = asyncio.gather(a, b)
**       b.add_done_callback(lambda f: log.append(f"after: gather done {G.done()}"))
**       G.add_done_callback(lambda f: log.append("gather's callback"))
**       r = await G
**       log.append(f"gathered {r[0]} {r[1]}"); await t
**
**   1: main           2: tick 0, a and b sleep      3: tick 1, a ends
**   4: tick 2, (the gather's callback for a), b ends
**   5: tick 3, before (not done), the gather's callback for b (done), after
**   6: tick 4, the gather's callback, main resumes   7: tick 5
**
** "before" and "after" see the gather's end in the place of its callback
** among b's callbacks: the end is scheduled there.
*/
static char trace[512];
static taal_future *the_gather;

static void say(const char *what)
{
    strcat(trace, what);
    strcat(trace, "\n");
}

typedef struct named {
    taal_coro co;
    const char *name;
    int n;
    int i;
} named;

static int child_body(taal_coro *self)
{
    named *f = (named *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->n; f->i++)
        TAAL_SLEEP(0);
    say(f->name[0] == 'a' ? "a ends" : "b ends");
    TAAL_RETURN_VALUE((void *)f->name);
    TAAL_END();
}

static int ticker_body(taal_coro *self)
{
    named *f = (named *)self;
    static const char *const ticks[] = {"tick 0", "tick 1", "tick 2",
                                        "tick 3", "tick 4", "tick 5"};
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < 6; f->i++) {
        say(ticks[f->i]);
        TAAL_SLEEP(0);
    }
    TAAL_END();
}

static void before_or_after(taal_future *future, void *what)
{
    (void)future;
    say(taal_future_done(the_gather)
            ? (strcmp(what, "before") == 0 ? "before: gather done True"
                                           : "after: gather done True")
            : (strcmp(what, "before") == 0 ? "before: gather done False"
                                           : "after: gather done False"));
}

static void gathers_callback(taal_future *future, void *data)
{
    (void)future;
    (void)data;
    say("gather's callback");
}

typedef struct trace_main {
    taal_coro co;
    taal_task *t, *a, *b;
    taal_handle before, after, on_gather;
    taal_future *kids[2];
} trace_main;

static int trace_main_body(taal_coro *self)
{
    trace_main *f = (trace_main *)self;
    taal_loop *loop = taal_running_loop();
    int rc;
    TAAL_BEGIN(f);
    {
        named t = {.name = "t"}, a = {.name = "a", .n = 1}, b = {.name = "b", .n = 2};
        if (taal_task_create(loop, ticker_body, &t, sizeof t, NULL, &f->t) != TAAL_OK ||
            taal_task_create(loop, child_body, &a, sizeof a, NULL, &f->a) != TAAL_OK ||
            taal_task_create(loop, child_body, &b, sizeof b, NULL, &f->b) != TAAL_OK)
            TAAL_FAIL(TAAL_ENOMEM);
    }
    f->kids[0] = taal_task_future(f->a);
    f->kids[1] = taal_task_future(f->b);
    taal_future_add_done_callback(f->kids[1], &f->before, before_or_after, "before");
    rc = taal_gather(loop, 2, f->kids, &the_gather);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    taal_future_add_done_callback(f->kids[1], &f->after, before_or_after, "after");
    taal_future_add_done_callback(the_gather, &f->on_gather, gathers_callback, NULL);
    TAAL_AWAIT_FUTURE(the_gather);
    {
        void **r = NULL;
        if (taal_future_result(the_gather, (void **)&r) == TAAL_OK)
            say(strcmp(r[0], "a") == 0 && strcmp(r[1], "b") == 0 ? "gathered a b"
                                                                 : "gathered ?");
    }
    TAAL_AWAIT_TASK(f->t);
    taal_task_release(f->t);
    taal_task_release(f->a);
    taal_task_release(f->b);
    taal_future_release(the_gather);
    TAAL_END();
}

TEST(the_order_is_that_of_a_hand_checked_cpython_trace)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *main_task = NULL;
    CHECK_EQ(taal_task_create(&loop, trace_main_body, NULL, sizeof(trace_main), NULL,
                              &main_task),
             TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(main_task)), TAAL_OK);
    CHECK_STR(trace, "tick 0\n"
                     "tick 1\n"
                     "a ends\n"
                     "tick 2\n"
                     "b ends\n"
                     "tick 3\n"
                     "before: gather done False\n"
                     "after: gather done True\n"
                     "tick 4\n"
                     "gather's callback\n"
                     "gathered a b\n"
                     "tick 5\n");
    taal_task_release(main_task);
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
}

/* ---- cancelled while its end is scheduled ----------------------------------------- */

/* asyncio (3.12.1 and 3.13.0), each case checked there:
**   1. both children done, the gather not yet: cancel() is False (no child
**      to cancel), and it ends with [1, 2];
**   2. the first child failed, the other pending: cancel() is True and
**      cancels it, and the gather ends with the first child's error;
**   3. one child done, the other pending: cancel() cancels it, and the
**      gather ends with CancelledError (an error: not cancelled());
**   4. the same with return_exceptions: it ends with CancelledError too. */
TEST(a_gather_cancelled_while_its_children_finish_and_its_end_is_scheduled)
{
    static int one = 1, two = 2;
    for (int c = 1; c <= 4; c++) {
        taal_loop loop;
        open_loop(&loop);
        taal_future f1, f2;
        CHECK_EQ(taal_future_init(&f1, &loop), TAAL_OK);
        CHECK_EQ(taal_future_init(&f2, &loop), TAAL_OK);
        taal_future *kids[2] = {&f1, &f2}, *g = NULL;
        CHECK_EQ(taal_gather_ex(&loop, 2, kids, c == 4 ? TAAL_RETURN_EXCEPTIONS : 0, &g),
                 TAAL_OK);
        if (c == 2)
            CHECK_EQ(taal_future_set_error(&f1, TAAL_EUSER), TAAL_OK);
        else
            CHECK_EQ(taal_future_set_result(&f1, &one), TAAL_OK);
        if (c == 1)
            CHECK_EQ(taal_future_set_result(&f2, &two), TAAL_OK);
        CHECK(!taal_future_done(g));
        CHECK_EQ(taal_future_cancel(g), c != 1);
        CHECK_EQ(taal_future_cancelled(&f2), c != 1);
        CHECK(!taal_future_done(g));
        CHECK_EQ(taal_run_once(&loop), TAAL_OK);
        CHECK(taal_future_done(g));
        CHECK(!taal_future_cancelled(g)); /* asyncio's gather never is */
        void **r = NULL;
        int rc = taal_future_result(g, (void **)&r);
        if (c == 1) {
            CHECK_EQ(rc, TAAL_OK);
            CHECK(r[0] == &one && r[1] == &two);
        } else {
            CHECK_EQ(rc, c == 2 ? TAAL_EUSER : TAAL_ECANCELLED);
        }
        taal_future_release(g);
        CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
    }
}

/* ---- released early and late ----------------------------------------------------- */

typedef struct failer {
    taal_coro co;
    int yields;
    int status;
    int n;
} failer;

static int failer_body(taal_coro *self)
{
    failer *f = (failer *)self;
    TAAL_BEGIN(f);
    for (f->n = 0; f->n < f->yields; f->n++)
        TAAL_SLEEP(0);
    if (f->status != TAAL_OK)
        TAAL_FAIL(f->status);
    TAAL_END();
}

static taal_task *spawn(taal_loop *loop, int yields, int status)
{
    failer frame = {.yields = yields, .status = status};
    taal_task *task = NULL;
    if (taal_task_create(loop, failer_body, &frame, sizeof frame, NULL, &task) != TAAL_OK)
        taal_check_report(__FILE__, __LINE__, "a task could not be created");
    return task;
}

/* Everything is released at the worst moments; nothing may be reported but
 * what nobody retrieved, nothing may be left allocated, and a gather freed
 * while children it held are still pending must not be reached by their
 * completion (ASan and valgrind watch that). */
TEST(children_and_gathers_released_early_or_late_leave_nothing_behind)
{
    CHECK_EQ(taal_set_allocator(&counting), TAAL_OK);
    taal_check_alloc_reset(0);
    taal_loop loop;
    open_loop(&loop);

    /* a. The children released at once, before any ran. */
    taal_future *kids[3], *g = NULL;
    for (int i = 0; i < 3; i++)
        kids[i] = taal_task_future(spawn(&loop, i, TAAL_OK));
    CHECK_EQ(taal_gather(&loop, 3, kids, &g), TAAL_OK);
    for (int i = 0; i < 3; i++)
        taal_future_release(kids[i]);
    CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_OK);
    CHECK_EQ(taal_gather_status(g, 2), TAAL_OK);
    taal_future_release(g);

    /* b. The gather ends on the first error and is released while the
     * others run on; one of them fails later: its error counts as
     * retrieved by the gather, as asyncio's would, so nothing reports it. */
    kids[0] = taal_task_future(spawn(&loop, 0, TAAL_EUSER));
    kids[1] = taal_task_future(spawn(&loop, 3, TAAL_EUSER - 1));
    kids[2] = taal_task_future(spawn(&loop, 5, TAAL_OK));
    CHECK_EQ(taal_gather(&loop, 3, kids, &g), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, g), TAAL_EUSER);
    CHECK(!taal_future_done(kids[1]));
    taal_future_release(g); /* freed: its slots leave the pending children */
    taal_future_release(kids[0]);
    taal_future_release(kids[1]);
    CHECK_EQ(taal_run_until_complete(&loop, kids[2]), TAAL_OK); /* kids[1] fails first */
    taal_future_release(kids[2]);

    /* c. The gather released between the child that decides it and its
     * end: its own reference keeps it until the end has run. */
    taal_future f1;
    CHECK_EQ(taal_future_init(&f1, &loop), TAAL_OK);
    taal_future *one[1] = {&f1};
    CHECK_EQ(taal_gather(&loop, 1, one, &g), TAAL_OK);
    CHECK_EQ(taal_future_set_result(&f1, NULL), TAAL_OK);
    taal_future_release(g);
    long live = taal_check_alloc_live();
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* the end runs, and frees it */
    CHECK_EQ(taal_check_alloc_live(), live - 1);

    /* d. The loop closed while a gather's end is scheduled: the program
     * still holds the gather, undone, and frees it after the close. */
    taal_future f2;
    CHECK_EQ(taal_future_init(&f2, &loop), TAAL_OK);
    one[0] = &f2;
    CHECK_EQ(taal_gather(&loop, 1, one, &g), TAAL_OK);
    CHECK_EQ(taal_future_set_result(&f2, NULL), TAAL_OK);
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
    CHECK(!taal_future_done(g));
    taal_future_release(g);

    CHECK_EQ(reports[TAAL_REPORT_UNRETRIEVED], 0);
    CHECK_EQ(reports[TAAL_REPORT_PENDING_AT_CLOSE], 0);
    CHECK_EQ(taal_check_alloc_live(), 0);
    taal_set_allocator(NULL);
}

/* ---- the allocation sweep ------------------------------------------------------------
 */

enum { SWEPT = 6 };

typedef struct sweep_main {
    taal_coro co;
    taal_future *kids[SWEPT];
    int made;
    taal_future *g;
    int status;
} sweep_main;

static int sweep_main_body(taal_coro *self)
{
    sweep_main *f = (sweep_main *)self;
    taal_loop *loop = taal_running_loop();
    int rc;
    TAAL_BEGIN(f);
    for (f->made = 0; f->made < SWEPT; f->made++) {
        failer frame = {.yields = f->made % 3,
                        .status = f->made == 4 ? TAAL_EUSER : TAAL_OK};
        taal_task *task = NULL;
        rc = taal_task_create(loop, failer_body, &frame, sizeof frame, NULL, &task);
        if (rc != TAAL_OK)
            break;
        f->kids[f->made] = taal_task_future(task);
    }
    rc = f->made == SWEPT
             ? taal_gather_ex(loop, SWEPT, f->kids, TAAL_RETURN_EXCEPTIONS, &f->g)
             : TAAL_ENOMEM;
    if (rc == TAAL_OK) {
        TAAL_AWAIT_FUTURE_STATUS(f->status, f->g);
        rc = f->status;
        if (rc == TAAL_OK && taal_gather_status(f->g, 4) != TAAL_EUSER)
            rc = TAAL_ESTATE;
        taal_future_release(f->g);
    }
    for (int i = 0; i < f->made; i++)
        taal_future_release(f->kids[i]);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_END();
}

/* A task spawns six tasks and gathers them (one fails, returned as a
 * result), with the n-th allocation failing, for n = 1, 2, ... until a run
 * reaches none of its failures: every run ends with TAAL_OK or
 * TAAL_ENOMEM and leaves nothing allocated. */
TEST(every_allocation_failure_around_a_gather_ends_cleanly)
{
    CHECK_EQ(taal_set_allocator(&counting), TAAL_OK);
    int failures = 0;
    for (long n = 1; n < 100; n++) {
        taal_check_alloc_reset(n);
        taal_loop loop;
        open_loop_traced(&loop, ""); /* a trace's allocations fail differently */
        taal_task *task = NULL;
        int rc = taal_task_create(&loop, sweep_main_body, NULL, sizeof(sweep_main), NULL,
                                  &task);
        if (rc == TAAL_OK)
            rc = taal_run_until_complete(&loop, taal_task_future(task));
        taal_task_release(task);
        CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
        CHECK_EQ(taal_check_alloc_live(), 0);
        if (taal_check_alloc.attempts < n) { /* the failure was never reached */
            CHECK_EQ(rc, TAAL_OK);
            break;
        }
        CHECK_EQ(rc, TAAL_ENOMEM);
        failures++;
    }
    taal_set_allocator(NULL);
    /* The slab's chunks (the main task's, then one for the six children,
     * whose blocks are of one size), and the gather. */
    CHECK(failures >= 3);
}

static const taal_test tests[] = {
    TEST_ENTRY(
        a_gather_ends_one_iteration_after_the_child_that_decides_it_in_every_order),
    TEST_ENTRY(a_gather_of_a_gather_and_a_child_given_twice),
    TEST_ENTRY(a_gather_of_many_tasks_finishing_in_a_scrambled_order),
    TEST_ENTRY(the_order_is_that_of_a_hand_checked_cpython_trace),
    TEST_ENTRY(a_gather_cancelled_while_its_children_finish_and_its_end_is_scheduled),
    TEST_ENTRY(children_and_gathers_released_early_or_late_leave_nothing_behind),
    TEST_ENTRY(every_allocation_failure_around_a_gather_ends_cleanly),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
