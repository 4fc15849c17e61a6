/*
** test_event.c -- lab 03, exercise 2: the event's set and wait (the
** LAB(event) hole in src/sync.c).
**
** The rules: a wait on a set event returns at once, without suspending;
** set() wakes every waiting task, in the order they came, and each of them
** runs even if clear() follows at once (a pulse); a task that comes after
** the clear() waits for the next set(). The tests drive the loop one
** iteration at a time, so they can say what ran in which.
*/
#include "lab.h"

/* Notes "<label>", waits for the event, notes "<label>" again. */
typedef struct waiter {
    taal_coro co;
    taal_event *event;
    const char *label;
} waiter;

static int waiter_body(taal_coro *self)
{
    waiter *f = (waiter *)self;
    TAAL_BEGIN(f);
    note(f->label);
    TAAL_EVENT_WAIT(f->event);
    note(f->label);
    TAAL_END();
}

static taal_task *spawn_waiter(taal_loop *loop, taal_event *event, const char *label)
{
    waiter frame = {.event = event, .label = label};
    return spawn(loop, waiter_body, &frame, sizeof frame, label);
}

static int bystander_body(taal_coro *self)
{
    plain *f = (plain *)self;
    TAAL_BEGIN(f);
    note("b");
    TAAL_END();
}

TEST(a_wait_on_a_set_event_returns_at_once)
{
    taal_loop loop;
    open_loop(&loop);
    taal_event event;
    CHECK_EQ(taal_event_init(&event, &loop, "go"), TAAL_OK);
    CHECK_EQ(taal_event_set(&event), TAAL_OK);
    CHECK(taal_event_is_set(&event));
    taal_task *t[2] = {
        spawn_waiter(&loop, &event, "w"),
        spawn(&loop, bystander_body, NULL, sizeof(plain), "b"),
    };
    CHECK(finish(&loop, t, 2));
    CHECK_STR(trace, "wwb");          /* a suspension lets b in: "wbw" */
    CHECK(taal_event_is_set(&event)); /* waiting takes nothing */
    CHECK_EQ(taal_event_destroy(&event), TAAL_OK);
    taal_loop_close(&loop);
}

TEST(a_wait_on_a_clear_event_waits_for_set)
{
    taal_loop loop;
    open_loop(&loop);
    taal_event event;
    taal_event_init(&event, &loop, "go");
    taal_task *t = spawn_waiter(&loop, &event, "w");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "w");
    /* It waits, and nothing else can run. */
    CHECK_EQ(taal_run_once(&loop), TAAL_EDEADLOCK);
    CHECK(strstr(reports, "w waits for event \"go\" (not set, 1 waiting)") != NULL);
    CHECK_EQ(taal_event_set(&event), TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "ww");
    CHECK(finish(&loop, &t, 1));
    taal_loop_close(&loop);
}

TEST(set_wakes_every_waiter_in_the_order_they_came)
{
    taal_loop loop;
    open_loop(&loop);
    taal_event event;
    taal_event_init(&event, &loop, "go");
    taal_task *t[3] = {
        spawn_waiter(&loop, &event, "1"),
        spawn_waiter(&loop, &event, "2"),
        spawn_waiter(&loop, &event, "3"),
    };
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* all three wait */
    CHECK_STR(trace, "123");
    CHECK_EQ(taal_event_set(&event), TAAL_OK);
    CHECK(taal_event_is_set(&event));
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* all three run, in one iteration */
    CHECK_STR(trace, "123123");
    CHECK(finish(&loop, t, 3));
    CHECK_EQ(taal_event_destroy(&event), TAAL_OK); /* nobody is left waiting */
    taal_loop_close(&loop);
}

TEST(a_pulse_wakes_the_waiters_but_not_a_latecomer)
{
    taal_loop loop;
    open_loop(&loop);
    taal_event event;
    taal_event_init(&event, &loop, "go");
    taal_task *t[3] = {
        spawn_waiter(&loop, &event, "1"),
        spawn_waiter(&loop, &event, "2"),
    };
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_EQ(taal_event_set(&event), TAAL_OK);
    CHECK_EQ(taal_event_clear(&event), TAAL_OK); /* a pulse */
    CHECK(!taal_event_is_set(&event));
    t[2] = spawn_waiter(&loop, &event, "L"); /* comes after the clear */
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(trace, "1212L"); /* 1 and 2 were woken: they run; L waits */
    CHECK_EQ(taal_event_destroy(&event), TAAL_EBUSY);
    CHECK_EQ(taal_event_set(&event), TAAL_OK);
    CHECK(finish(&loop, t, 3));
    CHECK_STR(trace, "1212LL");
    taal_loop_close(&loop);
}

TEST(set_and_clear_change_only_the_flag_when_nobody_waits)
{
    taal_loop loop;
    open_loop(&loop);
    taal_event event;
    taal_event_init(&event, &loop, NULL);
    CHECK(!taal_event_is_set(&event));
    CHECK_EQ(taal_event_set(&event), TAAL_OK);
    CHECK_EQ(taal_event_set(&event), TAAL_OK); /* twice is fine */
    CHECK(taal_event_is_set(&event));
    CHECK_EQ(taal_event_clear(&event), TAAL_OK);
    CHECK(!taal_event_is_set(&event));
    CHECK_EQ(taal_event_destroy(&event), TAAL_OK);
    CHECK_EQ(taal_event_set(&event), TAAL_EINVAL); /* destroyed */
    taal_loop_close(&loop);
}

TEST(waiting_outside_a_task_or_on_another_loop_is_refused)
{
    taal_loop loop, other;
    open_loop(&loop);
    open_loop(&other);
    taal_event event, theirs;
    taal_event_init(&event, &loop, NULL);
    taal_event_init(&theirs, &other, NULL);
    CHECK_EQ(taal__event_wait(&event), TAAL_ENOTASK);
    taal_task *t = spawn_waiter(&loop, &theirs, "x");
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_ELOOP);
    taal_task_release(t);
    CHECK_EQ(taal_event_destroy(&theirs), TAAL_OK); /* nobody waits on it */
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
    CHECK_EQ(taal_event_set(&event), TAAL_ECLOSED);
    taal_loop_close(&other);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_wait_on_a_set_event_returns_at_once),
    TEST_ENTRY(a_wait_on_a_clear_event_waits_for_set),
    TEST_ENTRY(set_wakes_every_waiter_in_the_order_they_came),
    TEST_ENTRY(a_pulse_wakes_the_waiters_but_not_a_latecomer),
    TEST_ENTRY(set_and_clear_change_only_the_flag_when_nobody_waits),
    TEST_ENTRY(waiting_outside_a_task_or_on_another_loop_is_refused),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
