/*
** actx.c -- chapter 06: async context managers, and the `async with`
** whose exit runs on every way out.
**
** A manager is a pair of steps, enter and exit (taal_actx_type), each run
** one call at a time until it stops suspending, like every wait of a task.
** Three kinds are built in: the semaphore and the lock, whose steps are
** chapter 03's acquire and release, and the coroutine manager, whose steps
** run the enter and exit coroutines of a taal_actx frame.
**
** The block (taal_block, in the frame of the coroutine that runs the
** `async with`) goes through ENTERING, INSIDE, LEAVING, EXITING and DONE.
** It is open, on its coroutine's list of blocks, from the moment the enter
** succeeded to the moment the exit begins: a body that returns while it is
** open is brought back by taal_send() to leave it through the exit.
*/
#include "internal.h"

/* ---- the managers ------------------------------------------------------------- */

static int semaphore_enter(void *manager, taal_block *block, bool resumed)
{
    taal_semaphore *sem = manager;
    int rc = resumed ? taal__semaphore_acquired(sem) : taal__semaphore_acquire(sem);
    if (rc == TAAL_OK)
        block->value = sem;
    return rc;
}

static int semaphore_exit(void *manager, taal_block *block, bool resumed)
{
    (void)block;
    (void)resumed;
    return taal_semaphore_release(manager);
}

static int lock_enter(void *manager, taal_block *block, bool resumed)
{
    taal_lock *lock = manager;
    int rc = resumed ? taal__semaphore_acquired(&lock->sem)
                     : taal__semaphore_acquire(&lock->sem);
    if (rc == TAAL_OK)
        block->value = lock;
    return rc;
}

static int lock_exit(void *manager, taal_block *block, bool resumed)
{
    (void)block;
    (void)resumed;
    return taal_lock_release(manager);
}

const taal_actx_type taal__semaphore_actx = {"semaphore", semaphore_enter,
                                             semaphore_exit};
const taal_actx_type taal__lock_actx = {"lock", lock_enter, lock_exit};

/*
** A coroutine manager runs its enter, then its exit, on its own frame: the
** header's `co` is set to the one that runs. The frame can serve one block
** at a time; a second block entering it while it is in use is refused with
** TAAL_EBUSY (its enter fails, so its exit never runs). When the enter or
** the exit ends, the coroutines it initialised and left unstarted are
** reported ("never awaited"): the block's `mark` says where they begin in
** the task's list. (A semaphore's or a lock's steps start no coroutine:
** they need no such check.)
*/
static int coroutine_enter(void *manager, taal_block *block, bool resumed)
{
    taal_actx *m = manager;
    if (!resumed) {
        if (m->enter == NULL || m->exit == NULL)
            return TAAL_EINVAL; /* never initialised */
        if (m->with != NULL)
            return TAAL_EBUSY;
        m->with = block;
        taal__coro_reset(&m->co, m->enter, TAAL_CORO_ACTX, m->co.name);
        block->mark = taal__coro_mark();
    }
    int rc = taal_send(&m->co);
    if (rc == TAAL_SUSPENDED)
        return rc;
    taal__coro_check_since(block->mark); /* what the enter left unstarted */
    if (rc == TAAL_OK)
        block->value = m->co.value;
    else
        m->with = NULL; /* it did not enter: nothing to exit */
    return rc;
}

static int coroutine_exit(void *manager, taal_block *block, bool resumed)
{
    taal_actx *m = manager;
    if (!resumed) {
        taal__coro_reset(&m->co, m->exit, TAAL_CORO_ACTX, m->co.name);
        m->status = block->status;
        m->suppress = false;
        block->mark = taal__coro_mark();
    }
    int rc = taal_send(&m->co);
    if (rc == TAAL_SUSPENDED)
        return rc;
    taal__coro_check_since(block->mark); /* what the exit left unstarted */
    block->suppress = m->suppress;
    m->with = NULL;
    return rc;
}

const taal_actx_type taal__coroutine_actx = {"coroutine", coroutine_enter,
                                             coroutine_exit};

int taal__actx_init_named(taal_actx *manager, taal_body_fn enter, taal_body_fn exit,
                          const char *name)
{
    if (manager == NULL || enter == NULL || exit == NULL)
        return TAAL_EINVAL;
    taal__coro_reset(&manager->co, enter, TAAL_CORO_ACTX, name);
    manager->co.point = TAAL_POINT_DONE; /* nothing runs until a block enters */
    manager->enter = enter;
    manager->exit = exit;
    manager->with = NULL;
    manager->status = TAAL_OK;
    manager->suppress = false;
    return TAAL_OK;
}

