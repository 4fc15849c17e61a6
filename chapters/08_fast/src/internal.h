/*
** internal.h -- what the parts of the runtime share and users do not see.
**
** The lists are intrusive, circular and doubly linked, with the list head
** a taal_link like any other: insertion and removal are O(1), never
** allocate, and an element can be removed without knowing which list it
** is in. Every queue of the runtime (the ready queue, each future's
** waiters, the loop's objects) is one of these.
**
** "Intrusive" means the link lives inside the element (a taal_handle holds
** its taal_link) instead of the list allocating a node that points at it.
** Given a pointer to the link, TAAL_CONTAINER_OF gets back the element
** around it by subtracting the link's offset inside the element's struct:
** the technique of the Linux kernel's lists and of libuv's queues.
*/
#ifndef TAAL_INTERNAL_H
#define TAAL_INTERNAL_H

#include "taal.h"

/* The struct of type `type` whose member `member` is at address `ptr`. */
#define TAAL_CONTAINER_OF(ptr, type, member) \
    ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

static inline void list_init(taal_link *head)
{
    head->prev = head->next = head;
}

static inline bool list_empty(const taal_link *head)
{
    return head->next == head;
}

static inline bool link_linked(const taal_link *link)
{
    return link->next != NULL;
}

/* Appends `link` (which must be unlinked) at the tail of `head`. */
static inline void list_push_back(taal_link *head, taal_link *link)
{
    link->prev = head->prev;
    link->next = head;
    head->prev->next = link;
    head->prev = link;
}

/* Unlinks `link` from whatever list it is in; harmless if it is in none. */
static inline void link_remove(taal_link *link)
{
    if (!link_linked(link))
        return;
    link->prev->next = link->next;
    link->next->prev = link->prev;
    link->prev = link->next = NULL;
}

/* Moves every element of `from`, in order, to the tail of `to`. */
static inline void list_splice_back(taal_link *to, taal_link *from)
{
    if (list_empty(from))
        return;
    taal_link *first = from->next, *last = from->prev;
    first->prev = to->prev;
    last->next = to;
    to->prev->next = first;
    to->prev = last;
    list_init(from);
}

/* The ready queue (loop.c): one FIFO per priority. A handle goes to the
 * FIFO of its priority; taal__ready_move() gives a handle a new priority,
 * moving it to that FIFO if it is waiting in the ready queue. */
void taal__ready_move(taal_loop *loop, taal_handle *handle, int priority);

static inline int taal__level(int priority)
{
    return priority - TAAL_PRIORITY_MIN;
}

/* Chapter 08: inline, since every wake-up and every yield pushes a handle
 * (a call cost a third of the push): to the FIFO of its priority, and
 * that FIFO marked in the map of levels with work. */
static inline void taal__ready_push(taal_loop *loop, taal_handle *handle)
{
    int level = taal__level(handle->priority);
    list_push_back(&loop->ready[level], &handle->link);
    loop->ready_levels |= UINT32_C(1) << level;
}

/* Memory (slab.c). */
void *taal__alloc(size_t size);
void *taal__realloc(void *ptr, size_t size);
void taal__free(void *ptr);

/* Task blocks (slab.c): from the loop's slab (its free list, or a new
 * chunk), or from the allocator if larger than the largest size class;
 * and back. A block the program keeps past the loop's close is kept with
 * its chunk (taal__block_keep() returns the chunk, NULL for a block of the
 * allocator's), and given back to it when released. */
void *taal__block_get(taal_loop *loop, size_t size);
void taal__block_put(taal_loop *loop, void *block, size_t size);
void *taal__block_keep(taal_loop *loop, void *block, size_t size);
void taal__block_put_orphan(void *chunk, void *block);
/* The loop closes (loop.c calls it last): every chunk is freed but those
 * that still hold a kept block. */
void taal__slab_close(taal_loop *loop);

/* Marks a function that runs rarely (debug mode, tracing) and is kept out
 * of the hot function that calls it: a compiler inlines a static function
 * it sees called once, and its stack frame and saved registers would then
 * cost every call of the hot one. TAAL__NOINLINE only keeps a function
 * apart, for the same reason, where it is not rare. */
