/*
** test_queue.c -- chapter 03's unit tests of the queue: FIFO, full and
** empty, items and free slots handed over to the first waiter, task_done
** and join, and bad input.
*/
#include "support.h"

/* ---- tasks the tests run ------------------------------------------------------ */

/* Gets `n` items, noting each (an item is a string), after `before` s. */
typedef struct getter {
    taal_coro co;
    taal_queue *q;
    int i, n;
    double before;
    void *item;
} getter;

static int getter_body(taal_coro *self)
{
    getter *f = (getter *)self;
    TAAL_BEGIN(f);
    if (f->before > 0)
        TAAL_SLEEP(f->before);
    for (f->i = 0; f->i < f->n; f->i++) {
        TAAL_QUEUE_GET(f->q, f->item);
        note(f->item);
        taal_queue_task_done(f->q);
    }
    TAAL_END();
}

/* Puts its `n` items, each noted as it goes in, after `before` s. */
typedef struct putter {
    taal_coro co;
    taal_queue *q;
    const char *const *items;
    int i, n;
    double before;
} putter;

static int putter_body(taal_coro *self)
{
    putter *f = (putter *)self;
    TAAL_BEGIN(f);
    if (f->before > 0)
        TAAL_SLEEP(f->before);
    for (f->i = 0; f->i < f->n; f->i++) {
        TAAL_QUEUE_PUT(f->q, (void *)f->items[f->i]);
        note(">");
    }
    TAAL_END();
}

static taal_task *spawn(taal_loop *loop, taal_body_fn body, const void *frame,
                        size_t size)
{
    taal_task *task = NULL;
    taal_task_create(loop, body, frame, size, NULL, &task);
    return task;
}

static bool finish(taal_loop *loop, taal_task **tasks, int n)
{
    bool ok = true;
    for (int i = 0; i < n; i++) {
        ok = ok && taal_run_until_complete(loop, taal_task_future(tasks[i])) == TAAL_OK;
        taal_task_release(tasks[i]);
    }
    return ok && loop_is_empty(loop);
}

/* ---- without waiting ---------------------------------------------------------- */

TEST(put_and_get_without_waiting_are_fifo_and_say_full_and_empty)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q;
    CHECK_EQ(taal_queue_init(&q, &loop, 2, "q"), TAAL_OK);
    CHECK(taal_queue_empty(&q) && !taal_queue_full(&q));
    CHECK_EQ(taal_queue_put_nowait(&q, "a"), TAAL_OK);
    CHECK_EQ(taal_queue_put_nowait(&q, "b"), TAAL_OK);
    CHECK(taal_queue_full(&q));
    CHECK_EQ(taal_queue_put_nowait(&q, "c"), TAAL_EFULL);
    CHECK_EQ(taal_queue_qsize(&q), 2);
    void *item;
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_STR(item, "a");
    CHECK_EQ(taal_queue_put_nowait(&q, "c"), TAAL_OK); /* the ring wraps */
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_STR(item, "b");
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_STR(item, "c");
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_EEMPTY);
    CHECK_STR(taal_strerror(TAAL_EEMPTY), "queue is empty");
    CHECK_STR(taal_strerror(TAAL_EFULL), "queue is full");
    CHECK_EQ(taal_queue_destroy(&q), TAAL_OK);
    taal_loop_close(&loop);
}

TEST(an_unbounded_queue_grows_and_keeps_its_order)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q;
    taal_queue_init(&q, &loop, 0, NULL);
    static char items[1000];
    for (int round = 0; round < 3; round++) { /* wraps and grows both */
        for (int i = 0; i < 700; i++)
            CHECK_EQ(taal_queue_put_nowait(&q, &items[i]), TAAL_OK);
        CHECK(!taal_queue_full(&q));
        for (int i = 0; i < 700; i++) {
            void *item;
            CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
            CHECK(item == &items[i]);
        }
    }
    CHECK_EQ(taal_queue_destroy(&q), TAAL_OK);
    taal_loop_close(&loop);
}

/* ---- handing over ------------------------------------------------------------------ */

static const char *const abc[] = {"a", "b", "c"};

/* A getter waits; at 1 s a putter puts "a" and, in the same iteration, a
 * newcomer tries get_nowait: the item was handed to the waiter, so the
 * newcomer finds the queue empty. */
typedef struct snatcher {
    taal_coro co;
    taal_queue *q;
    int rc;
    size_t size;
    bool empty;
} snatcher;

