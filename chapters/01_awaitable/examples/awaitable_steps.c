/*
** awaitable_steps.c -- chapter 01's seed program with nothing hidden.
**
** The two coroutines of custom_awaitable.c, written out by hand: a frame
** struct, and a body that is a `switch` on the saved resume point. This is
** exactly what the TAAL_ macros expand to, except that the resume points
** are numbered 1, 2, ... here instead of by source line. The driver in
** main() prints every step it takes, and with TAAL_TRACE=FILE set it also
** writes a trace of the sends to FILE (steps_trace.c), for tools/timeline.
*/
#include "steps_trace.h"
#include "taal.h"

#include <stdio.h>

/* The frame of CustomAwaitable(value).__await__(). */
typedef struct custom_awaitable {
    taal_coro co; /* header: must be first */
    int value;    /* argument */
    int result;   /* result */
} custom_awaitable;

static int custom_awaitable_body(taal_coro *self)
{
    custom_awaitable *aw = (custom_awaitable *)self;
    switch (self->point) {
    case 0: /* the first send starts at the top */
        puts("  CustomAwaitable: yield, control goes back to the driver");
        self->point = 1; /* the next send resumes at case 1 */
        return TAAL_SUSPENDED;
    case 1: /* the second send carries on after the yield */
        aw->result = aw->value;
        printf("  CustomAwaitable: resumed, return %d\n", aw->result);
        return TAAL_OK; /* return self.value */
    }
    return TAAL_EINVAL; /* no such resume point */
}

/* The frame of use_custom_awaitable(). */
typedef struct use_custom_awaitable {
    taal_coro co;               /* header: must be first */
    custom_awaitable awaitable; /* the awaited coroutine's frame, embedded */
} use_custom_awaitable;

static int use_custom_awaitable_body(taal_coro *self)
{
    use_custom_awaitable *f = (use_custom_awaitable *)self;
    int status;
    switch (self->point) {
    case 0:
        puts("  use_custom_awaitable: start, await CustomAwaitable(42)");
        f->awaitable.value = 42;
        taal_coro_init(&f->awaitable.co, custom_awaitable_body);
        self->point = 1; /* every later send re-enters the child */
        /* fall through - the child takes its first step now */
    case 1:
        status = taal_send(&f->awaitable.co);
        if (status == TAAL_SUSPENDED)
            return TAAL_SUSPENDED; /* the child yielded: so do we */
        if (status != TAAL_OK)
            return status; /* the child failed: so do we */
        printf("  use_custom_awaitable: the await gave %d\n", f->awaitable.result);
        printf("%d\n", f->awaitable.result);
        return TAAL_OK;
    }
    return TAAL_EINVAL; /* no such resume point */
}

int main(void)
{
    use_custom_awaitable coro = {0}; /* zeroed: the trace compares headers */
    taal_coro_init(&coro.co, use_custom_awaitable_body);
    trace_open(&coro.co, &coro.awaitable.co);

    for (int n = 1;; n++) {
        printf("driver: send #%d\n", n);
        trace_before_send();
        int rc = taal_send(&coro.co);
        trace_after_send(rc);
        if (rc == TAAL_SUSPENDED) {
            printf("driver: suspended after send #%d\n", n);
            continue;
        }
        printf("driver: finished after send #%d: %s\n", n, taal_strerror(rc));
        return rc == TAAL_OK ? 0 : 1;
    }
}
