/*
** scope.c -- chapter 05: timeout scopes and task groups.
**
** Both are built from cancellation and nothing else. A timeout scope is a
** timer that cancels its task, plus the arithmetic that tells, at the
** scope's end, whether the cancellation the task saw was the scope's own
** (asyncio's cancelling()/uncancel() counts). A task group is a set of
** children whose done-callbacks cancel the rest of the set at the first
** failure, plus a join that waits for them all.
**
** Both are caller storage, usually in a task's frame, and both hold on to
** that task while they are open: a timer that will cancel it, callbacks
** that will write into the group. So an open one must never outlive its
** task, whose frame it lives in: each sits on its loop's list of open
** scopes, and a task that finishes with some still open (a coroutine that
** returned between open and close) has them closed for it.
*/
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* ---- open scopes ----------------------------------------------------------- */

static void scope_open(taal_scope *scope, taal_task *task, taal_scope_kind kind)
{
    scope->task = task;
    scope->kind = (uint8_t)kind;
    list_push_back(&task->future.loop->scopes, &scope->link);
    task->scopes++;
}

static void scope_close(taal_scope *scope)
{
    if (!link_linked(&scope->link))
        return;
    link_remove(&scope->link);
    scope->task->scopes--;
}

/* ---- timeout scopes ---------------------------------------------------------- */

/* The deadline came: asyncio's Timeout._on_timeout. */
static void timeout_fired(void *data)
{
    /* LAB(timeout) BEGIN: the deadline came: the scope expires, and cancels its task */
    taal_timeout *t = data;
    t->state = TAAL_TIMEOUT_EXPIRING;
    taal_task_cancel(t->scope.task);
    /* LAB(timeout) END: (void)data; */
}

/* Arms the scope's timer for its deadline, unless that is "never". A
 * deadline that has come already (timeout(0), a reschedule into the past)
 * is asyncio's call_soon(_on_timeout): the handle goes straight to the
 * ready queue, ahead of the task's next step. As a timer due now it would
 * wait for the next iteration's due timers, behind that step, and
 * `timeout(0)` around `sleep(0)` would not fire. The timer runs at its
 * task's priority: a timeout must not wait behind the very work it is to
 * stop. */
static int timeout_arm(taal_timeout *t, taal_loop *loop)
{
    if (t->deadline == INT64_MAX)
        return TAAL_OK;
    taal_handle *handle = &t->timer.handle;
    handle->fn.call = timeout_fired;
    handle->data = t;
    handle->future = NULL;
    handle->priority = (int8_t)taal_task_priority(t->scope.task);
    int rc = TAAL_OK;
    if (t->deadline <= taal__now(loop))
        taal__ready_push(loop, handle);
    else
        rc = taal__timer_arm_at(loop, &t->timer, t->deadline);
    if (rc == TAAL_OK && loop->trace != NULL)
        taal__trace_timer(loop, "timer.arm", &t->timer);
    return rc;
}

/* Opens `t` in the running task with `deadline` (loop time, ns). Opening is
 * no await (asyncio's __aenter__ does not suspend), so it does not deliver
 * a cancellation. */
static int timeout_open(taal_timeout *t, int64_t deadline)
{
    taal_task *task = taal__current_task();
    if (task == NULL)
        return TAAL_ENOTASK;
    if (t->state == TAAL_TIMEOUT_OPEN || t->state == TAAL_TIMEOUT_EXPIRING)
        return TAAL_EBUSY;
    t->scope.task = task;
    t->deadline = deadline;
    t->immediate = false;
    int rc = timeout_arm(t, task->future.loop);
    if (rc != TAAL_OK)
        return rc;
    t->cancelling = task->cancel_requests;
    t->state = TAAL_TIMEOUT_OPEN;
    scope_open(&t->scope, task, TAAL_SCOPE_TIMEOUT);
    return TAAL_OK;
}

