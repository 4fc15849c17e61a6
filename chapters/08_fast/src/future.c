/*
** future.c -- chapter 02: futures, and the futures made of futures: gather
** and wait; chapter 05: cancelling them, and shield.
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

/* Is `future` inside the frame of `task`? */
static bool in_frame(const taal_task *task, const taal_future *future)
{
    const char *frame = (const char *)taal_task_frame((taal_task *)task);
    const char *at = (const char *)future;
    return at >= frame && at + sizeof *future <= frame + task->frame_size;
}

/* A future that was never initialised has no list of waiters (zeroed
 * memory, or a struct nobody passed to taal_future_init()): that is what
 * taal__future_valid() checks. */
int taal_future_init(taal_future *future, taal_loop *loop)
{
    if (future == NULL || loop == NULL)
        return TAAL_EINVAL;
    if (loop->closed || loop->closing)
        return TAAL_ECLOSED;
    *future = (taal_future){.loop = loop, .status = TAAL_SUSPENDED};
    list_init(&future->waiters);
    taal_task *task = taal__current_task();
    if (task != NULL && task->future.loop == loop && in_frame(task, future))
        future->u.owner = task;
    return TAAL_OK;
}

bool taal_future_done(const taal_future *future)
{
    return taal__future_valid(future) && taal__future_is_done(future);
}

/* A gather's collection of a child is kept out of taal__future_finish():
 * inlined there, its registers would cost every completion. */
#if defined(__GNUC__)
#define TAAL__NOINLINE __attribute__((noinline))
#else
#define TAAL__NOINLINE
#endif

static bool gather_slot_handle(const taal_handle *handle);
TAAL__NOINLINE static void gather_slot_reached(taal_handle *handle);

/* Every waiter moves to the ready queue, in the order they came, each to
 * the FIFO of its priority: one pass, no allocation. (Chapter 02 moved them
 * all in one splice; with priorities, each must go to its own FIFO.) With
 * tracing on, each task among them is recorded as woken first. Chapter 08:
 * a gather's slot among them is not scheduled but collected in its place
 * (see "gather" below). */
void taal__future_finish(taal_future *future, int status, void *result)
{
    future->status = status;
    future->result = result;
    if (future->loop->trace != NULL)
        taal__trace_wakes(future->loop, future);
    taal_loop *loop = future->loop;
    taal_link *head = &future->waiters;
    while (head->next != head) {
        /* Chapter 08: the first waiter leaves the list without
         * link_remove()'s test: it is linked. The push sets both of its
         * links; a gather's slot, not pushed, has them cleared. */
        taal_link *link = head->next;
        head->next = link->next;
        link->next->prev = head;
        taal_handle *handle = TAAL_CONTAINER_OF(link, taal_handle, link);
        if (gather_slot_handle(handle)) {
            link->prev = link->next = NULL;
            gather_slot_reached(handle); /* see "gather" below */
        } else {
            taal__ready_push(loop, handle);
        }
    }
}

/* Only a plain future is completed from outside: a task completes when its
 * coroutine ends, a gather or wait when its children say so. */
