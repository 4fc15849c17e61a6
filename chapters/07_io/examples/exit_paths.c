/*
** exit_paths.c -- one async context manager, and its exit on every path:
** after a body that ends normally, after an error it swallows, after an
** error that goes on, and after a cancellation.
**
**   class Printer:
**       async def __aenter__(self):
**           print(f"{at()}: {self.name}: enter")
**           return self
**       async def __aexit__(self, exc_type, exc, tb):
**           swallowing = self.swallow and exc_type is PaperError
**           print(f"{at()}: {self.name}: exit, the body ended with "
**                 f"{describe(exc)}{'; it swallows it' if swallowing else ''}")
**           await asyncio.sleep(0.5)          # releasing takes time
**           print(f"{at()}: {self.name}: released")
**           return swallowing
**
** The exit reads how the body ended in its frame (f->cm.status: TAAL_OK,
** an error, TAAL_ECANCELLED); it swallows an error by setting
** f->cm.suppress, Python's `return True`. It awaits in every case, the
** cancelled one included: the cancellation was delivered at the body's
** await, so the task is back to normal while its exit runs, and the
** cancellation goes on when the exit is done. Each path runs in a task of
** its own, which main awaits. docs/seeds/exit_paths.py is the Python twin;
** CPython 3.12 and 3.13 print the same lines.
*/
#include "taal.h"

#include <stdio.h>

enum { OUT_OF_PAPER = TAAL_EUSER }; /* the program's own error */

static const char *name_errors(int status)
{
    return status == OUT_OF_PAPER ? "out of paper" : NULL;
}

static double started;

static double at(void)
{
    return taal_loop_time(taal_running_loop()) - started;
}

/* What the exit says about how the body ended. */
static const char *describe(int status, char *buf, size_t size)
{
    if (status == TAAL_OK)
        return "no error";
    if (status == TAAL_ECANCELLED)
        return "a cancellation";
    snprintf(buf, size, "an error: %s", taal_strerror(status));
    return buf;
}

typedef struct printer {
    taal_actx cm; /* first: the manager's header */
    const char *name;
    bool swallow; /* its exit swallows OUT_OF_PAPER */
} printer;

static int printer_enter(taal_coro *self)
{
    printer *f = (printer *)self;
    TAAL_BEGIN(&f->cm);
    printf("%.1f s: %s: enter\n", at(), f->name);
    TAAL_RETURN_VALUE(f);
    TAAL_END();
}

static int printer_exit(taal_coro *self)
{
    printer *f = (printer *)self;
    char buf[64];
    TAAL_BEGIN(&f->cm);
    f->cm.suppress = f->swallow && f->cm.status == OUT_OF_PAPER; /* `return True` */
    printf("%.1f s: %s: exit, the body ended with %s%s\n", at(), f->name,
           describe(f->cm.status, buf, sizeof buf),
           f->cm.suppress ? "; it swallows it" : "");
    TAAL_SLEEP(0.5); /* releasing takes time, whatever happened */
    printf("%.1f s: %s: released\n", at(), f->name);
    TAAL_END();
}

/* async def use(printer, fail, nap): the block, in a task of its own. */
typedef struct use {
    taal_coro co;
    printer *printer;
    bool fail;
    double nap;
    taal_block with;
} use;

static int use_body(taal_coro *self)
{
    use *f = (use *)self;
    TAAL_BEGIN(f);
    TAAL_ASYNC_WITH(&f->with, &f->printer->cm) {
        printf("%.1f s: body: printing\n", at());
        TAAL_SLEEP(f->nap);
        if (f->fail) {
            printf("%.1f s: body: out of paper\n", at());
            TAAL_FAIL(OUT_OF_PAPER);
        }
        printf("%.1f s: body: done\n", at());
    }
    TAAL_ASYNC_WITH_END(&f->with);
    TAAL_END();
}

/* The four paths: a title, the printer, whether the body fails, how long
 * it prints, and whether main cancels it after half a second. */
static const struct path {
    const char *title;
    bool swallow, fail, cancel;
    double nap;
} paths[] = {
    {"the body ends normally", false, false, false, 0.5},
    {"the body fails, and the exit swallows the error", true, true, false, 0.5},
    {"the body fails, and the error goes on", false, true, false, 0.5},
    {"the body is cancelled", false, false, true, 10},
};

typedef struct main_frame {
    taal_coro co;
    printer printers[4];
    taal_task *task;
    int i, st;
} main_frame;

static int main_body(taal_coro *self)
{
    main_frame *f = (main_frame *)self;
    int rc;
    TAAL_BEGIN(f);
    started = taal_loop_time(taal_running_loop());
    for (f->i = 0; f->i < 4; f->i++) {
        printf("-- %s --\n", paths[f->i].title);
        f->printers[f->i].name = f->i == 1 ? "lenient printer" : "printer";
        f->printers[f->i].swallow = paths[f->i].swallow;
        taal_actx_init(&f->printers[f->i].cm, printer_enter, printer_exit);
        rc = taal_task_create(taal_running_loop(), use_body,
                              &(use){.printer = &f->printers[f->i],
                                     .fail = paths[f->i].fail,
                                     .nap = paths[f->i].nap},
                              sizeof(use), NULL, &f->task);
        if (rc != TAAL_OK)
            TAAL_FAIL(rc);
        if (paths[f->i].cancel) {
            TAAL_SLEEP(0.5);
            printf("%.1f s: main: cancels the task\n", at());
            taal_task_cancel(f->task);
        }
        TAAL_AWAIT_TASK_STATUS(f->st, f->task);
        taal_task_release(f->task);
        printf("%.1f s: main: the block ended: %s\n", at(),
               f->st == TAAL_OK ? "ok" : taal_strerror(f->st));
    }
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    taal_set_strerror(name_errors);
    int rc = taal_run(main_body, NULL, sizeof(main_frame), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "exit_paths: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