int taal_timeout_open(taal_timeout *scope, double delay)
{
    int64_t ns;
    if (scope == NULL || taal__delay_ns(delay, &ns) != TAAL_OK)
        return TAAL_EINVAL;
    taal_loop *loop = taal_running_loop();
    if (loop == NULL || taal__current_task() == NULL)
        return TAAL_ENOTASK;
    int64_t now = taal__now(loop);
    return timeout_open(scope, ns > INT64_MAX - now ? INT64_MAX : now + ns);
}

int taal_timeout_open_at(taal_timeout *scope, double when)
{
    if (scope == NULL || when != when) /* NaN */
        return TAAL_EINVAL;
    return timeout_open(scope, taal__seconds_ns(when));
}

/* asyncio cancels the old timer handle and makes a new one; here the one
 * timer moves. Taken out of the heap, it leaves room for itself, so moving
 * an armed one cannot fail; only a scope without a deadline that gets one
 * may need the heap to grow. */
int taal_timeout_reschedule(taal_timeout *scope, double when)
{
    if (scope == NULL || when != when)
        return TAAL_EINVAL;
    if (scope->state != TAAL_TIMEOUT_OPEN || !link_linked(&scope->scope.link))
        return TAAL_ESTATE;
    taal_loop *loop = scope->scope.task->future.loop;
    int64_t old = scope->deadline;
    taal__timer_disarm(loop, &scope->timer); /* also if due and not run yet */
    scope->deadline = taal__seconds_ns(when);
    int rc = timeout_arm(scope, loop);
    if (rc != TAAL_OK)
        scope->deadline = old; /* it was "never": nothing to re-arm */
    return rc;
}

double taal_timeout_when(const taal_timeout *scope)
{
    if (scope == NULL || scope->deadline == INT64_MAX)
        return TAAL_NEVER;
    return (double)scope->deadline / 1e9;
}

bool taal_timeout_expired(const taal_timeout *scope)
{
    return scope != NULL && (scope->state == TAAL_TIMEOUT_EXPIRING ||
                             scope->state == TAAL_TIMEOUT_EXPIRED);
}

/* Disarmed and off the list of open scopes: what every close does first. */
static void timeout_disarm(taal_timeout *t)
{
    taal__timer_disarm(t->scope.task->future.loop, &t->timer);
    scope_close(&t->scope);
}

/*
** asyncio's Timeout.__aexit__. If the scope fired, it cancelled its task
** once, and takes that back. Whether the TAAL_ECANCELLED that the code
** inside ended with was this scope's doing is then a matter of counting:
** if the task's cancelling() is no higher than when the scope opened,
** nobody else has asked for a cancellation since, so it was ours, and it
** becomes TAAL_ETIMEDOUT. If an outer scope or another task asked too,
** the count is higher, and TAAL_ECANCELLED goes on out, for them.
*/
int taal_timeout_close(taal_timeout *scope, int status)
{
    if (scope == NULL)
        return TAAL_EINVAL;
    if (scope->state != TAAL_TIMEOUT_OPEN && scope->state != TAAL_TIMEOUT_EXPIRING)
        return TAAL_ESTATE;
    timeout_disarm(scope);
    /* LAB(timeout) BEGIN: in time: the status; expired: take back its cancel, convert */
    if (scope->state == TAAL_TIMEOUT_OPEN) {
        scope->state = TAAL_TIMEOUT_CLOSED;
        return status;
    }
    scope->state = TAAL_TIMEOUT_EXPIRED;
    if (scope->immediate) {
        /* wait_for(.., 0) cancelled the operation, not the task; a cancel of
         * the task while it waited for the operation goes on out. */
        bool mine = taal_task_cancelling(scope->scope.task) <= (int)scope->cancelling;
        return status == TAAL_ECANCELLED && mine ? TAAL_ETIMEDOUT : status;
    }
    if (taal_task_uncancel(scope->scope.task) <= (int)scope->cancelling &&
        status == TAAL_ECANCELLED)
        return TAAL_ETIMEDOUT;
    return status;
    /* LAB(timeout) END: (void)status; return TAAL_ENOTIMPL; */
}

