/*
** task.c -- chapter 02: tasks, the seed's Task._step done properly;
** chapter 05: cancelling them; chapter 06: the coroutines initialised in
** a task's frame, checked for one never awaited.
**
** A task is a future plus a coroutine. Its one handle, `step`, is the
** task's whole scheduling state: in the ready queue it means "run me
** next", parked on a future's waiters it means "wake me when that is done",
** armed in the timer heap it means "asleep", and nowhere it means
** "running" (or finished). The step resumes the coroutine once; when the
** coroutine returns, the task's future completes.
**
** Cancelling reads that same state to find the task wherever it is, and
** adds one small state of its own, `cancel`: see "cancellation" below.
*/
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* The frame starts at the first suitably aligned address after the task:
 * 144 bytes on the common 64-bit machines, where the header is 144 too. */
#define TASK_HEADER_SIZE \
    ((sizeof(taal_task) + TAAL__MAX_ALIGN - 1) / TAAL__MAX_ALIGN * TAAL__MAX_ALIGN)

static void task_step(taal_task *task, bool may_repeat);

/* Where a task's list of coroutines ends (see "coroutines never awaited"). */
static taal_coro list_end;

/* The frame follows the header: its address is computed, never stored. */
static inline taal_coro *frame_of(const taal_task *task)
{
    return (taal_coro *)(void *)((char *)task + TASK_HEADER_SIZE);
}

/* Chapter 08: the head of the task's list of coroutines never awaited is
 * the `next` of the frame's own header, the task's coroutine, which is on
 * no list itself (taal__coro_track() never puts it there): 8 bytes less in
 * every task's header. */
static inline taal_coro **coros_of(const taal_task *task)
{
    return &frame_of(task)->next;
}

/* Chapter 08: where a task was created ("file.c:42") is kept only if debug
 * mode was on when it was created, as asyncio keeps a task's source
 * traceback only then: after the frame, in 8 bytes more of its block. */
static size_t block_size(const taal_task *task)
{
    return TASK_HEADER_SIZE + task->frame_size + (task->created_at ? sizeof(char *) : 0);
}

static const char *created_where(const taal_task *task)
{
    const char *where = NULL;
    if (task->created_at)
        memcpy(&where, (const char *)frame_of(task) + task->frame_size, sizeof where);
    return where;
}

/* The three callbacks a task's handle can hold: its next step (first step,
 * after a yield), the wake-up of a future it waits on, and its timer. */
static void task_run(void *task)
{
    task_step(task, true);
}

static void task_wakeup(taal_future *future, void *task)
{
    (void)future; /* the resumed await asks it again: it is done */
    task_step(task, false);
}

/* The sleep timer fired. Like asyncio, where the timer completes a future
 * whose done-callback wakes the task, the task runs one iteration after
 * its timer is due. */
static void task_timer_fired(void *data)
{
    taal_task *task = data;
    taal_loop *loop = task->future.loop;
    task->step.handle.fn.call = task_run;
    taal__ready_push(loop, &task->step.handle);
    if (loop->trace != NULL)
        taal__trace_wake(loop, task);
}

bool taal__is_task_step(const taal_handle *handle)
{
    if (handle->future != NULL)
        return handle->fn.done == task_wakeup;
    return handle->fn.call == task_run || handle->fn.call == task_timer_fired;
}

static void schedule_step(taal_task *task)
{
    taal_handle *step = &task->step.handle;
    step->fn.call = task_run;
    step->data = task;
    step->future = NULL;
    taal__ready_push(task->future.loop, step);
}

/* The coroutine finished while the task was still parked or asleep on
 * some child's behalf (a coroutine that drove children by hand can do
 * that): let go of all of it, so that nothing can wake a finished task. */
static void stop_waiting(taal_task *task)
{
    taal_handle *step = &task->step.handle;
    if (task->step.index != 0) /* chapter 08: no call for the usual case */
        taal__timer_disarm(task->future.loop, &task->step);
    link_remove(&step->link);
    if (step->future != NULL) {
        taal_future *awaited = step->future;
        step->future = NULL;
        taal__future_unref(awaited);
    }
}

/* Debug mode: a step that held the loop longer than the threshold is
 * reported, as asyncio's debug mode reports a slow callback. It is always
 * measured on the real clock: virtual time stands still during a step. */
static void check_slow_step(taal_loop *loop, taal_task *task, int64_t began)
{
    int64_t took = taal__monotonic_ns() - began;
    if (took <= loop->slow_step)
        return;
    char name[96];
    taal__task_describe(task, name, sizeof name);
    taal__report(loop, TAAL_REPORT_SLOW_STEP, &task->future, TAAL_OK,
                 "task %s blocked the loop for %.2f s", name, (double)took / 1e9);
    if (loop->trace != NULL)
        taal__trace_slow_step(loop, task, took);
}

static void cancel_where_waiting(taal_task *task);

