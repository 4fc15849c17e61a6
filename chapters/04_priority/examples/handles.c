/*
** handles.c -- call_soon, call_later and call_at give handles to cancel.
**
** One timer is cancelled before it is due; of two timers due at the same
** moment, the first cancels the second, which is already in the ready
** queue and must not run; a handle that already ran is cancelled too,
** harmlessly. docs/seeds/handles.py is the Python twin; CPython 3.12 and
** 3.13 print the same lines.
*/
#include "taal.h"

#include <stdio.h>

/* Times are printed from the start of main, as the twin prints them: the
 * loop's clock counts from an arbitrary moment (on the real clock, boot). */
static double start;

static void say(void *text)
{
    double now = taal_loop_time(taal_running_loop());
    printf("%.1f s: %s\n", now - start, (const char *)text);
}

typedef struct handles {
    taal_coro co;
    taal_handle soon;
    taal_timer never, at2, first, second;
} handles;

static handles *the; /* for `first`, which cancels `second` */

static void first(void *data)
{
    (void)data;
    say("the first of two timers due at 3 s cancels the second");
    taal_timer_cancel(taal_running_loop(), &the->second);
}

static int handles_body(taal_coro *self)
{
    handles *f = (handles *)self;
    taal_loop *loop = taal_running_loop();
    TAAL_BEGIN(f);
    the = f;
    start = taal_loop_time(loop);
    taal_call_soon(loop, &f->soon, say, "call_soon: the next iteration");
    taal_call_later(loop, &f->never, 1, say, "call_later(1): cancelled, never printed");
    taal_call_at(loop, &f->at2, start + 2, say, "call_at(2): at 2 s");
    taal_call_later(loop, &f->first, 3, first, NULL);
    taal_call_later(loop, &f->second, 3, say,
                    "the second: due, but cancelled, never printed");
    printf("call_at's timer is for %.1f s\n", taal_timer_when(&f->at2) - start);
    taal_timer_cancel(loop, &f->never);
    printf("cancelled before it was due: %s\n",
           taal_handle_cancelled(&f->never.handle) ? "True" : "False");
    TAAL_SLEEP(4);
    taal_handle_cancel(&f->soon); /* it ran long ago: harmless */
    printf("cancelled while due: %s; after it ran: %s\n",
           taal_handle_cancelled(&f->second.handle) ? "True" : "False",
           taal_handle_cancelled(&f->soon) ? "True" : "False");
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = taal_run(handles_body, NULL, sizeof(handles), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "handles: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