/*
** asyncio 3.12's wait_for() is `async with timeout(t): return await fut`,
** but for a timeout of 0 or less: then a future that is not done is
** cancelled at once (a task that has not started never will) and awaited
** as _cancel_and_wait() awaits it, one iteration later than a plain await
** (the task parks with taal__task_park_released()), and ending cancelled
** is reported as a timeout. That holds whatever the cancel answered: a
** gather whose children are done but not yet collected refuses it, and is
** waited for the same way, its result returned when it comes. The scope
** then has no timer; it only remembers, for the close, that it asked the
** operation to cancel.
*/
int taal__wait_for_start(taal_timeout *scope, taal_future *future, double timeout)
{
    if (scope == NULL)
        return TAAL_EINVAL;
    if (!(timeout <= 0)) /* NaN too: the open refuses it */
        return taal_timeout_open(scope, timeout);
    taal_task *task = taal__current_task();
    if (task == NULL)
        return TAAL_ENOTASK;
    if (scope->state == TAAL_TIMEOUT_OPEN || scope->state == TAAL_TIMEOUT_EXPIRING)
        return TAAL_EBUSY;
    scope->scope.task = task;
    scope->deadline = taal__now(task->future.loop);
    scope->cancelling = task->cancel_requests;
    if (task->cancel != TAAL_CANCEL_NONE && scope->cancelling > 0)
        scope->cancelling--; /* asked for already: delivered at this wait, not ours */
    scope->state = TAAL_TIMEOUT_OPEN;
    scope->immediate = taal__future_valid(future) &&
                       future->kind != TAAL_FUTURE_WAITERS &&
                       future->loop == task->future.loop &&
                       future != &task->future && /* awaited: TAAL_ERUNNING */
                       !taal__future_is_done(future);
    if (!scope->immediate)
        return TAAL_OK; /* the await gives its outcome, or says why not */
    scope->state = TAAL_TIMEOUT_EXPIRING;
    (void)taal_future_cancel(future); /* refused or not: _cancel_and_wait() */
    return taal__task_park_released(task, future);
}

/* ---- task groups: the children's slots ----------------------------------------- */

/* A child's slot: its done-callback's handle, which sits on the child's
 * waiters, so a slot must never move; slots therefore come in blocks that
 * are only ever added to, never reallocated. */
struct taal__tg_slot {
    taal_handle handle;               /* on the child's waiters until it is done */
    taal_task *task;                  /* the child: the group holds it */
    taal_taskgroup *tg;               /* the group it belongs to */
    struct taal__tg_slot *next_error; /* the next child that failed */
};

struct taal__tg_chunk {
    struct taal__tg_chunk *next; /* the next block, or NULL */
    size_t capacity;             /* slots in this block */
    size_t used;                 /* slots taken */
    struct taal__tg_slot slots[];
};

typedef struct taal__tg_slot tg_slot;
typedef struct taal__tg_chunk tg_chunk;

enum { TG_FIRST_CHUNK = 4, TG_LARGEST_CHUNK = 256 };

/* A free slot, in the last block or a new one twice its size; not taken
 * until tg_take() (a child whose task cannot be created takes none). NULL:
 * out of memory. */
static tg_slot *tg_free_slot(taal_taskgroup *tg)
{
    tg_chunk *last = tg->last;
    if (last != NULL && last->used < last->capacity)
        return &last->slots[last->used];
    size_t capacity = last == NULL ? TG_FIRST_CHUNK : 2 * last->capacity;
    if (capacity > TG_LARGEST_CHUNK)
        capacity = TG_LARGEST_CHUNK;
    tg_chunk *chunk = taal__alloc(sizeof *chunk + capacity * sizeof(tg_slot));
    if (chunk == NULL)
        return NULL;
    *chunk = (tg_chunk){NULL, capacity, 0};
    if (last != NULL)
        last->next = chunk;
    else
        tg->first = chunk;
    tg->last = chunk;
    return &chunk->slots[0];
}

/* Calls fn on every slot taken, in the order the children were created. */
static void tg_for_each(taal_taskgroup *tg, void (*fn)(tg_slot *slot))
{
    for (tg_chunk *c = tg->first; c != NULL; c = c->next)
        for (size_t i = 0; i < c->used; i++)
            fn(&c->slots[i]);
}