#if defined(__GNUC__)
#define TAAL__COLD __attribute__((cold, noinline))
#define TAAL__NOINLINE __attribute__((noinline))
#define TAAL__ALWAYS_INLINE __attribute__((always_inline))
#else
#define TAAL__COLD
#define TAAL__NOINLINE
#define TAAL__ALWAYS_INLINE
#endif

/* Thread-local storage is C11's _Thread_local, which MSVC's C mode has
 * long spelt __declspec(thread) instead. */
#if defined(_MSC_VER) && !defined(__clang__)
#define TAAL__THREAD_LOCAL __declspec(thread)
#else
#define TAAL__THREAD_LOCAL _Thread_local
#endif

/* The strictest alignment a block needs: C11's _Alignof(max_align_t), and
 * a union of the widest basic types where MSVC's <stddef.h> has no
 * max_align_t in C. */
#if defined(_MSC_VER) && !defined(__clang__)
typedef union {
    long long ll;
    long double ld;
    void *p;
    void (*f)(void);
} taal__max_align;
#define TAAL__MAX_ALIGN _Alignof(taal__max_align)
#else
#define TAAL__MAX_ALIGN _Alignof(max_align_t)
#endif

/* printf-style arguments, checked by gcc and clang. MinGW-w64's `printf`
 * archetype is the Microsoft runtime's, which has no %zu; in standard C
 * mode MinGW's printf is its own, which has, and <stdio.h> names the
 * archetype that matches. */
#if defined(__MINGW32__)
#include <stdio.h>
#define TAAL__PRINTF(string, first) \
    __attribute__((format(__MINGW_PRINTF_FORMAT, string, first)))
#elif defined(__GNUC__)
#define TAAL__PRINTF(string, first) __attribute__((format(printf, string, first)))
#else
#define TAAL__PRINTF(string, first)
#endif

/* Reports (loop.c): printf-style, one line. `loop` may be NULL (a future
 * freed after its loop closed): the report then goes to stderr. */
void taal__report(taal_loop *loop, taal_report_kind kind, taal_future *future, int status,
                  const char *format, ...) TAAL__PRINTF(5, 6);

/* The loop running in this thread (loop.c), and its current task: read
 * directly on the hot paths of the await macros. */
extern TAAL__THREAD_LOCAL taal_loop *taal__running_loop;

static inline taal_task *taal__current_task(void)
{
    return taal__running_loop == NULL ? NULL : taal__running_loop->current;
}

/* Seconds to a nanosecond delay, negative ones too ("now"): TAAL_EINVAL
 * for NaN, and saturating rather than overflowing for absurd ones (loop.c). */
int taal__delay_ns(double seconds, int64_t *ns);
int64_t taal__seconds_ns(double seconds); /* the same, unchecked: not for NaN */
int64_t taal__now(taal_loop *loop);
int64_t taal__monotonic_ns(void); /* the real clock, whatever the loop's is */

/* Timers (loop.c): arming without the checks and the trace of the public
 * taal_timer_start(), for the task's own timer. */
int taal__timer_arm(taal_loop *loop, taal_timer *timer, int64_t ns);
int taal__timer_arm_at(taal_loop *loop, taal_timer *timer, int64_t deadline);
void taal__timer_disarm(taal_loop *loop, taal_timer *timer);

/* Futures (future.c). The two questions asked on every await are inline. */
static inline bool taal__future_valid(const taal_future *future)
{
    return future != NULL && future->waiters.next != NULL;
}

static inline bool taal__future_is_done(const taal_future *future)
{
    return future->status != TAAL_SUSPENDED; /* for a valid future */
}

void taal__future_init_heap(taal_future *future, taal_loop *loop, taal_future_kind kind);
void taal__future_finish(taal_future *future, int status, void *result);
void taal__future_free(taal_future *future); /* its last reference is gone */

/* The status of a future that is done, which now counts as retrieved. */
static inline int taal__future_retrieve(taal_future *future)
{
    future->retrieved = true;
    return future->status;
}

/*
** References (see "Who frees what" in the tutorial). A loop-allocated
** future counts its own; a plain one has none, but a plain one inside a
** task's frame dies with the task, so a reference to it is one to that
** task. The keeper is whoever's count a reference goes to, or NULL. At
** 2^24 - 1 a count sticks: such a future is freed at close, never early.
*/
enum { TAAL__REFS_STUCK = 0xFFFFFF };

