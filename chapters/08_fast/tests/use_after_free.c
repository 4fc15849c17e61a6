/*
** use_after_free.c -- a deliberate bug, to prove it is still caught.
**
** A finished task's block goes on its loop's free list instead of back to
** malloc(), so that the next task can reuse it. That must not hide a use
** of a task after it was freed from AddressSanitizer or valgrind: the block
** is poisoned (or marked inaccessible) while it waits on the list. This
** program reads a task after releasing it; under the sanitize and valgrind
** presets its test requires the read to be reported.
*/
#include "taal.h"

#include <stdio.h>

typedef struct quick {
    taal_coro co;
} quick;

static int quick_body(taal_coro *self)
{
    quick *f = (quick *)self;
    TAAL_BEGIN(f);
    TAAL_END();
}

int main(void)
{
    taal_loop loop;
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL};
    taal_task *task;
    taal_loop_init(&loop, &options);
    taal_task_create(&loop, quick_body, NULL, sizeof(quick), NULL, &task);
    taal_run_until_complete(&loop, taal_task_future(task));
    taal_task_release(task); /* done and released: its block is on the free list */
    volatile int status = task->future.status; /* the bug */
    printf("read a freed task's status: %d\n", status);
    taal_loop_close(&loop);
    return 0;
}
