/*
** test_group.c -- chapter 05's unit tests of task groups: the join waits
** for every child; the first failure cancels the siblings and the parent's
** body, and the join takes that back; every error is readable; a parent
** cancelled from outside, in the body or while joining; a child cancelled
** on its own; slots that grow; a parent that never joins; bad input.
*/
#include "support.h"

/* ---- children ------------------------------------------------------------------ */

/* Sleeps `seconds`, then fails with `error` if it is not TAAL_OK; notes
 * "<name>" when done, "<name>!" when it fails, "<name>x" when cancelled
 * (and "^" after it if the task `watched` is being cancelled then). */
static taal_task *watched;

typedef struct child {
    taal_coro co;
    const char *name;
    double seconds;
    int error, st;
} child;

static int child_body(taal_coro *self)
{
    child *f = (child *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP_STATUS(f->st, f->seconds);
    note(f->name);
    if (f->st != TAAL_OK) {
        note("x");
        if (watched != NULL && taal_task_cancelling(watched) > 0)
            note("^");
        TAAL_FAIL(f->st);
    }
    if (f->error != TAAL_OK) {
        note("!");
        TAAL_FAIL(f->error);
    }
    TAAL_END();
}

static int add(taal_taskgroup *tg, const char *name, double seconds, int error)
{
    child frame = {.name = name, .seconds = seconds, .error = error};
    return taal_taskgroup_create_task(tg, child_body, &frame, sizeof frame, name, NULL);
}

/* ---- parents ------------------------------------------------------------------ */

/* A parent: makes its children from `plan` ("name:seconds:error" is too
 * much for C; a table), runs a body that sleeps `body` seconds (noting
 * "B" if that was cancelled), joins, and keeps what it saw. */
typedef struct plan {
    const char *name;
    double seconds;
    int error;
} plan;

typedef struct parent {
    taal_coro co;
    const plan *children;
    int count;
    double body;
    int body_error;   /* the body leaves with this, if not TAAL_OK */
    bool await_after; /* after the join, await once more (a sleep(0)) */
    taal_taskgroup tg;
    int after; /* that await's status */
    int st, joined, cancelling_after, errors[4];
    size_t error_count;
    char failed[4][8]; /* the names of the children that failed; "" for the body */
} parent;

/* Reads the errors while the group still holds its children. */
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
    for (int i = 0; i < f->count && f->st == TAAL_OK; i++)
        f->st = add(&f->tg, f->children[i].name, f->children[i].seconds,
                    f->children[i].error);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    if (f->body > 0)
        TAAL_SLEEP_STATUS(f->st, f->body);
    if (f->st == TAAL_ECANCELLED)
        note("B");
    if (f->st == TAAL_OK && f->body_error != TAAL_OK)
        f->st = f->body_error;
    TAAL_TASKGROUP_JOIN_STATUS(f->st, &f->tg);
    f->joined = f->st;
    f->cancelling_after = taal_task_cancelling(taal_current_task());
    keep_errors(f);
    if (taal_taskgroup_destroy(&f->tg) != TAAL_OK)
        TAAL_FAIL(TAAL_EUSER);
    if (f->await_after)
        TAAL_SLEEP_STATUS(f->after, 0);
    TAAL_FAIL(f->st);
    TAAL_END();
}

static taal_task *spawn_parent(taal_loop *loop, parent frame)
{
    taal_task *task = NULL;
    taal_task_create(loop, parent_body, &frame, sizeof frame, "parent", &task);
    return task;
}

/* Runs a parent to its end; its frame is copied to `out`. */
static int run_parent(taal_loop *loop, parent frame, parent *out)
{
    taal_task *t = spawn_parent(loop, frame);
    if (t == NULL)
        return TAAL_ENOMEM;
    int rc = taal_run_until_complete(loop, taal_task_future(t));
    *out = *(parent *)taal_task_frame(t);
    taal_task_release(t);
    return rc;
}

/* ---- the tests ----------------------------------------------------------------- */

