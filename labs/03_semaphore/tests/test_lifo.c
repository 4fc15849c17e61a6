/*
** test_lifo.c -- lab 03, exercise 5: a LIFO queue, asyncio's LifoQueue.
**
**   int taal_lifo_queue_init(taal_queue *queue, taal_loop *loop,
**                            size_t maxsize, const char *name);
**
** makes a queue whose gets take the newest item; everything else (put,
** get, their _nowait forms, full and empty, task_done, join, destroy) is the
** queue's own. Handing over still holds: an item put while a getter waits
** is that getter's, and no later get may take it, however new it is; a
** freed slot goes to the first waiting putter.
**
** This file does not compile until taal_lifo_queue_init exists: that
** fails this exercise only.
*/
#include "lab.h"

/* Gets one item with TAAL_QUEUE_GET and notes it (items are strings). */
typedef struct getter {
    taal_coro co;
    taal_queue *q;
    void *item;
} getter;

static int getter_body(taal_coro *self)
{
    getter *f = (getter *)self;
    TAAL_BEGIN(f);
    TAAL_QUEUE_GET(f->q, f->item);
    note(f->item);
    TAAL_END();
}

static taal_task *spawn_getter(taal_loop *loop, taal_queue *q)
{
    return spawn(loop, getter_body, &(getter){.q = q}, sizeof(getter), "getter");
}

/* Puts one item with TAAL_QUEUE_PUT and notes ">". */
typedef struct putter {
    taal_coro co;
    taal_queue *q;
    const char *item;
} putter;

static int putter_body(taal_coro *self)
{
    putter *f = (putter *)self;
    TAAL_BEGIN(f);
    TAAL_QUEUE_PUT(f->q, (void *)f->item);
    note(">");
    TAAL_END();
}

TEST(gets_take_the_newest_item)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q;
    CHECK_EQ(taal_lifo_queue_init(&q, &loop, 4, "stack"), TAAL_OK);
    CHECK_EQ(taal_queue_put_nowait(&q, "1"), TAAL_OK);
    CHECK_EQ(taal_queue_put_nowait(&q, "2"), TAAL_OK);
    CHECK_EQ(taal_queue_put_nowait(&q, "3"), TAAL_OK);
    void *item = NULL;
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_STR(item, "3");
    CHECK_EQ(taal_queue_qsize(&q), 2);
    /* An awaited get takes the newest too, without waiting. */
    taal_task *t = spawn_getter(&loop, &q);
    CHECK(finish(&loop, &t, 1));
    CHECK_STR(trace, "2");
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_STR(item, "1");
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_EEMPTY);
    CHECK_EQ(taal_queue_destroy(&q), TAAL_OK);
    taal_loop_close(&loop);
}

TEST(a_bounded_lifo_queue_is_full_at_maxsize_and_reuses_its_slots)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q;
    taal_lifo_queue_init(&q, &loop, 2, "stack");
    static char items[64];
    void *item;
    for (int round = 0; round < 20; round++) { /* two in, one out */
        CHECK_EQ(taal_queue_put_nowait(&q, &items[2 * round]), TAAL_OK);
        CHECK_EQ(taal_queue_put_nowait(&q, &items[2 * round + 1]), TAAL_OK);
        CHECK(taal_queue_full(&q));
        CHECK_EQ(taal_queue_put_nowait(&q, "x"), TAAL_EFULL);
        CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
        CHECK(item == &items[2 * round + 1]);
        CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
        CHECK(item == &items[2 * round]);
    }
    CHECK_EQ(taal_queue_destroy(&q), TAAL_OK);
    taal_loop_close(&loop);
}

TEST(an_unbounded_lifo_queue_grows_and_gives_back_newest_first)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q;
    taal_lifo_queue_init(&q, &loop, 0, NULL);
    static char items[100];
    for (int i = 0; i < 100; i++)
        CHECK_EQ(taal_queue_put_nowait(&q, &items[i]), TAAL_OK);
    for (int i = 99; i >= 0; i--) {
        void *item;
        CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
        CHECK(item == &items[i]);
    }
    CHECK_EQ(taal_queue_destroy(&q), TAAL_OK);
    taal_loop_close(&loop);
}

