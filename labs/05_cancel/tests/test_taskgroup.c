/*
** test_taskgroup.c -- lab 05, exercise 4: the task group's rules.
**
**   tg_child_failed()   a child failed: its error joins the list; the first
**                       failure cancels the siblings, and the parent (in its
**                       body, or already joining)
**   tg_end()            every child is done: the group takes back the cancel
**                       it made, and says how it went
**
** The outcome, as asyncio 3.13's TaskGroup has it: TAAL_EGROUP if a child
** failed or the body left with an error of its own, every error readable in
** the order they came; TAAL_ECANCELLED if the parent was cancelled from
** outside and nothing failed; TAAL_OK otherwise (a child cancelled on its
** own is no failure). The group's own cancel of the parent is taken back
** (cancelling() as before), and a cancel from outside that came during a
** failing join is not lost: the parent's next await still sees it.
*/
#include "lab.h"

static double now(void)
{
    return taal_loop_time(taal_running_loop());
}

/* A child: sleeps `seconds`, notes "<name>", then fails with `error`
 * (noting "!") unless it is TAAL_OK. Cancelled, it notes "x", cleans up
 * for `cleanup` seconds, and re-raises. */
typedef struct plan {
    const char *name;
    double seconds, cleanup;
    int error;
} plan;

typedef struct child {
    taal_coro co;
    plan p;
    int st;
} child;