/* A cancellation is due: the step delivers it. A coroutine that never
 * started is not started at all: it ends as if TAAL_ECANCELLED had been
 * thrown into it before its first line (asyncio throws CancelledError into
 * a coroutine that has not run, which then never runs). Returns true for
 * that case. */
static bool deliver_cancel(taal_task *task)
{
    /* LAB(deliver) BEGIN: a cancel is due: deliver it, or end a task that never began */
    if (task->cancel != TAAL_CANCEL_REQUESTED && task->cancel != TAAL_CANCEL_WOKEN)
        return false;
    taal_coro *coro = frame_of(task);
    if (coro->point != 0) {
        task->cancel = TAAL_CANCEL_DELIVERING; /* the next await says so */
        return false;
    }
    coro->point = TAAL_POINT_DONE;
    coro->status = TAAL_ECANCELLED;
    return true;
    /* LAB(deliver) END: (void)task; return false; */
}

/* What a task that ends may leave for others to clean: coroutines in its
 * frame to check, open scopes, locks it holds. Rare, and kept apart
 * (chapter 08), so that the usual end saves no registers for it. */
TAAL__COLD static void task_left_something(taal_task *task)
{
    if (*coros_of(task) != &list_end)
        taal__coros_check(task);
    if (task->scopes > 0)
        taal__scopes_close_of(task);
    if (!list_empty(&task->future.loop->held_locks))
        taal__locks_forget_owner(task);
}

/* The coroutine ended with `rc`: returns the status that task_step()
 * completes the task's future with. A task asked to stop whose coroutine
 * ended well before any await could tell it (it cancelled itself and
 * returned, or it resumed at a bare yield) ends cancelled, as asyncio's
 * does when cancel() comes right before its coroutine returns. A
 * coroutine that ended with TAAL_STOP (an __anext__ run as a task) fails
 * with TAAL_ESTRAY. Its frame is checked for coroutines never awaited, and
 * its open scopes go first: they live in its frame. */
static int task_ended(taal_task *task, int rc)
{
    taal_loop *loop = task->future.loop;
    if (rc == TAAL_OK && task->cancel != TAAL_CANCEL_NONE)
        rc = TAAL_ECANCELLED;
    if (rc > 0)
        rc = TAAL_ESTRAY; /* TAAL_STOP: a future ends with a result or an error */
    task->cancel = TAAL_CANCEL_NONE;
    stop_waiting(task);
    if (*coros_of(task) != &list_end || task->scopes > 0 ||
        !list_empty(&loop->held_locks))
        task_left_something(task);
    return rc;
}

/*
** Chapter 08: may a task that has just yielded (a bare yield: sleep(0),
** TAAL_YIELD) run again at once, in this same step, without going round
** the loop? Only where the next iteration would run it and nothing else,
** so that what the program can see is what it would have seen:
**   - the loop runs on: in taal_run_forever() (not taal_run_once(), which
**     runs exactly one iteration), and no stop was asked for (taal_stop()
**     clears `forever`);
**   - nothing else is ready: no handle left in this iteration's batch, and
**     no FIFO with work (run_once() clears the bit of the FIFO it took, so
**     that a bit set means a handle was pushed since: a callback the step
**     scheduled, a task it woke, a future it completed);
**   - no timer is due (the next iteration would move it to the ready queue
**     first; a timer the step armed with a delay of 0 is due);
**   - no watcher wants an event: the next iteration might poll the kernel
**     (every io_interval iterations while work is ready), and a ready
**     socket would then run its callback first. asyncio polls in every
**     iteration; with a watcher, the loop goes round as before;
**   - no stream holds small writes back: the loop sends them within
**     TAAL__HOLD_ROUNDS iterations, which it must therefore go round.
** Debug mode and tracing never get here (resume_watched() passes `alone`
** false): a slow step is a step, and a trace shows every step as its own
** iteration, as before.
*/
static bool alone(taal_loop *loop)
{
    if (!loop->forever || loop->ready_levels != 0 || !list_empty(&loop->batch))
        return false; /* (taal_stop() clears `forever`) */
    if ((loop->heap_len | loop->io_wanted | loop->holding) == 0)
        return true; /* no timer, no watcher, no held write: the common case */
    return (loop->io_wanted | loop->holding) == 0 &&
           loop->heap[0].deadline > taal__now(loop);
}

/* Delivers a cancellation that is due (a task that never started ends
 * there), then resumes the coroutine once, as the loop's current task,
 * and settles what it left: a bare yield runs again in the next
 * iteration, a cancel it asked for itself is acted on where it now waits,
 * and a coroutine that ended is settled by task_ended(). Returns the
 * status the task's future completes with, or TAAL_SUSPENDED. Chapter 08:
 * with `may_repeat`, a bare yield while the task is alone() resumes it
 * again here, which is what the next iteration would have done. */