/* A getter waits; x is put, and handed to it; y is put after. A get then
 * takes y, the newest item nobody was handed, and the getter gets x. */
TEST(an_item_handed_to_a_waiting_getter_stays_its_own)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q;
    taal_lifo_queue_init(&q, &loop, 0, "stack");
    taal_task *t = spawn_getter(&loop, &q);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* it waits */
    CHECK_EQ(taal_queue_put_nowait(&q, "x"), TAAL_OK);
    CHECK_EQ(taal_queue_put_nowait(&q, "y"), TAAL_OK);
    void *item = NULL;
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_STR(item, "y");
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_EEMPTY); /* x is the getter's */
    CHECK(finish(&loop, &t, 1));
    CHECK_STR(trace, "x");
    taal_queue_destroy(&q);
    taal_loop_close(&loop);
}

/* Two getters wait; a, b, c are put: a and b are theirs, in the order they
 * came; c is free, and the next get takes it. */
TEST(getters_woken_together_get_their_items_in_the_order_they_came)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q;
    taal_lifo_queue_init(&q, &loop, 0, "stack");
    taal_task *t[2] = {spawn_getter(&loop, &q), spawn_getter(&loop, &q)};
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_EQ(taal_queue_put_nowait(&q, "a"), TAAL_OK);
    CHECK_EQ(taal_queue_put_nowait(&q, "b"), TAAL_OK);
    CHECK_EQ(taal_queue_put_nowait(&q, "c"), TAAL_OK);
    void *item = NULL;
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_STR(item, "c");
    CHECK(finish(&loop, t, 2));
    CHECK_STR(trace, "ab");
    CHECK_EQ(taal_queue_qsize(&q), 0);
    taal_queue_destroy(&q);
    taal_loop_close(&loop);
}

TEST(a_get_hands_the_freed_slot_to_the_first_waiting_putter)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q;
    taal_lifo_queue_init(&q, &loop, 1, "stack");
    CHECK_EQ(taal_queue_put_nowait(&q, "x"), TAAL_OK);
    taal_task *t =
        spawn(&loop, putter_body, &(putter){.q = &q, .item = "y"}, sizeof(putter), "p");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* the putter waits */
    void *item = NULL;
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_STR(item, "x");
    CHECK(taal_queue_full(&q)); /* the slot is the putter's */
    CHECK_EQ(taal_queue_put_nowait(&q, "z"), TAAL_EFULL);
    CHECK(finish(&loop, &t, 1));
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_STR(item, "y");
    taal_queue_destroy(&q);
    taal_loop_close(&loop);
}

TEST(a_plain_queue_is_still_first_in_first_out)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue fifo, lifo;
    taal_queue_init(&fifo, &loop, 0, "fifo");
    taal_lifo_queue_init(&lifo, &loop, 0, "lifo");
    const char *items[] = {"1", "2", "3"};
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(taal_queue_put_nowait(&fifo, (void *)items[i]), TAAL_OK);
        CHECK_EQ(taal_queue_put_nowait(&lifo, (void *)items[i]), TAAL_OK);
    }
    for (int i = 0; i < 3; i++) {
        void *a, *b;
        CHECK_EQ(taal_queue_get_nowait(&fifo, &a), TAAL_OK);
        CHECK_EQ(taal_queue_get_nowait(&lifo, &b), TAAL_OK);
        CHECK_STR(a, items[i]);
        CHECK_STR(b, items[2 - i]);
    }
    CHECK_EQ(taal_lifo_queue_init(NULL, &loop, 1, NULL), TAAL_EINVAL);
    taal_queue_destroy(&fifo);
    taal_queue_destroy(&lifo);
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(gets_take_the_newest_item),
    TEST_ENTRY(a_bounded_lifo_queue_is_full_at_maxsize_and_reuses_its_slots),
    TEST_ENTRY(an_unbounded_lifo_queue_grows_and_gives_back_newest_first),
    TEST_ENTRY(an_item_handed_to_a_waiting_getter_stays_its_own),
    TEST_ENTRY(getters_woken_together_get_their_items_in_the_order_they_came),
    TEST_ENTRY(a_get_hands_the_freed_slot_to_the_first_waiting_putter),
    TEST_ENTRY(a_plain_queue_is_still_first_in_first_out),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
