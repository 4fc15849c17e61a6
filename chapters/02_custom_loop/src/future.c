/*
** future.c -- chapter 02: futures, and the futures made of futures: gather
** and wait.
**
** A future is pending until someone gives it a result or an error. Then it
** moves every handle waiting on it to the ready queue, in the order they
** started waiting: done-callbacks are scheduled, never called inline, which
** is what fixes the order of everything a program prints.
*/
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* ---- plain futures ------------------------------------------------------- */

int taal_future_init(taal_future *future, taal_loop *loop)
{
    if (future == NULL || loop == NULL)
        return TAAL_EINVAL;
    memset(future, 0, sizeof *future);
    future->loop = loop;
    future->status = TAAL_SUSPENDED;
    list_init(&future->waiters);
    return TAAL_OK;
}

bool taal_future_done(const taal_future *future)
{
    return future != NULL && future->status != TAAL_SUSPENDED;
}

/* Every waiter moves to the ready queue at once: one splice, no matter how
 * many there are, and no allocation. */
void taal__future_finish(taal_future *future, int status, void *result)
{
    future->status = status;
    future->result = result;
    list_splice_back(&future->loop->ready, &future->waiters);
}

/* Only a plain future is completed from outside: a task completes when its
 * coroutine ends, a gather or wait when its children say so. */
static int check_settable(const taal_future *future)
{
    if (future == NULL || future->kind != TAAL_FUTURE_PLAIN)
        return TAAL_EINVAL;
    if (taal_future_done(future))
        return TAAL_ESTATE;
    if (future->loop->closed)
        return TAAL_ECLOSED;
    return TAAL_OK;
}

int taal_future_set_result(taal_future *future, void *result)
{
    int rc = check_settable(future);
    if (rc == TAAL_OK)
        taal__future_finish(future, TAAL_OK, result);
    return rc;
}

int taal_future_set_error(taal_future *future, int status)
{
    if (status >= 0)
        return TAAL_EINVAL;
    int rc = check_settable(future);
    if (rc == TAAL_OK)
        taal__future_finish(future, status, NULL);
    return rc;
}

int taal_future_status(taal_future *future)
{
    if (future == NULL)
        return TAAL_EINVAL;
    if (taal_future_done(future))
        future->retrieved = true;
    return future->status;
}

int taal_future_result(taal_future *future, void **result)
{
    if (future == NULL)
        return TAAL_EINVAL;
    if (!taal_future_done(future))
        return TAAL_ESTATE;
    future->retrieved = true;
    if (future->status == TAAL_OK && result != NULL)
        *result = future->result;
    return future->status;
}

int taal_future_add_done_callback(taal_future *future, taal_handle *handle,
                                  taal_callback_fn fn, void *arg)
{
    if (future == NULL || handle == NULL || fn == NULL)
        return TAAL_EINVAL;
    if (taal_handle_pending(handle))
        return TAAL_EBUSY;
    if (taal_future_done(future))
        return taal_call_soon(future->loop, handle, fn, arg);
    handle->fn = fn;
    handle->arg = arg;
    list_push_back(&future->waiters, &handle->link);
    return TAAL_OK;
}

int taal_future_remove_done_callback(taal_future *future, taal_handle *handle)
{
    if (future == NULL || handle == NULL)
        return TAAL_EINVAL;
    link_remove(&handle->link);
    return TAAL_OK;
}

/* ---- futures the loop allocates ------------------------------------------- */

/*
** Tasks, gathers and waits are allocated by the loop and counted: the
** creator holds one reference until taal_future_release(), a pending task
** holds one on itself (the loop must still run it), and every gather, wait
** or parked task that watches a future holds one on it. The last reference
** frees it. taal_loop_close() frees whatever is left, references or not.
*/
void taal__future_init_heap(taal_future *future, taal_loop *loop, taal_future_kind kind)
{
    taal_future_init(future, loop);
    future->kind = (uint8_t)kind;
    list_push_back(&loop->objects, &future->node);
}

void taal__future_retain(taal_future *future)
{
    if (future->kind != TAAL_FUTURE_PLAIN)
        future->refs++;
}

static void drop_watched(taal_future *future);

void taal__future_unref(taal_future *future)
{
    if (future->kind == TAAL_FUTURE_PLAIN || --future->refs > 0)
        return;
    taal__future_dispose(future);
    drop_watched(future);
    link_remove(&future->node);
    taal__future_destroy(future);
}

void taal_future_release(taal_future *future)
{
    if (future == NULL || future->kind == TAAL_FUTURE_PLAIN)
        return;
    if (future->released) {
        taal__report(future->loop, "a future was released twice; the second is ignored");
        return;
    }
    future->released = true;
    taal__future_unref(future);
}