static inline int resume(taal_loop *loop, taal_task *task, bool may_repeat)
{
    for (;;) {
        if (deliver_cancel(task))
            return task_ended(task, TAAL_ECANCELLED);
        loop->current = task;
        int rc = taal__send_inline(frame_of(task));
        loop->current = NULL;
        if (rc != TAAL_SUSPENDED)
            return task_ended(task, rc);
        if (!link_linked(&task->step.handle.link) && task->step.index == 0) {
            /* A bare yield. A cancel it asked for itself waits for its
             * next step here (cancel_where_waiting() would only say so). */
            if (may_repeat && alone(loop))
                continue;
            schedule_step(task);
        }
        if (task->cancel == TAAL_CANCEL_REQUESTED)
            cancel_where_waiting(task); /* it cancelled itself: asyncio does this too */
        return rc;
    }
}

/* The same, watched: timed in debug mode, recorded when tracing. */
TAAL__COLD static int resume_watched(taal_loop *loop, taal_task *task)
{
    int64_t began = loop->debug ? taal__monotonic_ns() : 0;
    if (loop->trace != NULL)
        taal__trace_step_begin(loop, task);
    int rc = resume(loop, task, false);
    if (loop->debug)
        check_slow_step(loop, task, began);
    if (loop->trace != NULL)
        taal__trace_step_end(loop, task, rc);
    return rc;
}

/*
** The step, asyncio's Task.__step:
**   1. deliver a cancellation that is due: mark it as being delivered, or,
**      if the coroutine never started, end the task cancelled;
**   2. resume the coroutine once, as the loop's current task (the future
**      that woke it, if any, is held by the handle until the step is over);
**   3. if it suspended without parking or arming its timer, it was a bare
**      yield: run again in the next iteration; if it cancelled itself
**      meanwhile, act on that where it now waits;
**   4. if it finished, complete the task's future with its status and
**      value, and drop the reference the task held on itself while pending.
** resume() does all of it but completing the future. Debug mode and
** tracing watch it from outside, in resume_watched(), so that with both
** off the step tests two flags for them and nothing else. A step woken by
** a future does not repeat a yield at once (`may_repeat` false): the
** handle holds that future until the step is over, and freeing it later
** would move what its free reports.
*/
static void task_step(taal_task *task, bool may_repeat)
{
    taal_loop *loop = task->future.loop;
    int rc = loop->debug || loop->trace != NULL ? resume_watched(loop, task)
                                                : resume(loop, task, may_repeat);
    if (rc != TAAL_SUSPENDED) {
        taal__future_finish(&task->future, rc, frame_of(task)->value);
        taal__future_unref(&task->future);
    }
}

/* ---- creating and freeing ------------------------------------------------- */

int taal__task_create_at(const char *where, taal_loop *loop, taal_body_fn body,
                         const void *frame, size_t frame_size, const char *name,
                         taal_task **out)
{
    if (loop == NULL || body == NULL || frame_size < sizeof(taal_coro) ||
        frame_size >= (1u << 24)) /* frame_size is 24 bits: 16 MiB */
        return TAAL_EINVAL;
    if (loop->closed || loop->closing)
        return TAAL_ECLOSED;
    bool debug_where = loop->debug && where != NULL;
    taal_task *task = taal__block_get(loop, TASK_HEADER_SIZE + frame_size +
                                                (debug_where ? sizeof where : 0));
    if (task == NULL)
        return TAAL_ENOMEM;

    /* Every field is set: a block from the free list holds the last task's
     * bytes, and only the frame needs zeroing (or the caller's copy). */
    taal__future_init_heap(&task->future, loop, TAAL_FUTURE_TASK);
    task->step = (taal_timer){0}; /* priority 0, whoever creates it */
    task->name = name;
    task->id = loop->next_task_id++;
    task->frame_size = (uint32_t)frame_size;
    task->priority = 0;
    task->cancel_requests = 0;
    task->scopes = 0;
    task->cancel = TAAL_CANCEL_NONE;
    task->created_at = debug_where;
    taal_coro *coro = frame_of(task);
    if (frame != NULL)
        memcpy(coro, frame, frame_size);
    else
        memset(coro, 0, frame_size);
    if (debug_where)
        memcpy((char *)coro + frame_size, &where, sizeof where);
    coro->next = &list_end; /* the list of coroutines never awaited: empty */
    /* Chapter 08: taal_coro_init() without its first half, the check of
     * chapter 06 that the current task is not overwriting a coroutine in
     * its own frame never awaited: a new task's block is in no task's
     * frame, so the check could never find one, and it cost every spawn
     * a walk to find that out. The name is what taal_coro_init() gives. */
    taal__coro_reset(coro, body, TAAL_CORO_PLAIN, "body");

    task->future.refs = 1; /* its own, while pending */
    if (out != NULL) {
        task->future.refs++; /* the creator's */
        *out = task;
    } else {
        task->future.released = true; /* fire and forget */
    }
    schedule_step(task);
    if (loop->trace != NULL)
        taal__trace_task_created(loop, task);
    return TAAL_OK;
}

/* The function behind the taal_task_create() macro, for callers that take
 * its address: they do not say where they are. */
int(taal_task_create)(taal_loop *loop, taal_body_fn body, const void *frame,
                      size_t frame_size, const char *name, taal_task **task)
{
    return taal__task_create_at(NULL, loop, body, frame, frame_size, name, task);
}

