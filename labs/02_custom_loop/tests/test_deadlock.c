/*
** test_deadlock.c -- lab 02, exercise 4: a deadlock report that names
** what a gather still waits for.
**
** When nothing is ready and no timer is set, the loop reports a deadlock
** and, for each task parked on a future, one line "  <task> waits for
** <what>". For a gather, <what> said how many children were not done; now
** it names them:
**
**   waits for a gather of 3 (not done: b, a future)
**
** each task child by its name, every other future as the report describes
** it elsewhere ("a future", "a gather of ...").
*/
#include "lab.h"

/* A task that waits for `on` (which never completes, here). */
typedef struct waiter {
    taal_coro co;
    taal_future *on;
} waiter;

static int waiter_body(taal_coro *self)
{
    waiter *f = (waiter *)self;
    TAAL_BEGIN(f);
    TAAL_AWAIT_FUTURE(f->on);
    TAAL_END();
}

static taal_task *spawn_waiter(taal_loop *loop, taal_future *on, const char *name)
{
    waiter frame = {.on = on};
    taal_task *task = NULL;
    taal_task_create(loop, waiter_body, &frame, sizeof frame, name, &task);
    return task;
}

/* A task that finishes at its first step. */
typedef struct quick {
    taal_coro co;
} quick;

static int quick_body(taal_coro *self)
{
    quick *f = (quick *)self;
    TAAL_BEGIN(f);
    TAAL_END();
}

TEST(the_report_names_the_children_not_done)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future never, plain;
    taal_future_init(&never, &loop);
    taal_future_init(&plain, &loop);
    taal_task *a = NULL;
    taal_task_create(&loop, quick_body, NULL, sizeof(quick), "a", &a);
    taal_task *b = spawn_waiter(&loop, &never, "b");
    taal_future *children[3] = {taal_task_future(a), taal_task_future(b), &plain};
    taal_future *g = NULL;
    CHECK_EQ(taal_gather(&loop, 3, children, &g), TAAL_OK);
    taal_task *main_task = spawn_waiter(&loop, g, "main");
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(main_task)), TAAL_EDEADLOCK);
    CHECK(strstr(reports, "  main waits for a gather of 3 (not done: b, a future)\n") !=
          NULL);
    CHECK(strstr(reports, "  b waits for a future\n") != NULL); /* unchanged */
    taal_future_release(g);
    taal_task_release(a);
    taal_task_release(b);
    taal_task_release(main_task);
    taal_loop_close(&loop);
}

TEST(a_gather_inside_a_gather_is_described_too)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future never;
    taal_future_init(&never, &loop);
    taal_task *x = spawn_waiter(&loop, &never, "x");
    taal_future *inner_children[1] = {taal_task_future(x)};
    taal_future *inner = NULL, *outer = NULL;
    CHECK_EQ(taal_gather(&loop, 1, inner_children, &inner), TAAL_OK);
    taal_future *outer_children[1] = {inner};
    CHECK_EQ(taal_gather(&loop, 1, outer_children, &outer), TAAL_OK);
    taal_task *main_task = spawn_waiter(&loop, outer, "main");
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(main_task)), TAAL_EDEADLOCK);
    CHECK(strstr(reports, "  main waits for a gather of 1 (not done: a gather of 1") !=
          NULL);
    taal_future_release(outer);
    taal_future_release(inner);
    taal_task_release(x);
    taal_task_release(main_task);
    taal_loop_close(&loop);
}

/* Forty children with long names: the line is cut short, never overrun. */
TEST(a_long_list_is_cut_short_safely)
{
    taal_loop loop;
    open_loop(&loop);
    taal_future never;
    taal_future_init(&never, &loop);
    enum { N = 40 };
    taal_task *kids[N];
    taal_future *children[N];
    for (int i = 0; i < N; i++) {
        kids[i] = spawn_waiter(&loop, &never, "a-child-with-a-rather-long-name");
        children[i] = taal_task_future(kids[i]);
    }
    taal_future *g = NULL;
    CHECK_EQ(taal_gather(&loop, N, children, &g), TAAL_OK);
    taal_task *main_task = spawn_waiter(&loop, g, "main");
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(main_task)), TAAL_EDEADLOCK);
    const char *line = strstr(reports, "  main waits for a gather of 40 (not done: ");
    CHECK(line != NULL);
    CHECK(strchr(line, '\n') != NULL); /* the line ended */
    taal_future_release(g);
    for (int i = 0; i < N; i++)
        taal_task_release(kids[i]);
    taal_task_release(main_task);
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(the_report_names_the_children_not_done),
    TEST_ENTRY(a_gather_inside_a_gather_is_described_too),
    TEST_ENTRY(a_long_list_is_cut_short_safely),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