TEST(the_join_returns_when_every_child_is_done)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    static const plan children[] = {{"a", 2, TAAL_OK}, {"b", 1, TAAL_OK}};
    parent f;
    CHECK_EQ(run_parent(&loop, (parent){.children = children, .count = 2}, &f), TAAL_OK);
    CHECK_STR(trace, "ba");
    CHECK(taal_loop_time(&loop) == 2.0);
    CHECK_EQ(f.error_count, 0);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* c and d fail at the same moment, e would run on: the first failure
 * cancels e and the parent's body; the join takes back the cancellation
 * of the parent and reports both errors, in the order they came. */
TEST(two_failing_children_are_both_reported_and_stop_the_rest)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    static const plan children[] = {
        {"c", 1, TAAL_EUSER}, {"d", 1, TAAL_EUSER - 1}, {"e", 5, TAAL_OK}};
    parent f;
    CHECK_EQ(
        run_parent(&loop, (parent){.children = children, .count = 3, .body = 10}, &f),
        TAAL_EGROUP);
    CHECK_STR(trace, "c!d!exB");
    CHECK(taal_loop_time(&loop) == 1.0);
    CHECK_EQ(f.error_count, 2);
    CHECK_EQ(f.errors[0], TAAL_EUSER);
    CHECK_EQ(f.errors[1], TAAL_EUSER - 1);
    CHECK_STR(f.failed[0], "c");
    CHECK_STR(f.failed[1], "d");
    CHECK_EQ(f.cancelling_after, 0); /* the group's own cancel, taken back */
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
    CHECK_STR(reports, ""); /* the errors were the group's to report */
}

/* The body is already joining when a child fails: the siblings are
 * cancelled, and the parent too, as asyncio 3.12 and 3.13 do (b sees its
 * parent's cancelling() at 1, "^"); the join waits on for b, and takes
 * that cancellation back. */
TEST(a_failure_while_the_parent_joins_cancels_the_siblings_and_the_parent)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    static const plan children[] = {{"a", 1, TAAL_EUSER}, {"b", 5, TAAL_OK}};
    taal_task *t = spawn_parent(&loop, (parent){.children = children, .count = 2});
    watched = t;
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_EGROUP);
    watched = NULL;
    parent f = *(parent *)taal_task_frame(t);
    taal_task_release(t);
    CHECK_STR(trace, "a!bx^");
    CHECK(taal_loop_time(&loop) == 1.0);
    CHECK_EQ(f.cancelling_after, 0);
    CHECK_EQ(f.error_count, 1);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(a_parent_cancelled_from_outside_in_the_body_cancels_every_child)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    static const plan children[] = {{"f", 5, TAAL_OK}, {"g", 5, TAAL_OK}};
    taal_task *t =
        spawn_parent(&loop, (parent){.children = children, .count = 2, .body = 10});
    taal_run_once(&loop);
    taal_run_once(&loop);
    CHECK(taal_task_cancel(t));
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_ECANCELLED);
    parent *f = taal_task_frame(t);
    CHECK_EQ(f->joined, TAAL_ECANCELLED);
    CHECK_STR(trace, "Bfxgx");
    CHECK_EQ(f->cancelling_after, 1); /* the outside request stands */
    CHECK_EQ(f->error_count, 0);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(a_parent_cancelled_from_outside_while_it_joins_cancels_every_child)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    static const plan children[] = {{"f", 5, TAAL_OK}, {"g", 5, TAAL_OK}};
    taal_task *t = spawn_parent(&loop, (parent){.children = children, .count = 2});
    taal_run_once(&loop); /* the parent: straight to the join */
    taal_run_once(&loop);
    CHECK(taal_task_cancel(t));
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_ECANCELLED);
    CHECK_STR(trace, "fxgx");
    CHECK(taal_loop_time(&loop) < 1);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* A child that fails, and an outside cancel of the parent while it joins:
 * the errors win (TAAL_EGROUP), and the outside cancellation is made
 * again, so that it is not lost (Python 3.13; 3.12 lost it). */