/* A task's block goes back to its loop's slab; one the program kept past
 * its loop's close goes back to its chunk (taal__task_keep()). */
void taal__task_free(taal_task *task)
{
    if (task->future.loop != NULL)
        taal__block_put(task->future.loop, task, block_size(task));
    else
        taal__block_put_orphan(task->future.u.chunk, task);
}

/* The loop closes and the program keeps the task: its block's chunk of the
 * slab stays until the task is released. taal_loop_close() calls it once
 * the task is off the loop's lists, before it forgets the loop. */
void taal__task_keep(taal_task *task)
{
    task->future.u.chunk = taal__block_keep(task->future.loop, task, block_size(task));
}

/* For taal_loop_close(): off the ready queue, off any future's waiters,
 * out of the heap; references are counted afresh by the close. */
void taal__task_unhook(taal_task *task)
{
    taal__timer_disarm(task->future.loop, &task->step);
    link_remove(&task->step.handle.link);
    task->step.handle.future = NULL;
}

/* ---- names ----------------------------------------------------------------- */

void *taal_task_frame(taal_task *task)
{
    return task == NULL ? NULL : frame_of(task);
}

taal_future *taal_task_future(taal_task *task)
{
    return task == NULL ? NULL : &task->future;
}

taal_task *taal_future_task(taal_future *future)
{
    if (!taal__future_valid(future) || future->kind != TAAL_FUTURE_TASK)
        return NULL;
    return (taal_task *)future; /* the future is the task's first member */
}

int taal_task_set_name(taal_task *task, const char *name)
{
    if (task == NULL)
        return TAAL_EINVAL;
    task->name = name;
    if (task->future.loop != NULL && task->future.loop->trace != NULL)
        taal__trace_task_named(task->future.loop, task);
    return TAAL_OK;
}

const char *taal_task_name(const taal_task *task, char *buf, size_t size)
{
    if (buf == NULL || size == 0)
        return "";
    if (task == NULL)
        snprintf(buf, size, "(no task)");
    else if (task->name != NULL)
        snprintf(buf, size, "%s", task->name);
    else
        snprintf(buf, size, "Task-%u", (unsigned)task->id);
    return buf;
}

/* The name, and in debug mode where the task was created ("deadlock.c:62":
 * the file without its folders, so that reports read the same everywhere). */
void taal__task_describe(const taal_task *task, char *buf, size_t size)
{
    char name[64];
    taal_task_name(task, name, sizeof name);
    const taal_loop *loop = task->future.loop;
    const char *created = created_where(task);
    if (loop == NULL || !loop->debug || created == NULL) {
        snprintf(buf, size, "%s", name);
        return;
    }
    const char *file = strrchr(created, '/');
    snprintf(buf, size, "%s (created at %s)", name, file ? file + 1 : created);
}

taal_task *taal_current_task(void)
{
    return taal__current_task();
}

/* ---- priority ------------------------------------------------------------------ */

/* The task's steps run at `priority` from now on: its handle carries it,
 * and if the handle is already in the ready queue, it moves. */
void taal__task_run_at(taal_task *task, int priority)
{
    taal_handle *step = &task->step.handle;
    if (step->priority != priority)
        taal__ready_move(task->future.loop, step, priority);
}

int taal_task_set_priority(taal_task *task, int priority)
{
    if (task == NULL || priority < TAAL_PRIORITY_MIN || priority > TAAL_PRIORITY_MAX)
        return TAAL_EINVAL;
    task->priority = priority;
    int lent = taal__inherited_priority(task);
    taal__task_run_at(task, lent > priority ? lent : priority);
    taal__lend_priority(task); /* if it waits for a lock, its holder may rise */
    return TAAL_OK;
}

int taal_task_priority(const taal_task *task)
{
    return task == NULL ? 0 : task->step.handle.priority;
}

void taal_task_release(taal_task *task)
{
    taal_future_release(taal_task_future(task));
}

/* The tasks of `loop` still pending, into `tasks` if it is not NULL;
 * their count. */
static size_t pending_tasks(taal_loop *loop, taal_future **tasks)
{
    size_t n = 0;
    for (taal_link *l = loop->objects.next; l != &loop->objects; l = l->next) {
        taal_future *future = TAAL_CONTAINER_OF(l, taal_future, u.node);
        if (future->kind == TAAL_FUTURE_TASK && !taal__future_is_done(future)) {
            if (tasks != NULL)
                tasks[n] = future;
            n++;
        }
    }
    return n;
}

