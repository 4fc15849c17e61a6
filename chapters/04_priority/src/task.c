/*
** task.c -- chapter 02: tasks, the seed's Task._step done properly.
**
** A task is a future plus a coroutine. Its one handle, `step`, is the
** task's whole scheduling state: in the ready queue it means "run me
** next", parked on a future's waiters it means "wake me when that is done",
** armed in the timer heap it means "asleep", and nowhere it means
** "running" (or finished). The step resumes the coroutine once; when the
** coroutine returns, the task's future completes.
*/
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* The frame starts at the first suitably aligned address after the task:
 * 144 bytes on the common 64-bit machines. */
#define TASK_HEADER_SIZE \
    ((sizeof(taal_task) + TAAL__MAX_ALIGN - 1) / TAAL__MAX_ALIGN * TAAL__MAX_ALIGN)

static void task_step(taal_task *task);

/* The frame follows the header: its address is computed, never stored. */
static inline taal_coro *frame_of(taal_task *task)
{
    return (taal_coro *)(void *)((char *)task + TASK_HEADER_SIZE);
}

/* The three callbacks a task's handle can hold: its next step (first step,
 * after a yield), the wake-up of a future it waits on, and its timer. */
static void task_run(void *task)
{
    task_step(task);
}

static void task_wakeup(taal_future *future, void *task)
{
    (void)future; /* the resumed await asks it again: it is done */
    task_step(task);
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

/* Resumes the coroutine once, as the loop's current task, and settles
 * what it left: a bare yield runs again in the next iteration; a finished
 * coroutine lets go of whatever it still waited on and of the locks it
 * held. Returns its status. */
static inline int resume(taal_loop *loop, taal_task *task)
{
    loop->current = task;
    int rc = taal_send(frame_of(task));
    loop->current = NULL;
    if (rc != TAAL_SUSPENDED) {
        stop_waiting(task);
        if (!list_empty(&loop->held_locks))
            taal__locks_forget_owner(task);
    } else if (!link_linked(&task->step.handle.link) && task->step.index == 0) {
        schedule_step(task);
    }
    return rc;
}

/* The same, watched: timed in debug mode, recorded when tracing. */
TAAL__COLD static int resume_watched(taal_loop *loop, taal_task *task)
{
    int64_t began = loop->debug ? taal__monotonic_ns() : 0;
    if (loop->trace != NULL)
        taal__trace_step_begin(loop, task);
    int rc = resume(loop, task);
    if (loop->debug)
        check_slow_step(loop, task, began);
    if (loop->trace != NULL)
        taal__trace_step_end(loop, task, rc);
    return rc;
}

/*
** The step, asyncio's Task.__step:
**   1. resume the coroutine once, as the loop's current task (the future
**      that woke it, if any, is held by the handle until the step is over);
**   2. if it suspended without parking or arming its timer, it was a bare
**      yield: run again in the next iteration;
**   3. if it finished, complete the task's future with its status and
**      value, and drop the reference the task held on itself while pending.
** resume() does all of it but completing the future. Debug mode and
** tracing watch it from outside, in resume_watched(), so that with both
** off the step tests two flags for them and nothing else.
*/
static void task_step(taal_task *task)
{
    taal_loop *loop = task->future.loop;
    int rc = loop->debug || loop->trace != NULL ? resume_watched(loop, task)
                                                : resume(loop, task);
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
    taal_task *task = taal__block_get(loop, TASK_HEADER_SIZE + frame_size);
    if (task == NULL)
        return TAAL_ENOMEM;

    /* Every field is set: a block from the free list holds the last task's
     * bytes, and only the frame needs zeroing (or the caller's copy). */
    taal__future_init_heap(&task->future, loop, TAAL_FUTURE_TASK);
    task->step = (taal_timer){0}; /* priority 0, whoever creates it */
    task->name = name;
    task->created = where;
    task->id = loop->next_task_id++;
    task->frame_size = (uint32_t)frame_size;
    task->priority = 0;
    taal_coro *coro = frame_of(task);
    if (frame != NULL)
        memcpy(coro, frame, frame_size);
    else
        memset(coro, 0, frame_size);
    taal_coro_init(coro, body);

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

/* A task's block goes back to its loop's free list (or to the allocator,
 * if the loop has closed). */
void taal__task_free(taal_task *task)
{
    taal__block_put(task->future.loop, task, TASK_HEADER_SIZE + task->frame_size);
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
    if (loop == NULL || !loop->debug || task->created == NULL) {
        snprintf(buf, size, "%s", name);
        return;
    }
    const char *file = strrchr(task->created, '/');
    snprintf(buf, size, "%s (created at %s)", name, file ? file + 1 : task->created);
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
    if (!taal__future_valid(future) || future->kind == TAAL_FUTURE_WAITERS)
        return TAAL_EINVAL;
    taal_task *task = taal__current_task();
    if (task == NULL)
        return TAAL_ENOTASK;
    if (future->loop == NULL)
        return TAAL_ECLOSED;
    if (future->loop != task->future.loop)
        return TAAL_ELOOP;
    if (taal__future_is_done(future))
        return taal__future_retrieve(future);
    if (future == &task->future)
        return TAAL_ERUNNING; /* a task awaiting itself would wait forever */
    if (link_linked(&task->step.handle.link) || task->step.index != 0)
        return TAAL_EBUSY; /* already parked or asleep: one wait at a time */
    taal__task_park(task, future);
    return TAAL_SUSPENDED;
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

int taal__sleep_start(double seconds)
{
    taal_task *task = taal__current_task();
    if (task == NULL)
        return TAAL_ENOTASK;
    if (link_linked(&task->step.handle.link) || task->step.index != 0)
        return TAAL_EBUSY; /* already parked on a future: one wait at a time */
    if (seconds <= 0)
        return TAAL_OK; /* a bare yield, as asyncio's sleep(delay <= 0) is */
    int64_t ns;
    if (taal__delay_ns(seconds, &ns) != TAAL_OK)
        return TAAL_EINVAL;
    taal_handle *step = &task->step.handle;
    step->fn.call = task_timer_fired;
    step->data = task;
    step->future = NULL;
    return taal__timer_arm(task->future.loop, &task->step, ns);
}