static int snatcher_body(taal_coro *self)
{
    snatcher *f = (snatcher *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(1);
    void *item;
    f->rc = taal_queue_get_nowait(f->q, &item);
    f->size = taal_queue_qsize(f->q);
    f->empty = taal_queue_empty(f->q);
    TAAL_END();
}

TEST(a_put_hands_its_item_to_the_first_waiting_getter)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_queue q;
    taal_queue_init(&q, &loop, 4, "q");
    taal_task *t[3] = {
        spawn(&loop, getter_body, &(getter){.q = &q, .n = 1}, sizeof(getter)),
        spawn(&loop, putter_body, &(putter){.q = &q, .items = abc, .n = 1, .before = 1},
              sizeof(putter)),
        spawn(&loop, snatcher_body, &(snatcher){.q = &q}, sizeof(snatcher)),
    };
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t[2])), TAAL_OK);
    snatcher *s = taal_task_frame(t[2]);
    CHECK_EQ(s->rc, TAAL_EEMPTY);
    CHECK(s->empty);      /* a get would wait ... */
    CHECK_EQ(s->size, 1); /* ... though the item is still in, handed over */
    CHECK(finish(&loop, t, 3));
    CHECK_STR(trace, ">a");
    taal_queue_destroy(&q);
    taal_loop_close(&loop);
}

/* Two getters are woken in one iteration and a newcomer comes between: each
 * gets its own item, in the order the getters came. */
TEST(woken_getters_get_the_oldest_items_in_order_and_a_newcomer_the_next)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_queue q;
    taal_queue_init(&q, &loop, 0, "q");
    taal_task *t[4] = {
        spawn(&loop, getter_body, &(getter){.q = &q, .n = 1}, sizeof(getter)),
        spawn(&loop, getter_body, &(getter){.q = &q, .n = 1}, sizeof(getter)),
        spawn(&loop, putter_body, &(putter){.q = &q, .items = abc, .n = 3, .before = 1},
              sizeof(putter)),
        spawn(&loop, getter_body, &(getter){.q = &q, .n = 1, .before = 1},
              sizeof(getter)),
    };
    CHECK(finish(&loop, t, 4));
    /* a and b go to the two waiting getters; the newcomer, which runs in the
     * same iteration as the putter and before them, takes c. */
    CHECK_STR(trace, ">>>cab");
    taal_queue_destroy(&q);
    taal_loop_close(&loop);
}

TEST(a_get_hands_the_free_slot_to_the_first_waiting_putter)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_queue q;
    taal_queue_init(&q, &loop, 1, "q");
    static const char *const xy[] = {"x", "y"};
    static const char *const z[] = {"z"};
    taal_task *t[3] = {
        spawn(&loop, putter_body, &(putter){.q = &q, .items = xy, .n = 2},
              sizeof(putter)),
        spawn(&loop, getter_body, &(getter){.q = &q, .n = 3, .before = 1},
              sizeof(getter)),
        spawn(&loop, putter_body, &(putter){.q = &q, .items = z, .n = 1, .before = 1},
              sizeof(putter)),
    };
    CHECK(finish(&loop, t, 3));
    /* x goes in; y waits for a slot. At 1 s the getter takes x, which hands
     * the slot to y; z, a newcomer in the same iteration, finds it taken and
     * waits behind; then y, z come out in that order. */
    CHECK_STR(trace, ">x>y>z");
    taal_queue_destroy(&q);
    taal_loop_close(&loop);
}

/* ---- task_done and join
 * ---------------------------------------------------------------- */

typedef struct joiner {
    taal_coro co;
    taal_queue *q;
} joiner;

static int joiner_body(taal_coro *self)
{
    joiner *f = (joiner *)self;
    TAAL_BEGIN(f);
    TAAL_QUEUE_JOIN(f->q);
    note("J");
    TAAL_END();
}

/* Takes two items, marking each done only after a second of work. */
typedef struct worker {
    taal_coro co;
    taal_queue *q;
    int i;
    void *item;
} worker;

static int worker_body(taal_coro *self)
{
    worker *f = (worker *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < 2; f->i++) {
        TAAL_QUEUE_GET(f->q, f->item);
        note(f->item);
        TAAL_SLEEP(1);
        note("d");
        taal_queue_task_done(f->q);
    }
    TAAL_END();
}