static int check_settable(const taal_future *future)
{
    if (!taal__future_valid(future) || future->kind != TAAL_FUTURE_PLAIN)
        return TAAL_EINVAL;
    if (taal__future_is_done(future))
        return TAAL_ESTATE;
    if (future->loop->closed || future->loop->closing)
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

int taal_future_status(const taal_future *future)
{
    return taal__future_valid(future) ? future->status : TAAL_EINVAL;
}

static void take_wait_sets(taal_future *future);

int taal_future_result(taal_future *future, void **result)
{
    if (!taal__future_valid(future))
        return TAAL_EINVAL;
    if (!taal_future_done(future))
        return TAAL_ESTATE;
    if (future->kind == TAAL_FUTURE_WAIT)
        take_wait_sets(future);
    if (future->status == TAAL_OK && result != NULL)
        *result = future->result;
    return taal__future_retrieve(future);
}

/* A closed loop's futures take no callbacks: nothing would ever run them. */
static bool future_closed(const taal_future *future)
{
    return future->loop == NULL || future->loop->closed || future->loop->closing;
}

int taal_future_add_done_callback(taal_future *future, taal_handle *handle,
                                  taal_done_fn fn, void *data)
{
    if (!taal__future_valid(future) || future->kind == TAAL_FUTURE_WAITERS ||
        handle == NULL || fn == NULL)
        return TAAL_EINVAL;
    if (future_closed(future))
        return TAAL_ECLOSED;
    if (link_linked(&handle->link))
        return TAAL_EBUSY; /* scheduled, or waiting on a future */
    handle->fn.done = fn;
    handle->data = data;
    handle->future = future;
    taal__future_retain(future);
    if (taal__future_is_done(future))
        taal__ready_push(future->loop, handle);
    else
        list_push_back(&future->waiters, &handle->link);
    return TAAL_OK;
}

int taal_future_remove_done_callback(taal_future *future, taal_handle *handle)
{
    if (future == NULL || handle == NULL || handle->future != future ||
        !link_linked(&handle->link))
        return TAAL_EINVAL; /* not a callback of this future, or it has run */
    link_remove(&handle->link);
    handle->future = NULL;
    taal__future_unref(future);
    return TAAL_OK;
}

/* ---- references ------------------------------------------------------------ */

/*
** Tasks, gathers and waits are allocated by the loop and counted: the
** creator holds one reference until taal_future_release(), a pending one
** holds one on itself (the loop must still run it), and every handle
** waiting on it and every gather or wait holding it hold one each. The
** last reference frees it. The counting itself is in internal.h, inline,
** since it happens on every wake-up.
*/
void taal__future_init_heap(taal_future *future, taal_loop *loop, taal_future_kind kind)
{
    future->loop = loop;
    list_init(&future->waiters);
    future->result = NULL;
    future->status = TAAL_SUSPENDED;
    future->refs = 0;
    future->kind = kind;
    future->retrieved = future->released = false;
    future->outside = !loop->running;
    future->spare = 0;
    list_push_back(&loop->objects, &future->u.node);
}

void taal_future_release(taal_future *future)
{
    if (!taal__future_valid(future) || !taal__future_allocated(future))
        return;
    if (future->released) {
        taal__report(future->loop, TAAL_REPORT_MISUSE, future, TAAL_OK,
                     "a future was released twice; the second is ignored");
        return;
    }
    future->released = true;
    taal__keeper_unref(future); /* allocated: its own keeper */
}

/* ---- gather ---------------------------------------------------------------- */

/*
** Chapter 08: a gather without a done-callback per child. Chapter 07 gave
** each slot a done-callback on its child: when the child finished, the
** callback went through the ready queue, ran one iteration later, and
** collected the child; the slot held two references on the child, its
** own and its handle's. asyncio's gather does the same (its _done_callback
** is scheduled with call_soon), and a program can see one thing of it:
** the gather finishes one iteration after the child that finished it, so
** whatever awaits the gather wakes one iteration after that.
**
** Here the slot's handle still waits in the child's waiters, in its place
** among them, but it is never scheduled: taal__future_finish() meets it
** there and collects the child at once. Collecting a child that does not
** finish the gather changes nothing a program can see (the gather is not
** done either way). The one that does (the last, or the first error)
** does not finish the gather there: it schedules the gather's own `end`
** handle in the slot's place, which finishes it in the next iteration,
** exactly when asyncio's callback would have. So the order is asyncio's,
** and a child costs no trip through the ready queue, no done-callback to
** add or to run, and one reference: the slot's, held until the gather is
** freed.
*/
typedef struct gather_slot {
    taal_handle handle;    /* in the child's waiters until it is done; never
                              scheduled (gather_slot_handle()) */
    taal_future *child;    /* held (a reference) until the gather is freed */
    struct gather *gather; /* the gather the slot belongs to */
} gather_slot;

typedef struct gather {
    taal_future future;    /* first member: a gather is a future */
    size_t count;          /* children */
    size_t remaining;      /* children not collected yet */
    void **results;        /* in argument order; after the slots, same block */
    unsigned flags;        /* TAAL_RETURN_EXCEPTIONS, or 0 */
    bool cancel_requested; /* it was cancelled: end cancelled, whatever the
                              children do (asyncio's _cancel_requested) */
    int ending;            /* TAAL_SUSPENDED; else `end` is scheduled, to
                              finish it with this status next iteration */
    taal_handle end;       /* finishes it, one iteration after the child that
                              decided it, as asyncio's callback would */
    gather_slot slots[];
} gather;

/* Checks the arguments common to gather and wait, all but the children. */
static int check_args(const taal_loop *loop, size_t count, taal_future *const futures[],
                      taal_future **out)
{
    if (loop == NULL || out == NULL || (count > 0 && futures == NULL))
        return TAAL_EINVAL;
    if (loop->closed || loop->closing)
        return TAAL_ECLOSED;
    return TAAL_OK;
}

/* Checks one child of a gather or wait: a live future of this loop. */
static int check_child(const taal_loop *loop, const taal_future *child)
{
    if (!taal__future_valid(child) || child->kind == TAAL_FUTURE_WAITERS)
        return TAAL_EINVAL;
    if (child->loop == NULL)
        return TAAL_ECLOSED;
    if (child->loop != loop)
        return TAAL_ELOOP;
    return TAAL_OK;
}

/* Checks the arguments common to gather and wait, the children included. */
static int check_children(const taal_loop *loop, size_t count,
                          taal_future *const futures[], taal_future **out)
{
    int rc = check_args(loop, count, futures, out);
    for (size_t i = 0; rc == TAAL_OK && i < count; i++)
        rc = check_child(loop, futures[i]);
    return rc;
}

/* A done-callback of a wait or shield lets go: off the child's waiters (or
 * the ready queue), and its reference on the child dropped. Harmless on an
 * idle handle. */
static void drop_handle(taal_handle *handle)
{
    link_remove(&handle->link);
    if (handle->future != NULL) {
        taal_future *future = handle->future;
        handle->future = NULL;
        taal__future_unref(future);
    }
}

/* A pending gather or wait holds a reference on itself, as a pending task
 * does, so that releasing it early never loses its callbacks. It finishes
 * once, and drops that reference last: it may be freed right there. */
static void finish_and_let_go(taal_future *future, int status, void *result)
{
    taal__future_finish(future, status, result);
    taal__future_unref(future);
}

/* The gather finishes: with its first error `status`, or, TAAL_OK, with
 * every child collected: with the array, or cancelled if it was cancelled
 * meanwhile. */
static void gather_finish(gather *g, int status)
{
    if (status != TAAL_OK)
        finish_and_let_go(&g->future, status, NULL);
    else
        finish_and_let_go(&g->future, g->cancel_requested ? TAAL_ECANCELLED : TAAL_OK,
                          g->results);
}

/* The `end` handle runs: one iteration after the child that decided it. */
static void gather_ended(void *data)
{
    gather *g = data;
    gather_finish(g, g->ending);
}

/* A child is done: collect it. The first error (a cancelled child's
 * included) decides the gather's end at once, unless errors are returned
 * as results; the last child decides it with the array, or cancelled if
 * the gather itself was. `now` finishes it there and then (children done
 * before the gather was made, as Python 3.12's gather does); else it ends
 * in the next iteration, through `end`. A child done after that still has
 * its error marked retrieved, as asyncio's gather does. */
static void gather_collect(gather *g, gather_slot *slot, bool now)
{
    /* LAB(gather) BEGIN: collect one child; finish on an error or the last result */
    int status = taal__future_retrieve(slot->child);
    g->remaining--;
    if (taal__future_is_done(&g->future) || g->ending != TAAL_SUSPENDED)
        return;
    if (status == TAAL_OK || (g->flags & TAAL_RETURN_EXCEPTIONS)) {
        g->results[slot - g->slots] = status == TAAL_OK ? slot->child->result : NULL;
        if (g->remaining > 0)
            return;
        status = TAAL_OK;
    }
    if (now) {
        gather_finish(g, status);
        return;
    }
    g->ending = status;
    g->end.fn.call = gather_ended;
    g->end.data = g;
    taal__ready_push(g->future.loop, &g->end);
    /* LAB(gather) END: (void)g; (void)slot; (void)now; */
}

/* The handle of a gather's slot is known by its function, which is never
 * called: taal__future_finish() asks this of every handle it wakes. */
static void gather_child_done(taal_future *child, void *slot)
{
    (void)child;
    (void)slot;
}

static bool gather_slot_handle(const taal_handle *handle)
{
    return handle->fn.done == gather_child_done;
}

/* The child of the slot whose handle this is has just finished. */
TAAL__NOINLINE static void gather_slot_reached(taal_handle *handle)
{
    gather_slot *slot = (gather_slot *)(void *)handle; /* its first member */
    gather_collect(slot->gather, slot, false);
}

static gather *gather_alloc(taal_loop *loop, size_t count)
{
    size_t slot_bytes = sizeof(gather_slot) + sizeof(void *);
    if (count > (SIZE_MAX - sizeof(gather)) / slot_bytes)
        return NULL;
    gather *g = taal__alloc(sizeof(gather) + count * slot_bytes);
    if (g == NULL)
        return NULL;
    memset(g, 0, sizeof(gather)); /* the slots are set one by one by taal_gather */
    taal__future_init_heap(&g->future, loop, TAAL_FUTURE_GATHER);
    g->future.refs = 2; /* the creator's, and its own while pending */
    g->count = g->remaining = count;
    g->results = (void **)(void *)(g->slots + count);
    g->ending = TAAL_SUSPENDED;
    return g;
}

/* taal_gather met a bad child after filling `filled` slots: it lets go of
 * what those slots hold, and of the gather, which nobody has seen yet. */
static void gather_undo(gather *g, size_t filled)
{
    for (size_t i = 0; i < filled; i++) {
        link_remove(&g->slots[i].handle.link);
        taal__future_unref(g->slots[i].child);
    }
    link_remove(&g->future.u.node);
    taal__free(g);
}

int taal_gather(taal_loop *loop, size_t count, taal_future *const futures[],
                taal_future **gathered)
{
    return taal_gather_ex(loop, count, futures, 0, gathered);
}

int taal_gather_ex(taal_loop *loop, size_t count, taal_future *const futures[],
                   unsigned flags, taal_future **gathered)
{
    int rc = check_args(loop, count, futures, gathered);
    if (rc != TAAL_OK)
        return rc;
    if (flags & ~TAAL_RETURN_EXCEPTIONS)
        return TAAL_EINVAL;
    gather *g = gather_alloc(loop, count);
    if (g == NULL)
        return TAAL_ENOMEM;
    g->flags = flags;
    /* Each child is checked as its slot is filled: a million children are
     * read once, not twice. A bad one undoes the slots filled before it.
     * A pending child gets the slot's handle at the end of its waiters,
     * where asyncio's add_done_callback() puts its callback. */
    size_t finished = 0; /* children done already */
    for (size_t i = 0; i < count; i++) {
        taal_future *child = futures[i];
        rc = check_child(loop, child);
        if (rc != TAAL_OK) {
            gather_undo(g, i);
            return rc;
        }
        gather_slot *slot = &g->slots[i];
        slot->handle.fn.done = gather_child_done; /* what marks a slot */
        slot->handle.future = NULL; /* the rest of the handle is never read */
        slot->gather = g;
        slot->child = child;
        taal__future_retain(child);
        if (taal__future_is_done(child)) {
            slot->handle.link.next = NULL; /* idle */
            finished++;
        } else {
            list_push_back(&child->waiters, &slot->handle.link);
        }
    }
    /* Python 3.12: children already done are collected now, in order, so
     * that a gather of finished futures is itself finished at once. Their
     * slots are the ones with an idle handle. (With none done, as when the
     * children were just created, this pass over the slots is skipped.) */
    for (size_t i = 0; finished > 0 && i < count && g->remaining > 0; i++) {
        if (!link_linked(&g->slots[i].handle.link)) {
            finished--;
            gather_collect(g, &g->slots[i], true);
        }
    }
    *gathered = &g->future;
    if (count == 0)
        finish_and_let_go(&g->future, TAAL_OK, g->results);
    return TAAL_OK;
}

size_t taal_gather_count(const taal_future *gathered)
{
    if (!taal__future_valid(gathered) || gathered->kind != TAAL_FUTURE_GATHER)
        return 0;
    return ((const gather *)gathered)->count;
}

int taal_gather_status(const taal_future *gathered, size_t i)
{
    if (i >= taal_gather_count(gathered))
        return TAAL_EINVAL;
    return ((const gather *)gathered)->slots[i].child->status;
}

/* asyncio's _GatheringFuture.cancel(): every child that is not done is
 * cancelled, and if any took it, the gather remembers, so that it ends
 * cancelled even if every child swallows its cancellation. */
static bool gather_cancel(gather *g)
{
    bool any = false;
    for (size_t i = 0; i < g->count; i++)
        if (!taal__future_is_done(g->slots[i].child) &&
            taal_future_cancel(g->slots[i].child))
            any = true;
    if (any)
        g->cancel_requested = true;
    return any;
}

/* ---- wait ------------------------------------------------------------------ */

typedef struct wait_slot {
    taal_handle handle;  /* on the child's waiters until the wait is over */
    taal_future *child;  /* held (a reference) until the wait is freed */
    struct waiter *wait; /* the wait the slot belongs to */
} wait_slot;

typedef struct waiter {
    taal_future future;   /* first member: a wait is a future */
    taal_timer timeout;   /* armed unless there is no timeout */
    taal_wait_mode mode;  /* when to finish */
    bool sets_taken;      /* the result has been read: the sets are fixed */
    size_t count;         /* children */
    size_t pending;       /* children not seen done yet */
    taal_wait_sets sets;  /* the result */
    taal_future **sorted; /* the sets' storage: done ones, then pending ones */
    wait_slot slots[];
} waiter;

/* The wait is over: stop the timer and the callbacks, and finish with
 * `status`: TAAL_OK, or TAAL_ECANCELLED if it was cancelled. It cancels
 * nothing and retrieves nothing. */
static void wait_end(waiter *w, int status)
{
    taal__timer_disarm(w->future.loop, &w->timeout);
    for (size_t i = 0; i < w->count; i++)
        drop_handle(&w->slots[i].handle);
    finish_and_let_go(&w->future, status, status == TAAL_OK ? &w->sets : NULL);
}

static void wait_finish(waiter *w)
{
    wait_end(w, TAAL_OK);
}

static void wait_child_done(taal_future *child, void *data)
{
    waiter *w = ((wait_slot *)data)->wait;
    w->pending--;
    /* asyncio's test, in its order: only FIRST_EXCEPTION looks at the
     * child's error, and looking marks it retrieved. A cancelled child
     * raised nothing: asyncio asks cancelled() first, and so does this. */
    if (w->pending == 0 || w->mode == TAAL_FIRST_COMPLETED ||
        (w->mode == TAAL_FIRST_EXCEPTION && !taal_future_cancelled(child) &&
         taal__future_retrieve(child) != TAAL_OK))
        wait_finish(w);
}

static void wait_timed_out(void *w)
{
    wait_finish(w);
}

/* asyncio builds (done, pending) when the awaiting task resumes; taal when
 * the result is first read, which is the same moment in the usual code. */
static void take_wait_sets(taal_future *future)
{
    waiter *w = (waiter *)future;
    if (w->sets_taken)
        return;
    w->sets_taken = true;
    size_t n = 0;
    for (size_t i = 0; i < w->count; i++)
        if (taal_future_done(w->slots[i].child))
            w->sorted[n++] = w->slots[i].child;
    size_t done = n;
    for (size_t i = 0; i < w->count; i++)
        if (!taal_future_done(w->slots[i].child))
            w->sorted[n++] = w->slots[i].child;
    w->sets = (taal_wait_sets){done, w->sorted, w->count - done, w->sorted + done};
}

static waiter *wait_alloc(size_t count)
{
    size_t slot_bytes = sizeof(wait_slot) + sizeof(taal_future *);
    if (count > (SIZE_MAX - sizeof(waiter)) / slot_bytes)
        return NULL;
    waiter *w = taal__alloc(sizeof(waiter) + count * slot_bytes);
    if (w == NULL)
        return NULL;
    memset(w, 0, sizeof(waiter)); /* the slots are set one by one by taal_wait */
    w->sorted = (taal_future **)(void *)(w->slots + count);
    w->count = w->pending = count;
    return w;
}

int taal_wait(taal_loop *loop, size_t count, taal_future *const futures[],
              taal_wait_mode mode, double timeout, taal_future **waited)
{
    int rc = check_children(loop, count, futures, waited);
    if (rc != TAAL_OK)
        return rc;
    int64_t ns;
    if (count == 0 || mode > TAAL_FIRST_EXCEPTION ||
        taal__delay_ns(timeout, &ns) != TAAL_OK)
        return TAAL_EINVAL;
    waiter *w = wait_alloc(count);
    if (w == NULL)
        return TAAL_ENOMEM;
    if (ns != INT64_MAX) { /* a timeout that never comes arms nothing */
        rc = taal_timer_start(loop, &w->timeout, timeout, wait_timed_out, w);
        if (rc != TAAL_OK) {
            taal__free(w);
            return rc;
        }
    }
    taal__future_init_heap(&w->future, loop, TAAL_FUTURE_WAIT);
    w->future.refs = 2; /* the creator's, and its own while pending */
    w->mode = mode;
    for (size_t i = 0; i < count; i++) {
        wait_slot *slot = &w->slots[i];
        slot->handle = (taal_handle){0}; /* idle */
        slot->wait = w;
        slot->child = futures[i];
        taal__future_retain(futures[i]);
        taal_future_add_done_callback(futures[i], &slot->handle, wait_child_done, slot);
    }
    *waited = &w->future;
    return TAAL_OK;
}

/* ---- shield ------------------------------------------------------------------ */

/* A shield is a future that copies its inner one, with a one-way link:
 * the inner future's completion reaches it, its cancellation does not
 * reach the inner future. */
typedef struct shield {
    taal_future future; /* first member: a shield is a future */
    taal_handle handle; /* on the inner future's waiters until it is done */
    taal_future *inner; /* held (a reference) until the shield is freed */
    bool failed;        /* inner failed with the cancellation, uncancelled */
} shield;

/* The inner future's outcome becomes the shield's, and counts as
 * retrieved: the shield's own error is what will be reported, if nobody
 * looks at it. */
static void shield_copy(shield *sh, bool pending)
{
    int status = taal__future_retrieve(sh->inner);
    /* asyncio's shield cancels itself only when the inner future was
     * cancelled; one that failed with CancelledError (a gather) makes it
     * fail with that too, and it is not cancelled() either. */
    sh->failed = status == TAAL_ECANCELLED && !taal_future_cancelled(sh->inner);
    void *result = status == TAAL_OK ? sh->inner->result : NULL;
    if (pending)
        finish_and_let_go(&sh->future, status, result);
    else
        taal__future_finish(&sh->future, status, result);
}

static void shield_inner_done(taal_future *inner, void *sh)
{
    (void)inner;
    shield_copy(sh, true);
}

int taal_shield(taal_loop *loop, taal_future *inner, taal_future **outer)
{
    int rc = check_children(loop, 1, &inner, outer);
    if (rc != TAAL_OK)
        return rc;
    shield *sh = taal__alloc(sizeof *sh);
    if (sh == NULL)
        return TAAL_ENOMEM;
    memset(sh, 0, sizeof *sh);
    taal__future_init_heap(&sh->future, loop, TAAL_FUTURE_SHIELD);
    sh->inner = inner;
    taal__future_retain(inner);
    *outer = &sh->future;
    if (taal__future_is_done(inner)) { /* asyncio returns `inner` itself */
        sh->future.refs = 1;           /* the creator's */
        shield_copy(sh, false);
        return TAAL_OK;
    }
    sh->future.refs = 2; /* the creator's, and its own while pending */
    taal_future_add_done_callback(inner, &sh->handle, shield_inner_done, sh);
    return TAAL_OK;
}

/* Cancelling the shield stops it watching the inner future, which runs
 * on. If the inner one is done already and only its callback is still to
 * run, asyncio's callback would still have looked at its error: so does
 * this. */
static void shield_cancel(shield *sh)
{
    if (taal_handle_pending(&sh->handle) && taal__future_is_done(sh->inner))
        sh->inner->retrieved = true;
    drop_handle(&sh->handle);
    finish_and_let_go(&sh->future, TAAL_ECANCELLED, NULL);
}

/* ---- cancelling ------------------------------------------------------------- */

/* asyncio's Future.cancel(), and each kind's own cancel(). Nothing here
 * allocates: a cancel only moves handles between lists. */
bool taal_future_cancel(taal_future *future)
{
    if (!taal__future_valid(future) || taal__future_is_done(future) ||
        future_closed(future))
        return false;
    switch (future->kind) {
    case TAAL_FUTURE_PLAIN:
        taal__future_finish(future, TAAL_ECANCELLED, NULL);
        return true;
    case TAAL_FUTURE_TASK: return taal_task_cancel((taal_task *)future);
    case TAAL_FUTURE_GATHER: return gather_cancel((gather *)future);
    case TAAL_FUTURE_WAIT: wait_end((waiter *)future, TAAL_ECANCELLED); return true;
    case TAAL_FUTURE_SHIELD: shield_cancel((shield *)future); return true;
    default: return false; /* a primitive's waiters: cancel the waiting task */
    }
}

/* asyncio's gather is never cancelled(): cancelled itself or by a child,
 * it ends with CancelledError set as its exception, an error like any
 * other (set_exception(), not cancel()). So is taal's. */
bool taal_future_cancelled(const taal_future *future)
{
    if (!taal_future_done(future) || future->status != TAAL_ECANCELLED)
        return false;
    if (future->kind == TAAL_FUTURE_GATHER)
        return false;
    if (future->kind == TAAL_FUTURE_SHIELD)
        return !((const shield *)future)->failed;
    return true;
}

/* ---- taking futures apart ------------------------------------------------------ */

static gather_slot *gather_slots(taal_future *future, size_t *count)
{
    *count = ((gather *)future)->count;
    return ((gather *)future)->slots;
}

static wait_slot *wait_slots(taal_future *future, size_t *count)
{
    *count = ((waiter *)future)->count;
    return ((waiter *)future)->slots;
}

void taal__future_for_each_child(taal_future *future,
                                 void (*fn)(taal_future *child, void *ctx), void *ctx)
{
    size_t count;
    if (future->kind == TAAL_FUTURE_SHIELD) {
        fn(((shield *)future)->inner, ctx);
    } else if (future->kind == TAAL_FUTURE_GATHER) {
        gather_slot *slots = gather_slots(future, &count);
        for (size_t i = 0; i < count; i++)
            fn(slots[i].child, ctx);
    } else if (future->kind == TAAL_FUTURE_WAIT) {
        wait_slot *slots = wait_slots(future, &count);
        for (size_t i = 0; i < count; i++)
            fn(slots[i].child, ctx);
    }
}

static void forget_handle(taal_handle *handle)
{
    link_remove(&handle->link);
    handle->future = NULL;
}

/* For taal_loop_close(): takes a future off every list, and everything of
 * its off every list, without counting references (close counts them
 * afresh for what survives). */
void taal__future_unhook(taal_future *future)
{
    while (!list_empty(&future->waiters))
        forget_handle(TAAL_CONTAINER_OF(future->waiters.next, taal_handle, link));
    size_t count;
    switch (future->kind) {
    case TAAL_FUTURE_TASK: taal__task_unhook((taal_task *)future); break;
    case TAAL_FUTURE_GATHER: {
        gather_slot *slots = gather_slots(future, &count);
        for (size_t i = 0; i < count; i++)
            forget_handle(&slots[i].handle);
        forget_handle(&((gather *)future)->end);
        break;
    }
    case TAAL_FUTURE_WAIT: {
        wait_slot *slots = wait_slots(future, &count);
        taal__timer_disarm(future->loop, &((waiter *)future)->timeout);
        for (size_t i = 0; i < count; i++)
            forget_handle(&slots[i].handle);
        break;
    }
    case TAAL_FUTURE_SHIELD: forget_handle(&((shield *)future)->handle); break;
    default: break;
    }
}

/* For taal_loop_close(): the program holds this future after its loop is
 * gone. It stays readable; it can never run or be waited on again. */
void taal__future_orphan(taal_future *future)
{
    future->loop = NULL;
}

static void unref_child(taal_future *child, void *ctx)
{
    (void)ctx;
    taal__future_unref(child);
}

/* The last reference is gone: every child it held is let go. A gather
 * that finished early (on an error) may still have callbacks on children
 * that run on: they go first, and since asyncio's gather would have marked
 * those children's errors retrieved when they came, so does this. (One
 * pass over a gather's slots, not two: there may be a million.) */
void taal__future_free(taal_future *future)
{
    /* The report first: a shield's names its inner future, which letting
     * go of the children may free. */
    taal__future_report_unretrieved(future);
    if (future->kind == TAAL_FUTURE_TASK) {
        /* Chapter 08: a task holds no children, and has been reported:
         * straight back to the free list. */
        link_remove(&future->u.node);
        taal__task_free((taal_task *)future);
        return;
    }
    if (future->kind == TAAL_FUTURE_GATHER) {
        size_t count;
        gather_slot *slots = gather_slots(future, &count);
        for (size_t i = 0; i < count; i++) {
            if (link_linked(&slots[i].handle.link)) {
                slots[i].child->retrieved = true;
                link_remove(&slots[i].handle.link);
            }
            taal__future_unref(slots[i].child);
        }
    } else {
        taal__future_for_each_child(future, unref_child, NULL);
    }
    link_remove(&future->u.node);
    taal__future_destroy(future);
}

void taal__future_describe(const taal_future *future, char *buf, size_t size)
{
    char name[96];
    switch (future->kind) {
    case TAAL_FUTURE_TASK:
        taal__task_describe((const taal_task *)future, name, sizeof name);
        snprintf(buf, size, "task %s", name);
        break;
    case TAAL_FUTURE_GATHER: {
        const gather *g = (const gather *)future;
        snprintf(buf, size, "a gather of %zu (%zu not done)", g->count, g->remaining);
        break;
    }
    case TAAL_FUTURE_WAIT:
        snprintf(buf, size, "a wait on %zu futures", ((const waiter *)future)->count);
        break;
    case TAAL_FUTURE_SHIELD: {
        char inner[128];
        taal__future_describe(((const shield *)future)->inner, inner, sizeof inner);
        snprintf(buf, size, "a shield of %s", inner);
        break;
    }
    case TAAL_FUTURE_WAITERS: taal__waiters_describe(future, buf, size); break;
    default: snprintf(buf, size, "a future"); break;
    }
}

/* An error nobody looked at is reported (asyncio's "exception was never
 * retrieved"), once: the report counts as retrieving it. A cancellation
 * is no error anybody must hear of: asyncio does not log a cancelled
 * future either. (A gather's TAAL_ECANCELLED is an error: see
 * taal_future_cancelled().) */
void taal__future_report_unretrieved(taal_future *future)
{
    if (future->status < 0 && !taal_future_cancelled(future) && !future->retrieved) {
        char what[160];
        taal__future_describe(future, what, sizeof what);
        taal__report(future->loop, TAAL_REPORT_UNRETRIEVED, future, future->status,
                     "%s failed with \"%s\" and nobody retrieved the error", what,
                     taal_strerror(future->status));
        future->retrieved = true;
    }
}

/* The end of a loop-allocated future: reported if it must be, then freed. */
void taal__future_destroy(taal_future *future)
{
    taal__future_report_unretrieved(future);
    if (future->kind == TAAL_FUTURE_TASK)
        taal__task_free((taal_task *)future);
    else
        taal__free(future);
}