TEST(an_outside_cancel_during_a_failing_join_is_not_lost)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    static const plan children[] = {{"a", 1, TAAL_EUSER}, {"b", 5, TAAL_OK}};
    taal_task *t = spawn_parent(
        &loop, (parent){.children = children, .count = 2, .await_after = true});
    taal_run_once(&loop);
    taal_run_once(&loop);
    taal_run_once(&loop); /* a fails; its callback: b cancelled */
    taal_run_once(&loop);
    CHECK(taal_task_cancel(t)); /* while it waits for b */
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_EGROUP);
    parent *f = taal_task_frame(t);
    CHECK_EQ(f->cancelling_after, 1);
    CHECK_EQ(f->after, TAAL_ECANCELLED); /* delivered at the parent's next await */
    CHECK_EQ(f->errors[0], TAAL_EUSER);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* Creates its children, then cancels one of them itself. */
typedef struct picky {
    taal_coro co;
    taal_taskgroup tg;
    taal_task *b;
    int st;
} picky;

static int picky_body(taal_coro *self)
{
    picky *f = (picky *)self;
    child a = {.name = "a", .seconds = 1}, b = {.name = "b", .seconds = 5};
    TAAL_BEGIN(f);
    taal_taskgroup_init(&f->tg);
    taal_taskgroup_create_task(&f->tg, child_body, &a, sizeof a, "a", NULL);
    taal_taskgroup_create_task(&f->tg, child_body, &b, sizeof b, "b", &f->b);
    TAAL_SLEEP(0.5);
    taal_task_cancel(f->b);
    f->st = TAAL_OK;
    TAAL_TASKGROUP_JOIN_STATUS(f->st, &f->tg);
    taal_taskgroup_destroy(&f->tg);
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(a_child_cancelled_on_its_own_is_no_failure)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t = NULL;
    taal_task_create(&loop, picky_body, NULL, sizeof(picky), NULL, &t);
    CHECK_EQ(finish_task(&loop, t), TAAL_OK);
    CHECK_STR(trace, "bxa");
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(the_bodys_own_error_is_reported_with_the_childrens)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    static const plan children[] = {{"a", 5, TAAL_OK}};
    parent f;
    /* Its error stops the children, and is the last in the list. */
    CHECK_EQ(run_parent(&loop,
                        (parent){.children = children,
                                 .count = 1,
                                 .body = 1,
                                 .body_error = TAAL_EUSER - 7},
                        &f),
             TAAL_EGROUP);
    CHECK_STR(trace, "ax");
    CHECK_EQ(f.error_count, 1);
    CHECK_EQ(f.errors[0], TAAL_EUSER - 7);
    CHECK_STR(f.failed[0], ""); /* the body's: no task */
    /* Without children, the same. */
    CHECK_EQ(run_parent(&loop, (parent){.body_error = TAAL_EUSER}, &f), TAAL_EGROUP);
    CHECK_EQ(f.error_count, 1);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* Adds children before and after the join, and while the group stops. */
typedef struct latecomer {
    taal_coro co;
    taal_taskgroup tg;
    int st, during, after;
} latecomer;

static int latecomer_body(taal_coro *self)
{
    latecomer *f = (latecomer *)self;
    TAAL_BEGIN(f);
    taal_taskgroup_init(&f->tg);
    add(&f->tg, "a", 1, TAAL_EUSER);
    TAAL_SLEEP_STATUS(f->st, 5); /* cancelled by the failure */
    f->during = add(&f->tg, "b", 1, TAAL_OK);
    TAAL_TASKGROUP_JOIN_STATUS(f->st, &f->tg);
    f->after = add(&f->tg, "c", 1, TAAL_OK);
    taal_taskgroup_destroy(&f->tg);
    TAAL_END();
}

TEST(a_group_that_is_stopping_or_joined_takes_no_new_child)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t = NULL;
    taal_task_create(&loop, latecomer_body, NULL, sizeof(latecomer), NULL, &t);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    latecomer *f = taal_task_frame(t);
    CHECK_EQ(f->st, TAAL_EGROUP);
    CHECK_EQ(f->during, TAAL_ESTATE); /* "shutting down" */
    CHECK_EQ(f->after, TAAL_ESTATE);  /* "finished" */
    CHECK_STR(trace, "a!");
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* Many children: the slots grow, block by block, and never move. */
typedef struct crowd {
    taal_coro co;
    taal_taskgroup tg;
    int i, st;
} crowd;

enum { CROWD = 300 };

static int crowd_body(taal_coro *self)
{
    crowd *f = (crowd *)self;
    TAAL_BEGIN(f);
    taal_taskgroup_init(&f->tg);
    for (f->i = 0; f->i < CROWD; f->i++) {
        f->st =
            add(&f->tg, "", 1 + f->i % 7, f->i % 50 == 49 ? TAAL_EUSER - f->i : TAAL_OK);
        if (f->st != TAAL_OK)
            TAAL_FAIL(f->st);
        if (f->i % 100 == 0)
            TAAL_SLEEP(0);
    }
    f->st = TAAL_OK;
    TAAL_TASKGROUP_JOIN_STATUS(f->st, &f->tg);
    if (f->st != TAAL_EGROUP || f->tg.count != CROWD || f->tg.running != 0)
        TAAL_FAIL(TAAL_EUSER);
    f->i = (int)taal_taskgroup_error_count(&f->tg);
    taal_taskgroup_destroy(&f->tg);
    TAAL_END();
}

TEST(a_crowd_of_children_grows_the_slots_block_by_block)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t = NULL;
    taal_task_create(&loop, crowd_body, NULL, sizeof(crowd), NULL, &t);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    /* Child 49 fails first, at 1 s; the later failures (99 at 2 s, ...)
     * never come: the first one cancelled every child still running. */
    CHECK_EQ(((crowd *)taal_task_frame(t))->i, 1);
    CHECK(taal_loop_time(&loop) == 1.0);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* Creates two children and returns without joining. */
typedef struct deserter {
    taal_coro co;
    taal_taskgroup tg;
} deserter;

static int deserter_body(taal_coro *self)
{
    deserter *f = (deserter *)self;
    TAAL_BEGIN(f);
    taal_taskgroup_init(&f->tg);
    add(&f->tg, "a", 5, TAAL_OK);
    add(&f->tg, "b", 5, TAAL_OK);
    TAAL_SLEEP(1);
    TAAL_END(); /* no join: a mistake C allows */
}

TEST(a_parent_that_ends_without_joining_has_its_children_cancelled_and_is_told)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t = NULL;
    taal_task_create(&loop, deserter_body, NULL, sizeof(deserter), "deserter", &t);
    CHECK_EQ(finish_task(&loop, t), TAAL_OK);
    CHECK(strstr(reports, "task deserter finished without joining its task group: 2 "
                          "children still running were cancelled") != NULL);
    CHECK(run_out(&loop, 10));
    CHECK_STR(trace, "axbx");
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

TEST(a_loop_closed_with_a_group_open_frees_its_slots)
{
    taal_loop loop;
    open_loop(&loop);
    taal_task_create(&loop, deserter_body, NULL, sizeof(deserter), "deserter", NULL);
    taal_run_once(&loop);
    taal_run_once(&loop);
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK); /* under the sanitizers: no leak */
}