/* Tasks, gathers, waits and shields: the futures the loop allocates and
 * counts. */
static inline bool taal__future_allocated(const taal_future *future)
{
    return future->kind == TAAL_FUTURE_TASK || future->kind == TAAL_FUTURE_GATHER ||
           future->kind == TAAL_FUTURE_WAIT || future->kind == TAAL_FUTURE_SHIELD;
}

static inline taal_future *taal__future_keeper(taal_future *future)
{
    if (taal__future_allocated(future))
        return future;
    return future->u.owner != NULL ? (taal_future *)(void *)future->u.owner : NULL;
}

static inline void taal__future_retain(taal_future *future)
{
    taal_future *k = taal__future_keeper(future);
    if (k != NULL && k->refs < TAAL__REFS_STUCK)
        k->refs++;
}

static inline void taal__keeper_unref(taal_future *k)
{
    if (k != NULL && k->refs != TAAL__REFS_STUCK && --k->refs == 0)
        taal__future_free(k);
}

static inline void taal__future_unref(taal_future *future)
{
    taal__keeper_unref(taal__future_keeper(future));
}
void taal__future_unhook(taal_future *future); /* off every list, for close */
void taal__future_orphan(taal_future *future); /* held at close: keep, inert */
void taal__future_report_unretrieved(taal_future *future); /* once, if it must be */
void taal__future_destroy(taal_future *future);            /* reported, then freed */
void taal__future_describe(const taal_future *future, char *buf, size_t size);
void taal__future_for_each_child(taal_future *future,
                                 void (*fn)(taal_future *child, void *ctx), void *ctx);

/* Running a handle. A plain callback is called with its data. A
 * done-callback is called with its future too, and then drops the
 * reference its handle held: the future was kept alive until its callback
 * had run. The handle, and the future's keeper, are read before the call,
 * never after: the callback may reuse the handle's storage, and may free
 * a future of the caller's storage that it is done with (a task woken by
 * a plain future or a primitive may destroy and free it in that very
 * step). Inline: it runs for every callback and every step of every task. */
static inline void taal__handle_run(taal_handle *handle)
{
    taal_future *future = handle->future;
    if (future == NULL) {
        handle->fn.call(handle->data);
        return;
    }
    handle->future = NULL;
    taal_future *keeper = taal__future_keeper(future);
    handle->fn.done(future, handle->data);
    taal__keeper_unref(keeper);
}

/* Tasks (task.c). */
void taal__task_run_at(taal_task *task, int priority);     /* its step's priority */
taal_future *taal__task_waiting_on(const taal_task *task); /* parked on, or NULL */
void taal__task_park(taal_task *task, taal_future *on);    /* its handle waits on `on` */
int taal__task_park_released(taal_task *task, taal_future *on); /* wait_for(.., 0) */
void taal__task_unhook(taal_task *task);
void taal__task_free(taal_task *task);
void taal__task_keep(taal_task *task); /* held at its loop's close (loop.c) */
void taal__task_describe(const taal_task *task, char *buf, size_t size);
bool taal__is_task_step(const taal_handle *handle);

/* Tracing (trace.c). Each is called only when loop->trace is set: with
 * tracing off, what it costs is that one test. */
struct taal_trace *taal__trace_open(taal_loop *loop, const char *path);
void taal__trace_close(taal_loop *loop);
void taal__trace_task_created(taal_loop *loop, const taal_task *task);
void taal__trace_task_named(taal_loop *loop, const taal_task *task);
void taal__trace_step_begin(taal_loop *loop, const taal_task *task);
void taal__trace_step_end(taal_loop *loop, const taal_task *task, int rc);
void taal__trace_wake(taal_loop *loop, const taal_task *task); /* by its timer */
void taal__trace_timer(taal_loop *loop, const char *what, const taal_timer *timer);
void taal__trace_callback(taal_loop *loop, int64_t began);
void taal__trace_slow_step(taal_loop *loop, const taal_task *task, int64_t ns);
void taal__trace_wakes(taal_loop *loop, const taal_future *future);
void taal__trace_handed(taal_loop *loop, const taal_task *task,
                        const taal_future *waiters);
void taal__trace_cancel(taal_loop *loop, const taal_task *task); /* woken to cancel */

