/*
** taskgroup.c -- a task group: every child done; two children failing,
** which stops the rest; and the parent cancelled from outside.
**
** Group 1: two children, both done; the join returns TAAL_OK when the last
** one is. Group 2: c and d fail at the same moment. The first failure
** cancels e, and the parent, which is still in the body (asleep): the body
** sees TAAL_ECANCELLED and passes it to the join, which waits for e to
** end, takes back the cancellation it made (cancelling() is 0 again), and
** reports TAAL_EGROUP, with both errors readable, in the order they came.
** Group 3: a parent cancelled from outside while its body sleeps: the join
** cancels its children, waits for them, and reports TAAL_ECANCELLED.
** docs/seeds/taskgroup.py is the Python twin (`except*` reads the
** ExceptionGroup there); CPython 3.12 and 3.13 print the same lines.
*/
#include "taal.h"

#include <stdio.h>

enum { FAILED = TAAL_EUSER }; /* "<name> failed" */

static double start;

static double at(void)
{
    return taal_loop_time(taal_running_loop()) - start;
}

typedef struct fetch {
    taal_coro co;
    const char *name;
    double seconds;
    bool fail;
    int st;
} fetch;

static int fetch_body(taal_coro *self)
{
    fetch *f = (fetch *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP_STATUS(f->st, f->seconds);
    if (f->st == TAAL_ECANCELLED)
        printf("%.1f s: %s: cancelled\n", at(), f->name);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    if (f->fail) {
        printf("%.1f s: %s: fails\n", at(), f->name);
        TAAL_FAIL(FAILED);
    }
    printf("%.1f s: %s: done\n", at(), f->name);
    TAAL_END();
}

/* Adds a child running fetch(name, seconds, fail) to `tg`. */
static int spawn(taal_taskgroup *tg, const char *name, double seconds, bool fail)
{
    fetch frame = {.name = name, .seconds = seconds, .fail = fail};
    return taal_taskgroup_create_task(tg, fetch_body, &frame, sizeof frame, name, NULL);
}

/* Group 3's parent: two children, and a body that sleeps. */
typedef struct parent {
    taal_coro co;
    taal_taskgroup tg;
    int st;
} parent;

static int parent_body(taal_coro *self)
{
    parent *f = (parent *)self;
    TAAL_BEGIN(f);
    f->st = taal_taskgroup_init(&f->tg);
    if (f->st == TAAL_OK)
        f->st = spawn(&f->tg, "f", 5, false);
    if (f->st == TAAL_OK)
        f->st = spawn(&f->tg, "g", 5, false);
    if (f->st == TAAL_OK)
        TAAL_SLEEP_STATUS(f->st, 10);
    TAAL_TASKGROUP_JOIN_STATUS(f->st, &f->tg);
    taal_taskgroup_destroy(&f->tg);
    TAAL_FAIL(f->st);
    TAAL_END();
}

/* Group 2: c and d fail, e is stopped, and the body with it. */
typedef struct failing {
    taal_coro co;
    taal_taskgroup tg;
    size_t i;
    int st;
} failing;

static int failing_body(taal_coro *self)
{
    failing *f = (failing *)self;
    taal_task *child;
    char name[16];
    TAAL_BEGIN(f);
    f->st = taal_taskgroup_init(&f->tg);
    if (f->st == TAAL_OK)
        f->st = spawn(&f->tg, "c", 1, true);
    if (f->st == TAAL_OK)
        f->st = spawn(&f->tg, "d", 1, true);
    if (f->st == TAAL_OK)
        f->st = spawn(&f->tg, "e", 5, false);
    if (f->st == TAAL_OK)
        TAAL_SLEEP_STATUS(f->st, 10);
    if (f->st == TAAL_ECANCELLED)
        printf("%.1f s: group 2's body: cancelled by the group\n", at());
    TAAL_TASKGROUP_JOIN_STATUS(f->st, &f->tg);
    for (f->i = 0; f->st == TAAL_EGROUP && f->i < taal_taskgroup_error_count(&f->tg);
         f->i++)
        if (taal_taskgroup_error(&f->tg, f->i, &child) == FAILED)
            printf("%.1f s: group 2: %s failed\n", at(),
                   taal_task_name(child, name, sizeof name));
    taal_taskgroup_destroy(&f->tg);
    TAAL_END();
}

typedef struct main_frame {
    taal_coro co;
    taal_taskgroup tg;
    failing group2;
    taal_task *parent;
    int st;
} main_frame;

static int main_body(taal_coro *self)
{
    main_frame *f = (main_frame *)self;
    TAAL_BEGIN(f);
    start = taal_loop_time(taal_running_loop());
    f->st = taal_taskgroup_init(&f->tg); /* group 1 */
    if (f->st == TAAL_OK)
        f->st = spawn(&f->tg, "a", 1, false);
    if (f->st == TAAL_OK)
        f->st = spawn(&f->tg, "b", 2, false);
    TAAL_TASKGROUP_JOIN_STATUS(f->st, &f->tg);
    taal_taskgroup_destroy(&f->tg);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    printf("%.1f s: group 1: every child is done\n", at());

    taal_coro_init(&f->group2.co, failing_body);
    TAAL_AWAIT(&f->group2);
    printf("%.1f s: main: cancelling() is %d\n", at(),
           taal_task_cancelling(taal_current_task()));

    f->st = taal_task_create(taal_running_loop(), parent_body, NULL, sizeof(parent), NULL,
                             &f->parent); /* group 3 */
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    TAAL_SLEEP(1);
    taal_task_cancel(f->parent);
    TAAL_AWAIT_TASK_STATUS(f->st, f->parent);
    taal_task_release(f->parent);
    if (f->st == TAAL_ECANCELLED)
        printf("%.1f s: group 3: its parent was cancelled from outside, and so were its "
               "children\n",
               at());
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = taal_run(main_body, NULL, sizeof(main_frame), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "taskgroup: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