/* A parent whose group has one quick child, and a long body. */
typedef struct waiting_parent {
    taal_coro co;
    taal_taskgroup tg;
    int st;
} waiting_parent;

static int waiting_parent_body(taal_coro *self)
{
    waiting_parent *f = (waiting_parent *)self;
    TAAL_BEGIN(f);
    taal_taskgroup_init(&f->tg);
    add(&f->tg, "k", 0, TAAL_OK);
    TAAL_SLEEP_STATUS(f->st, 10);
    TAAL_TASKGROUP_JOIN_STATUS(f->st, &f->tg);
    taal_taskgroup_destroy(&f->tg);
    TAAL_END();
}

/* The child has finished, and the group's callback for it is still in the
 * ready queue when the loop closes: the close must let go of that handle
 * before it frees the slot it lives in. (ASan saw it write freed memory.) */
TEST(a_loop_closed_with_a_groups_callback_still_queued_lets_go_of_it_first)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task_create(&loop, waiting_parent_body, NULL, sizeof(waiting_parent), "parent",
                     NULL);
    for (int i = 0; i < 10 && strcmp(trace, "k") != 0; i++)
        taal_run_once(&loop);
    CHECK_STR(trace, "k"); /* the child's last step ran; its callback waits */
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
    CHECK(strstr(reports, "task parent was still pending") != NULL);
}

