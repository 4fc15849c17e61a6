/*
** test_queue.c -- lab 03, exercise 3: the queue's put_nowait and
** get_nowait (the LAB(queue) hole in src/sync.c).
**
** The rules: put_nowait puts the item in if a slot is free, else says
** TAAL_EFULL (a slot handed to a woken putter is not free); get_nowait
** takes the oldest item nobody was handed, else says TAAL_EEMPTY; an item
** put while a getter waits is handed to the first one, and the slot a get
** frees is handed to the first waiting putter. Each test checks the queue
** right after each call.
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

static taal_task *spawn_getter(taal_loop *loop, taal_queue *q)
{
    return spawn(loop, getter_body, &(getter){.q = q}, sizeof(getter), "getter");
}

TEST(put_nowait_and_get_nowait_are_fifo_and_say_full_and_empty)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q;
    CHECK_EQ(taal_queue_init(&q, &loop, 2, "q"), TAAL_OK);
    CHECK(taal_queue_empty(&q) && !taal_queue_full(&q));
    CHECK_EQ(taal_queue_put_nowait(&q, "a"), TAAL_OK);
    CHECK(!taal_queue_empty(&q) && !taal_queue_full(&q));
    CHECK_EQ(taal_queue_put_nowait(&q, "b"), TAAL_OK);
    CHECK(taal_queue_full(&q));
    CHECK_EQ(taal_queue_put_nowait(&q, "c"), TAAL_EFULL);
    CHECK_EQ(taal_queue_qsize(&q), 2); /* the refused item is not in */
    void *item = NULL;
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_STR(item, "a");
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_STR(item, "b");
    item = NULL;
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_EEMPTY);
    CHECK(item == NULL); /* untouched */
    CHECK_EQ(taal_queue_qsize(&q), 0);
    CHECK_EQ(taal_queue_destroy(&q), TAAL_OK);
    taal_loop_close(&loop);
}

TEST(the_ring_wraps_around_and_keeps_the_order)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q;
    taal_queue_init(&q, &loop, 3, "q");
    static char items[40];
    int in = 0, out = 0;
    for (int round = 0; round < 10; round++) { /* two in, two out, from a ring of 3 */
        for (int k = 0; k < 2; k++)
            CHECK_EQ(taal_queue_put_nowait(&q, &items[in++]), TAAL_OK);
        CHECK_EQ(taal_queue_qsize(&q), 2);
        for (int k = 0; k < 2; k++) {
            void *item;
            CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
            CHECK(item == &items[out++]);
        }
    }
    CHECK_EQ(taal_queue_destroy(&q), TAAL_OK);
    taal_loop_close(&loop);
}

TEST(an_unbounded_queue_is_never_full)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q;
    taal_queue_init(&q, &loop, 0, "q");
    static char items[100];
    for (int i = 0; i < 100; i++) {
        CHECK_EQ(taal_queue_put_nowait(&q, &items[i]), TAAL_OK);
        CHECK(!taal_queue_full(&q));
    }
    CHECK_EQ(taal_queue_qsize(&q), 100);
    for (int i = 0; i < 100; i++) {
        void *item;
        CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
        CHECK(item == &items[i]);
    }
    CHECK_EQ(taal_queue_destroy(&q), TAAL_OK);
    taal_loop_close(&loop);
}

/* A getter waits; put_nowait hands it the item: a get_nowait right after
 * finds nothing to take, though the item is still in the queue. */
TEST(put_nowait_hands_its_item_to_the_first_waiting_getter)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q;
    taal_queue_init(&q, &loop, 4, "q");
    taal_task *t = spawn_getter(&loop, &q);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* it waits */
    CHECK_EQ(taal_queue_put_nowait(&q, "a"), TAAL_OK);
    CHECK_EQ(q.items_handed, 1);
    CHECK(taal_queue_empty(&q));       /* a get would wait... */
    CHECK_EQ(taal_queue_qsize(&q), 1); /* ...though the item is in, handed over */
    void *item = NULL;
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_EEMPTY);
    CHECK(finish(&loop, &t, 1));
    CHECK_STR(trace, "a");
    CHECK_EQ(taal_queue_qsize(&q), 0);
    CHECK_EQ(q.items_handed, 0);
    taal_queue_destroy(&q);
    taal_loop_close(&loop);
}

/* Two getters wait; three items come: the first two are theirs, in order,
 * and get_nowait takes the third, not one of theirs. */