static void tg_free_chunks(taal_taskgroup *tg)
{
    tg_chunk *c = tg->first;
    while (c != NULL) {
        tg_chunk *next = c->next;
        taal__free(c);
        c = next;
    }
    tg->first = tg->last = NULL;
}

static bool tg_valid(const taal_taskgroup *tg)
{
    return tg != NULL && tg->scope.task != NULL &&
           tg->scope.kind == TAAL_SCOPE_TASKGROUP && link_linked(&tg->scope.link);
}

/* ---- task groups: the children ---------------------------------------------------- */

static void cancel_child(tg_slot *slot)
{
    taal_task_cancel(slot->task); /* false, harmlessly, for a child that is done */
}

/* asyncio's TaskGroup._abort(): every child still running is told to stop. */
static void tg_abort(taal_taskgroup *tg)
{
    tg->aborting = true;
    tg_for_each(tg, cancel_child);
}

/* A child failed: its error joins the list, and if it is the first, the
 * group stops its siblings, and its parent too, so that the body stops
 * waiting on work that no longer matters. A parent already in its join is
 * cancelled all the same, as asyncio's _on_task_done does: the join's
 * await ends cancelled, and the join, seeing the group stopping, waits
 * again. The join takes that cancellation back. */
static void tg_child_failed(taal_taskgroup *tg, tg_slot *slot)
{
    /* LAB(taskgroup) BEGIN: the error joins the list; the first stops the rest */
    slot->next_error = NULL;
    if (tg->errors_tail != NULL)
        tg->errors_tail->next_error = slot;
    else
        tg->errors = slot;
    tg->errors_tail = slot;
    tg->failed++;
    if (tg->aborting || tg->cancelled_parent)
        return;
    tg_abort(tg);
    tg->cancelled_parent = true;
    taal_task_cancel(tg->scope.task);
    /* LAB(taskgroup) END: (void)tg; (void)slot; */
}

/* asyncio's TaskGroup._on_task_done. */
static void tg_child_done(taal_future *child, void *data)
{
    tg_slot *slot = data;
    taal_taskgroup *tg = slot->tg;
    tg->running--;
    if (tg->running == 0 && tg->joining && !taal_future_done(&tg->done))
        taal_future_set_result(&tg->done, NULL); /* wake the join */
    int status = taal__future_retrieve(child);   /* the group reports it */
    if (status != TAAL_OK && status != TAAL_ECANCELLED)
        tg_child_failed(tg, slot);
}

int taal_taskgroup_init(taal_taskgroup *tg)
{
    if (tg == NULL)
        return TAAL_EINVAL;
    taal_task *task = taal__current_task();
    if (task == NULL)
        return TAAL_ENOTASK;
    if (link_linked(&tg->scope.link))
        return TAAL_EBUSY;
    memset(tg, 0, sizeof *tg);
    int rc = taal_future_init(&tg->done, task->future.loop); /* notes the frame */
    if (rc != TAAL_OK)
        return rc;
    scope_open(&tg->scope, task, TAAL_SCOPE_TASKGROUP);
    return TAAL_OK;
}

int taal_taskgroup_create_task(taal_taskgroup *tg, taal_body_fn body, const void *frame,
                               size_t frame_size, const char *name, taal_task **task)
{
    if (task != NULL)
        *task = NULL;
    if (!tg_valid(tg))
        return TAAL_EINVAL;
    if (tg->joined || (tg->joining && tg->running == 0) || tg->aborting)
        return TAAL_ESTATE; /* "finished", or "shutting down" */
    tg_slot *slot = tg_free_slot(tg);
    if (slot == NULL)
        return TAAL_ENOMEM;
    taal_task *child;
    int rc = taal_task_create(tg->scope.task->future.loop, body, frame, frame_size, name,
                              &child);
    if (rc != TAAL_OK)
        return rc;
    tg->last->used++;
    *slot = (tg_slot){.task = child, .tg = tg};
    tg->count++;
    tg->running++;
    taal_future_add_done_callback(&child->future, &slot->handle, tg_child_done, slot);
    if (task != NULL)
        *task = child;
    return TAAL_OK;
}