/*
** The end of asyncio.run() (runners.py, _cancel_all_tasks): every task
** still pending is cancelled, and the loop runs until all of them have
** finished, their cleanup included, through a gather that returns errors
** as results; an error other than the cancellation that one ends with is
** reported ("unhandled exception during asyncio.run() shutdown"). Without
** the memory for the gather, they are left pending, and the close reports
** each of them.
*/
static void cancel_leftovers(taal_loop *loop)
{
    size_t count = pending_tasks(loop, NULL);
    taal_future **tasks = count > 0 ? taal__alloc(count * sizeof *tasks) : NULL;
    if (tasks == NULL)
        return;
    pending_tasks(loop, tasks);
    taal_future *all;
    for (size_t i = 0; i < count; i++)
        taal_task_cancel((taal_task *)tasks[i]);
    if (taal_gather_ex(loop, count, tasks, TAAL_RETURN_EXCEPTIONS, &all) == TAAL_OK) {
        /* A task that stops the loop again in its cleanup ends this run
         * early: what is still pending then, the close reports. */
        int rc = taal_run_until_complete(loop, all);
        for (size_t i = 0; rc == TAAL_OK && i < count; i++) {
            int status = taal_gather_status(all, i);
            if (status < 0 && status != TAAL_ECANCELLED) {
                char name[96];
                taal__task_describe((taal_task *)tasks[i], name, sizeof name);
                taal__report(loop, TAAL_REPORT_UNRETRIEVED, tasks[i], status,
                             "task %s failed with \"%s\" during taal_run()'s shutdown",
                             name, taal_strerror(status));
            }
        }
        taal_future_release(all);
    }
    taal__free(tasks);
}

int taal_run(taal_body_fn body, const void *frame, size_t frame_size,
             const taal_loop_options *options, void **result)
{
    if (taal__running_loop != NULL)
        return TAAL_EBUSY; /* asyncio.run cannot be called from a running loop */
    taal_loop loop;
    taal_task *task = NULL;
    int rc = taal_loop_init(&loop, options);
    if (rc != TAAL_OK)
        return rc;
    rc = taal_task_create(&loop, body, frame, frame_size, "main", &task);
    if (rc == TAAL_OK)
        rc = taal_run_until_complete(&loop, &task->future);
    if (rc == TAAL_OK && result != NULL)
        *result = task->future.result;
    /* asyncio.run() cancels what main left running once main is done, or
     * once a stop ended the loop before main was (main is cancelled too,
     * and the run fails with TAAL_ESTOPPED, asyncio's "Event loop stopped
     * before Future completed"). A main that never finished because every
     * task waits (a deadlock) would wait on in asyncio: here the close
     * reports them. */
    if (task != NULL && (taal__future_is_done(&task->future) || rc == TAAL_ESTOPPED))
        cancel_leftovers(&loop);
    taal_task_release(task);
    taal_loop_close(&loop); /* frees the task, and everything it made */
    return rc;
}

/* ---- what the await macros call ------------------------------------------ */

/* Parks the current task on `future`, its handle holding a reference to it,
 * unless it is done already: then the await is over and this returns its
 * status, which counts as retrieved. */
int taal__await_future(taal_future *future)
{
    taal_task *task = taal__current_task();
    if (taal__cancel_delivered(task))
        return TAAL_ECANCELLED; /* `future` may be gone: not a look at it */
    if (!taal__future_valid(future) || future->kind == TAAL_FUTURE_WAITERS)
        return TAAL_EINVAL;
    if (task == NULL)
        return TAAL_ENOTASK;
    /* Chapter 08: one test where chapter 02 made two. The task's loop is
     * running, so open: a future of that loop needs no look at whether
     * its loop closed; only another's asks, in chapter 02's order. */
    if (future->loop != task->future.loop)
        return future->loop == NULL ? TAAL_ECLOSED : TAAL_ELOOP;
    if (task->step.handle.future == future && link_linked(&task->step.handle.link))
        return TAAL_SUSPENDED; /* parked on it already: taal__task_park_released() */
    if (taal__future_is_done(future))
        return taal__future_retrieve(future);
    if (future == &task->future)
        return TAAL_ERUNNING; /* a task awaiting itself would wait forever */
    if (link_linked(&task->step.handle.link) || task->step.index != 0)
        return TAAL_EBUSY; /* already parked or asleep: one wait at a time */
    taal__task_park(task, future);
    return TAAL_SUSPENDED;
}

/* wait_for's end for a timeout of 0 or less, asyncio's _cancel_and_wait():
 * the task waits for `on` through a waiter future that a done-callback of
 * `on` completes, so it resumes one iteration after a plain await of `on`
 * would, and suspends even when `on` is done already. Here the task's
 * handle is that done-callback, and when it runs it queues the step
 * instead of running it; the await that follows finds the task parked on
 * `on` and suspends (taal__await_future()). */
static void task_released(taal_future *future, void *task)
{
    (void)future;
    schedule_step(task);
}

int taal__task_park_released(taal_task *task, taal_future *on)
{
    return taal_future_add_done_callback(on, &task->step.handle, task_released, task);
}

/* The task's handle waits on `on` (a future, or a primitive's waiters),
 * holding a reference to it: a done-callback that steps the task. */
void taal__task_park(taal_task *task, taal_future *on)
{
    taal_handle *step = &task->step.handle;
    step->fn.done = task_wakeup;
    step->data = task;
    step->future = on;
    taal__future_retain(on);
    list_push_back(&on->waiters, &step->link);
}

