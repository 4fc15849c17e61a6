/*
** lock.c -- what a lock is for, and who gets it next.
**
** First the classic lost update: three tasks each add 1 to a counter three
** times, reading it, awaiting once, and writing it back. Without a lock,
** every task reads the same value before any writes it, and six of the
** nine additions are lost. With one, the read, the await and the write
** are one step that nobody else can enter.
**
** Then the hand-over: `a` holds the lock while `b` and `c` wait; when `a`
** releases it, it goes to `b` at once, so locked() is still true, and when
** `a` asks again at once it waits behind `c`. docs/seeds/lock.py is the
** Python twin; CPython 3.12 prints the same lines but one: its Lock says
** locked() is False right after release(), since its waiter takes the lock
** only when it runs (docs/03_semaphore.md says why taal differs).
*/
#include "taal.h"

#include <stdio.h>

enum { ADDERS = 3 };
static const char *const names[ADDERS] = {"a", "b", "c"};

static int counter;

typedef struct adder {
    taal_coro co;
    taal_lock *lock; /* NULL: no lock */
    int i, value;
} adder;

static int adder_body(taal_coro *self)
{
    adder *f = (adder *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < 3; f->i++) {
        if (f->lock != NULL)
            TAAL_LOCK(f->lock);
        f->value = counter;
        TAAL_SLEEP(0);          /* another task runs here ... */
        counter = f->value + 1; /* ... and, without a lock, its addition is lost */
        if (f->lock != NULL)
            taal_lock_release(f->lock);
    }
    TAAL_END();
}

typedef struct holder {
    taal_coro co;
    taal_lock *lock;
    const char *name;
    bool again;
} holder;

static int holder_body(taal_coro *self)
{
    holder *f = (holder *)self;
    TAAL_BEGIN(f);
    TAAL_LOCK(f->lock);
    printf("%s holds the lock\n", f->name);
    TAAL_SLEEP(1);
    taal_lock_release(f->lock);
    if (f->again) {
        printf("%s released it: locked() is %s\n", f->name,
               taal_lock_locked(f->lock) ? "True" : "False");
        TAAL_LOCK(f->lock);
        printf("%s holds the lock\n", f->name);
        taal_lock_release(f->lock);
    }
    TAAL_END();
}

typedef struct lesson {
    taal_coro co;
    taal_lock lock;
    taal_future *tasks[ADDERS];
    taal_future *all;
    int round;
} lesson;

/* Starts three tasks of `body`, each with a copy of `frame`, and gathers
 * them into f->all. */
static int start_three(lesson *f, taal_body_fn body, const void *frame, size_t size)
{
    int rc = TAAL_OK;
    for (int i = 0; i < ADDERS; i++) {
        taal_task *task = NULL;
        if (rc == TAAL_OK)
            rc = taal_task_create(taal_running_loop(), body, frame, size, NULL, &task);
        f->tasks[i] = taal_task_future(task);
        if (body == holder_body && task != NULL) { /* a, b, c: only a asks again */
            holder *h = taal_task_frame(task);
            h->name = names[i];
            h->again = i == 0;
        }
    }
    if (rc == TAAL_OK)
        rc = taal_gather(taal_running_loop(), ADDERS, f->tasks, &f->all);
    for (int i = 0; i < ADDERS; i++)
        taal_future_release(f->tasks[i]);
    return rc;
}

static int lesson_body(taal_coro *self)
{
    lesson *f = (lesson *)self;
    int rc;
    TAAL_BEGIN(f);
    puts("-- three tasks add 1 three times each, with an await in between --");
    taal_lock_init(&f->lock, taal_running_loop(), "counter");
    for (f->round = 0; f->round < 2; f->round++) {
        counter = 0;
        rc = start_three(f, adder_body, &(adder){.lock = f->round ? &f->lock : NULL},
                         sizeof(adder));
        if (rc != TAAL_OK)
            TAAL_FAIL(rc);
        TAAL_AWAIT_FUTURE(f->all);
        taal_future_release(f->all);
        if (f->round == 0)
            printf("without a lock: counter = %d, not 9\n", counter);
        else
            printf("with a lock: counter = %d\n", counter);
    }
    puts("-- release() hands the lock to the first task waiting --");
    rc = start_three(f, holder_body, &(holder){.lock = &f->lock}, sizeof(holder));
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
    int rc = taal_run(lesson_body, NULL, sizeof(lesson), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "lock: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