/* ---- task groups: the join ------------------------------------------------------ */

/*
** The end of asyncio 3.13's TaskGroup.__aexit__, every child finished:
**   - a cancellation of the parent that the group made is taken back; if
**     it was the only one, a TAAL_ECANCELLED the body passed in was the
**     group's own doing, not an outside one's;
**   - an outside cancellation, and no failure: TAAL_ECANCELLED;
**   - failures (the children's, or the body's own error): TAAL_EGROUP, and
**     if an outside cancellation is pending meanwhile, it is made again,
**     so that it is not lost behind the error (3.13; 3.12 lost it);
**   - else TAAL_OK.
*/
static int tg_end(taal_taskgroup *tg)
{
    /* LAB(taskgroup) BEGIN: every child is done: take back its cancel; the outcome */
    taal_task *parent = tg->scope.task;
    tg->joined = true;
    if (tg->cancelled_parent) {
        tg->cancelled_parent = false;
        if (taal_task_uncancel(parent) == 0)
            tg->propagate = false;
    }
    if (tg->propagate && tg->failed == 0)
        return TAAL_ECANCELLED;
    if (tg->failed == 0 && tg->body_error == TAAL_OK)
        return TAAL_OK;
    if (taal_task_cancelling(parent) > 0) {
        taal_task_uncancel(parent);
        taal_task_cancel(parent);
    }
    return TAAL_EGROUP;
    /* LAB(taskgroup) END: tg->joined = true; return TAAL_ENOTIMPL; */
}

/* Children still running: wait for them (on a fresh `done`, if the last
 * one was cancelled); else the end. */
static int tg_wait_or_end(taal_taskgroup *tg)
{
    if (tg->running == 0)
        return tg_end(tg);
    if (taal_future_done(&tg->done))
        taal_future_init(&tg->done, tg->scope.task->future.loop);
    return TAAL_SUSPENDED;
}

/* The join begins: the body is over, and `body` says how it ended. An
 * error, or a cancellation from outside, stops the children first. */
int taal__taskgroup_join(taal_taskgroup *tg, int body)
{
    if (!tg_valid(tg))
        return TAAL_EINVAL;
    if (taal__current_task() != tg->scope.task)
        return TAAL_ENOTASK;
    if (body > 0)
        return TAAL_EINVAL; /* not how a body ends: an lvalue never set */
    if (tg->joining)
        return TAAL_ESTATE;
    tg->joining = true;
    tg->propagate = body == TAAL_ECANCELLED;
    if (body != TAAL_OK && body != TAAL_ECANCELLED)
        tg->body_error = body;
    if (body != TAAL_OK && !tg->aborting)
        tg_abort(tg);
    return tg_wait_or_end(tg);
}

/* The join's await ended with `awaited`. TAAL_ECANCELLED: the parent was
 * cancelled while it waited; unless the group is already stopping its
 * children (then it may be its own cancellation), that is an outside one,
 * which stops the children and will be the outcome. Any other error means
 * the group was misused (destroyed under the join, say): waiting again
 * would only fail again. */
int taal__taskgroup_rejoin(taal_taskgroup *tg, int awaited)
{
    if (awaited != TAAL_OK && awaited != TAAL_ECANCELLED)
        return awaited;
    if (awaited == TAAL_ECANCELLED && !tg->aborting) {
        tg->propagate = true;
        tg_abort(tg);
    }
    return tg_wait_or_end(tg);
}

/* ---- task groups: errors and the end --------------------------------------------- */

size_t taal_taskgroup_error_count(const taal_taskgroup *tg)
{
    if (tg == NULL || tg->scope.task == NULL)
        return 0;
    return tg->failed + (tg->body_error != TAAL_OK);
}