/* A sleep with a delay arms the task's timer. Chapter 08: a function of
 * its own, not inlined, so that sleep(0), which never gets here, does not
 * pay for its stack frame. */
TAAL__NOINLINE static int sleep_arm(taal_task *task, double seconds)
{
    int64_t ns;
    if (taal__delay_ns(seconds, &ns) != TAAL_OK)
        return TAAL_EINVAL;
    taal_handle *step = &task->step.handle;
    step->fn.call = task_timer_fired;
    step->data = task;
    step->future = NULL;
    return taal__timer_arm(task->future.loop, &task->step, ns);
}

int taal__sleep_start(double seconds)
{
    taal_task *task = taal__current_task();
    if (task == NULL)
        return TAAL_ENOTASK;
    if (taal__cancel_delivered(task))
        return TAAL_ECANCELLED; /* sleep(0) too: it is a cancellation point */
    if (link_linked(&task->step.handle.link) || task->step.index != 0)
        return TAAL_EBUSY; /* already parked on a future: one wait at a time */
    if (seconds <= 0)
        return TAAL_OK; /* a bare yield, as asyncio's sleep(delay <= 0) is */
    return sleep_arm(task, seconds);
}

/* A sleep's resume: the timer fired, or the task was woken to be
 * cancelled. */
int taal__slept(void)
{
    return taal__cancel_delivered(taal__current_task()) ? TAAL_ECANCELLED : TAAL_OK;
}

/* ---- cancellation ------------------------------------------------------------ */

/*
** asyncio's Task.cancel() sets `_must_cancel` and cancels `_fut_waiter`,
** the future the task awaits; the task's next step throws CancelledError
** into the coroutine. taal has no exceptions to throw, so the step marks
** the cancellation as being delivered (TAAL_CANCEL_DELIVERING) and the
** first await that resumes returns TAAL_ECANCELLED. What asyncio does by
** cancelling a waiter future (every wait there is one), taal does by
** taking the task off what it waits on:
**
**   waiting on           asyncio                   taal
**   a future or task     cancel it                 the same: taal_future_cancel()
**   a sleep              cancel the sleep future   its timer leaves the heap
**   a primitive          cancel the waiter future  it leaves the line of waiters
**   nothing (ready)      _must_cancel              TAAL_CANCEL_REQUESTED
**
** In the middle two cases the task is scheduled at once, marked
** TAAL_CANCEL_WOKEN; in the first it wakes when the future is done.
*/

/* The future the task is parked on, in the line of its waiters: a pending
 * future, or a primitive's waiters that have not handed it anything and
 * not let it go to be cancelled. NULL if it is not parked. */
taal_future *taal__task_waiting_on(const taal_task *task)
{
    const taal_handle *step = &task->step.handle;
    taal_future *on = step->future;
    if (on == NULL || !link_linked(&step->link) || taal__future_is_done(on))
        return NULL;
    if (on->kind == TAAL_FUTURE_WAITERS &&
        (task->future.handed || task->cancel == TAAL_CANCEL_WOKEN))
        return NULL; /* woken: its handle is in the ready queue */
    return on;
}

/* Asleep: its timer is in the heap, or due and waiting in this
 * iteration's batch to fire. */
static bool asleep(const taal_task *task)
{
    const taal_handle *step = &task->step.handle;
    return task->step.index != 0 || (step->future == NULL && link_linked(&step->link) &&
                                     step->fn.call == task_timer_fired);
}

/* Parked by wait_for() with a timeout of 0 or less: asyncio's task then
 * waits on a waiter future of its own (_cancel_and_wait()), not on the
 * operation, which wait_for() has cancelled already. */
static bool parked_released(const taal_task *task)
{
    const taal_handle *step = &task->step.handle;
    return step->future != NULL && link_linked(&step->link) &&
           step->fn.done == task_released;
}

/* Off the timer heap or out of a primitive's line, and scheduled, to be
 * cancelled at its next step. A timer already due is taken out of the
 * batch too: asyncio cancels the sleep's future, which queues the wake-up
 * there and then, and leaves its timer nothing to do, so whatever is
 * woken after the cancel runs after the task, even what that timer's
 * turn in the batch would have put first. Leaving a primitive's line, the
 * handle keeps its reference on the primitive until that step is over,
 * exactly as if the primitive had woken it; a lock's holder may lose the
 * priority this task lent it. Parked by wait_for() on an operation it
 * has cancelled already, the task leaves that operation alone (asyncio
 * cancels only the task's own waiter) and is woken at once. */
