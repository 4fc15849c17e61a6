/*
** sync.c -- chapter 03: the semaphore, and what its waiter queue gives.
**
** Every primitive here is the same machine: a count (of permits, of items,
** of free slots, of unfinished items), a FIFO of waiting tasks, and one
** rule, "hand over at wake-up". When a task gives something back and a task
** is waiting for it, the waiting task gets it there and then: it is woken
** with the permit (or the item, or the slot) already its own, and the count
** never shows it as free. A task that runs before the woken one, whether a
** newcomer or the very task that released, finds nothing to take and
** queues behind. That is what makes them fair: first come, first served,
** and nobody barges in.
**
** The seed's semaphore (and CPython's, for years) did it the other way: it
** only woke the waiter, which then tried to take a permit when it ran, and
** could find it gone. docs/03_semaphore.md shows what that does.
**
** A waiting task parks its own handle in the primitive's list of waiters,
** exactly as it parks on a future: nothing is allocated to wait.
**
** Chapter 05 cancels waiting tasks. A waiter is in one of four states when
** the cancel comes, and each must leave the counts as they were:
**   1. blocked, never cancelled: it is handed the permit when one comes;
**   2. cancelled while in line: it leaves the line at once (task.c), and
**      nothing was handed to it;
**   3. handed the permit (woken) but not run yet, then cancelled: when it
**      runs, its await says cancelled, and it first passes the permit on
**      to the next in line, or back to the free count (woken() below);
**   4. cancelled, then the permit released in the same iteration: it left
**      the line in 2, so the release hands the permit to the next in line.
** CPython's semaphore lost permits in states like 3 and 4 in bug reports
** of 2015, 2016, 2022 and 2023; here every resume function gives back.
*/
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* ---- waiting and handing over ---------------------------------------------- */

static int waiters_init(taal_waiters *w, taal_loop *loop, taal_waiters_of of)
{
    int rc = taal_future_init(&w->future, loop); /* notes the frame it is in */
    if (rc != TAAL_OK)
        return rc;
    w->future.kind = TAAL_FUTURE_WAITERS;
    w->of = (uint8_t)of;
    w->woken = 0;
    return TAAL_OK;
}

static bool waiters_valid(const taal_waiters *w)
{
    return taal__future_valid(&w->future) && w->future.kind == TAAL_FUTURE_WAITERS;
}

static bool nobody_waits(const taal_waiters *w)
{
    return list_empty(&w->future.waiters);
}

static size_t waiting(const taal_waiters *w)
{
    size_t n = 0;
    for (const taal_link *l = w->future.waiters.next; l != &w->future.waiters;
         l = l->next)
        n++;
    return n;
}

static bool loop_open(const taal_waiters *w)
{
    const taal_loop *loop = w->future.loop;
    return loop != NULL && !loop->closed && !loop->closing;
}

/*
** Is the primitive in use? Yes while tasks wait on it, and while tasks it
** woke have not run yet: handed what they waited for, or let out of the
** line to be cancelled, each still points at it, and looks at it when it
** runs (to collect a permit, to pass it on). Once the loop has closed,
** nothing runs any more, and nothing is in use.
*/
static bool in_use(const taal_waiters *w)
{
    return !nobody_waits(w) || (w->woken > 0 && loop_open(w));
}

/* Destroying a primitive: refused while it is in use; after it, every
 * operation on it is TAAL_EINVAL, as for one never initialised. */
static int waiters_destroy(taal_waiters *w)
{
    if (!waiters_valid(w))
        return TAAL_EINVAL;
    if (in_use(w))
        return TAAL_EBUSY;
    w->future.waiters.next = w->future.waiters.prev = NULL;
    return TAAL_OK;
}

/* May the running task wait on `w`? The checks of every wait, in order;
 * a cancellation being delivered comes first: it is the await's outcome.
 * Chapter 08: a primitive of the running task's own loop needs no check
 * that its loop is open, since that loop is running (a running loop cannot
 * close), so the test of the loop comes first, and the one of a closed
 * loop only for a primitive of another: the same statuses, in the same
 * order, as chapter 07's ECLOSED-then-ELOOP. */
