# Exercise 5's answer: earliest deadline first, within a priority. A task
# learns a deadline (none by default); the ready queue's push puts a task's
# step into its FIFO in deadline order (ready_insert(), in deadline.c,
# added at the end of src/loop.c with the two functions of deadline.h,
# added at the end of the header).
lab_edit(chapters/04_priority/include/taal.h REPLACE [[
    signed int priority : 8;  /**< its own priority; it runs at that or higher
                                   (step.handle.priority) while a lock it holds
                                   passes a waiter's on */
};
]] WITH [[
    signed int priority : 8;  /**< its own priority; it runs at that or higher
                                   (step.handle.priority) while a lock it holds
                                   passes a waiter's on */
    int64_t deadline;         /**< its deadline, loop time (ns); INT64_MAX: none */
};
]])
lab_edit(chapters/04_priority/include/taal.h APPEND deadline.h)
lab_edit(chapters/04_priority/src/task.c REPLACE [[
    task->priority = 0;
]] WITH [[
    task->priority = 0;
    task->deadline = INT64_MAX; /* none */
]])
lab_edit(chapters/04_priority/src/loop.c REPLACE [[
void taal__ready_push(taal_loop *loop, taal_handle *handle)
{
    int level = taal__level(handle->priority);
    list_push_back(&loop->ready[level], &handle->link);
]] WITH [[
static void ready_insert(taal_link *fifo, taal_handle *handle); /* exercise 5 */

void taal__ready_push(taal_loop *loop, taal_handle *handle)
{
    int level = taal__level(handle->priority);
    ready_insert(&loop->ready[level], handle);
]])
lab_edit(chapters/04_priority/src/loop.c APPEND deadline.c)