TEST(join_returns_after_the_last_task_done_not_when_the_queue_is_empty)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_queue q;
    taal_queue_init(&q, &loop, 0, "jobs");
    taal_queue_put_nowait(&q, "a");
    taal_queue_put_nowait(&q, "b");
    taal_task *t[3] = {
        spawn(&loop, joiner_body, &(joiner){.q = &q}, sizeof(joiner)),
        spawn(&loop, joiner_body, &(joiner){.q = &q}, sizeof(joiner)),
        spawn(&loop, worker_body, &(worker){.q = &q}, sizeof(worker)),
    };
    CHECK(finish(&loop, t, 3));
    CHECK_STR(trace, "adbdJJ"); /* empty after "b", done only after its "d" */
    CHECK_EQ(taal_queue_task_done(&q), TAAL_ERELEASE); /* one too many */
    t[0] = spawn(&loop, joiner_body, &(joiner){.q = &q}, sizeof(joiner));
    CHECK(finish(&loop, t, 1)); /* nothing unfinished: at once */
    taal_queue_destroy(&q);
    taal_loop_close(&loop);
}

/* ---- in use until the tasks it woke have run -----------------------------------------
 */

/*
** A queue that has handed an item to a getter, a free slot to a putter, or
** "all done" to the tasks in join() is in use until they have run: each
** still has to collect from it. Destroying it before is refused, and
** changes nothing. (Issue 19: destroy freed the ring and said TAAL_OK; the
** woken getter then divided by the capacity, zero.)
*/
TEST(a_queue_is_in_use_until_the_getter_it_handed_an_item_has_run)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_queue q;
    taal_queue_init(&q, &loop, 2, "q");
    taal_task *t[1] = {
        spawn(&loop, getter_body, &(getter){.q = &q, .n = 1}, sizeof(getter))};
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* the getter waits */
    CHECK_EQ(taal_queue_put_nowait(&q, "x"), TAAL_OK);
    CHECK_EQ(taal_queue_destroy(&q), TAAL_EBUSY); /* "x" is the getter's */
    CHECK(finish(&loop, t, 1));
    CHECK_STR(trace, "x");
    CHECK_EQ(taal_queue_destroy(&q), TAAL_OK);
    taal_loop_close(&loop);
}

TEST(a_queue_is_in_use_until_the_putter_it_handed_a_slot_has_run)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_queue q;
    taal_queue_init(&q, &loop, 1, "q");
    taal_queue_put_nowait(&q, "a");
    taal_task *t[1] = {spawn(&loop, putter_body,
                             &(putter){.q = &q, .items = abc + 1, .n = 1},
                             sizeof(putter))};
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* the putter waits: full */
    void *item;
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_EQ(taal_queue_destroy(&q), TAAL_EBUSY); /* the slot is the putter's */
    CHECK(finish(&loop, t, 1));
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_STR(item, "b");
    CHECK_EQ(taal_queue_destroy(&q), TAAL_OK);
    taal_loop_close(&loop);
}

TEST(a_queue_is_in_use_until_the_joiners_it_woke_have_run)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_queue q;
    taal_queue_init(&q, &loop, 0, "q");
    taal_queue_put_nowait(&q, "a");
    taal_task *t[1] = {spawn(&loop, joiner_body, &(joiner){.q = &q}, sizeof(joiner))};
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* it waits for "a" to be done */
    void *item;
    taal_queue_get_nowait(&q, &item);
    CHECK_EQ(taal_queue_task_done(&q), TAAL_OK);
    CHECK_EQ(taal_queue_destroy(&q), TAAL_EBUSY);
    CHECK(finish(&loop, t, 1));
    CHECK_STR(trace, "J");
    CHECK_EQ(taal_queue_destroy(&q), TAAL_OK);
    taal_loop_close(&loop);
}

/* ---- a ring nobody destroyed ------------------------------------------------------- */

/* Makes a bounded queue in its own frame, then waits for ever. */
typedef struct hoarder {
    taal_coro co;
    taal_queue q;
    taal_event never;
} hoarder;

static int hoarder_body(taal_coro *self)
{
    hoarder *f = (hoarder *)self;
    TAAL_BEGIN(f);
    if (taal_queue_init(&f->q, taal_running_loop(), 64, "mine") != TAAL_OK)
        TAAL_FAIL(TAAL_EUSER);
    taal_queue_put_nowait(&f->q, "a");
    taal_event_init(&f->never, taal_running_loop(), "never");
    TAAL_EVENT_WAIT(&f->never);
    TAAL_END();
}

/* The task is still pending when the loop closes, which frees its frame
 * and the queue in it: the close frees the queue's ring too (issue 19:
 * it leaked). Every allocation is counted. */
TEST(closing_the_loop_frees_the_ring_of_a_queue_it_was_never_asked_to)
{
    static const taal_allocator counting = {taal_check_malloc, taal_check_realloc,
                                            taal_check_free};
    CHECK_EQ(taal_set_allocator(&counting), TAAL_OK);
    taal_check_alloc_reset(0);
    taal_loop loop;
    open_loop(&loop);
    taal_task *t = spawn(&loop, hoarder_body, &(hoarder){0}, sizeof(hoarder));
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK(taal_check_alloc_live() >= 2); /* the task, the ring */
    taal_loop_close(&loop);
    CHECK(strstr(reports, "was still pending when the loop closed") != NULL);
    taal_task_release(t);
    CHECK_EQ(taal_check_alloc_live(), 0);
    taal_set_allocator(NULL);
}