static int check_wait(taal_waiters *w, taal_task **task)
{
    *task = taal__current_task();
    if (taal__cancel_delivered(*task))
        return TAAL_ECANCELLED;
    if (!waiters_valid(w))
        return TAAL_EINVAL;
    if (*task == NULL)
        return TAAL_ENOTASK;
    if (w->future.loop != (*task)->future.loop)
        return loop_open(w) ? TAAL_ELOOP : TAAL_ECLOSED;
    if (link_linked(&(*task)->step.handle.link) || (*task)->step.index != 0)
        return TAAL_EBUSY; /* already parked or asleep: one wait at a time */
    return TAAL_OK;
}

static int park(taal_waiters *w, taal_task *task)
{
    task->future.handed = false;
    taal__task_park(task, &w->future);
    return TAAL_SUSPENDED;
}

/*
** The first waiting task is woken, and what it waited for is already its
** own: the caller has counted it as handed over. The task's handle moves to
** the ready queue as it would from a completed future, so the task runs in
** the next iteration, after everything already scheduled. Returns false if
** nobody waits.
*/
static taal_task *hand_to_first(taal_waiters *w)
{
    if (nobody_waits(w))
        return NULL;
    taal_handle *handle = TAAL_CONTAINER_OF(w->future.waiters.next, taal_handle, link);
    taal_task *task = handle->data;
    taal_loop *loop = w->future.loop;
    link_remove(&handle->link);
    taal__ready_push(loop, handle);
    task->future.handed = true;
    w->woken++;
    if (loop->trace != NULL)
        taal__trace_handed(loop, task, &w->future);
    return task;
}

/*
** On resume from `w`, how the wait ended: TAAL_OK, the task was handed
** what it waited for; TAAL_ECANCELLED, it is cancelled, and then
** `*give_back` says whether it had been handed something first (state 3),
** which the caller must pass on; TAAL_ESTATE, it was resumed without
** either. Woken either way, it has now run: `w` may be destroyed once the
** caller has done with it.
*/
static int woken(taal_waiters *w, bool *give_back)
{
    taal_task *task = taal__current_task();
    *give_back = false;
    if (task == NULL)
        return TAAL_ESTATE;
    bool handed = task->future.handed;
    bool cancelled = taal__cancel_delivered(task);
    task->future.handed = false;
    if (handed || cancelled)
        w->woken--;
    /* LAB(giveback) BEGIN: cancelled? Then say whether it was handed something */
    if (cancelled) {
        *give_back = handed;
        return TAAL_ECANCELLED;
    }
    /* LAB(giveback) END: (void)cancelled; */
    return handed ? TAAL_OK : TAAL_ESTATE; /* ESTATE: resumed, handed nothing */
}

/* The event's and join's resume: "it was set" and "all were done" are
 * handed to every waiter alike, so a cancelled one has nothing to pass on. */
int taal__handed(taal_waiters *w)
{
    bool ignored;
    return woken(w, &ignored);
}

/* ---- semaphore and lock ---------------------------------------------------- */

static void lock_changes_hands(taal_lock *lock, taal_task *next);

static int semaphore_init(taal_semaphore *sem, taal_loop *loop, int value,
                          const char *name, bool bounded, taal_waiters_of of)
{
    if (sem == NULL || value < 0)
        return TAAL_EINVAL;
    int rc = waiters_init(&sem->waiters, loop, of);
    if (rc != TAAL_OK)
        return rc;
    sem->value = sem->bound = (unsigned)value;
    sem->handing = 0;
    sem->bounded = bounded;
    sem->name = name;
    return TAAL_OK;
}

int taal_semaphore_init(taal_semaphore *sem, taal_loop *loop, int value, const char *name)
{
    return semaphore_init(sem, loop, value, name, false, TAAL_WAITERS_SEMAPHORE);
}

int taal_bounded_semaphore_init(taal_semaphore *sem, taal_loop *loop, int value,
                                const char *name)
{
    return semaphore_init(sem, loop, value, name, true, TAAL_WAITERS_SEMAPHORE);
}

/*
** May a newcomer take a permit at once? Only if one is free and nobody is
** ahead of it: nobody in line, and no woken task that has not run yet. A
** permit released while a woken task has not run (a second release, say)
** is free, but the newcomer queues behind that task, as in asyncio, whose
** locked() stays true until the woken task has run.
*/
static bool permit_free(const taal_semaphore *sem)
{
    return sem->value > 0 && sem->handing == 0 && nobody_waits(&sem->waiters);
}