int taal_taskgroup_error(const taal_taskgroup *tg, size_t i, taal_task **task)
{
    if (task != NULL)
        *task = NULL;
    if (i >= taal_taskgroup_error_count(tg))
        return TAAL_EINVAL;
    if (i == tg->failed)
        return tg->body_error; /* the body's, last */
    const tg_slot *slot = tg->errors;
    while (i-- > 0)
        slot = slot->next_error;
    if (task != NULL)
        *task = slot->task;
    return slot->task->future.status;
}

static void release_child(tg_slot *slot)
{
    taal_task_release(slot->task);
}

/* Lets go of everything: the children, the slots, the open scope. `done`
 * is left as it is: the step that destroys the group may have been woken
 * by it, and the reference that wake-up holds until the step is over is
 * counted on the task `done` remembers (its frame's). */
static void tg_release(taal_taskgroup *tg)
{
    tg_for_each(tg, release_child);
    tg_free_chunks(tg);
    scope_close(&tg->scope);
    tg->scope.task = NULL; /* not initialised any more */
    tg->count = tg->running = tg->failed = 0;
    tg->errors = tg->errors_tail = NULL;
    tg->body_error = TAAL_OK;
}

int taal_taskgroup_destroy(taal_taskgroup *tg)
{
    if (!tg_valid(tg))
        return TAAL_EINVAL;
    if (tg->running > 0)
        return TAAL_EBUSY;
    tg_release(tg);
    return TAAL_OK;
}

/* A child whose parent ends without joining: no longer watched, and told
 * to stop (children must not outlive the group). */
static void abandon_child(tg_slot *slot)
{
    if (taal_handle_pending(&slot->handle))
        taal_future_remove_done_callback(&slot->task->future, &slot->handle);
    taal_task_cancel(slot->task);
}

/* The parent finished with the group still open: a coroutine that
 * returned before its join, which C allows and asyncio's `async with`
 * does not. Say so if that lost something, and clean up. */
static void tg_abandon(taal_taskgroup *tg)
{
    if (!tg->joined && (tg->running > 0 || tg->failed > 0)) {
        char name[96];
        taal__task_describe(tg->scope.task, name, sizeof name);
        taal__report(tg->scope.task->future.loop, TAAL_REPORT_MISUSE,
                     &tg->scope.task->future, TAAL_OK,
                     "task %s finished without joining its task group: %zu children "
                     "still running were cancelled, %zu errors are lost",
                     name, tg->running, tg->failed);
    }
    tg_for_each(tg, abandon_child);
    tg_release(tg);
}

/* ---- scopes left open ------------------------------------------------------------- */

/* `task` is finishing, and its frame will go: its open scopes go first. */
void taal__scopes_close_of(taal_task *task)
{
    taal_link *head = &task->future.loop->scopes;
    for (taal_link *l = head->next, *next; l != head && task->scopes > 0; l = next) {
        next = l->next;
        taal_scope *scope = TAAL_CONTAINER_OF(l, taal_scope, link);
        if (scope->task != task)
            continue;
        if (scope->kind == TAAL_SCOPE_TIMEOUT) {
            taal_timeout *t = TAAL_CONTAINER_OF(scope, taal_timeout, scope);
            timeout_disarm(t);
            t->state = TAAL_TIMEOUT_CLOSED;
        } else {
            tg_abandon(TAAL_CONTAINER_OF(scope, taal_taskgroup, scope));
        }
    }
}

/* The loop is closing, and the frames the scopes live in are about to be
 * freed with their tasks: the list is forgotten, and the task groups'
 * slots freed. Their handles are already off every list, the ready queue
 * included, and the timers forgotten: the close did that just before. */
void taal__scopes_forget(taal_loop *loop)
{
    while (!list_empty(&loop->scopes)) {
        taal_scope *scope = TAAL_CONTAINER_OF(loop->scopes.next, taal_scope, link);
        link_remove(&scope->link);
        scope->task->scopes = 0;
        if (scope->kind == TAAL_SCOPE_TASKGROUP)
            tg_free_chunks(TAAL_CONTAINER_OF(scope, taal_taskgroup, scope));
    }
}