int(taal_actx_init)(taal_actx *manager, taal_body_fn enter, taal_body_fn exit)
{
    return taal__actx_init_named(manager, enter, exit, NULL);
}

/* ---- async with -------------------------------------------------------------- */

/* The statement begins. A block already open is left alone: the misuse is
 * counted, and reported by this statement's END. */
void taal__with_begin(taal_coro *co, taal_block *block, const taal_actx_type *type,
                      void *manager, int line)
{
    (void)co; /* the block joins the open ones only once it has entered */
    if (block == NULL)
        return;
    if (taal__block_open(block)) {
        block->misused++;
        return;
    }
    *block =
        (taal_block){.kind = TAAL_BLOCK_WITH, .phase = TAAL_BLOCK_ENTERING, .line = line};
    block->u.with.type = type;
    block->u.with.manager = manager;
}

/* The enter failed with `rc`: neither the body nor the exit will run. */
static int with_failed(taal_block *block, int rc)
{
    block->phase = TAAL_BLOCK_FAILED;
    block->status = rc;
    return TAAL_OK;
}

/* A step's outcome as a status an exit or a block may carry. */
static int as_error(int rc)
{
    return rc == TAAL_STOP ? TAAL_ESTRAY : rc;
}

/*
** The enter, one step at a time. When it succeeds the body may run, and
** the block is open; when it fails, neither the body nor the exit runs.
** Also the way through when taal_send() brings a leaving body back here:
** nothing to do, and the body is skipped.
*/
int taal__with_enter(taal_coro *co, taal_block *block)
{
    if (block == NULL || block->misused > 0 || block->phase != TAAL_BLOCK_ENTERING)
        return TAAL_OK;
    /* LAB(with) BEGIN: step the enter; on success the block opens, else it failed */
    if (block->u.with.manager == NULL)
        return with_failed(block, TAAL_EINVAL);
    int rc = block->u.with.type->enter(block->u.with.manager, block, block->resumed);
    if (rc == TAAL_SUSPENDED) {
        block->resumed = true;
        return TAAL_SUSPENDED;
    }
    block->resumed = false;
    if (rc != TAAL_OK)
        return with_failed(block, as_error(rc));
    block->phase = TAAL_BLOCK_INSIDE;
    taal__block_link(co, block);
    return TAAL_OK;
    /* LAB(with) END: (void)co; return with_failed(block, TAAL_ENOTIMPL); */
}

bool taal__with_inside(const taal_block *block)
{
    return block != NULL && block->misused == 0 && block->phase == TAAL_BLOCK_INSIDE;
}

/* The body ran to its end (or a `continue`). */
void taal__with_leave(taal_block *block)
{
    block->phase = TAAL_BLOCK_LEAVING;
    block->status = TAAL_OK;
}

/*
** The exit, one step at a time, with the body's status; first the block
** leaves the open ones, so that nothing the exit does comes back to it.
** Its outcome: the exit's own error if it failed (it replaces the body's,
** as an exception raised in __aexit__ does), else TAAL_OK if it swallowed
** the body's error, else the body's status.
*/
int taal__with_exit(taal_coro *co, taal_block *block)
{
    if (block == NULL || block->misused > 0)
        return TAAL_OK;
    /* LAB(with) BEGIN: end the body's part of the block (a break, leaving); the exit */
    if (!taal__block_end(co, block))
        return TAAL_OK;
    int rc = block->u.with.type->exit(block->u.with.manager, block, block->resumed);
    if (rc == TAAL_SUSPENDED) {
        block->resumed = true;
        return TAAL_SUSPENDED;
    }
    block->resumed = false;
    if (rc != TAAL_OK)
        block->status = as_error(rc);
    else if (block->suppress)
        block->status = TAAL_OK;
    block->phase = TAAL_BLOCK_DONE;
    return TAAL_OK;
    /* LAB(with) END: (void)co; block->phase = TAAL_BLOCK_DONE; return TAAL_OK; */
}

/* The statement's outcome; the block is idle again. */
int taal__with_end(taal_block *block)
{
    if (block == NULL)
        return TAAL_EINVAL;
    if (block->misused > 0) {
        block->misused--;
        return TAAL_EBUSY;
    }
    int st = TAAL_EINVAL;
    if (block->phase == TAAL_BLOCK_DONE || block->phase == TAAL_BLOCK_FAILED)
        st = block->status;
    block->phase = TAAL_BLOCK_IDLE;
    return st;
}