/* A free permit is taken at once, without suspending, as asyncio does. */
int taal__semaphore_acquire(taal_semaphore *sem)
{
    /* LAB(semaphore) BEGIN: take a free permit, or wait for one */
    taal_task *task;
    int rc = sem == NULL ? TAAL_EINVAL : check_wait(&sem->waiters, &task);
    if (rc != TAAL_OK)
        return rc;
    if (permit_free(sem)) {
        sem->value--;
        if (sem->waiters.of == TAAL_WAITERS_LOCK)
            lock_changes_hands(TAAL_CONTAINER_OF(sem, taal_lock, sem), task);
        return TAAL_OK;
    }
    rc = park(&sem->waiters, task);
    if (sem->waiters.of == TAAL_WAITERS_LOCK)
        taal__lend_priority(task);
    return rc;
    /* LAB(semaphore) END: (void)sem; return TAAL_ENOTIMPL; */
}

static void semaphore_give(taal_semaphore *sem);
static void hand_out_free(taal_semaphore *sem);

/* The woken task collects the permit it was handed; a cancelled one that
 * was handed one gives it to the next in line, or back to the free ones. */
int taal__semaphore_acquired(taal_semaphore *sem)
{
    bool give_back;
    int rc = woken(&sem->waiters, &give_back);
    /* LAB(giveback) BEGIN: collect the permit; a cancelled task passes its own on */
    if (rc == TAAL_OK || give_back)
        sem->handing--;
    if (give_back)
        semaphore_give(sem);
    /* LAB(giveback) END: if (rc == TAAL_OK) sem->handing--; */
    hand_out_free(sem);
    return rc;
}

/* A permit goes to the first waiting task if there is one (it now holds
 * it), else back to the free ones. */
static void semaphore_give(taal_semaphore *sem)
{
    taal_task *woken_task = hand_to_first(&sem->waiters);
    if (woken_task != NULL)
        sem->handing++; /* the permit went straight to the waiter */
    else
        sem->value++;
    if (sem->waiters.of == TAAL_WAITERS_LOCK)
        lock_changes_hands(TAAL_CONTAINER_OF(sem, taal_lock, sem), woken_task);
}

/* A woken task has run: newcomers that queued behind it while permits
 * were free get them now, first come, first served (asyncio does this
 * in the `finally` of its acquire). */
static void hand_out_free(taal_semaphore *sem)
{
    while (sem->value > 0 && !nobody_waits(&sem->waiters)) {
        sem->value--;
        semaphore_give(sem);
    }
}

/*
** With hand-over, `value` does not count a permit on its way to a woken
** task: the permit is the task's, but the task has not run yet. A release
** while it is on its way is still a release of a permit that is not out
** any more, so a bounded semaphore compares value + handing, not value
** alone, with its bound, and refuses a release that would pass it,
** changing nothing. (CPython 3.11 to 3.13 hand over too, lowering `_value`,
** and compare `_value` alone: they accept that release and blame a later,
** innocent one; docs/03_semaphore.md shows it.) A plain semaphore released
** more than acquired just grows, as asyncio's does.
*/
int taal_semaphore_release(taal_semaphore *sem)
{
    if (sem == NULL || !waiters_valid(&sem->waiters))
        return TAAL_EINVAL;
    if (!loop_open(&sem->waiters))
        return TAAL_ECLOSED;
    /* LAB(semaphore) BEGIN: give the permit to the first waiter, or back */
    if (sem->bounded && sem->value + sem->handing >= sem->bound)
        return TAAL_ERELEASE;
    semaphore_give(sem);
    return TAAL_OK;
    /* LAB(semaphore) END: return TAAL_ENOTIMPL; */
}

bool taal_semaphore_locked(const taal_semaphore *sem)
{
    return sem != NULL && waiters_valid(&sem->waiters) && !permit_free(sem);
}

int taal_semaphore_destroy(taal_semaphore *sem)
{
    return sem == NULL ? TAAL_EINVAL : waiters_destroy(&sem->waiters);
}

/*
** A lock is a bounded semaphore of one. asyncio's Lock reports locked()
** false between release() and the woken waiter running, and still makes a
** newcomer queue behind it; this one hands the lock over, so locked() stays
** true: it is held, by the task that will run next.
*/
int taal_lock_init(taal_lock *lock, taal_loop *loop, const char *name)
{
    if (lock == NULL)
        return TAAL_EINVAL;
    int rc = semaphore_init(&lock->sem, loop, 1, name, true, TAAL_WAITERS_LOCK);
    if (rc != TAAL_OK)
        return rc;
    lock->owner = NULL;
    lock->held = (taal_link){NULL, NULL};
    lock->inherit = true;
    return TAAL_OK;
}