TEST(get_nowait_skips_the_items_handed_to_woken_getters)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q;
    taal_queue_init(&q, &loop, 0, "q");
    taal_task *t[2] = {spawn_getter(&loop, &q), spawn_getter(&loop, &q)};
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* both wait */
    CHECK_EQ(taal_queue_put_nowait(&q, "a"), TAAL_OK);
    CHECK_EQ(taal_queue_put_nowait(&q, "b"), TAAL_OK);
    CHECK_EQ(taal_queue_put_nowait(&q, "c"), TAAL_OK);
    CHECK_EQ(q.items_handed, 2);
    CHECK(!taal_queue_empty(&q));
    void *item = NULL;
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_STR(item, "c");
    CHECK_EQ(q.items_handed, 2); /* still theirs */
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_EEMPTY);
    CHECK(finish(&loop, t, 2));
    CHECK_STR(trace, "ab");
    taal_queue_destroy(&q);
    taal_loop_close(&loop);
}

/* The queue holds x; a putter waits to put y. get_nowait frees x's slot
 * and hands it to the putter: a put_nowait right after finds it full. */
TEST(get_nowait_hands_the_freed_slot_to_the_first_waiting_putter)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q;
    taal_queue_init(&q, &loop, 1, "q");
    CHECK_EQ(taal_queue_put_nowait(&q, "x"), TAAL_OK);
    taal_task *t =
        spawn(&loop, putter_body, &(putter){.q = &q, .item = "y"}, sizeof(putter), "p");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* the putter waits */
    void *item = NULL;
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_STR(item, "x");
    CHECK_EQ(q.slots_handed, 1);
    CHECK(taal_queue_full(&q)); /* the slot is the putter's */
    CHECK_EQ(taal_queue_put_nowait(&q, "z"), TAAL_EFULL);
    CHECK(finish(&loop, &t, 1));
    CHECK_STR(trace, ">");
    CHECK_EQ(q.slots_handed, 0);
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_STR(item, "y");
    taal_queue_destroy(&q);
    taal_loop_close(&loop);
}

TEST(every_item_put_is_unfinished_until_task_done)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q;
    taal_queue_init(&q, &loop, 2, "q");
    CHECK_EQ(taal_queue_put_nowait(&q, "a"), TAAL_OK);
    CHECK_EQ(taal_queue_put_nowait(&q, "b"), TAAL_OK);
    CHECK_EQ(taal_queue_put_nowait(&q, "c"), TAAL_EFULL); /* refused: not counted */
    CHECK_EQ(q.unfinished, 2);
    void *item;
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_OK);
    CHECK_EQ(q.unfinished, 2); /* taken is not done */
    CHECK_EQ(taal_queue_task_done(&q), TAAL_OK);
    CHECK_EQ(taal_queue_task_done(&q), TAAL_OK);
    CHECK_EQ(taal_queue_task_done(&q), TAAL_ERELEASE);
    taal_queue_destroy(&q);
    taal_loop_close(&loop);
}

TEST(bad_arguments_and_a_closed_loop_are_refused)
{
    taal_loop loop;
    open_loop(&loop);
    taal_queue q, zeroed = {0};
    void *item;
    taal_queue_init(&q, &loop, 1, NULL);
    CHECK_EQ(taal_queue_put_nowait(&q, "x"), TAAL_OK);
    CHECK_EQ(taal_queue_get_nowait(&q, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_queue_qsize(&q), 1); /* nothing was taken */
    CHECK_EQ(taal_queue_put_nowait(&zeroed, "x"), TAAL_EINVAL);
    CHECK_EQ(taal_queue_get_nowait(&zeroed, &item), TAAL_EINVAL);
    taal_loop_close(&loop);
    CHECK_EQ(taal_queue_put_nowait(&q, "y"), TAAL_ECLOSED);
    CHECK_EQ(taal_queue_get_nowait(&q, &item), TAAL_ECLOSED);
    CHECK_EQ(taal_queue_destroy(&q), TAAL_OK);
}

static const taal_test tests[] = {
    TEST_ENTRY(put_nowait_and_get_nowait_are_fifo_and_say_full_and_empty),
    TEST_ENTRY(the_ring_wraps_around_and_keeps_the_order),
    TEST_ENTRY(an_unbounded_queue_is_never_full),
    TEST_ENTRY(put_nowait_hands_its_item_to_the_first_waiting_getter),
    TEST_ENTRY(get_nowait_skips_the_items_handed_to_woken_getters),
    TEST_ENTRY(get_nowait_hands_the_freed_slot_to_the_first_waiting_putter),
    TEST_ENTRY(every_item_put_is_unfinished_until_task_done),
    TEST_ENTRY(bad_arguments_and_a_closed_loop_are_refused),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