static int child_body(taal_coro *self)
{
    child *f = (child *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP_STATUS(f->st, f->p.seconds);
    note(f->p.name);
    if (f->st != TAAL_OK) {
        note("x");
        if (f->p.cleanup > 0)
            TAAL_SLEEP_STATUS(f->st, f->p.cleanup);
        TAAL_FAIL(TAAL_ECANCELLED);
    }
    if (f->p.error != TAAL_OK) {
        note("!");
        TAAL_FAIL(f->p.error);
    }
    TAAL_END();
}

/*
** A parent: makes its children from `plans`, cancels child `cancel_child`
** at once if it is not -1, sleeps `body` seconds (noting "B" if that sleep
** was cancelled), leaves the body with `body_error` if it is not TAAL_OK,
** joins, keeps what it saw, and awaits once more (a sleep(0)), to see
** whether a cancellation is still pending.
*/
typedef struct parent {
    taal_coro co;
    const plan *plans;
    int count, cancel_child;
    double body;
    int body_error;
    taal_taskgroup tg;
    taal_task *kids[4];
    int i, st, body_st, after, cancelling_after, errors[4];
    size_t error_count;
    char failed[4][8]; /* the children that failed; "" for the body */
    double body_at, join_at;
} parent;

static void keep_errors(parent *f)
{
    f->error_count = taal_taskgroup_error_count(&f->tg);
    for (size_t i = 0; i < f->error_count && i < 4; i++) {
        taal_task *task;
        f->errors[i] = taal_taskgroup_error(&f->tg, i, &task);
        if (task != NULL)
            taal_task_name(task, f->failed[i], sizeof f->failed[i]);
    }
}

static int parent_body(taal_coro *self)
{
    parent *f = (parent *)self;
    TAAL_BEGIN(f);
    f->st = taal_taskgroup_init(&f->tg);
    for (f->i = 0; f->i < f->count && f->st == TAAL_OK; f->i++)
        f->st = taal_taskgroup_create_task(&f->tg, child_body,
                                           &(child){.p = f->plans[f->i]}, sizeof(child),
                                           f->plans[f->i].name, &f->kids[f->i]);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    if (f->cancel_child >= 0)
        taal_task_cancel(f->kids[f->cancel_child]);
    f->body_st = TAAL_OK;
    if (f->body > 0)
        TAAL_SLEEP_STATUS(f->body_st, f->body);
    f->body_at = now();
    if (f->body_st == TAAL_ECANCELLED)
        note("B");
    f->st = f->body_st != TAAL_OK ? f->body_st : f->body_error;
    TAAL_TASKGROUP_JOIN_STATUS(f->st, &f->tg);
    f->join_at = now();
    f->cancelling_after = taal_task_cancelling(taal_current_task());
    keep_errors(f);
    taal_taskgroup_destroy(&f->tg);
    TAAL_SLEEP_STATUS(f->after, 0);
    TAAL_FAIL(f->st);
    TAAL_END();
}

static taal_task *spawn_parent(taal_loop *loop, parent frame)
{
    taal_task *task = NULL;
    taal_task_create(loop, parent_body, &frame, sizeof frame, "P", &task);
    return task;
}

TEST(the_first_failure_cancels_the_siblings_and_the_parents_body)
{
    taal_loop loop;
    open_loop(&loop);
    static const plan plans[] = {{"a", 1, 0, TAAL_EUSER}, {"b", 5, 0, TAAL_OK}};
    taal_task *t = spawn_parent(
        &loop, (parent){.plans = plans, .count = 2, .cancel_child = -1, .body = 10});
    CHECK_EQ(run_to_end(&loop, t), TAAL_EGROUP);
    parent *f = taal_task_frame(t);
    CHECK_STR(trace, "a!bxB");
    CHECK_EQ(f->body_st, TAAL_ECANCELLED); /* the group stopped the body */
    CHECK(f->body_at == 1.0);
    CHECK(f->join_at == 1.0);
    CHECK_EQ(f->error_count, 1);
    CHECK_EQ(f->errors[0], TAAL_EUSER);
    CHECK_STR(f->failed[0], "a");
    CHECK_EQ(f->cancelling_after, 0); /* the group took its cancel back */
    CHECK_EQ(f->after, TAAL_OK);      /* and nothing is left pending */
    taal_task_release(t);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(both_failures_are_reported_in_the_order_they_came)
{
    taal_loop loop;
    open_loop(&loop);
    static const plan plans[] = {
        {"a", 1, 0, TAAL_EUSER}, {"b", 1, 0, TAAL_EUSER - 1}, {"c", 5, 0, TAAL_OK}};
    taal_task *t = spawn_parent(
        &loop, (parent){.plans = plans, .count = 3, .cancel_child = -1, .body = 10});
    CHECK_EQ(run_to_end(&loop, t), TAAL_EGROUP);
    parent *f = taal_task_frame(t);
    CHECK_STR(trace, "a!b!cxB");
    CHECK_EQ(f->error_count, 2);
    CHECK_EQ(f->errors[0], TAAL_EUSER);
    CHECK_STR(f->failed[0], "a");
    CHECK_EQ(f->errors[1], TAAL_EUSER - 1);
    CHECK_STR(f->failed[1], "b");
    CHECK_EQ(f->cancelling_after, 0);
    taal_task_release(t);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(a_failure_while_the_parent_joins_cancels_the_siblings)
{
    taal_loop loop;
    open_loop(&loop);
    static const plan plans[] = {{"a", 1, 0, TAAL_EUSER}, {"b", 5, 0, TAAL_OK}};
    taal_task *t = spawn_parent(
        &loop, (parent){.plans = plans, .count = 2, .cancel_child = -1, .body = 0});
    CHECK_EQ(run_to_end(&loop, t), TAAL_EGROUP);
    parent *f = taal_task_frame(t);
    CHECK_STR(trace, "a!bx");
    CHECK_EQ(f->body_st, TAAL_OK);
    CHECK(f->join_at == 1.0); /* not 5.0: b was stopped */
    CHECK_EQ(f->error_count, 1);
    CHECK_EQ(f->cancelling_after, 0);
    CHECK_EQ(f->after, TAAL_OK);
    taal_task_release(t);
    taal_loop_close(&loop);
}

TEST(a_parent_cancelled_from_outside_ends_cancelled_after_every_child)
{
    taal_loop loop;
    open_loop(&loop);
    static const plan plans[] = {{"a", 5, 0, TAAL_OK}, {"b", 5, 0.5, TAAL_OK}};
    taal_task *t = spawn_parent(
        &loop, (parent){.plans = plans, .count = 2, .cancel_child = -1, .body = 10});
    taal_run_once(&loop); /* the parent sleeps in its body */
    CHECK(taal_task_cancel(t));
    CHECK_EQ(run_to_end(&loop, t), TAAL_ECANCELLED);
    parent *f = taal_task_frame(t);
    CHECK_STR(trace, "Baxbx");
    CHECK(f->join_at == 0.5); /* after b's cleanup */
    CHECK_EQ(f->error_count, 0);
    CHECK_EQ(f->cancelling_after, 1); /* the outside request stands */
    taal_task_release(t);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

/* a fails at 1 s; b takes a second to clean up; meanwhile the parent, in
 * its join, is cancelled from outside. The group reports the failure, and
 * makes the outside cancel again, so that the parent's next await sees it
 * (Python 3.13; 3.12 lost it). */
TEST(an_outside_cancel_during_a_failing_join_is_not_lost)
{
    taal_loop loop;
    open_loop(&loop);
    static const plan plans[] = {{"a", 1, 0, TAAL_EUSER}, {"b", 5, 1, TAAL_OK}};
    taal_task *t = spawn_parent(
        &loop, (parent){.plans = plans, .count = 2, .cancel_child = -1, .body = 0});
    for (int i = 0; i < 10 && strcmp(trace, "a!bx") != 0; i++)
        taal_run_once(&loop);
    CHECK_STR(trace, "a!bx"); /* b cleans up; the parent waits in its join */
    CHECK(taal_task_cancel(t));
    CHECK_EQ(run_to_end(&loop, t), TAAL_EGROUP);
    parent *f = taal_task_frame(t);
    CHECK(f->join_at == 2.0);
    CHECK_EQ(f->error_count, 1);
    CHECK_EQ(f->cancelling_after, 1);
    CHECK_EQ(f->after, TAAL_ECANCELLED); /* not lost behind the group's error */
    taal_task_release(t);
    CHECK_EQ(live_objects(&loop), 0);
    taal_loop_close(&loop);
}

TEST(a_child_cancelled_on_its_own_is_no_failure)
{
    taal_loop loop;
    open_loop(&loop);
    static const plan plans[] = {{"a", 1, 0, TAAL_OK}, {"b", 5, 0, TAAL_OK}};
    taal_task *t = spawn_parent(
        &loop, (parent){.plans = plans, .count = 2, .cancel_child = 1, .body = 0});
    CHECK_EQ(run_to_end(&loop, t), TAAL_OK);
    parent *f = taal_task_frame(t);
    CHECK_STR(trace, "a"); /* b never began */
    CHECK_EQ(f->st, TAAL_OK);
    CHECK_EQ(f->error_count, 0);
    CHECK(f->join_at == 1.0);
    taal_task_release(t);
    taal_loop_close(&loop);
}

TEST(the_bodys_own_error_is_reported_after_the_childrens)
{
    taal_loop loop;
    open_loop(&loop);
    static const plan plans[] = {{"a", 5, 0, TAAL_OK}};
    taal_task *t = spawn_parent(&loop, (parent){.plans = plans,
                                                .count = 1,
                                                .cancel_child = -1,
                                                .body = 0,
                                                .body_error = TAAL_EUSER - 5});
    CHECK_EQ(run_to_end(&loop, t), TAAL_EGROUP);
    parent *f = taal_task_frame(t);
    CHECK_STR(trace, ""); /* the body's error stopped the child before it began */
    CHECK(f->join_at == 0.0);
    CHECK_EQ(f->error_count, 1);
    CHECK_EQ(f->errors[0], TAAL_EUSER - 5);
    CHECK_STR(f->failed[0], "");
    CHECK_EQ(f->cancelling_after, 0);
    taal_task_release(t);
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(the_first_failure_cancels_the_siblings_and_the_parents_body),
    TEST_ENTRY(both_failures_are_reported_in_the_order_they_came),
    TEST_ENTRY(a_failure_while_the_parent_joins_cancels_the_siblings),
    TEST_ENTRY(a_parent_cancelled_from_outside_ends_cancelled_after_every_child),
    TEST_ENTRY(an_outside_cancel_during_a_failing_join_is_not_lost),
    TEST_ENTRY(a_child_cancelled_on_its_own_is_no_failure),
    TEST_ENTRY(the_bodys_own_error_is_reported_after_the_childrens),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