/* ---- gather ---------------------------------------------------------------- */

/* One slot per child: the handle that waits on the child, and the child
 * itself until its result has been collected. */
typedef struct gather_slot {
    taal_handle handle;    /* parked on the child; arg is this slot */
    taal_future *child;    /* NULL once collected */
    struct gather *gather; /* the gather the slot belongs to */
} gather_slot;

typedef struct gather {
    taal_future future; /* first member: a gather is a future */
    size_t count;       /* children */
    size_t remaining;   /* children not collected yet */
    void **results;     /* in argument order; after the slots, same block */
    gather_slot slots[];
} gather;

/* Checks the arguments common to gather and wait. */
static int check_children(taal_loop *loop, size_t count, taal_future *const futures[],
                          taal_future **out)
{
    if (loop == NULL || out == NULL || (count > 0 && futures == NULL))
        return TAAL_EINVAL;
    for (size_t i = 0; i < count; i++) {
        if (futures[i] == NULL)
            return TAAL_EINVAL;
        if (futures[i]->loop != loop)
            return TAAL_ELOOP;
    }
    return loop->closed ? TAAL_ECLOSED : TAAL_OK;
}

/* A child is done: collect its result, and finish the gather on the first
 * error or the last result. A child that fails after the gather finished
 * still has its error marked retrieved, as asyncio does. */
static void gather_child_done(void *arg)
{
    gather_slot *slot = arg;
    gather *g = slot->gather;
    taal_future *child = slot->child;
    int status = taal_future_status(child);
    if (status == TAAL_OK)
        g->results[slot - g->slots] = child->result;
    slot->child = NULL;
    g->remaining--;
    if (!taal_future_done(&g->future)) {
        if (status != TAAL_OK)
            taal__future_finish(&g->future, status, NULL);
        else if (g->remaining == 0)
            taal__future_finish(&g->future, TAAL_OK, g->results);
    }
    taal__future_unref(child);
}

int taal_gather(taal_loop *loop, size_t count, taal_future *const futures[],
                taal_future **gathered)
{
    int rc = check_children(loop, count, futures, gathered);
    if (rc != TAAL_OK)
        return rc;
    size_t slot_bytes = sizeof(gather_slot) + sizeof(void *);
    if (count > (SIZE_MAX - sizeof(gather)) / slot_bytes)
        return TAAL_ENOMEM;
    gather *g = taal__alloc(sizeof(gather) + count * slot_bytes);
    if (g == NULL)
        return TAAL_ENOMEM;
    memset(g, 0, sizeof(gather) + count * slot_bytes);
    taal__future_init_heap(&g->future, loop, TAAL_FUTURE_GATHER);
    g->future.refs = 1; /* the creator's */
    g->count = g->remaining = count;
    g->results = (void **)(void *)(g->slots + count);
    for (size_t i = 0; i < count; i++) {
        gather_slot *slot = &g->slots[i];
        slot->gather = g;
        slot->child = futures[i];
        taal__future_retain(futures[i]);
        taal_future_add_done_callback(futures[i], &slot->handle, gather_child_done, slot);
    }
    if (count == 0)
        taal__future_finish(&g->future, TAAL_OK, g->results);
    *gathered = &g->future;
    return TAAL_OK;
}

/* ---- wait ------------------------------------------------------------------ */

typedef struct wait_slot {
    taal_handle handle;  /* parked on the child; arg is this slot */
    taal_future *child;  /* NULL once the wait is over */
    struct waiter *wait; /* the wait the slot belongs to */
} wait_slot;

typedef struct waiter {
    taal_future future;  /* first member: a wait is a future */
    taal_timer timeout;  /* armed unless there is no timeout */
    taal_wait_mode mode; /* when to finish */
    size_t count;        /* children */
    size_t pending;      /* children not seen done yet */
    wait_slot slots[];
} waiter;

/* The wait is over: stop watching everything, and finish with TAAL_OK. It
 * cancels nothing and retrieves nothing: the caller asks each future. */
static void wait_finish(waiter *w)
{
    taal_timer_stop(w->future.loop, &w->timeout);
    for (size_t i = 0; i < w->count; i++)
        link_remove(&w->slots[i].handle.link);
    drop_watched(&w->future);
    taal__future_finish(&w->future, TAAL_OK, NULL);
}

static void wait_child_done(void *arg)
{
    wait_slot *slot = arg;
    waiter *w = slot->wait;
    w->pending--;
    /* asyncio's test, in its order: only FIRST_EXCEPTION looks at the
     * child's error, and looking marks it retrieved. */
    if (w->pending == 0 || w->mode == TAAL_FIRST_COMPLETED ||
        (w->mode == TAAL_FIRST_EXCEPTION && taal_future_status(slot->child) != TAAL_OK))
        wait_finish(w);
}