static void reweigh(taal_task *task);

/* Switched off, the holder loses what the waiters lent it at once;
 * switched on, it is lent it at once. */
int taal_lock_set_inheritance(taal_lock *lock, bool on)
{
    if (lock == NULL || !waiters_valid(&lock->sem.waiters))
        return TAAL_EINVAL;
    if (lock->inherit != on) {
        lock->inherit = on;
        reweigh(lock->owner);
    }
    return TAAL_OK;
}

/* The highest priority among the tasks waiting for `lock`, or below any. */
static int top_waiter(const taal_lock *lock)
{
    /* LAB(inherit) BEGIN: the highest priority of a task waiting for it */
    int top = TAAL_PRIORITY_MIN - 1;
    const taal_link *head = &lock->sem.waiters.future.waiters;
    for (const taal_link *l = head->next; l != head; l = l->next) {
        const taal_handle *handle = TAAL_CONTAINER_OF(l, taal_handle, link);
        if (handle->priority > top)
            top = handle->priority;
    }
    return top;
    /* LAB(inherit) END: (void)lock; return TAAL_PRIORITY_MIN - 1; */
}

int taal__inherited_priority(const taal_task *task)
{
    /* LAB(inherit) BEGIN: the highest priority lent by the locks it holds */
    int top = TAAL_PRIORITY_MIN - 1;
    taal_loop *loop = task->future.loop;
    if (loop == NULL)
        return top;
    for (taal_link *l = loop->held_locks.next; l != &loop->held_locks; l = l->next) {
        const taal_lock *lock = TAAL_CONTAINER_OF(l, taal_lock, held);
        int waiter = lock->owner == task && lock->inherit ? top_waiter(lock) : top;
        if (waiter > top)
            top = waiter;
    }
    return top;
    /* LAB(inherit) END: (void)task; return TAAL_PRIORITY_MIN - 1; */
}

/* The lock whose waiters `on` is, or NULL. */
static taal_lock *lock_of(const taal_future *on)
{
    if (on == NULL || on->kind != TAAL_FUTURE_WAITERS)
        return NULL;
    const taal_waiters *w = TAAL_CONTAINER_OF(on, taal_waiters, future);
    if (w->of != TAAL_WAITERS_LOCK)
        return NULL;
    return TAAL_CONTAINER_OF(TAAL_CONTAINER_OF(w, taal_semaphore, waiters), taal_lock,
                             sem);
}

/* The lock a task is parked on, if it is parked on one (not handed it, not
 * taken out of the line to be cancelled). */
static taal_lock *lock_waited_for(const taal_task *task)
{
    return lock_of(taal__task_waiting_on(task));
}

/*
** `task` (NULL: nobody) runs at its own priority, or at the highest one
** that the waiters of the locks it holds lend it, whichever is higher; if
** that changes, the holder of the lock it waits for is weighed again, and
** so on along the chain (bounded, in case the chain is a cycle: a
** deadlock). Called whenever what a task is lent may have changed, up or
** down: a waiter comes, leaves the line, changes priority, a lock changes
** hands or has its inheritance switched. A holder whose priority stays as
** it was changes nothing further along, and ends the walk.
*/
static void reweigh(taal_task *task)
{
    /* LAB(inherit) BEGIN: its own priority or what it is lent, along the chain */
    for (int depth = 0; task != NULL && depth < 32; depth++) {
        int lent = taal__inherited_priority(task);
        int priority = lent > task->priority ? lent : task->priority;
        if (priority == taal_task_priority(task))
            return;
        taal__task_run_at(task, priority);
        taal_lock *lock = lock_waited_for(task);
        task = lock != NULL ? lock->owner : NULL;
    }
    /* LAB(inherit) END: (void)task; */
}

/* `waiter` waits for a lock, or its priority changed while it waits (or
 * it does not wait at all): the holder is weighed again, and the holders
 * along the chain, so that what it lends them follows its priority, down
 * as well as up. */
void taal__lend_priority(taal_task *waiter)
{
    /* LAB(inherit) BEGIN: weigh the holder of the lock it waits for again */
    taal_lock *lock = lock_waited_for(waiter);
    if (lock != NULL)
        reweigh(lock->owner);
    /* LAB(inherit) END: (void)waiter; */
}