/* Misuse from inside a task. */
typedef struct misuser {
    taal_coro co;
    taal_taskgroup tg;
    int rc[7], st_join;
} misuser;

static int misuser_body(taal_coro *self)
{
    misuser *f = (misuser *)self;
    TAAL_BEGIN(f);
    f->rc[0] = taal_taskgroup_create_task(&f->tg, child_body, NULL, sizeof(child), NULL,
                                          NULL); /* never initialised */
    f->rc[1] = taal_taskgroup_init(&f->tg);
    f->rc[2] = taal_taskgroup_init(&f->tg); /* in use */
    f->rc[3] = taal_taskgroup_create_task(&f->tg, NULL, NULL, sizeof(child), NULL, NULL);
    f->st_join = TAAL_SUSPENDED; /* not a status a body ends with */
    TAAL_TASKGROUP_JOIN_STATUS(f->st_join, &f->tg);
    f->rc[6] = f->st_join;
    f->st_join = TAAL_OK;
    TAAL_TASKGROUP_JOIN_STATUS(f->st_join, &f->tg);
    f->rc[4] = f->st_join;
    TAAL_TASKGROUP_JOIN_STATUS(f->st_join, &f->tg); /* twice */
    f->rc[5] = f->st_join;
    taal_taskgroup_destroy(&f->tg);
    TAAL_END();
}

TEST(task_groups_refuse_bad_input)
{
    taal_loop loop;
    open_loop(&loop);
    taal_taskgroup tg = {0};
    CHECK_EQ(taal_taskgroup_init(&tg), TAAL_ENOTASK); /* outside a task */
    CHECK_EQ(taal_taskgroup_init(NULL), TAAL_EINVAL);
    CHECK_EQ(taal_taskgroup_destroy(&tg), TAAL_EINVAL);
    CHECK_EQ(taal_taskgroup_destroy(NULL), TAAL_EINVAL);
    CHECK_EQ(taal_taskgroup_error_count(NULL), 0);
    taal_task *task = (taal_task *)&tg;
    CHECK_EQ(taal_taskgroup_error(&tg, 0, &task), TAAL_EINVAL);
    CHECK(task == NULL);
    taal_task *t = NULL;
    taal_task_create(&loop, misuser_body, NULL, sizeof(misuser), NULL, &t);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    misuser *f = taal_task_frame(t);
    static const int expected[7] = {TAAL_EINVAL, TAAL_OK,     TAAL_EBUSY, TAAL_EINVAL,
                                    TAAL_OK,     TAAL_ESTATE, TAAL_EINVAL};
    for (int i = 0; i < 7; i++)
        CHECK_EQ(f->rc[i], expected[i]);
    taal_task_release(t);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(the_join_returns_when_every_child_is_done),
    TEST_ENTRY(two_failing_children_are_both_reported_and_stop_the_rest),
    TEST_ENTRY(a_failure_while_the_parent_joins_cancels_the_siblings_and_the_parent),
    TEST_ENTRY(a_parent_cancelled_from_outside_in_the_body_cancels_every_child),
    TEST_ENTRY(a_parent_cancelled_from_outside_while_it_joins_cancels_every_child),
    TEST_ENTRY(an_outside_cancel_during_a_failing_join_is_not_lost),
    TEST_ENTRY(a_child_cancelled_on_its_own_is_no_failure),
    TEST_ENTRY(the_bodys_own_error_is_reported_with_the_childrens),
    TEST_ENTRY(a_group_that_is_stopping_or_joined_takes_no_new_child),
    TEST_ENTRY(a_crowd_of_children_grows_the_slots_block_by_block),
    TEST_ENTRY(a_parent_that_ends_without_joining_has_its_children_cancelled_and_is_told),
    TEST_ENTRY(a_loop_closed_with_a_group_open_frees_its_slots),
    TEST_ENTRY(a_loop_closed_with_a_groups_callback_still_queued_lets_go_of_it_first),
    TEST_ENTRY(task_groups_refuse_bad_input),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
