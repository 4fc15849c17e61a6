/*
** inversion.c -- priority inversion, and priority inheritance.
**
** Three tasks: low (priority -5) takes a lock and waits 0.2 s for
** something while it holds it; high (5) wants the lock at 0.1 s; middle
** (0) has three steps of work from 0.2 s on and needs no lock. With strict
** priority, at 0.2 s middle runs before low, so high, the most urgent of
** the three, waits for middle, which it outranks: the priorities are
** inverted. With priority inheritance (the default for a taal_lock), low
** runs at high's priority while high waits for it, lets the lock go, and
** high runs before middle. docs/04_priority.md tells how this very bug
** kept resetting the Mars Pathfinder in 1997.
*/
#include "taal.h"

#include <stdio.h>

/* Seconds since the story began: the loop's clock counts from an
 * arbitrary moment (on the real clock, the machine's boot). */
static double start;

static double now(void)
{
    return taal_loop_time(taal_running_loop()) - start;
}

static int priority(void)
{
    return taal_task_priority(taal_current_task());
}

typedef struct actor {
    taal_coro co;
    taal_lock *lock;
    int i;
} actor;

static int low_body(taal_coro *self)
{
    actor *f = (actor *)self;
    TAAL_BEGIN(f);
    TAAL_LOCK(f->lock);
    printf("%.1f s: low takes the lock\n", now());
    TAAL_SLEEP(0.2);
    printf("%.1f s: low lets the lock go, at priority %d\n", now(), priority());
    taal_lock_release(f->lock);
    TAAL_END();
}

static int high_body(taal_coro *self)
{
    actor *f = (actor *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(0.1);
    printf("%.1f s: high waits for the lock\n", now());
    TAAL_LOCK(f->lock);
    printf("%.1f s: high takes the lock\n", now());
    taal_lock_release(f->lock);
    TAAL_END();
}

static int middle_body(taal_coro *self)
{
    actor *f = (actor *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(0.2);
    for (f->i = 1; f->i <= 3; f->i++) {
        printf("%.1f s: middle works (%d of 3)\n", now(), f->i);
        TAAL_SLEEP(0);
    }
    TAAL_END();
}

enum { ACTORS = 3 };

static const struct {
    taal_body_fn body;
    const char *name;
    int priority;
} cast[ACTORS] = {
    {low_body, "low", -5}, {high_body, "high", 5}, {middle_body, "middle", 0}};

typedef struct story {
    taal_coro co;
    bool inherit;
    taal_lock lock;
    taal_future *actors[ACTORS];
    taal_future *all;
} story;

static int story_body(taal_coro *self)
{
    story *f = (story *)self;
    int rc = TAAL_OK;
    TAAL_BEGIN(f);
    start = taal_loop_time(taal_running_loop());
    taal_lock_init(&f->lock, taal_running_loop(), "resource");
    taal_lock_set_inheritance(&f->lock, f->inherit);
    for (int i = 0; i < ACTORS && rc == TAAL_OK; i++) {
        taal_task *task = NULL;
        rc = taal_task_create(taal_running_loop(), cast[i].body,
                              &(actor){.lock = &f->lock}, sizeof(actor), cast[i].name,
                              &task);
        if (rc == TAAL_OK)
            taal_task_set_priority(task, cast[i].priority);
        f->actors[i] = taal_task_future(task);
    }
    if (rc == TAAL_OK)
        rc = taal_gather(taal_running_loop(), ACTORS, f->actors, &f->all);
    for (int i = 0; i < ACTORS; i++)
        taal_future_release(f->actors[i]);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_FUTURE(f->all);
    taal_future_release(f->all);
    taal_lock_destroy(&f->lock);
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    puts("-- without priority inheritance --");
    int rc = taal_run(story_body, &(story){.inherit = false}, sizeof(story), NULL, NULL);
    if (rc == TAAL_OK) {
        puts("-- with priority inheritance --");
        rc = taal_run(story_body, &(story){.inherit = true}, sizeof(story), NULL, NULL);
    }
    if (rc != TAAL_OK) {
        fprintf(stderr, "inversion: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