/* A task woken to be cancelled has left the line of `waiters`. It points
 * at the primitive until it runs: the primitive counts it as woken. If the
 * primitive is a lock, its holder may have run at the priority the task
 * lent it, and no longer should; nor should the holders along the chain. */
void taal__waiter_left(taal_future *waiters)
{
    TAAL_CONTAINER_OF(waiters, taal_waiters, future)->woken++;
    taal_lock *lock = lock_of(waiters);
    if (lock != NULL)
        reweigh(lock->owner);
}

/* The lock passes from its owner to `next` (NULL: to nobody). The old owner
 * runs at its own priority again, or at what another lock it holds lends
 * it; the new one may be lent a remaining waiter's. */
static void lock_changes_hands(taal_lock *lock, taal_task *next)
{
    /* LAB(inherit) BEGIN: a new owner, who may be lent; the old one restored */
    taal_task *old = lock->owner;
    taal_loop *loop = lock->sem.waiters.future.loop;
    link_remove(&lock->held);
    lock->owner = next;
    if (next != NULL)
        list_push_back(&loop->held_locks, &lock->held);
    reweigh(next);
    if (old != next)
        reweigh(old);
    /* LAB(inherit) END: (void)lock; (void)next; */
}

/* `task` is finishing while it holds locks (asyncio lets a task end
 * holding a lock, and another release it): the locks stay locked, but
 * no longer name it, so that nothing reads its freed block to lend or
 * take back a priority. */
void taal__locks_forget_owner(taal_task *task)
{
    taal_link *head = &task->future.loop->held_locks;
    for (taal_link *l = head->next, *next; l != head; l = next) {
        next = l->next;
        taal_lock *lock = TAAL_CONTAINER_OF(l, taal_lock, held);
        if (lock->owner == task) {
            lock->owner = NULL;
            link_remove(&lock->held);
        }
    }
}

int taal_lock_release(taal_lock *lock)
{
    return lock == NULL ? TAAL_EINVAL : taal_semaphore_release(&lock->sem);
}

bool taal_lock_locked(const taal_lock *lock)
{
    return lock != NULL && taal_semaphore_locked(&lock->sem);
}

/* A lock still held when it is destroyed leaves the loop's list of held
 * locks (unless the loop closed: it forgot that list). */
int taal_lock_destroy(taal_lock *lock)
{
    if (lock == NULL)
        return TAAL_EINVAL;
    bool open = waiters_valid(&lock->sem.waiters) && loop_open(&lock->sem.waiters);
    int rc = taal_semaphore_destroy(&lock->sem);
    if (rc == TAAL_OK && open)
        link_remove(&lock->held);
    if (rc == TAAL_OK)
        lock->owner = NULL;
    return rc;
}

/* ---- event ----------------------------------------------------------------- */

int taal_event_init(taal_event *event, taal_loop *loop, const char *name)
{
    if (event == NULL)
        return TAAL_EINVAL;
    int rc = waiters_init(&event->waiters, loop, TAAL_WAITERS_EVENT);
    if (rc != TAAL_OK)
        return rc;
    event->is_set = false;
    event->name = name;
    return TAAL_OK;
}

/* Every waiter is woken, in the order they came; each is handed "it was
 * set", so a clear() that follows cannot send them back to wait. */
int taal_event_set(taal_event *event)
{
    if (event == NULL || !waiters_valid(&event->waiters))
        return TAAL_EINVAL;
    if (!loop_open(&event->waiters))
        return TAAL_ECLOSED;
    /* LAB(event) BEGIN: set it, and wake every waiter */
    event->is_set = true;
    while (hand_to_first(&event->waiters))
        ;
    return TAAL_OK;
    /* LAB(event) END: return TAAL_ENOTIMPL; */
}

int taal_event_clear(taal_event *event)
{
    if (event == NULL || !waiters_valid(&event->waiters))
        return TAAL_EINVAL;
    event->is_set = false;
    return TAAL_OK;
}

bool taal_event_is_set(const taal_event *event)
{
    return event != NULL && waiters_valid(&event->waiters) && event->is_set;
}

