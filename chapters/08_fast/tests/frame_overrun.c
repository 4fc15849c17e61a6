/*
** frame_overrun.c -- a deliberate bug, to prove it is still caught.
**
** Chapter 08 cuts task blocks from a slab, side by side, where malloc()
** used to put a red zone between them. Under AddressSanitizer the slab
** leaves a poisoned gap after each block instead (src/slab.c), so that a
** task that writes past its frame (a frame size given too small) is
** reported, not silently written into the next task. This program does
** that; under the sanitize preset its test requires the report.
*/
#include "taal.h"

#include <stdio.h>
#include <string.h>

typedef struct frame {
    taal_coro co;
    char buf[64];
} frame;

static int overrun_body(taal_coro *self)
{
    frame *f = (frame *)self;
    TAAL_BEGIN(f);
    memset(f->buf, 'x', sizeof f->buf); /* the bug: the task has 8 of these bytes */
    TAAL_END();
}

int main(void)
{
    taal_loop loop;
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL};
    taal_task *a, *b;
    taal_loop_init(&loop, &options);
    /* The frame size says 8 bytes of buf, not 64: the body writes past it. */
    taal_task_create(&loop, overrun_body, NULL, sizeof(taal_coro) + 8, NULL, &a);
    taal_task_create(&loop, overrun_body, NULL, sizeof(taal_coro) + 8, NULL, &b);
    taal_run_until_complete(&loop, taal_task_future(a));
    printf("wrote past a task's frame: not caught\n");
    taal_task_release(a);
    taal_task_release(b);
    taal_loop_close(&loop);
    return 0;
}
