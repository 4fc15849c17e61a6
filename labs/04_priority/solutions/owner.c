
/* ---- lab 04, exercise 7: cancelling a task's handles (labs/04_priority) --- */

/* The id of the task running now: the owner of what is scheduled now. */
static uint32_t running_task_id(const taal_loop *loop)
{
    return loop->current != NULL ? loop->current->id : 0;
}

/* Cancels the plain callbacks of task `id` in one list of the ready queue;
 * a done-callback (handle->future set) or a task's step is nobody's. */
static int cancel_in_list(taal_link *head, uint32_t id)
{
    int count = 0;
    taal_link *next;
    for (taal_link *l = head->next; l != head; l = next) {
        next = l->next;
        taal_handle *handle = TAAL_CONTAINER_OF(l, taal_handle, link);
        if (handle->owner == id && handle->future == NULL) {
            link_remove(l);
            handle->cancelled = true;
            count++;
        }
    }
    return count;
}

/*
** Cancels the armed timers of task `id`. Removing them one by one would
** cost O(log n) each, and the heap moves entries under a scan that
** removes as it goes; instead the entries kept slide to the front and the
** heap is built again from the bottom up (Floyd's method, O(n)): what
** asyncio does when its cancelled timers pass half of its heap.
*/
static int cancel_in_heap(taal_loop *loop, uint32_t id)
{
    uint32_t kept = 0;
    int count = 0;
    for (uint32_t i = 0; i < loop->heap_len; i++) {
        taal_heap_entry entry = loop->heap[i];
        if (entry.timer->handle.owner == id) {
            entry.timer->index = 0;
            entry.timer->handle.cancelled = true;
            count++;
        } else {
            heap_place(loop, kept++, entry);
        }
    }
    if (count == 0)
        return 0;
    loop->heap_len = kept;
    for (uint32_t i = kept / 2; i-- > 0;)
        sift_down(loop, i);
    return count;
}

int taal_task_cancel_handles(taal_task *task)
{
    if (task == NULL)
        return TAAL_EINVAL;
    taal_loop *loop = task->future.loop;
    if (loop == NULL || loop->closed || loop->closing)
        return TAAL_ECLOSED;
    int count = cancel_in_list(&loop->batch, task->id);
    for (int level = 0; level < TAAL_PRIORITY_LEVELS; level++)
        count += cancel_in_list(&loop->ready[level], task->id);
    return count + cancel_in_heap(loop, task->id);
}