int taal__event_wait(taal_event *event)
{
    /* LAB(event) BEGIN: return at once if set, else wait */
    taal_task *task;
    int rc = event == NULL ? TAAL_EINVAL : check_wait(&event->waiters, &task);
    if (rc != TAAL_OK)
        return rc;
    return event->is_set ? TAAL_OK : park(&event->waiters, task);
    /* LAB(event) END: (void)event; return TAAL_ENOTIMPL; */
}

int taal_event_destroy(taal_event *event)
{
    return event == NULL ? TAAL_EINVAL : waiters_destroy(&event->waiters);
}

/* ---- queue ------------------------------------------------------------------- */

/*
** The items are a ring: `count` of them from `head`, wrapping at
** `capacity`. The oldest `items_handed` of them belong to getters that were
** woken and have not run yet; the `slots_handed` free slots after the last
** item belong to woken putters. Neither is there for anyone else to take.
*/
static size_t at(const taal_queue *q, size_t k)
{
    return (q->head + k) % q->capacity;
}

static size_t items_free(const taal_queue *q)
{
    return q->count - q->items_handed;
}

static bool slot_free(const taal_queue *q)
{
    return q->maxsize == 0 || q->count + q->slots_handed < q->maxsize;
}

/*
** A ring belongs to the loop as well as to its queue: it is on the loop's
** list of rings, and closing the loop frees every ring still there. So a
** queue that is never destroyed, say one in the frame of a task that was
** still pending at close (close frees the frame), costs its ring only
** until close, not for the life of the program. The list is in the
** rings, not in the queues: a queue's storage may be gone (a freed frame)
** while its ring is not.
*/
typedef struct ring {
    taal_link link; /* on loop->rings */
    void *items[];  /* the queue's `items` */
} ring;

static void **ring_alloc(taal_loop *loop, size_t capacity)
{
    if (capacity > (SIZE_MAX - sizeof(ring)) / sizeof(void *))
        return NULL;
    ring *r = taal__alloc(sizeof(ring) + capacity * sizeof(void *));
    if (r == NULL)
        return NULL;
    list_push_back(&loop->rings, &r->link);
    return r->items;
}

static void ring_free(void **items)
{
    if (items == NULL)
        return;
    ring *r = TAAL_CONTAINER_OF(items, ring, items);
    link_remove(&r->link);
    taal__free(r);
}

void taal__queue_rings_free(taal_loop *loop)
{
    while (!list_empty(&loop->rings)) {
        ring *r = TAAL_CONTAINER_OF(loop->rings.next, ring, link);
        link_remove(&r->link);
        taal__free(r);
    }
}

/* An unbounded queue grows by doubling, unwrapping the ring as it copies. */
static int grow(taal_queue *q)
{
    size_t capacity = q->capacity ? 2 * q->capacity : 16;
    void **items = ring_alloc(q->getters.future.loop, capacity);
    if (items == NULL)
        return TAAL_ENOMEM;
    for (size_t k = 0; k < q->count; k++)
        items[k] = q->items[at(q, k)];
    ring_free(q->items);
    q->items = items;
    q->capacity = capacity;
    q->head = 0;
    return TAAL_OK;
}

static int ring_push(taal_queue *q, void *item)
{
    if (q->count == q->capacity) {
        int rc = grow(q);
        if (rc != TAAL_OK)
            return rc;
    }
    q->items[at(q, q->count)] = item;
    q->count++;
    return TAAL_OK;
}

/* Takes the item `skip` places after the oldest, moving the `skip` older
 * ones (handed to woken getters) up by one: skip is small, the number of
 * getters woken in one iteration. */
static void *ring_take(taal_queue *q, size_t skip)
{
    void *item = q->items[at(q, skip)];
    for (size_t k = skip; k > 0; k--)
        q->items[at(q, k)] = q->items[at(q, k - 1)];
    q->head = at(q, 1);
    q->count--;
    return item;
}

static bool queue_valid(const taal_queue *q)
{
    return q != NULL && waiters_valid(&q->getters);
}

int taal_queue_init(taal_queue *queue, taal_loop *loop, size_t maxsize, const char *name)
{
    if (queue == NULL || maxsize > SIZE_MAX / sizeof(void *))
        return TAAL_EINVAL;
    memset(queue, 0, sizeof *queue);
    int rc = waiters_init(&queue->getters, loop, TAAL_WAITERS_GET);
    if (rc == TAAL_OK)
        rc = waiters_init(&queue->putters, loop, TAAL_WAITERS_PUT);
    if (rc == TAAL_OK)
        rc = waiters_init(&queue->joiners, loop, TAAL_WAITERS_JOIN);
    if (rc == TAAL_OK && maxsize > 0) {
        queue->items = ring_alloc(loop, maxsize);
        rc = queue->items == NULL ? TAAL_ENOMEM : TAAL_OK;
    }
    if (rc != TAAL_OK) {
        memset(queue, 0, sizeof *queue); /* unusable: every call says TAAL_EINVAL */
        return rc;
    }
    queue->capacity = queue->maxsize = maxsize;
    queue->name = name;
    return TAAL_OK;
}

