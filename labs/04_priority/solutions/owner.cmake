# Exercise 7's answer: a handle remembers which task scheduled it (the
# task's id, in 4 bytes the handle's padding already had), and
# taal_task_cancel_handles() looks for that id in the ready queue, the
# running batch and the heap (owner.c, added at the end of src/loop.c;
# its declaration is owner.h, at the end of the header).
lab_edit(chapters/04_priority/include/taal.h REPLACE [[
    bool cancelled;  /**< cancelled since it was last scheduled */
]] WITH [[
    bool cancelled;  /**< cancelled since it was last scheduled */
    uint32_t owner;  /**< the id of the task that scheduled it; 0: none */
]])
lab_edit(chapters/04_priority/include/taal.h APPEND owner.h)
lab_edit(chapters/04_priority/src/loop.c REPLACE [[
    timer->handle.fn.call = fn;
    timer->handle.data = data;
    timer->handle.future = NULL;
]] WITH [[
    timer->handle.fn.call = fn;
    timer->handle.data = data;
    timer->handle.future = NULL;
    timer->handle.owner = running_task_id(loop);
]])
lab_edit(chapters/04_priority/src/loop.c REPLACE [[
    handle->cancelled = false;
    taal__ready_push(loop, handle);
]] WITH [[
    handle->cancelled = false;
    handle->owner = running_task_id(loop);
    taal__ready_push(loop, handle);
]])
lab_edit(chapters/04_priority/src/loop.c REPLACE [[
/* ---- timers ------------------------------------------------------------------ */
]] WITH [[
/* ---- timers ------------------------------------------------------------------ */

static uint32_t running_task_id(const taal_loop *loop); /* lab 04, exercise 7 */
]])
lab_edit(chapters/04_priority/src/loop.c APPEND owner.c)
