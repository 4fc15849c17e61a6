/*
** taal.c -- the driver of the awaitable protocol (chapter 01), and what
** chapter 06 adds to it: TAAL_STOP, a finish that is no failure; the
** coroutine's name and its list for the "never awaited" check; and
** leaving the open `async for`/`async with` blocks of a body that
** returned from inside them.
**
** There is very little here, on purpose: a coroutine is data (its frame)
** plus a function (its body), and resuming it is one function call. All
** the cleverness is in the macros of taal.h. The loop is in loop.c, futures
** in future.c, tasks in task.c, the semaphore and its kin in sync.c.
*/
#include "internal.h"

#include <stddef.h>

/* The program's names for its own codes (taal_set_strerror()), if any. */
static taal_strerror_fn user_names;

static const char *user_error(int status)
{
    const char *name = user_names != NULL ? user_names(status) : NULL;
    return name != NULL ? name : "user error";
}

/*
** The names of the status codes, matched exactly by the tests, in the
** spirit of Lua's "cannot resume dead coroutine".
*/
const char *taal_strerror(int status)
{
    switch (status) {
    case TAAL_OK: return "ok";
    case TAAL_SUSPENDED: return "suspended";
    case TAAL_STOP: return "no more values";
    case TAAL_EINVAL: return "invalid argument";
    case TAAL_EDEAD: return "cannot resume finished coroutine";
    case TAAL_ERUNNING: return "cannot resume running coroutine";
    case TAAL_ENOMEM: return "out of memory";
    case TAAL_EPOINT: return "resumed at an unknown point";
    case TAAL_ENOTIMPL: return "not implemented";
    case TAAL_ESTATE: return "invalid state";
    case TAAL_ENOTASK: return "not inside a task";
    case TAAL_ELOOP: return "belongs to another loop";
    case TAAL_EBUSY: return "busy";
    case TAAL_ECLOSED: return "loop is closed";
    case TAAL_EDEADLOCK: return "deadlock";
    case TAAL_ESTOPPED: return "loop stopped before the future completed";
    case TAAL_EFULL: return "queue is full";
    case TAAL_EEMPTY: return "queue is empty";
    case TAAL_ERELEASE: return "released more than acquired";
    case TAAL_ECANCELLED: return "cancelled";
    case TAAL_ETIMEDOUT: return "timed out";
    case TAAL_EGROUP: return "tasks of the group failed";
    case TAAL_ESTRAY: return "end of iteration outside an iterator";
    case TAAL_EGENEXIT: return "async generator closed";
    case TAAL_EIGNORED: return "async generator ignored its close";
    default: /* chapter 07 names its I/O codes in io.c */
        return status <= TAAL_EUSER ? user_error(status) : taal__io_strerror(status);
    }
}

void taal_set_strerror(taal_strerror_fn name)
{
    user_names = name;
}

/* Resets the header, and keeps the rest of the frame. The task list's
 * link, `next`, is the task's business (taal__coro_track). */
void taal__coro_reset(taal_coro *co, taal_body_fn body, taal_coro_kind kind,
                      const char *name)
{
    co->body = body;
    co->point = 0;
    co->status = TAAL_SUSPENDED;
    co->running = false;
    co->kind = (uint8_t)kind;
    co->value = NULL;
    co->name = name;
    co->blocks = NULL;
}

int taal__coro_init_named(taal_coro *co, taal_body_fn body, const char *name)
{
    if (co == NULL || body == NULL)
        return TAAL_EINVAL;
    taal__coro_track(co); /* before the reset: it may report the one it replaces */
    taal__coro_reset(co, body, TAAL_CORO_PLAIN, name);
    return TAAL_OK;
}

/* The function, for callers that take its address: no name. */
int(taal_coro_init)(taal_coro *co, taal_body_fn body)
{
    return taal__coro_init_named(co, body, NULL);
}

bool taal_coro_done(const taal_coro *co)
{
    return co != NULL && co->point == TAAL_POINT_DONE;
}

/*
** A body returned `rc` from inside an open block: the block takes `rc` as
** how its body ended, and the body is resumed at the block's first line,
** whose code sees the block leaving and goes to the block's END: the exit
** or the close runs, as Python runs a `finally` on the way out. Then an
** error goes on with the outcome (an END fails with it; an exit may have
** swallowed it, and the body carries on after the block), and a
** successful return returns: the END returns TAAL_OK. A status
** no body may end with (a positive one other than TAAL_STOP) is
** TAAL_EINVAL here, as it would be below.
*/
static int leave_block(taal_coro *co, int rc)
{
    taal_block *block = co->blocks;
    block->status = rc <= 0 || rc == TAAL_STOP ? rc : TAAL_EINVAL;
    block->returned = rc == TAAL_OK; /* a `return`: the END returns too */
    block->phase = TAAL_BLOCK_LEAVING;
    co->point = block->line;
    rc = co->body(co);
    if (rc != TAAL_SUSPENDED && co->blocks == block &&
        block->phase == TAAL_BLOCK_LEAVING) {
        /* The body never got to the block's END: its line is not one of
         * this body's (a block begun by some other code, a frame copied
         * over). Forget the block rather than try again forever. */
        co->blocks = block->outer;
        rc = TAAL_EPOINT;
    }
    return rc;
}

/* After a block's exit or close: was the block left by a successful
 * return, whose outcome stayed TAAL_OK? Then its END returns as well. */
bool taal__block_returns(const taal_block *block, int outcome)
{
    return block != NULL && block->returned && outcome == TAAL_OK;
}

/*
** Python's coro.send(None). The checks come first and never touch the
** frame, so a misused coroutine is left exactly as it was. Then one call to
** the body runs it up to its next await or to its end.
**
** Whatever the body returns other than TAAL_SUSPENDED ends it, unless it
** returned from inside an open block: then the block is left first (which
** may suspend, or carry on after the block). The frame is marked finished
** here, in one place, so a hand-written body cannot forget to. A body that
** ends with a positive value other than TAAL_SUSPENDED and TAAL_STOP is
** reported as invalid rather than trusted.
*/
int taal_send(taal_coro *co)
{
    /* LAB(send) BEGIN: coro.send(None), from its contract in taal.h */
    if (co == NULL || co->body == NULL)
        return TAAL_EINVAL;
    if (co->point == TAAL_POINT_DONE)
        return TAAL_EDEAD;
    if (co->running)
        return TAAL_ERUNNING;

    co->running = true;
    return taal__send_finish(co, co->body(co));
    /* LAB(send) END: (void)co; return TAAL_ENOTIMPL; */
}

/* What taal_send() does once the body has returned `rc`, with the
 * coroutine still marked running: leave its open blocks, and mark it
 * finished unless it suspended. A task's step (task.c, through
 * taal__send_inline()) calls the body itself and comes here only when the
 * body did not simply suspend: it ended, or it has blocks open. */
int taal__send_finish(taal_coro *co, int rc)
{
    while (rc != TAAL_SUSPENDED && co->blocks != NULL)
        rc = leave_block(co, rc);
    co->running = false;

    if (rc == TAAL_SUSPENDED)
        return TAAL_SUSPENDED;
    co->point = TAAL_POINT_DONE;
    co->status = rc <= 0 || rc == TAAL_STOP ? rc : TAAL_EINVAL;
    return co->status;
}