static void wake_to_cancel(taal_task *task)
{
    /* LAB(deliver) BEGIN: off the heap or out of the line, scheduled, marked WOKEN */
    taal_loop *loop = task->future.loop;
    taal_handle *step = &task->step.handle;
    if (asleep(task)) {
        taal__timer_disarm(loop, &task->step);
        schedule_step(task);
    } else if (parked_released(task)) {
        taal_future_remove_done_callback(step->future, step);
        schedule_step(task);
    } else {
        link_remove(&step->link);
        taal__ready_push(loop, step);
        taal__waiter_left(step->future);
    }
    task->cancel = TAAL_CANCEL_WOKEN;
    if (loop->trace != NULL)
        taal__trace_cancel(loop, task);
    /* LAB(deliver) END: (void)task; (void)parked_released; */
}

/* Acts on a request where the task waits (it is not running). If the
 * future it awaits takes the cancellation, there is nothing left to do:
 * the task wakes when that future is done, and learns its fate from it. */
static void cancel_where_waiting(taal_task *task)
{
    /* LAB(deliver) BEGIN: asleep or in a line: wake it; awaiting a future: cancel that */
    taal_future *on = taal__task_waiting_on(task);
    if (asleep(task) || parked_released(task) ||
        (on != NULL && on->kind == TAAL_FUTURE_WAITERS)) {
        wake_to_cancel(task);
        return;
    }
    task->cancel = TAAL_CANCEL_REQUESTED; /* set first: a cycle of awaits ends */
    if (on != NULL && taal_future_cancel(on))
        task->cancel = TAAL_CANCEL_NONE;
    /* LAB(deliver) END: (void)task; (void)wake_to_cancel; (void)asleep; */
}

static bool task_cancellable(const taal_task *task)
{
    const taal_loop *loop = task->future.loop;
    return taal__future_valid(&task->future) && task->future.kind == TAAL_FUTURE_TASK &&
           loop != NULL && !loop->closed && !loop->closing &&
           !taal__future_is_done(&task->future);
}

bool taal_task_cancel(taal_task *task)
{
    if (task == NULL || !task_cancellable(task))
        return false;
    /* LAB(deliver) BEGIN: count the request; act on it now, or when the task stops */
    if (task->cancel_requests < UINT32_MAX)
        task->cancel_requests++;
    if (task->cancel != TAAL_CANCEL_NONE)
        return true; /* already on its way: two requests, one delivery */
    if (task->future.loop->current == task)
        task->cancel = TAAL_CANCEL_REQUESTED; /* running: acted on when it stops */
    else
        cancel_where_waiting(task);
    return true;
    /* LAB(deliver) END: return false; */
}

int taal_task_cancelling(const taal_task *task)
{
    if (task == NULL)
        return TAAL_EINVAL;
    return task->cancel_requests > INT32_MAX ? INT32_MAX : (int)task->cancel_requests;
}

/* Python 3.13: the last request taken back withdraws one not yet acted on. */
int taal_task_uncancel(taal_task *task)
{
    if (task == NULL)
        return TAAL_EINVAL;
    if (task->cancel_requests > 0 && --task->cancel_requests == 0 &&
        task->cancel == TAAL_CANCEL_REQUESTED)
        task->cancel = TAAL_CANCEL_NONE;
    return taal_task_cancelling(task);
}

/* ---- coroutines never awaited (chapter 06) ------------------------------------ */

/*
** A task's list of coroutines runs through the headers' `next` fields,
** newest first, and ends at `list_end`, never at NULL: the headers are in
** the program's frame, where the program may overwrite one. Re-initialise
** a child by assigning it a whole struct (`f->c = (child){...}`), or clear
** it with memset, and its `next` becomes NULL, which would silently cut
** off every coroutine initialised before it: none of them could be
** reported any more. With an end of its own, the list tells a cut from its
** end: a walk that meets a link that is neither `list_end` nor a header in
** the frame reports the misuse, once (it mends the link to end the list
** there), and what was cut off is named as lost. taal_coro_init() on the
** header, the documented way to start a coroutine again, keeps its link.
*/

/* Is the coroutine header `co` inside the frame of `task`, and aligned as
 * a header must be? Only such a header can be on the list, so that a link
 * overwritten with anything else (a copy of another frame's header may
 * point anywhere) is seen as a cut, and never sends the walk astray. */
static bool coro_in_frame(taal_task *task, const taal_coro *co)
{
    const char *frame = (const char *)frame_of(task);
    const char *at = (const char *)co;
    return at >= frame && at + sizeof *co <= frame + task->frame_size &&
           (size_t)(at - frame) % _Alignof(taal_coro) == 0;
}

/* At most this many headers fit in the frame: a walk longer than that has
 * met a cycle, which a copied frame can also make. */
static size_t coros_bound(const taal_task *task)
{
    return task->frame_size / sizeof(taal_coro) + 1;
}

/* The link of `c` was overwritten (c is NULL when the cycle bound ran out
 * at the list's head): say so, and end the list there. */
static void list_cut(taal_task *task, taal_coro *c)
{
    char name[96];
    taal__task_describe(task, name, sizeof name);
    taal__report(task->future.loop, TAAL_REPORT_MISUSE, &task->future, TAAL_OK,
                 "task %s: the coroutine header at offset %zu of its frame was "
                 "overwritten after taal_coro_init() (assigned whole, or cleared): "
                 "coroutines initialised before it can no longer be reported as never "
                 "awaited; start a coroutine again with taal_coro_init() alone",
                 name,
                 c == NULL ? (size_t)0 : (size_t)((char *)c - (char *)frame_of(task)));
    if (c == NULL)
        *coros_of(task) = &list_end;
    else
        c->next = &list_end;
}

