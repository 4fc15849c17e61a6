/*
** taal.c -- the driver of the awaitable protocol (chapter 01, unchanged but
** for the new status names: chapter 05 adds "cancelled", "timed out" and
** "tasks of the group failed").
**
** There is very little here, on purpose: a coroutine is data (its frame)
** plus a function (its body), and resuming it is one function call. All
** the cleverness is in the macros of taal.h. The loop is in loop.c, futures
** in future.c, tasks in task.c, the semaphore and its kin in sync.c.
*/
#include "taal.h"

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
    default: return status <= TAAL_EUSER ? user_error(status) : "unknown status";
    }
}

void taal_set_strerror(taal_strerror_fn name)
{
    user_names = name;
}

int taal_coro_init(taal_coro *co, taal_body_fn body)
{
    if (co == NULL || body == NULL)
        return TAAL_EINVAL;
    co->body = body;
    co->point = 0;
    co->status = TAAL_SUSPENDED;
    co->running = false;
    return TAAL_OK;
}

bool taal_coro_done(const taal_coro *co)
{
    return co != NULL && co->point == TAAL_POINT_DONE;
}

/*
** Python's coro.send(None). The checks come first and never touch the
** frame, so a misused coroutine is left exactly as it was. Then one call to
** the body runs it up to its next await or to its end.
**
** Whatever the body returns other than TAAL_SUSPENDED ends it: the frame is
** marked finished here, in one place, so a hand-written body cannot forget
** to. A body that ends with a positive value other than TAAL_SUSPENDED is
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
    int rc = co->body(co);
    co->running = false;

    if (rc == TAAL_SUSPENDED)
        return TAAL_SUSPENDED;
    co->point = TAAL_POINT_DONE;
    co->status = rc <= 0 ? rc : TAAL_EINVAL;
    return co->status;
    /* LAB(send) END: (void)co; return TAAL_ENOTIMPL; */
}
