/*
** task.c -- chapter 02: tasks, the seed's Task._step done properly.
**
** A task is a future plus a coroutine. Its step handle is the task's whole
** scheduling state: in the ready queue it means "run me next", parked on a
** future's waiters it means "wake me when that is done", and nowhere it
** means "running" or "asleep on my timer". The step resumes the coroutine
** once; when the coroutine returns, the task's future completes.
*/
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* The frame starts at the first suitably aligned address after the task. */
#define TASK_HEADER_SIZE                                                       \
    ((sizeof(taal_task) + _Alignof(max_align_t) - 1) / _Alignof(max_align_t) * \
     _Alignof(max_align_t))

/*
** The step, asyncio's Task.__step:
**   1. forget the future the task was parked on (it is done: that is why
**      the step runs), but keep it alive until the step has read it;
**   2. resume the coroutine once, as the loop's current task;
**   3. if it suspended without parking or arming its timer, it was a bare
**      yield: run again in the next iteration;
**   4. if it finished, complete the task's future with its status and
**      value, and drop the reference the task held on itself while pending.
*/
static void task_step(void *arg)
{
    taal_task *task = arg;
    taal_loop *loop = task->future.loop;
    taal_future *awaited = task->awaiting;
    task->awaiting = NULL;

    loop->current = task;
    int rc = taal_send(task->coro);
    loop->current = NULL;

    if (awaited != NULL)
        taal__future_unref(awaited);
    if (rc == TAAL_SUSPENDED) {
        bool arranged = link_linked(&task->step.link) || task->sleep.index != 0;
        if (!arranged)
            list_push_back(&loop->ready, &task->step.link);
        return;
    }
    /* Finished. A coroutine that drove a child by hand may have left the
     * task parked or asleep on the child's behalf: unhook all of it, so
     * that nothing can wake a finished task. */
    taal__task_dispose(task);
    if (task->awaiting != NULL) {
        taal__future_unref(task->awaiting);
        task->awaiting = NULL;
    }
    taal__future_finish(&task->future, rc, task->coro->value);
    taal__future_unref(&task->future);
}

int taal_task_create(taal_loop *loop, taal_body_fn body, size_t frame_size,
                     taal_task **out)
{
    if (loop == NULL || body == NULL || frame_size < sizeof(taal_coro) ||
        frame_size > SIZE_MAX - TASK_HEADER_SIZE)
        return TAAL_EINVAL;
    if (loop->closed)
        return TAAL_ECLOSED;
    taal_task *task = taal__alloc(TASK_HEADER_SIZE + frame_size);
    if (task == NULL)
        return TAAL_ENOMEM;
    memset(task, 0, TASK_HEADER_SIZE + frame_size);
    taal__future_init_heap(&task->future, loop, TAAL_FUTURE_TASK);
    task->id = loop->next_task_id++;
    task->coro = (taal_coro *)(void *)((char *)task + TASK_HEADER_SIZE);
    taal_coro_init(task->coro, body);

    task->future.refs = 1; /* its own, while pending */
    if (out != NULL) {
        task->future.refs++; /* the creator's */
        *out = task;
    } else {
        task->future.released = true; /* fire and forget */
    }
    taal_call_soon(loop, &task->step, task_step, task);
    return TAAL_OK;
}

void *taal_task_frame(taal_task *task)
{
    return task == NULL ? NULL : task->coro;
}

taal_future *taal_task_future(taal_task *task)
{
    return task == NULL ? NULL : &task->future;
}

int taal_task_set_name(taal_task *task, const char *name)
{
    if (task == NULL)
        return TAAL_EINVAL;
    task->name = name;
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
        snprintf(buf, size, "Task-%u", task->id);
    return buf;
}

taal_task *taal_current_task(void)
{
    return taal__current_task();
}

void taal_task_release(taal_task *task)
{
    taal_future_release(taal_task_future(task));
}

int taal_run(taal_body_fn body, size_t frame_size, const void *initial_frame,
             void **result)
{
    if (taal__running_loop != NULL)
        return TAAL_EBUSY; /* asyncio.run cannot be called from a running loop */
    taal_loop loop;
    taal_task *task = NULL;
    int rc = taal_loop_init(&loop, NULL);
    if (rc == TAAL_OK)
        rc = taal_task_create(&loop, body, frame_size, &task);
    if (rc == TAAL_OK && initial_frame != NULL) {
        memcpy(task->coro, initial_frame, frame_size);
        taal_coro_init(task->coro, body);
    }
    if (rc == TAAL_OK)
        rc = taal_run_until_complete(&loop, &task->future);
    if (rc == TAAL_OK && result != NULL)
        *result = task->future.result;
    taal_loop_close(&loop); /* frees the task, and everything it made */
    return rc;
}

void taal__task_dispose(taal_task *task)
{
    link_remove(&task->step.link);
    taal_timer_stop(task->future.loop, &task->sleep);
}

/* ---- what the await macros call ------------------------------------------ */

/* Parks the current task on `future`, holding a reference to it, unless it
 * is done already: then the await is over and this returns its status. */
int taal__await_future(taal_future *future)
{
    if (future == NULL)
        return TAAL_EINVAL;
    taal_task *task = taal__current_task();
    if (task == NULL)
        return TAAL_ENOTASK;
    if (future->loop != task->future.loop)
        return TAAL_ELOOP;
    if (taal_future_done(future))
        return taal_future_status(future);
    if (future == &task->future)
        return TAAL_ERUNNING; /* a task awaiting itself would wait forever */
    if (link_linked(&task->step.link) || task->sleep.index != 0)
        return TAAL_EBUSY; /* already parked or asleep: one wait at a time */
    list_push_back(&future->waiters, &task->step.link);
    taal__future_retain(future);
    task->awaiting = future;
    return TAAL_SUSPENDED;
}

/* The sleep timer fired: schedule the task's step. Like asyncio, where the
 * timer completes a future whose done-callback wakes the task, the task
 * runs one iteration after its timer is due. */
static void task_wake(void *arg)
{
    taal_task *task = arg;
    list_push_back(&task->future.loop->ready, &task->step.link);
}

int taal__sleep_start(double seconds)
{
    taal_task *task = taal__current_task();
    if (task == NULL)
        return TAAL_ENOTASK;
    if (link_linked(&task->step.link))
        return TAAL_EBUSY; /* already parked on a future: one wait at a time */
    if (seconds == 0)
        return TAAL_OK; /* a bare yield: task_step re-queues the task */
    /* taal_timer_start refuses a negative or NaN delay with TAAL_EINVAL. */
    return taal_timer_start(task->future.loop, &task->sleep, seconds, task_wake, task);
}