/* The header after `c` on the task's list (the first one when c is NULL),
 * or NULL at the end of the list, or at a cut, which it reports and mends.
 * `*steps` is what is left of the bound on the walk. */
static taal_coro *next_on_list(taal_task *task, taal_coro *c, size_t *steps)
{
    taal_coro *next = c == NULL ? *coros_of(task) : c->next;
    if (next == &list_end)
        return NULL;
    if (next == NULL || !coro_in_frame(task, next) || *steps == 0) {
        list_cut(task, c);
        return NULL;
    }
    --*steps;
    return next;
}

/* A coroutine initialised and never started: Python's "never awaited". */
static bool never_started(const taal_coro *co)
{
    return co->kind == TAAL_CORO_PLAIN && co->body != NULL && co->point == 0 &&
           co->status == TAAL_SUSPENDED && !co->running;
}

/* An async generator left suspended at a yield, its cleanup never run. */
static bool left_open(const taal_coro *co)
{
    return co->kind == TAAL_CORO_AGEN && co->body != NULL && co->point != 0 &&
           co->point != TAAL_POINT_DONE && !co->running;
}

/* Reports `co` if it is dropped in one of those two states. */
static void check_dropped(taal_task *task, const taal_coro *co)
{
    const char *name = co->name != NULL ? co->name : "(unnamed)";
    if (never_started(co))
        taal__report(task->future.loop, TAAL_REPORT_NEVER_AWAITED, &task->future, TAAL_OK,
                     "coroutine '%s' was never awaited", name);
    else if (left_open(co))
        taal__report(task->future.loop, TAAL_REPORT_NOT_CLOSED, &task->future, TAAL_OK,
                     "async generator '%s' was never closed: its cleanup did not run",
                     name);
}

/* A coroutine is being initialised: in a task, for a header inside the
 * task's frame, it goes on the task's list, once. If it is already there,
 * what it was is checked first: initialised again before it ever ran, the
 * first one was dropped. (Its own link is checked too: overwritten, the
 * rest of the list is lost, and said to be.) */
void taal__coro_track(taal_coro *co)
{
    taal_task *task = taal__current_task();
    if (task == NULL || !coro_in_frame(task, co) || co == frame_of(task))
        return; /* the task's own coroutine: its link is the list's head */
    size_t steps = coros_bound(task);
    for (taal_coro *c = next_on_list(task, NULL, &steps); c != NULL;
         c = next_on_list(task, c, &steps)) {
        if (c == co) {
            check_dropped(task, co);
            next_on_list(task, co, &steps);
            return;
        }
    }
    co->next = *coros_of(task);
    *coros_of(task) = co;
}

/* The newest coroutine of the current task's list: what an enter, an exit
 * or an __anext__ notes when it begins. */
taal_coro *taal__coro_mark(void)
{
    taal_task *task = taal__current_task();
    return task == NULL ? NULL : *coros_of(task);
}

/* The enter, exit or __anext__ that took `mark` has ended: the plain
 * coroutines initialised since, in this task, are checked now (as Python's
 * collector would when their frame ended) and leave the list. */
void taal__coro_check_since(taal_coro *mark)
{
    taal_task *task = taal__current_task();
    if (task == NULL || *coros_of(task) == mark)
        return; /* nothing initialised since: the usual case, and quick */
    size_t steps = coros_bound(task);
    taal_coro *before = NULL; /* the last header kept on the list */
    taal_coro *c = next_on_list(task, NULL, &steps);
    while (c != NULL && c != mark) {
        taal_coro *next = next_on_list(task, c, &steps);
        if (c->kind == TAAL_CORO_PLAIN) {
            check_dropped(task, c);
            if (before == NULL)
                *coros_of(task) = c->next;
            else
                before->next = c->next;
        } else {
            before = c;
        }
        c = next;
    }
}

/* The task ends (or its loop closes with it pending): its frame is about
 * to go, with every coroutine in it. */
void taal__coros_check(taal_task *task)
{
    size_t steps = coros_bound(task);
    for (taal_coro *c = next_on_list(task, NULL, &steps); c != NULL;
         c = next_on_list(task, c, &steps))
        check_dropped(task, c);
    *coros_of(task) = &list_end;
}

/* asyncio.sleep(seconds) as a coroutine to initialise and await. */
static int sleep_body(taal_coro *self)
{
    taal_sleep *f = (taal_sleep *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(f->seconds);
    TAAL_END();
}

int taal_sleep_init(taal_sleep *nap, double seconds)
{
    if (nap == NULL)
        return TAAL_EINVAL;
    nap->seconds = seconds;
    return taal__coro_init_named(&nap->co, sleep_body, "sleep");
}