static void wait_timed_out(void *arg)
{
    wait_finish(arg);
}

int taal_wait(taal_loop *loop, size_t count, taal_future *const futures[],
              taal_wait_mode mode, double timeout, taal_future **waited)
{
    int rc = check_children(loop, count, futures, waited);
    if (rc != TAAL_OK)
        return rc;
    int64_t ignored;
    if (count == 0 || mode > TAAL_FIRST_EXCEPTION ||
        (timeout != TAAL_NO_TIMEOUT && taal__delay_ns(timeout, &ignored) != TAAL_OK))
        return TAAL_EINVAL;
    if (count > (SIZE_MAX - sizeof(waiter)) / sizeof(wait_slot))
        return TAAL_ENOMEM;
    waiter *w = taal__alloc(sizeof(waiter) + count * sizeof(wait_slot));
    if (w == NULL)
        return TAAL_ENOMEM;
    memset(w, 0, sizeof(waiter) + count * sizeof(wait_slot));
    if (timeout != TAAL_NO_TIMEOUT) {
        rc = taal_timer_start(loop, &w->timeout, timeout, wait_timed_out, w);
        if (rc != TAAL_OK) {
            taal__free(w);
            return rc;
        }
    }
    taal__future_init_heap(&w->future, loop, TAAL_FUTURE_WAIT);
    w->future.refs = 1; /* the creator's */
    w->mode = mode;
    w->count = w->pending = count;
    for (size_t i = 0; i < count; i++) {
        wait_slot *slot = &w->slots[i];
        slot->wait = w;
        slot->child = futures[i];
        taal__future_retain(futures[i]);
        taal_future_add_done_callback(futures[i], &slot->handle, wait_child_done, slot);
    }
    *waited = &w->future;
    return TAAL_OK;
}

/* ---- taking futures apart ------------------------------------------------------ */

/* Unhooks a loop-allocated future from every list: its own waiters, and
 * whatever its handles and timers are parked on. */
void taal__future_dispose(taal_future *future)
{
    while (!list_empty(&future->waiters))
        link_remove(future->waiters.next);
    switch (future->kind) {
    case TAAL_FUTURE_TASK: taal__task_dispose((taal_task *)future); break;
    case TAAL_FUTURE_GATHER: {
        gather *g = (gather *)future;
        for (size_t i = 0; i < g->count; i++)
            link_remove(&g->slots[i].handle.link);
        break;
    }
    case TAAL_FUTURE_WAIT: {
        waiter *w = (waiter *)future;
        taal_timer_stop(future->loop, &w->timeout);
        for (size_t i = 0; i < w->count; i++)
            link_remove(&w->slots[i].handle.link);
        break;
    }
    default: break;
    }
}

static void unref_child(taal_future **child)
{
    if (*child != NULL)
        taal__future_unref(*child);
    *child = NULL;
}

/* Drops the references a gather or wait holds on the futures it still
 * watches (not at close, where everything goes at once). */
static void drop_watched(taal_future *future)
{
    if (future->kind == TAAL_FUTURE_GATHER) {
        gather *g = (gather *)future;
        for (size_t i = 0; i < g->count; i++) {
            /* asyncio's gather would still have collected its error */
            if (g->slots[i].child != NULL)
                g->slots[i].child->retrieved = true;
            unref_child(&g->slots[i].child);
        }
    } else if (future->kind == TAAL_FUTURE_WAIT) {
        waiter *w = (waiter *)future;
        for (size_t i = 0; i < w->count; i++)
            unref_child(&w->slots[i].child);
    }
}

void taal__future_describe(taal_future *future, char *buf, size_t size)
{
    char name[64];
    switch (future->kind) {
    case TAAL_FUTURE_TASK:
        snprintf(buf, size, "task %s",
                 taal_task_name((taal_task *)future, name, sizeof name));
        break;
    case TAAL_FUTURE_GATHER: {
        gather *g = (gather *)future;
        snprintf(buf, size, "a gather of %zu (%zu not done)", g->count, g->remaining);
        break;
    }
    case TAAL_FUTURE_WAIT:
        snprintf(buf, size, "a wait on %zu futures", ((waiter *)future)->count);
        break;
    default: snprintf(buf, size, "a future"); break;
    }
}

/* The end of a loop-allocated future: an error nobody looked at is
 * reported (asyncio's "exception was never retrieved"), then it is freed. */
void taal__future_destroy(taal_future *future)
{
    if (future->status < 0 && !future->retrieved) {
        char what[128];
        taal__future_describe(future, what, sizeof what);
        taal__report(future->loop, "%s failed with \"%s\" and nobody retrieved the error",
                     what, taal_strerror(future->status));
    }
    taal__free(future);
}