/* ---- reports and bad input
 * ------------------------------------------------------------- */

TEST(a_deadlock_report_says_what_a_queue_waiter_waits_for)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue in, out;
    taal_queue_init(&in, &loop, 1, "in");
    taal_queue_init(&out, &loop, 0, NULL);
    taal_queue_put_nowait(&in, "x");
    static const char *const y[] = {"y"};
    taal_task *t[3] = {
        spawn(&loop, putter_body, &(putter){.q = &in, .items = y, .n = 1},
              sizeof(putter)),
        spawn(&loop, getter_body, &(getter){.q = &out, .n = 1}, sizeof(getter)),
        spawn(&loop, joiner_body, &(joiner){.q = &in}, sizeof(joiner)),
    };
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t[0])), TAAL_EDEADLOCK);
    CHECK(strstr(reports,
                 "waits for queue \"in\" to put into (full: 1 of 1, 1 waiting)\n"));
    CHECK(strstr(reports, "waits for a queue to get from (empty, 1 waiting)\n"));
    CHECK(
        strstr(reports, "waits for queue \"in\" to be done (1 unfinished, 1 waiting)\n"));
    CHECK_EQ(taal_queue_destroy(&in), TAAL_EBUSY);
    taal_loop_close(&loop);
    for (int i = 0; i < 3; i++)
        taal_task_release(t[i]);
    CHECK_EQ(taal_queue_destroy(&in), TAAL_OK);
    CHECK_EQ(taal_queue_destroy(&out), TAAL_OK);
}

TEST(queue_bad_input_is_refused_with_a_code)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q, zeroed = {0};
    void *item;
    CHECK_EQ(taal_queue_init(NULL, &loop, 1, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_queue_init(&q, NULL, 1, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_queue_init(&q, &loop, SIZE_MAX, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_queue_put_nowait(&zeroed, "x"), TAAL_EINVAL);
    CHECK_EQ(taal_queue_get_nowait(&zeroed, &item), TAAL_EINVAL);
    CHECK_EQ(taal_queue_task_done(&zeroed), TAAL_EINVAL);
    CHECK_EQ(taal_queue_destroy(&zeroed), TAAL_EINVAL);
    CHECK(taal_queue_empty(&zeroed) && !taal_queue_full(&zeroed));
    CHECK_EQ(taal_queue_qsize(NULL), 0);
    taal_queue_init(&q, &loop, 1, NULL);
    CHECK_EQ(taal_queue_get_nowait(&q, NULL), TAAL_EINVAL);
    CHECK_EQ(taal__queue_get(&q, &item), TAAL_ENOTASK);
    CHECK_EQ(taal_queue_destroy(&q), TAAL_OK);
    CHECK_EQ(taal_queue_put_nowait(&q, "x"), TAAL_EINVAL); /* destroyed */
    taal_queue_init(&q, &loop, 1, NULL);
    taal_loop_close(&loop);
    CHECK_EQ(taal_queue_put_nowait(&q, "x"), TAAL_ECLOSED);
    CHECK_EQ(taal_queue_destroy(&q), TAAL_OK);
}

static const taal_test tests[] = {
    TEST_ENTRY(put_and_get_without_waiting_are_fifo_and_say_full_and_empty),
    TEST_ENTRY(an_unbounded_queue_grows_and_keeps_its_order),
    TEST_ENTRY(a_put_hands_its_item_to_the_first_waiting_getter),
    TEST_ENTRY(woken_getters_get_the_oldest_items_in_order_and_a_newcomer_the_next),
    TEST_ENTRY(a_get_hands_the_free_slot_to_the_first_waiting_putter),
    TEST_ENTRY(join_returns_after_the_last_task_done_not_when_the_queue_is_empty),
    TEST_ENTRY(a_queue_is_in_use_until_the_getter_it_handed_an_item_has_run),
    TEST_ENTRY(a_queue_is_in_use_until_the_putter_it_handed_a_slot_has_run),
    TEST_ENTRY(a_queue_is_in_use_until_the_joiners_it_woke_have_run),
    TEST_ENTRY(closing_the_loop_frees_the_ring_of_a_queue_it_was_never_asked_to),
    TEST_ENTRY(a_deadlock_report_says_what_a_queue_waiter_waits_for),
    TEST_ENTRY(queue_bad_input_is_refused_with_a_code),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
