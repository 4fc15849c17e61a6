/*
** cancel.c -- the seed's cancellable operation: cancelled while it sleeps.
**
** The seed (docs/seeds/cancel.py, CPython's output identical on 3.12 and
** 3.13):
**
**   async def cancellable_operation():
**       try:
**           print("Operation started")
**           await asyncio.sleep(5)
**           print("Operation completed")
**       except asyncio.CancelledError:
**           print("Operation was cancelled")
**           raise  # Re-raise the CancelledError
**
** main() starts it, sleeps 2 s, cancels it and awaits it. The cancel takes
** the operation's timer out of the heap and schedules it; its sleep
** returns TAAL_ECANCELLED, which is the `except CancelledError:`, and
** TAAL_FAIL(TAAL_ECANCELLED) is the `raise`. main's await of the task then
** says TAAL_ECANCELLED too.
*/
#include "taal.h"

#include <stdio.h>

typedef struct operation {
    taal_coro co;
    int st; /* how the sleep ended */
} operation;

static int operation_body(taal_coro *self)
{
    operation *f = (operation *)self;
    TAAL_BEGIN(f);
    puts("Operation started");
    TAAL_SLEEP_STATUS(f->st, 5);
    if (f->st == TAAL_ECANCELLED) {
        puts("Operation was cancelled");
        TAAL_FAIL(f->st); /* re-raise */
    }
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    puts("Operation completed");
    TAAL_END();
}

typedef struct main_frame {
    taal_coro co;
    taal_task *task;
    int st;
} main_frame;

static int main_body(taal_coro *self)
{
    main_frame *f = (main_frame *)self;
    int rc;
    TAAL_BEGIN(f);
    rc = taal_task_create(taal_running_loop(), operation_body, NULL, sizeof(operation),
                          NULL, &f->task);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_SLEEP(2);
    taal_task_cancel(f->task);
    TAAL_AWAIT_TASK_STATUS(f->st, f->task);
    taal_task_release(f->task);
    if (f->st == TAAL_ECANCELLED)
        puts("Main: task was cancelled");
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = taal_run(main_body, NULL, sizeof(main_frame), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "cancel: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