/* An item is in: counted as unfinished, and handed to the first waiting
 * getter, if any. */
static int put_item(taal_queue *q, void *item)
{
    int rc = ring_push(q, item);
    if (rc != TAAL_OK)
        return rc;
    q->unfinished++;
    if (hand_to_first(&q->getters))
        q->items_handed++;
    return TAAL_OK;
}

/* An item is out: its slot goes to the first waiting putter, if any. */
static void *take_item(taal_queue *q, size_t skip)
{
    void *item = ring_take(q, skip);
    if (q->maxsize > 0 && hand_to_first(&q->putters))
        q->slots_handed++;
    return item;
}

int taal_queue_put_nowait(taal_queue *queue, void *item)
{
    if (!queue_valid(queue))
        return TAAL_EINVAL;
    if (!loop_open(&queue->getters))
        return TAAL_ECLOSED;
    /* LAB(queue) BEGIN: put the item in, if a slot is free */
    if (!slot_free(queue))
        return TAAL_EFULL;
    return put_item(queue, item);
    /* LAB(queue) END: (void)item; return TAAL_ENOTIMPL; */
}

int taal_queue_get_nowait(taal_queue *queue, void **item)
{
    if (!queue_valid(queue) || item == NULL)
        return TAAL_EINVAL;
    if (!loop_open(&queue->getters))
        return TAAL_ECLOSED;
    /* LAB(queue) BEGIN: take the oldest item that nobody was handed */
    if (items_free(queue) == 0)
        return TAAL_EEMPTY;
    *item = take_item(queue, queue->items_handed);
    return TAAL_OK;
    /* LAB(queue) END: return TAAL_ENOTIMPL; */
}

int taal__queue_put(taal_queue *queue, void *item)
{
    if (!queue_valid(queue))
        return TAAL_EINVAL;
    taal_task *task;
    int rc = check_wait(&queue->putters, &task);
    if (rc != TAAL_OK)
        return rc;
    return slot_free(queue) ? put_item(queue, item) : park(&queue->putters, task);
}

/* A woken putter fills the slot it was handed; a cancelled one that was
 * handed a slot passes it to the next putter in line (or frees it). */
int taal__queue_placed(taal_queue *queue, void *item)
{
    bool give_back;
    int rc = woken(&queue->putters, &give_back);
    if (rc == TAAL_OK) {
        queue->slots_handed--;
        return put_item(queue, item); /* cannot fail: the slot was kept for it */
    }
    /* LAB(giveback) BEGIN: a cancelled putter that was handed a slot passes it on */
    if (give_back) {
        queue->slots_handed--;
        if (hand_to_first(&queue->putters))
            queue->slots_handed++;
    }
    /* LAB(giveback) END: (void)give_back; */
    return rc;
}

int taal__queue_get(taal_queue *queue, void **item)
{
    if (!queue_valid(queue))
        return TAAL_EINVAL;
    taal_task *task;
    int rc = check_wait(&queue->getters, &task);
    if (rc != TAAL_OK)
        return rc;
    if (items_free(queue) == 0)
        return park(&queue->getters, task);
    *item = take_item(queue, queue->items_handed);
    return TAAL_OK;
}

/* A woken getter takes the item it was handed: the oldest one. A
 * cancelled one that was handed an item leaves it for the next getter in
 * line (or for anyone: it is free again), and takes nothing. */
int taal__queue_taken(taal_queue *queue, void **item)
{
    bool give_back;
    int rc = woken(&queue->getters, &give_back);
    if (rc == TAAL_OK) {
        queue->items_handed--;
        *item = take_item(queue, 0);
    } else if (give_back) {
        queue->items_handed--;
        if (hand_to_first(&queue->getters))
            queue->items_handed++;
    }
    return rc;
}

size_t taal_queue_qsize(const taal_queue *queue)
{
    return queue_valid(queue) ? queue->count : 0;
}