/* Synchronisation (sync.c): what a primitive's waiting tasks wait for. */
void taal__waiters_describe(const taal_future *waiters, char *buf, size_t size);
const char *taal__waiters_what(const taal_future *waiters);
int taal__inherited_priority(const taal_task *task); /* from locks it holds */
void taal__lend_priority(taal_task *waiter);         /* if it waits for a lock */
void taal__waiter_left(taal_future *waiters);        /* a cancelled task left its line */
void taal__locks_forget_owner(taal_task *task);      /* it ends holding locks */
void taal__queue_rings_free(taal_loop *loop);        /* at close: rings left */

/*
** Cancellation (task.c). Every await of a task asks, when it starts and
** when it resumes, whether a cancellation is being delivered; the first to
** ask delivers it (returns TAAL_ECANCELLED), and the task is back to
** normal. Inline: it is asked on every await.
*/
static inline bool taal__cancel_delivered(taal_task *task)
{
    if (task == NULL || task->cancel != TAAL_CANCEL_DELIVERING)
        return false;
    task->cancel = TAAL_CANCEL_NONE;
    return true;
}

/* Scopes (scope.c): timeout scopes and task groups. A finishing task's
 * open ones are closed for it; a closing loop forgets them all. */
void taal__scopes_close_of(taal_task *task);
void taal__scopes_forget(taal_loop *loop);

/*
** Chapter 06: coroutines never awaited (task.c). A coroutine initialised
** in a task, inside the task's frame, goes on the task's list (`coros`,
** linked through taal_coro.next); when the task ends, the list is checked.
** An async with's enter and exit, and an iterator's __anext__, check the
** coroutines initialised while they ran (those newer than the mark they
** took when they began) as soon as they end.
*/
void taal__coro_reset(taal_coro *co, taal_body_fn body, taal_coro_kind kind,
                      const char *name);      /* taal.c */
int taal__send_finish(taal_coro *co, int rc); /* taal.c: taal_send() after the body */

/* Chapter 08: taal_send() for a task's own frame, inline on the step's hot
 * path. The common case (the body suspends again) costs a call of the body
 * and three stores; whatever is rare goes to taal.c: the checks that fail
 * (a frame finished, or running because someone sent it by hand) return
 * taal_send()'s statuses, and an end leaves the open blocks there. */
static inline int taal__send_inline(taal_coro *co)
{
    if (co->body == NULL || co->point == TAAL_POINT_DONE || co->running)
        return taal_send(co);
    co->running = true;
    int rc = co->body(co);
    if (rc == TAAL_SUSPENDED && co->blocks == NULL) {
        co->running = false;
        return TAAL_SUSPENDED;
    }
    return taal__send_finish(co, rc);
}
void taal__coro_track(taal_coro *co);
taal_coro *taal__coro_mark(void);
void taal__coro_check_since(taal_coro *mark);
void taal__coros_check(taal_task *task); /* it ends, or its loop closes */

/* Blocks (aiter.c): is one between its BEGIN and its END; on and off a
 * body's list of open blocks; the start of its END (a close or an exit). */
bool taal__block_open(const taal_block *block);
void taal__block_unlink(taal_coro *co, taal_block *block);
void taal__block_link(taal_coro *co, taal_block *block);
bool taal__block_end(taal_coro *co, taal_block *block);

/* Readiness I/O (io.c, chapter 07): set up with the loop; the loop's wait
 * in step 1 (blocks until an event or `deadline`, loop time in ns,
 * INT64_MAX for none) and its zero-timeout poll while work is ready (each
 * returns the number of callbacks it made ready); and everything forgotten
 * or freed when the loop closes. */
void taal__io_init(taal_loop *loop, unsigned interval);
int taal__io_wait(taal_loop *loop, int64_t deadline);
int taal__io_poll(taal_loop *loop, int timeout_ms);
void taal__io_close(taal_loop *loop);
const char *taal__io_strerror(int status);

/* Small writes held back (stream.c, chapter 08): streams on the loop's
 * `held` list send them when the loop calls taal__streams_send_held(),
 * which it does before it polls or waits, once TAAL__HOLD_ROUNDS
 * iterations have begun since the first of them was held, and before it
 * returns to the program (loop.c). */
enum { TAAL__HOLD_ROUNDS = 16 };
void taal__streams_send_held(taal_loop *loop);

#endif /* TAAL_INTERNAL_H */