bool taal_queue_empty(const taal_queue *queue)
{
    return !queue_valid(queue) || items_free(queue) == 0;
}

bool taal_queue_full(const taal_queue *queue)
{
    return queue_valid(queue) && !slot_free(queue);
}

int taal_queue_task_done(taal_queue *queue)
{
    if (!queue_valid(queue))
        return TAAL_EINVAL;
    if (queue->unfinished == 0)
        return TAAL_ERELEASE; /* asyncio: "task_done() called too many times" */
    if (--queue->unfinished == 0)
        while (hand_to_first(&queue->joiners))
            ;
    return TAAL_OK;
}

int taal__queue_join(taal_queue *queue)
{
    if (!queue_valid(queue))
        return TAAL_EINVAL;
    taal_task *task;
    int rc = check_wait(&queue->joiners, &task);
    if (rc != TAAL_OK)
        return rc;
    return queue->unfinished == 0 ? TAAL_OK : park(&queue->joiners, task);
}

int taal_queue_destroy(taal_queue *queue)
{
    if (!queue_valid(queue))
        return TAAL_EINVAL;
    if (in_use(&queue->getters) || in_use(&queue->putters) || in_use(&queue->joiners))
        return TAAL_EBUSY;
    if (loop_open(&queue->getters))
        ring_free(queue->items); /* else the loop's close has freed it */
    memset(queue, 0, sizeof *queue);
    return TAAL_OK;
}

/* ---- what a task waits for ------------------------------------------------------- */

/* `semaphore "db"`, or `a semaphore` if it has no name. */
static const char *named(const char *what, const char *name, char *buf, size_t size)
{
    if (name != NULL)
        snprintf(buf, size, "%s \"%s\"", what, name);
    else
        snprintf(buf, size, "a%s %s", strchr("aeiou", what[0]) ? "n" : "", what);
    return buf;
}

const char *taal__waiters_what(const taal_future *waiters)
{
    static const char *const what[] = {"?",     "semaphore", "lock", "event",
                                       "queue", "queue",     "queue"};
    uint8_t of = TAAL_CONTAINER_OF(waiters, taal_waiters, future)->of;
    return of < sizeof what / sizeof *what ? what[of] : "?";
}

/* The deadlock report's words: `semaphore "db" (0 free, 3 waiting)`. */
void taal__waiters_describe(const taal_future *future, char *buf, size_t size)
{
    const taal_waiters *w = TAAL_CONTAINER_OF(future, taal_waiters, future);
    char who[96];
    size_t n = waiting(w);
    if (w->of == TAAL_WAITERS_SEMAPHORE || w->of == TAAL_WAITERS_LOCK) {
        const taal_semaphore *sem = TAAL_CONTAINER_OF(w, taal_semaphore, waiters);
        if (w->of == TAAL_WAITERS_LOCK)
            snprintf(buf, size, "%s (locked, %zu waiting)",
                     named("lock", sem->name, who, sizeof who), n);
        else
            snprintf(buf, size, "%s (%u free, %zu waiting)",
                     named("semaphore", sem->name, who, sizeof who), sem->value, n);
    } else if (w->of == TAAL_WAITERS_EVENT) {
        const taal_event *event = TAAL_CONTAINER_OF(w, taal_event, waiters);
        snprintf(buf, size, "%s (%s, %zu waiting)",
                 named("event", event->name, who, sizeof who),
                 event->is_set ? "set" : "not set", n);
    } else if (w->of == TAAL_WAITERS_GET) {
        const taal_queue *q = TAAL_CONTAINER_OF(w, taal_queue, getters);
        snprintf(buf, size, "%s to get from (empty, %zu waiting)",
                 named("queue", q->name, who, sizeof who), n);
    } else if (w->of == TAAL_WAITERS_PUT) {
        const taal_queue *q = TAAL_CONTAINER_OF(w, taal_queue, putters);
        snprintf(buf, size, "%s to put into (full: %zu of %zu, %zu waiting)",
                 named("queue", q->name, who, sizeof who), q->count, q->maxsize, n);
    } else {
        const taal_queue *q = TAAL_CONTAINER_OF(w, taal_queue, joiners);
        snprintf(buf, size, "%s to be done (%zu unfinished, %zu waiting)",
                 named("queue", q->name, who, sizeof who), q->unfinished, n);
    }
}
