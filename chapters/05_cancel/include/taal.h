/*
** taal.h -- chapter 05: cancellation, timeouts, shielding and task groups.
**
** Chapter 04 gave the ready queue priorities and made every scheduled
** callback cancellable. This chapter cancels tasks, as asyncio's
** task.cancel() does: a request that reaches a task wherever it waits
** (a future, another task, a sleep, a semaphore, lock, event or queue, a
** gather), takes it off what it waited on at once, and is delivered as
** the status TAAL_ECANCELLED at the await the task resumes at. The
** coroutine may clean up (cleanup may await) and then fail with it or
** swallow it. On top of that: timeout scopes and wait_for (asyncio.timeout,
** asyncio.wait_for), shield, gather's return_exceptions, and TaskGroup.
** Everything of chapter 04 is here unchanged; the new parts are the
** sections "Cancellation", "Scopes", "Timeouts" and "Task groups", gather's
** and shield's entries in "Gather, wait and shield", and the task's
** cancellation state and the await macros that deliver it.
**
** A coroutine in taal is what a coroutine is in Python: a function whose
** frame lives outside the C stack, so that it can stop at an `await`,
** return to whoever resumed it, and later carry on from that very point.
**
**   Python                          taal
**   ------------------------------  ------------------------------------
**   async def f(): ...              a frame struct + a body function
**   coro = f()                      f_frame fr; f_init(&fr, ...);
**   coro.send(None)                 taal_send(&fr.co)
**   yield        (in __await__)     TAAL_YIELD();
**   await child  (yield from)       TAAL_AWAIT(&fr->child);
**   return value                    store it in the frame; TAAL_RETURN();
**   raise error                     TAAL_FAIL(TAAL_E...);
**   loop = CustomEventLoop()        taal_loop loop; taal_loop_init(&loop, NULL);
**   h = loop.call_soon(cb, x)       taal_call_soon(&loop, &h, cb, x);
**   t = loop.call_later(d, cb, x)   taal_call_later(&loop, &t, d, cb, x);
**   t = loop.call_at(when, cb, x)   taal_call_at(&loop, &t, when, cb, x);
**   h.cancel() / t.cancel()         taal_handle_cancel(&h); taal_timer_cancel(&loop, &t);
**   (no asyncio equivalent)         taal_task_set_priority(task, TAAL_PRIORITY_MAX);
**   loop.create_task(f(x), name=n)  f_frame fr = {.x = x};
**                                   taal_task_create(&loop, f_body, &fr, sizeof fr,
**                                                    n, &task);
**   await asyncio.sleep(1)          TAAL_SLEEP(1.0);
**   await future / await task       TAAL_AWAIT_FUTURE(fut); TAAL_AWAIT_TASK(task);
**   try: await x / except E         TAAL_AWAIT_FUTURE_STATUS(st, fut); (and the
**                                   other _STATUS forms)
**   fut.add_done_callback(cb)       taal_future_add_done_callback(fut, &h, cb, data);
**   asyncio.gather(*futures)        taal_gather(&loop, n, futures, &gathered);
**   asyncio.wait(futures)           taal_wait(&loop, n, futures, mode, timeout, &w);
**   loop.run_until_complete(task)   taal_run_until_complete(&loop, fut);
**   asyncio.run(main())             taal_run(main_body, &fr, sizeof fr, NULL, &result);
**   asyncio debug mode              TAAL_DEBUG=1, or taal_loop_options.debug
**   sem = asyncio.Semaphore(2)      taal_semaphore_init(&sem, loop, 2, "db");
**   await sem.acquire()             TAAL_ACQUIRE(&f->sem);
**   sem.release()                   taal_semaphore_release(&f->sem);
**   lock = asyncio.Lock()           taal_lock lock; taal_lock_init(&lock, loop, "name");
**   await event.wait()              TAAL_EVENT_WAIT(&f->event);
**   await queue.put(x)              TAAL_QUEUE_PUT(&f->q, f->x);
**   x = await queue.get()           TAAL_QUEUE_GET(&f->q, f->x);
**   task.cancel()                   taal_task_cancel(task);
**   except asyncio.CancelledError   if (st == TAAL_ECANCELLED) after an await's _STATUS
**   task.cancelling() / uncancel()  taal_task_cancelling(task); taal_task_uncancel(task);
**   async with asyncio.timeout(2):  TAAL_AWAIT_TIMEOUT_STATUS(st, &f->scope, 2,
**       await child()                                         &f->child);
**   await asyncio.wait_for(t, 2)    TAAL_WAIT_FOR_STATUS(st, &f->scope, fut, 2);
**   await asyncio.shield(t)         taal_shield(&loop, fut, &outer); then await outer
**   async with TaskGroup() as tg:   taal_taskgroup_init(&f->tg); create_task ...;
**                                   TAAL_TASKGROUP_JOIN_STATUS(st, &f->tg);
**
** The technique is Simon Tatham's "Coroutines in C" (and Protothreads): the
** body is one big `switch` on the saved resume point, and every await is a
** `case` label inside it. docs/01_awaitable.md writes the expansion out by
** hand before it uses these macros; read that first.
**
** The rules that come with the technique, each explained in the tutorial:
**   1. Every variable that must survive an await lives in the frame, not in a
**      local: the C stack is gone once the body returns at a suspension.
**   2. An await's argument is evaluated again at every resume, so it too
**      must be made of frame fields, not locals.
**   3. No `switch` of your own may contain an await (its `case` labels would
**      capture ours). if/else, loops and goto are fine. This one cannot be
**      caught by the compiler: the coroutine fails with TAAL_EPOINT when it
**      is resumed at the lost point.
**   4. At most one await or yield per source line (the line number is the
**      resume point; two on one line fail to compile with "duplicate case
**      value").
**   5. The macros only work between TAAL_BEGIN and TAAL_END; outside them
**      they fail to compile ("'taal__self' undeclared").
*/
#ifndef TAAL_H
#define TAAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** @file
 *  @brief Chapter 05: coroutines, the event loop, futures, tasks, timers,
 *  gather and wait, the semaphore, lock, event and queue, priorities with
 *  cancellable handles, and the cancellation of tasks: timeouts, shield
 *  and task groups.
 */

/* ------------------------------------------------------------------------ */
/** @name Version
 *  Which chapter's API this header declares, and which version of taal it
 *  is (the `VERSION` of the CMake project). A program, or a test built
 *  against several chapters, asks the preprocessor: `#if TAAL_CHAPTER >= 5`
 *  (cancellation is there). Every chapter keeps the API of the ones before
 *  it, so compare with `>=`.
 *  @{
 */
#define TAAL_CHAPTER 5       /**< this chapter's number, 1 to 7 */
#define TAAL_VERSION_MAJOR 0 /**< taal's version: major */
#define TAAL_VERSION_MINOR 1 /**< taal's version: minor */
#define TAAL_VERSION_PATCH 0 /**< taal's version: patch */
#define TAAL_VERSION "0.1.0" /**< the three, as a string */
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Status codes
 *  Every taal operation returns an int: zero for success, a positive value
 *  for "not finished yet", a negative TAAL_E... code for an error. A
 *  coroutine finishes with TAAL_OK or with one of the errors; the codes are
 *  values, never exceptions, and taal_strerror() names each one.
 *  @{
 */
enum {
    TAAL_OK = 0,           /**< success; for taal_send(): the coroutine finished */
    TAAL_SUSPENDED = 1,    /**< taal_send(): the coroutine stopped at an await */
    TAAL_EINVAL = -1,      /**< invalid argument (NULL, uninitialised frame or future) */
    TAAL_EDEAD = -2,       /**< the coroutine has already finished */
    TAAL_ERUNNING = -3,    /**< the coroutine is already running (it awaited itself) */
    TAAL_ENOMEM = -4,      /**< an allocation failed */
    TAAL_EPOINT = -5,      /**< resumed at a point its body does not have (rule 3) */
    TAAL_ESTATE = -6,      /**< invalid state: a result set twice, or read too early */
    TAAL_ENOTASK = -7,     /**< an await that needs a task ran outside one */
    TAAL_ELOOP = -8,       /**< the future, timer or handle belongs to another loop */
    TAAL_EBUSY = -9,       /**< the loop is running or closing, or the handle is in use */
    TAAL_ECLOSED = -10,    /**< the loop is closed */
    TAAL_EDEADLOCK = -11,  /**< tasks wait, but nothing is ready and no timer is set */
    TAAL_ESTOPPED = -12,   /**< the loop stopped before the future completed */
    TAAL_EFULL = -13,      /**< the queue is full (put_nowait) */
    TAAL_EEMPTY = -14,     /**< the queue is empty (get_nowait) */
    TAAL_ERELEASE = -15,   /**< released more than acquired: a bounded semaphore,
                                an unlocked lock, task_done() too often */
    TAAL_ECANCELLED = -16, /**< cancelled: asyncio's CancelledError (chapter 05) */
    TAAL_ETIMEDOUT = -17,  /**< a timeout scope expired: asyncio's TimeoutError */
    TAAL_EGROUP = -18,     /**< children of a task group failed: asyncio's
                                ExceptionGroup (read them with
                                taal_taskgroup_error()) */
    TAAL_ENOTIMPL = -99,   /**< not implemented: a hole of a lab handout, to fill */
    /** Coroutines may fail with codes of their own: any value at or below
     *  TAAL_EUSER is yours. taal_strerror() calls it "user error" unless
     *  the program names its codes with taal_set_strerror(). */
    TAAL_EUSER = -1000
};

/** A short English description of a status code ("cannot resume finished
 *  coroutine"). Never NULL; unknown codes give "unknown status". */
const char *taal_strerror(int status);

/** Names a program's own codes (those at or below TAAL_EUSER): taal_strerror()
 *  and every report ask @p name first, and say "user error" if it returns
 *  NULL. */
typedef const char *(*taal_strerror_fn)(int status);

/** Installs @p name for the codes at or below TAAL_EUSER, for the whole
 *  program (like the allocator); NULL removes it. */
void taal_set_strerror(taal_strerror_fn name);
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Coroutine frames
 *  @{
 */

/** The coroutine header; see struct taal_coro. */
typedef struct taal_coro taal_coro;

/** A coroutine's body. It runs from the saved resume point to the next
 *  await (returning TAAL_SUSPENDED) or to its end (returning TAAL_OK or an
 *  error). Write it with TAAL_BEGIN ... TAAL_END rather than by hand. */
typedef int (*taal_body_fn)(taal_coro *self);

/** Resume point of a coroutine that has finished. */
#define TAAL_POINT_DONE (-1)

/** The header every coroutine frame starts with.
 *
 *  A frame is a struct whose first member is a taal_coro, followed by the
 *  coroutine's arguments, its locals and the frames of the coroutines it
 *  awaits directly. Because the header is the first member, a pointer to the
 *  header and a pointer to the frame are the same address (C11 6.7.2.1p15),
 *  which is how the body gets its frame back.
 */
struct taal_coro {
    taal_body_fn body; /**< the coroutine's function; NULL = not initialised */
    int point;         /**< where to resume: 0 = start, a line = an await,
                            TAAL_POINT_DONE = finished */
    int status;        /**< how it finished (TAAL_OK or an error); TAAL_SUSPENDED
                            until then */
    bool running;      /**< true while its body is on the C stack */
    void *value;       /**< what the coroutine returned (TAAL_RETURN_VALUE), or NULL */
};

/** Prepares a coroutine header: not started, not finished. Call it from the
 *  coroutine's own init function, which then stores the arguments.
 *  Returns TAAL_OK, or TAAL_EINVAL if @p co or @p body is NULL. */
int taal_coro_init(taal_coro *co, taal_body_fn body);

/** True once @p co has finished (with a value or with an error). */
bool taal_coro_done(const taal_coro *co);

/** Resumes @p co once, like Python's `coro.send(None)`.
 *
 *  Returns TAAL_SUSPENDED if the coroutine stopped at an await, TAAL_OK if it
 *  finished (its result is in its frame), or the error it finished with.
 *  Misuse never runs the body: TAAL_EINVAL for NULL or an uninitialised
 *  frame, TAAL_EDEAD for a finished coroutine, TAAL_ERUNNING for one that is
 *  already running. */
int taal_send(taal_coro *co);
/** @} */

/* ------------------------------------------------------------------------ */
/** @name The coroutine macros
 *  Each macro is the hand-written code of docs/01_awaitable.md, given a name.
 *  @{
 */

/** Opens a coroutine body. @p frame is a pointer to the frame struct, whose
 *  first member is `taal_coro co`. Declares `taal__self`, which every other
 *  macro uses: that is what makes an await outside a body fail to compile. */
#define TAAL_BEGIN(frame)                       \
    taal_coro *const taal__self = &(frame)->co; \
    switch (taal__self->point) {                \
    case 0:

/** Gives control back to the driver once; the next taal_send() resumes on
 *  the following statement. This is the bare `yield` of `__await__`.
 *  In a task it is not a cancellation point (chapter 05): it has no status
 *  to say "cancelled" with, so a cancellation that arrives while the task
 *  is stopped here is delivered at its next await. TAAL_SLEEP(0) is the
 *  yield that is one. */
#define TAAL_YIELD()                  \
    do {                              \
        taal__self->point = __LINE__; \
        return TAAL_SUSPENDED;        \
    case __LINE__:;                   \
    } while (0)

/** Awaits the coroutine whose frame is @p child_frame, embedded in this
 *  frame, like `yield from`: each resume of this coroutine resumes the child,
 *  each suspension of the child suspends this coroutine, and when the child
 *  finishes this one continues. If the child fails, this coroutine fails
 *  with the same code (an uncaught exception propagates); use
 *  TAAL_AWAIT_STATUS to look at the error instead. */
#define TAAL_AWAIT(child_frame)                         \
    do {                                                \
        int taal__st;                                   \
        TAAL__AWAIT_INTO(taal__st, &(child_frame)->co); \
        if (taal__st != TAAL_OK)                        \
            TAAL_FAIL(taal__st);                        \
    } while (0)

/** Like TAAL_AWAIT, but stores the child's final status (TAAL_OK or an
 *  error) in the int lvalue @p status_lvalue and carries on, which is a
 *  `try: await child / except` in one line. The lvalue should be a frame
 *  field if it is read after a later await. */
#define TAAL_AWAIT_STATUS(status_lvalue, child_frame) \
    TAAL__AWAIT_INTO(status_lvalue, &(child_frame)->co)

/** The shared core of both awaits (internal: use TAAL_AWAIT). The resume
 *  point is set *before* the child's first step, so that resuming this
 *  coroutine re-enters the child. `if (0) { case N:; }` puts the case label
 *  where control can only arrive by the switch, which keeps
 *  -Wimplicit-fallthrough quiet in standard C. */
#define TAAL__AWAIT_INTO(out, child_co) \
    do {                                \
        taal__self->point = __LINE__;   \
        if (0) {                        \
        case __LINE__:;                 \
        }                               \
        (out) = taal_send(child_co);    \
        if ((out) == TAAL_SUSPENDED)    \
            return TAAL_SUSPENDED;      \
    } while (0)

/** Finishes the coroutine successfully; its results are whatever it stored
 *  in its frame. */
#define TAAL_RETURN() return TAAL_OK

/** Finishes the coroutine successfully with @p result, a pointer that
 *  becomes the result of the task running it (`return value`). */
#define TAAL_RETURN_VALUE(result)     \
    do {                              \
        taal__self->value = (result); \
        return TAAL_OK;               \
    } while (0)

/** Finishes the coroutine with the error @p status (a negative code).
 *  taal_send() marks the frame finished; the macro only returns. */
#define TAAL_FAIL(status) return (status)

/** Closes a coroutine body; falling off the end is TAAL_RETURN(). A resume
 *  point that is not one of the body's own `case` labels lands on the
 *  `default:` and fails with TAAL_EPOINT: that is what an await inside a
 *  `switch` of your own does (rule 3), since its label belongs to your
 *  switch. */
#define TAAL_END()               \
    TAAL_RETURN();               \
    default: return TAAL_EPOINT; \
        }

/** @} */

/* ------------------------------------------------------------------------ */
/** @name Memory
 *  taal allocates in a few places only: a task (header and frame in one
 *  block), a gather, wait or shield (one block each), the timer heap's
 *  array when it grows, a queue's ring of items, a task group's blocks of
 *  slots for its children, and, when tracing, one buffer per loop.
 *  Everything else (handles, timers, plain futures, primitives, timeout
 *  scopes, the loop itself) lives in storage you provide. Cancelling never
 *  allocates.
 *  Every allocation can fail, and a failure is reported as TAAL_ENOMEM,
 *  never as a crash.
 *
 *  A loop keeps the blocks of finished tasks for its next tasks (a free
 *  list per block size), so that spawning a task in steady state costs no
 *  malloc() and no free(); they go back to the allocator when the loop
 *  closes.
 *  @{
 */

/** The functions taal allocates with. Tests swap them to make the n-th
 *  allocation fail. */
typedef struct taal_allocator {
    void *(*malloc)(size_t size);             /**< like malloc */
    void *(*realloc)(void *ptr, size_t size); /**< like realloc */
    void (*free)(void *ptr);                  /**< like free */
} taal_allocator;

/** Replaces the allocator for everything allocated from now on; NULL
 *  restores the C library's. Swap it only while no loop is open (and no
 *  task of a closed loop is still held). Returns TAAL_EINVAL if a function
 *  is missing. */
int taal_set_allocator(const taal_allocator *allocator);
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Handles: callbacks waiting to run
 *  A handle is a callback and its data, plus the link that puts it in one
 *  list at a time: the loop's ready queue, or a future's list of waiters.
 *  Moving a handle between lists never allocates, which is why a wake-up
 *  costs no memory.
 *  @{
 */

/** The event loop; see struct taal_loop. */
typedef struct taal_loop taal_loop;
/** A task; see struct taal_task. */
typedef struct taal_task taal_task;
/** A future; see struct taal_future. */
typedef struct taal_future taal_future;

/** A callback run by the loop (taal_call_soon(), timers). */
typedef void (*taal_callback_fn)(void *data);

/** A done-callback: it gets the future that is done, as asyncio's do. */
typedef void (*taal_done_fn)(taal_future *future, void *data);

/** A link in a circular doubly linked list; next == NULL means "in no list". */
typedef struct taal_link {
    struct taal_link *prev; /**< previous link, or the list head */
    struct taal_link *next; /**< next link, or the list head; NULL: unlinked */
} taal_link;

/** A callback waiting to run. Caller storage: keep it alive while it is
 *  scheduled. Zero-initialised means idle. */
typedef struct taal_handle {
    taal_link link; /**< in the ready queue, in a future's waiters, or in no list */
    union {
        taal_callback_fn call; /**< call(data), for call_soon and timers */
        taal_done_fn done;     /**< done(future, data), for done-callbacks */
    } fn;                      /**< what to run: `done` if @ref future is set */
    void *data;                /**< the callback's argument */
    /** A done-callback's future, from taal_future_add_done_callback() until
     *  the callback has run or is removed; NULL for other handles. The
     *  handle holds a reference on it, so the future cannot be freed while
     *  its callback is still to run. */
    taal_future *future;
    int8_t priority; /**< the priority it runs at (TAAL_PRIORITY_MIN..MAX); 0
                          when zero-initialised; kept from one use to the next */
    bool cancelled;  /**< cancelled since it was last scheduled */
    bool armed;      /**< the handle of a timer that is armed: only
                          taal_timer_cancel() can cancel it */
} taal_handle;

/** True while @p handle is in the ready queue or waiting on a future. */
bool taal_handle_pending(const taal_handle *handle);

/** The lowest priority. Priorities run from TAAL_PRIORITY_MIN to
 *  TAAL_PRIORITY_MAX; 0, the priority of everything nobody set one for,
 *  is in the middle. Higher runs first. */
#define TAAL_PRIORITY_MIN (-16)
/** The highest priority. */
#define TAAL_PRIORITY_MAX 15
/** The number of priorities: one FIFO each in the ready queue. */
#define TAAL_PRIORITY_LEVELS 32

/** Sets the priority @p handle will run at the next time it is scheduled
 *  (call_soon, a timer, a done-callback). TAAL_EINVAL for NULL or a
 *  priority out of range. */
int taal_handle_set_priority(taal_handle *handle, int priority);

/** Cancels a callback scheduled with taal_call_soon() (asyncio's
 *  Handle.cancel()): if it has not run, it never will. Cancelling one that
 *  already ran, or twice, is harmless. For a timer use taal_timer_cancel(),
 *  for a done-callback taal_future_remove_done_callback(). TAAL_EINVAL for
 *  NULL, a handle waiting on a future, or the handle of an armed timer (it
 *  is in the timer heap, not the ready queue: cancel the timer instead). */
int taal_handle_cancel(taal_handle *handle);

/** True if @p handle was cancelled since it was last scheduled. */
bool taal_handle_cancelled(const taal_handle *handle);
/** @} */

/* ------------------------------------------------------------------------ */
/** @name The event loop
 *  @{
 */

struct taal_timer;

/** An entry of the timer heap: its key, stored by value so that comparing
 *  two entries never follows a pointer, and the timer it belongs to. */
typedef struct taal_heap_entry {
    int64_t deadline;         /**< when, in loop time (nanoseconds) */
    uint64_t seq;             /**< arming order: equal deadlines fire first-armed first */
    struct taal_timer *timer; /**< whose entry this is */
} taal_heap_entry;

/** What a report is about. */
typedef enum taal_report_kind {
    TAAL_REPORT_UNRETRIEVED = 1,  /**< a future failed and nobody retrieved the error */
    TAAL_REPORT_PENDING_AT_CLOSE, /**< a task was still pending when its loop closed */
    TAAL_REPORT_DEADLOCK,         /**< nothing is ready and no timer is set */
    TAAL_REPORT_WAITS_FOR,        /**< after a deadlock: one task and what it waits for */
    TAAL_REPORT_MISUSE,    /**< a bug in the program that taal caught and ignored */
    TAAL_REPORT_SLOW_STEP, /**< debug mode: one step held the loop too long */
    TAAL_REPORT_DUMP,      /**< a line of taal_loop_dump() */
    TAAL_REPORT_TRACE      /**< tracing could not go on and was turned off */
} taal_report_kind;

/** A report, asyncio's exception-handler context: what happened, to what,
 *  and the whole of it as one English line. Valid during the call only. */
typedef struct taal_report {
    taal_report_kind kind; /**< what it is about */
    taal_loop *loop;       /**< the loop reporting (NULL after it closed) */
    taal_future *future;   /**< the future concerned, or NULL */
    taal_task *task;       /**< the task concerned, or NULL */
    int status;            /**< the status concerned, or TAAL_OK */
    const char *message;   /**< one line, without a newline: "task Task-3 failed ..." */
} taal_report;

/** Receives the loop's reports. A report function may not close the loop
 *  that is reporting (taal_loop_close() then returns TAAL_EBUSY). */
typedef void (*taal_report_fn)(void *ctx, const taal_report *report);

/** Which clock a loop reads. */
typedef enum taal_clock {
    TAAL_CLOCK_FROM_ENV = 0, /**< TAAL_CLOCK: "virtual", "monotonic", or unset */
    TAAL_CLOCK_MONOTONIC, /**< the kernel's monotonic clock; sleeping takes real time */
    TAAL_CLOCK_VIRTUAL    /**< starts at 0; jumps to the next deadline when idle */
} taal_clock;

/** A loop option that can also come from the environment. */
typedef enum taal_switch {
    TAAL_FROM_ENV = 0, /**< ask the environment variable */
    TAAL_OFF,          /**< off, whatever the environment says */
    TAAL_ON            /**< on, whatever the environment says */
} taal_switch;

/** Options for taal_loop_init(); a zeroed struct (or NULL) means defaults,
 *  which every example program therefore takes from the environment:
 *  TAAL_CLOCK, TAAL_TRACE and TAAL_DEBUG. */
typedef struct taal_loop_options {
    taal_clock clock;      /**< which clock; default: $TAAL_CLOCK, else monotonic */
    taal_report_fn report; /**< where reports go; default: stderr, "taal: ..." */
    void *report_ctx;      /**< passed to @ref report */
    /** Write a trace of every task (trace-event JSON) to this file; NULL:
     *  the file named by $TAAL_TRACE, if set; "": no trace. */
    const char *trace;
    taal_switch debug; /**< debug mode; default: on if TAAL_DEBUG=1 */
    double slow_step;  /**< debug mode: report steps longer than this many
                            seconds; 0 means 0.1 */
    /** Aging: 0 (the default) for strict priority, where work of a lower
     *  priority waits while any higher priority has work; N to run a
     *  priority that has waited N iterations next, whatever is above it,
     *  so that nothing waits more than about N + 32 iterations. */
    unsigned aging;
} taal_loop_options;

/** Size classes of the free lists of task blocks: blocks of 16, 32, ...
 *  up to TAAL_POOL_CLASSES * 16 bytes are kept for reuse; larger ones are
 *  freed at once. */
#define TAAL_POOL_CLASSES 64

struct taal_trace;

/** The event loop. Caller storage, initialised by taal_loop_init(). The
 *  fields are public so that a reader can see the whole machine; only the
 *  functions below may change them. */
struct taal_loop {
    /* What runs next: one FIFO per priority, and which of them have work. */
    taal_link ready[TAAL_PRIORITY_LEVELS]; /**< handles to run, by priority */
    uint32_t ready_levels;                 /**< bit l set: ready[l] may have work */
    taal_link batch;                       /**< what the running iteration runs */
    uint32_t aging; /**< 0: strict priority; else a priority passed over this
                         many iterations runs next */
    uint32_t waited[TAAL_PRIORITY_LEVELS]; /**< iterations each priority with
                                              work has been passed over */
    taal_link held_locks; /**< locks that a task holds: priority inheritance */

    /* Timers: a binary min-heap ordered by (deadline, sequence). */
    taal_heap_entry *heap; /**< the heap's array (grown as needed) */
    uint32_t heap_len;     /**< timers armed */
    uint32_t heap_cap;     /**< entries allocated */
    uint64_t timer_seq;    /**< sequence of the next timer: ties go in arming order */

    /* Time, in nanoseconds. */
    bool virtual_clock; /**< true: time moves only when the loop is idle */
    int64_t now;        /**< the virtual clock; the last reading of the real one */
    int64_t start;      /**< the clock when the loop opened (traces start there) */

    /* Tasks, gathers and waits: everything the loop allocated. */
    taal_link objects;     /**< every task, gather and wait not yet freed */
    uint32_t id;           /**< this loop's number, unique in its thread */
    uint32_t next_task_id; /**< for the default names Task-1, Task-2, ... */
    taal_task *current;    /**< the task whose step is running, or NULL */
    void *free_blocks[TAAL_POOL_CLASSES]; /**< blocks of finished tasks, by size */
    taal_link rings;  /**< queues' rings of items: close frees those left */
    taal_link scopes; /**< open timeout scopes and task groups (chapter 05): they
                           live in task frames, and must go before their task */

    /* State. */
    bool running;  /**< inside taal_run_forever() */
    bool stopping; /**< taal_stop() was called: end after this iteration */
    bool closing;  /**< inside taal_loop_close() */
    bool closed;   /**< taal_loop_close() has finished */

    /* Reports, tracing and debug mode. */
    taal_report_fn report;    /**< where reports go */
    void *report_ctx;         /**< its context */
    struct taal_trace *trace; /**< the trace being written, or NULL: off */
    bool debug;               /**< debug mode is on */
    int64_t slow_step;        /**< debug mode: the slow-step threshold, ns */
};

/** Prepares @p loop. @p options may be NULL. Allocates nothing, unless
 *  tracing is on (one buffer; if that fails, tracing is turned off with a
 *  report and the loop works without it). Returns TAAL_OK or TAAL_EINVAL
 *  (NULL loop, unknown clock, an unknown TAAL_CLOCK value: reported). */
int taal_loop_init(taal_loop *loop, const taal_loop_options *options);

/** Closes @p loop, like asyncio's loop.close(). It reports every task
 *  still pending, by name, then takes every task, gather and wait off every
 *  list and frees them, with one exception: what was made while the loop
 *  was not running (by main(), around taal_run_until_complete()) and is
 *  not released yet is still held by code outside the loop, and survives
 *  the close, as asyncio lets you read a task after loop.close(). It stays
 *  readable (done, status, result, name; a gather or wait keeps its
 *  children); awaiting it or adding callbacks is TAAL_ECLOSED. Release it
 *  when done; that frees it. What tasks made is freed with the loop: their
 *  frames, which held it, are gone. Closing twice is harmless. Returns
 *  TAAL_EBUSY if the loop is running (or closing: a report function closing
 *  it), TAAL_EINVAL if NULL. */
int taal_loop_close(taal_loop *loop);

/** Schedules @p fn(@p data) to run in the next loop iteration, after every
 *  callback scheduled before it (asyncio's call_soon). @p handle is the
 *  caller's storage for it. Returns TAAL_EINVAL, TAAL_ECLOSED, or
 *  TAAL_EBUSY if the handle is already scheduled or waiting. */
int taal_call_soon(taal_loop *loop, taal_handle *handle, taal_callback_fn fn, void *data);

/** Runs one iteration (asyncio's _run_once), the numbered steps of
 *  docs/02_custom_loop.md: wait for the earliest timer if nothing is ready,
 *  move due timers to the ready queue, then run the callbacks that were
 *  ready when the iteration began, and no others. Returns TAAL_OK, or
 *  TAAL_EDEADLOCK (reported) if nothing is ready, no timer is set and the
 *  loop is not stopping: waiting would be waiting forever. */
int taal_run_once(taal_loop *loop);

/** Runs iterations until taal_stop(). Returns TAAL_OK after a stop,
 *  TAAL_EDEADLOCK, TAAL_EBUSY if already running (this loop or another),
 *  TAAL_ECLOSED, or TAAL_EINVAL. */
int taal_run_forever(taal_loop *loop);

/** Makes taal_run_forever() return after the current iteration. Returns
 *  TAAL_EINVAL or TAAL_ECLOSED. */
int taal_stop(taal_loop *loop);

/** Runs the loop until @p future is done, and returns its status: TAAL_OK
 *  or the error it failed with (the error counts as retrieved). Runs at
 *  least one iteration, as asyncio does, even if the future is done already.
 *  Besides the errors of taal_run_forever(): TAAL_ELOOP if the future
 *  belongs to another loop, TAAL_ESTOPPED if taal_stop() ended the loop
 *  first. */
int taal_run_until_complete(taal_loop *loop, taal_future *future);

/** The loop's time in seconds (asyncio's loop.time()). */
double taal_loop_time(taal_loop *loop);

/** The loop running right now, or NULL (asyncio.get_running_loop()). */
taal_loop *taal_running_loop(void);

/** Reports, one TAAL_REPORT_DUMP line each, every task of @p loop and what
 *  it is doing: running, ready, sleeping until when, waiting for what,
 *  done. The debugging aid of asyncio.all_tasks(). Returns the number of
 *  tasks, or TAAL_EINVAL. */
int taal_loop_dump(taal_loop *loop);
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Timers
 *  @{
 */

/** A callback to run at a deadline. Caller storage; zeroed means idle. Its
 *  handle belongs to the timer: never pass it to taal_call_soon() or
 *  taal_future_add_done_callback() yourself. */
typedef struct taal_timer {
    taal_handle handle; /**< moved to the ready queue when the timer is due */
    uint32_t index;     /**< position in the heap plus one; 0 = not armed */
    uint32_t loop_id;   /**< the loop it was armed on (taal_loop.id), 0: never */
    int64_t when;       /**< the deadline it was last armed for, loop time (ns) */
} taal_timer;

/** Arms @p timer to schedule @p fn(@p data) after @p delay seconds. A
 *  negative delay means "now", as in asyncio: the timer is due at
 *  now + @p delay, before the timers due at now (a delay computed as
 *  `deadline - now` is negative once the deadline has passed). Returns
 *  TAAL_EINVAL for a NaN delay, TAAL_EBUSY if the timer is armed or its
 *  handle is scheduled, TAAL_ENOMEM if the heap could not grow,
 *  TAAL_ECLOSED. */
int taal_timer_start(taal_loop *loop, taal_timer *timer, double delay,
                     taal_callback_fn fn, void *data);

/** Disarms @p timer (and unschedules it if it is due but has not run).
 *  Stopping an idle timer is harmless; TAAL_ELOOP if the timer is armed or
 *  due on another loop, TAAL_EINVAL for NULL. */
int taal_timer_stop(taal_loop *loop, taal_timer *timer);

/** asyncio's loop.call_later(): taal_timer_start() under its asyncio name.
 *  The timer is the handle: cancel it with taal_timer_cancel(). */
int taal_call_later(taal_loop *loop, taal_timer *timer, double delay, taal_callback_fn fn,
                    void *data);

/** asyncio's loop.call_at(): schedules @p fn(@p data) at the loop time
 *  @p when (seconds, as taal_loop_time() gives it). A time already past
 *  runs in the next iteration. TAAL_EINVAL for NaN, else as
 *  taal_timer_start(). */
int taal_call_at(taal_loop *loop, taal_timer *timer, double when, taal_callback_fn fn,
                 void *data);

/** asyncio's TimerHandle.cancel(): the callback will not run, whether the
 *  timer is armed or already due in the ready queue; removing it from the
 *  heap costs O(log n). Cancelling a timer that ran or was cancelled is
 *  harmless. TAAL_ELOOP for a timer of another loop, TAAL_EINVAL. */
int taal_timer_cancel(taal_loop *loop, taal_timer *timer);

/** asyncio's TimerHandle.when(): the loop time (seconds) the timer was
 *  last armed for; 0 if it never was. */
double taal_timer_when(const taal_timer *timer);
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Futures
 *  A future is a result that is not there yet. It is pending until it is
 *  given a result or an error; then it schedules, in order, every handle
 *  waiting on it. A plain future is caller storage; tasks, gathers and
 *  waits are futures the loop allocates (see taal_future_release()).
 *  @{
 */

/** What kind of future it is; the loop allocates every kind but plain. */
typedef enum taal_future_kind {
    TAAL_FUTURE_PLAIN = 0, /**< caller storage */
    TAAL_FUTURE_TASK,      /**< a taal_task */
    TAAL_FUTURE_GATHER,    /**< made by taal_gather() */
    TAAL_FUTURE_WAIT,      /**< made by taal_wait() */
    TAAL_FUTURE_WAITERS,   /**< the waiting tasks of a semaphore, lock, event or
                                queue: never completes (see taal_waiters) */
    TAAL_FUTURE_SHIELD     /**< made by taal_shield() */
} taal_future_kind;

/** A future. The fields are grouped by who may touch them; only taal's
 *  functions change any of them. */
struct taal_future {
    /* Every future. */
    taal_loop *loop;        /**< the loop it belongs to; NULL once it closed */
    taal_link waiters;      /**< handles to schedule when it is done; next == NULL:
                                 never initialised */
    void *result;           /**< the result, once done with TAAL_OK */
    int status;             /**< TAAL_SUSPENDED while pending, then TAAL_OK or an error */
    unsigned refs : 24;     /**< references that keep it alive (loop-allocated
                                 only): its creator's, a pending one's own, one
                                 per handle waiting on it, per gather or wait
                                 holding it, per plain future in its frame
                                 being waited on */
    unsigned kind : 3;      /**< a taal_future_kind */
    unsigned retrieved : 1; /**< somebody looked at the error (awaited it, asked) */
    unsigned released : 1;  /**< its creator called taal_future_release() */
    unsigned outside : 1;   /**< made while its loop was not running: held by
                                 code outside the loop (main), so it outlives
                                 taal_loop_close() until released */
    unsigned handed : 1;    /**< a task's: the primitive it waited on handed it
                                 what it waited for (a permit, an item...) */
    unsigned spare : 1;     /**< for later chapters */
    union {
        /** Loop-allocated: the link in taal_loop.objects. */
        taal_link node;
        /** Plain, inside a task's frame: that task. Waiting on the future
         *  holds a reference on it, so the frame outlives the wait. */
        taal_task *owner;
    } u; /**< what only one kind of future needs */
};

/** Prepares a plain future on @p loop. If it is called from a task and the
 *  future lies in that task's frame, the future remembers the task, so
 *  that whatever waits on it keeps the frame alive. Returns TAAL_OK,
 *  TAAL_EINVAL, or TAAL_ECLOSED. */
int taal_future_init(taal_future *future, taal_loop *loop);

/** Completes the plain future @p future with @p result. TAAL_ESTATE if it
 *  is already done; TAAL_EINVAL for a task, gather or wait, which complete
 *  by themselves (asyncio: "Task does not support set_result");
 *  TAAL_ECLOSED. */
int taal_future_set_result(taal_future *future, void *result);

/** Completes the plain future @p future with the error @p status
 *  (negative). TAAL_EINVAL for a status that is not an error or a future
 *  that is not plain, TAAL_ESTATE if it is already done, TAAL_ECLOSED. */
int taal_future_set_error(taal_future *future, int status);

/** True once @p future is done; false for NULL or a future never
 *  initialised. Changes nothing. */
bool taal_future_done(const taal_future *future);

/** The future's status, without retrieving it: TAAL_SUSPENDED while it is
 *  pending, then TAAL_OK or its error; TAAL_EINVAL for NULL or a future
 *  never initialised. An error seen this way still counts as never
 *  retrieved: use taal_future_result() to take it. */
int taal_future_status(const taal_future *future);

/** Retrieves the future's outcome: stores its result in @p *result (if
 *  not NULL) and returns TAAL_OK, or returns its error, which now counts as
 *  retrieved; TAAL_ESTATE while it is pending; TAAL_EINVAL. For a gather
 *  the result is its array of results (see taal_gather()), for a wait its
 *  taal_wait_sets. */
int taal_future_result(taal_future *future, void **result);

/** Makes @p future call @p fn(@p future, @p data) when it is done, with
 *  call_soon semantics: never inline, always in a later iteration, in the
 *  order the callbacks were added. If it is already done the callback is
 *  scheduled at once. @p handle is the caller's storage, and holds a
 *  reference on the future until the callback has run. Returns
 *  TAAL_EINVAL, TAAL_EBUSY (the handle is in use) or TAAL_ECLOSED. */
int taal_future_add_done_callback(taal_future *future, taal_handle *handle,
                                  taal_done_fn fn, void *data);

/** Takes @p handle off @p future's callbacks, and off the ready queue if
 *  the future is done and the callback has not run yet (asyncio cannot
 *  unschedule it; C needs to, so that the handle's storage can go).
 *  Returns TAAL_OK, or TAAL_EINVAL if @p handle is not a callback of
 *  @p future (never added, already run, or another future's). */
int taal_future_remove_done_callback(taal_future *future, taal_handle *handle);

/** Drops the creator's reference to a future the loop allocated (a task,
 *  gather or wait): "I will not look at it again". It is freed once it is
 *  also finished and nothing else holds it; if the loop is closed, at once.
 *  For a plain future this does nothing. Releasing twice is a bug: taal
 *  reports and ignores the second release only while the future is still
 *  alive. */
void taal_future_release(taal_future *future);
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Tasks
 *  A task runs one coroutine on a loop. Its frame is allocated together
 *  with it, in one block.
 *
 *  Who frees a task: the loop, when nothing holds it any more. The creator
 *  holds it until taal_task_release() (or never held it: fire and forget);
 *  while it is pending it holds itself; every gather or wait that watches
 *  it, every handle waiting on it, and everything waiting on a plain
 *  future in its frame holds it too.
 *  @{
 */

/** Where a task's cancellation is (taal_task.cancel). A request goes
 *  from NONE to REQUESTED when the task cannot be woken at once (it is
 *  ready or running: asyncio's `_must_cancel`), or to WOKEN when taal took
 *  it off what it waited on and scheduled it; the next step turns either
 *  into DELIVERING, and the first await that resumes (or starts) then
 *  returns TAAL_ECANCELLED and clears it. */
typedef enum taal_cancel_state {
    TAAL_CANCEL_NONE = 0,  /**< nothing to deliver */
    TAAL_CANCEL_REQUESTED, /**< deliver at the next step (withdrawn by
                                taal_task_uncancel() reaching 0) */
    TAAL_CANCEL_WOKEN,     /**< taken off its wait and scheduled: deliver at
                                the next step, whatever happens */
    TAAL_CANCEL_DELIVERING /**< the step runs: the next await says cancelled */
} taal_cancel_state;

/** A task: a future, plus what it takes to step a coroutine. Its 152
 *  bytes, rounded up to 160 so that the frame is aligned for anything
 *  (max_align_t), are followed by the coroutine's frame, in the same
 *  block. */
struct taal_task {
    taal_future future;       /**< the task is a future: first member */
    taal_timer step;          /**< the task's one handle: in the ready queue ("run
                                   me"), in a future's waiters ("wake me when it is
                                   done"), armed in the heap ("asleep"), or idle
                                   ("running", or finished) */
    const char *name;         /**< its name, or NULL for "Task-<id>"; not copied */
    const char *created;      /**< where it was created, "file.c:42" (debug reports) */
    uint32_t id;              /**< for the default name; unique in its loop */
    uint32_t frame_size : 24; /**< the size of the frame that follows */
    signed int priority : 8;  /**< its own priority; it runs at that or higher
                                   (step.handle.priority) while a lock it holds
                                   passes a waiter's on */
    uint32_t cancel_requests; /**< cancel() calls not taken back by uncancel():
                                   asyncio's cancelling() */
    uint16_t scopes;          /**< its open timeout scopes and task groups */
    uint8_t cancel;           /**< a taal_cancel_state */
};

/** Creates a task that runs the coroutine @p body, like loop.create_task().
 *  Its frame (@p frame_size bytes, at least sizeof(taal_coro)) starts as a
 *  copy of @p frame, or zeroed if @p frame is NULL, and its header is then
 *  initialised: a frame is the coroutine's arguments, so fill them in a
 *  local frame and pass it. (Initialise futures inside the body, not in
 *  that local frame: a future's list links point at the future itself and
 *  would not survive the copy.) @p name (may be NULL: "Task-<id>") is not
 *  copied and must outlive the task. The first step is scheduled with
 *  call_soon. If @p task is NULL nobody holds the task: fire and forget.
 *  Returns TAAL_EINVAL, TAAL_ECLOSED or TAAL_ENOMEM. */
int taal_task_create(taal_loop *loop, taal_body_fn body, const void *frame,
                     size_t frame_size, const char *name, taal_task **task);

/** Internal: taal_task_create(), told where it was called from. */
int taal__task_create_at(const char *where, taal_loop *loop, taal_body_fn body,
                         const void *frame, size_t frame_size, const char *name,
                         taal_task **task);

/** @cond INTERNAL */
#define TAAL__STR(x) #x
#define TAAL__XSTR(x) TAAL__STR(x)
/* Records the caller's file and line, which debug mode's reports name.
 * (taal_task_create) is still the function, e.g. to take its address. */
#define taal_task_create(...) \
    taal__task_create_at(__FILE__ ":" TAAL__XSTR(__LINE__), __VA_ARGS__)
/** @endcond */

/** The task's frame (cast it to your frame type); NULL for NULL. */
void *taal_task_frame(taal_task *task);

/** The task as a future: to await it, gather it, or read its result. */
taal_future *taal_task_future(taal_task *task);

/** The task that @p future is, or NULL if it is not a task (the way back
 *  from the futures a gather or wait hands out). */
taal_task *taal_future_task(taal_future *future);

/** Names the task in reports and traces. The string is not copied: it must
 *  outlive the task (a string literal is ideal). */
int taal_task_set_name(taal_task *task, const char *name);

/** Writes the task's name ("Task-3" if it has none) into @p buf. */
const char *taal_task_name(const taal_task *task, char *buf, size_t size);

/** The task whose step is running, or NULL (asyncio.current_task()). */
taal_task *taal_current_task(void);

/** Drops the creator's reference: taal_future_release() of the task. */
void taal_task_release(taal_task *task);

/** Sets the task's own priority (TAAL_PRIORITY_MIN..MAX; 0 by default): its
 *  steps run before those of lower priorities. A task waiting for a lock
 *  held by one of lower priority lends it its own until it is released.
 *  TAAL_EINVAL for NULL or out of range. */
int taal_task_set_priority(taal_task *task, int priority);

/** The priority the task runs at now: its own, or one it was lent. */
int taal_task_priority(const taal_task *task);

/** asyncio.run(): makes a loop with @p options (NULL: every default, from
 *  the environment), runs the coroutine @p body to the end as its main
 *  task, named "main", then cancels every task still pending and runs the
 *  loop until they have finished, their cleanup included (an error other
 *  than TAAL_ECANCELLED that one ends with is reported, a
 *  TAAL_REPORT_UNRETRIEVED), closes the loop, and returns the coroutine's
 *  status. A main that taal_stop() ended early is cancelled with the rest,
 *  and the run returns TAAL_ESTOPPED. A main that never finished because
 *  every task waits (a deadlock) is not cancelled: the close reports what
 *  was left pending. The frame is made as
 *  taal_task_create() makes it, from @p frame and @p frame_size. If
 *  @p result is not NULL it receives the TAAL_RETURN_VALUE, which must not
 *  point into the frame (the frame is gone when taal_run() returns).
 *  Returns TAAL_EINVAL, TAAL_EBUSY (called while a loop runs), TAAL_ENOMEM,
 *  TAAL_EDEADLOCK, TAAL_ESTOPPED, or the coroutine's error. */
int taal_run(taal_body_fn body, const void *frame, size_t frame_size,
             const taal_loop_options *options, void **result);
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Awaiting inside a task
 *  These macros work in a coroutine that runs in a task (directly or
 *  through TAAL_AWAIT of chapter 01). Outside one they fail with
 *  TAAL_ENOTASK. Each has a _STATUS form that hands the outcome back
 *  instead of failing the coroutine: the `try: ... except` of C.
 *  @{
 */

/** Parks the current task on @p future until it is done; used by the
 *  macros below. Returns TAAL_SUSPENDED (parked), the future's status (it
 *  is done: its error counts as retrieved), or TAAL_EINVAL, TAAL_ENOTASK,
 *  TAAL_ELOOP, TAAL_ECLOSED, TAAL_ERUNNING (the task's own future),
 *  TAAL_EBUSY (already parked or asleep). If a cancellation is being
 *  delivered to the task, it returns TAAL_ECANCELLED first, without
 *  touching @p future (which may be gone). */
int taal__await_future(taal_future *future);

/** Arms the current task's timer; for exactly 0 it does nothing, so that
 *  the suspension is a bare yield. Returns TAAL_OK, TAAL_EINVAL,
 *  TAAL_ENOTASK, TAAL_EBUSY (the task is already parked on a future: a
 *  coroutine that drives children by hand can try), TAAL_ENOMEM, or
 *  TAAL_ECANCELLED (a cancellation is being delivered); used by
 *  TAAL_SLEEP. */
int taal__sleep_start(double seconds);

/** How the current task's sleep ended, on resume: TAAL_OK, or
 *  TAAL_ECANCELLED if the task was woken to be cancelled. */
int taal__slept(void);

/** `await future`: suspends until @p future is done; if it failed, this
 *  coroutine fails with the same error. Read the result afterwards with
 *  taal_future_result(). If the task is cancelled while it waits, the
 *  future is cancelled too (taal_future_cancel(): an awaited task is
 *  asked to stop; a shield ends, its inner future does not), and the await
 *  ends with the future's status when it is done: TAAL_ECANCELLED, or
 *  whatever an awaited task that swallowed its cancellation ended with.
 *  See "Cancellation". */
#define TAAL_AWAIT_FUTURE(future)                    \
    do {                                             \
        int taal__st;                                \
        TAAL__AWAIT_FUTURE_INTO(taal__st, (future)); \
        if (taal__st != TAAL_OK)                     \
            TAAL_FAIL(taal__st);                     \
    } while (0)

/** Like TAAL_AWAIT_FUTURE, but stores the future's status in
 *  @p status_lvalue and carries on (`try: await future / except`). */
#define TAAL_AWAIT_FUTURE_STATUS(status_lvalue, future) \
    TAAL__AWAIT_FUTURE_INTO(status_lvalue, (future))

/** `await task`. */
#define TAAL_AWAIT_TASK(task) TAAL_AWAIT_FUTURE(taal_task_future(task))

/** `try: await task / except`: the task's status into @p status_lvalue. */
#define TAAL_AWAIT_TASK_STATUS(status_lvalue, task) \
    TAAL__AWAIT_FUTURE_INTO(status_lvalue, taal_task_future(task))

/** The shared core of the future awaits (internal). Each resume calls
 *  taal__await_future() again: the first time it parks the task, the
 *  second time the future is done and it returns the status. (The handle
 *  that woke the task holds a reference on the future until this step is
 *  over, so the second call never reads freed memory.) */
#define TAAL__AWAIT_FUTURE_INTO(out, future) \
    do {                                     \
        taal__self->point = __LINE__;        \
        if (0) {                             \
        case __LINE__:;                      \
        }                                    \
        (out) = taal__await_future(future);  \
        if ((out) == TAAL_SUSPENDED)         \
            return TAAL_SUSPENDED;           \
    } while (0)

/** `await asyncio.sleep(seconds)`: suspends the current task for
 *  @p seconds on the loop's timer heap; 0 or less is a bare yield that
 *  lets every other ready callback run first (asyncio's sleep does the
 *  same for `delay <= 0`). A NaN delay fails the coroutine with
 *  TAAL_EINVAL. Like every await of a task, it is a cancellation point,
 *  0 included: a cancelled task's sleep ends at once (its timer leaves
 *  the heap) and fails with TAAL_ECANCELLED. */
#define TAAL_SLEEP(seconds)                    \
    do {                                       \
        int taal__st;                          \
        TAAL__SLEEP_INTO(taal__st, (seconds)); \
        if (taal__st != TAAL_OK)               \
            TAAL_FAIL(taal__st);               \
    } while (0)

/** Like TAAL_SLEEP, but stores the outcome (TAAL_OK, or why the sleep
 *  could not start) in @p status_lvalue and carries on, so that cleanup
 *  around a sleep can run whatever happens. */
#define TAAL_SLEEP_STATUS(status_lvalue, seconds) \
    TAAL__SLEEP_INTO(status_lvalue, (seconds))

/** The core of the sleeps (internal): chapter 01's TAAL_YIELD with the
 *  timer armed first. The `case` label follows a `return`, so nothing falls
 *  into it. On resume taal__slept() says how the sleep ended: TAAL_OK (the
 *  timer fired) or TAAL_ECANCELLED (the task was cancelled). */
#define TAAL__SLEEP_INTO(out, seconds)        \
    do {                                      \
        (out) = taal__sleep_start(seconds);   \
        if ((out) == TAAL_OK) {               \
            taal__self->point = __LINE__;     \
            return TAAL_SUSPENDED;            \
        case __LINE__: (out) = taal__slept(); \
        }                                     \
    } while (0)
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Cancellation
 *  asyncio's task.cancel(), in C (chapter 05). Cancelling is a request:
 *  taal_task_cancel() marks the task and takes it off whatever it waits on
 *  (a future, a task, a sleep, a primitive's line of waiters), and the
 *  task's next step delivers it: the await the task resumes at returns
 *  TAAL_ECANCELLED into the coroutine. That status is C's
 *  `except CancelledError:`. The coroutine may clean up, awaiting as it
 *  likes, and then fail with TAAL_ECANCELLED (re-raise it) or carry on
 *  (swallow it: the task then finishes normally):
 *
 *      TAAL_SLEEP_STATUS(f->st, 5);
 *      if (f->st == TAAL_ECANCELLED) {
 *          puts("cancelled: cleaning up");
 *          TAAL_SLEEP_STATUS(f->st, 1);   // cleanup may await
 *          TAAL_FAIL(TAAL_ECANCELLED);    // re-raise
 *      }
 *
 *  Every await of a task is a cancellation point (TAAL_YIELD of chapter 01
 *  is not; see there). A task awaiting another task, a gather or a wait
 *  passes the cancellation on by cancelling what it awaits, as asyncio
 *  does; through coroutines awaited directly (TAAL_AWAIT) it arrives at the
 *  innermost await and unwinds outwards as each one fails with it. A
 *  cancelled task is not an error "nobody retrieved": it is not reported.
 *  Nothing on any cancellation path allocates.
 *  @{
 */

/** asyncio's Task.cancel(): asks @p task to stop. Returns false, and does
 *  nothing, for NULL, a task that is done, or a task of a closed loop;
 *  otherwise true, and cancelling() grows by one. What happens depends on
 *  where the task is:
 *   - awaiting a future (a task, gather, wait, shield or plain future):
 *     that future is cancelled with taal_future_cancel(). If it takes the
 *     request, the task wakes when the future is done, with its status (an
 *     awaited task that swallows its cancellation lets the awaiter carry
 *     on); if it refuses, as for a ready task below.
 *   - waiting on a semaphore, lock, event or queue, or asleep: it leaves
 *     the line of waiters (or its timer leaves the heap) at once and is
 *     scheduled; its await returns TAAL_ECANCELLED.
 *   - ready (not started yet, after a yield, woken but not run yet, handed
 *     a permit or an item by a primitive) or running: it is marked, and its
 *     next step delivers the cancellation. A task that has not started
 *     runs none of its body: it finishes cancelled. One that was handed a
 *     permit or an item passes it on to the next waiter. A running task
 *     that cancels itself is cancelled where it stops next, as above.
 *  Two cancels before delivery are delivered once (but cancelling() is 2).
 *  A cancel that arrives while the coroutine cleans up interrupts the
 *  cleanup's next await. */
bool taal_task_cancel(taal_task *task);

/** asyncio's Future.cancel(): false if @p future is done (or NULL, never
 *  initialised, of a closed loop). Otherwise, by kind: a plain future
 *  completes with TAAL_ECANCELLED, waking everyone who waits on it; a task
 *  is taal_task_cancel()ed; a gather cancels every child that is not done
 *  (true if any of them took it) and ends TAAL_ECANCELLED even if a child
 *  swallows its cancellation; a wait completes with TAAL_ECANCELLED and
 *  leaves its children alone; a shield completes with TAAL_ECANCELLED and
 *  leaves its inner future running. A primitive's line of waiters
 *  (TAAL_FUTURE_WAITERS) refuses: false; cancel the waiting task instead. */
bool taal_future_cancel(taal_future *future);

/** True if @p future is done with TAAL_ECANCELLED (asyncio's cancelled()),
 *  but for a gather: as asyncio's, a gather is never cancelled. Whether it
 *  was cancelled itself or a child was, it ends with TAAL_ECANCELLED as
 *  its error (asyncio's ends with CancelledError set as its exception),
 *  which is reported if nobody retrieves it. A shield of such a gather
 *  fails with it the same way, and is not cancelled either. Changes
 *  nothing. */
bool taal_future_cancelled(const taal_future *future);

/** asyncio's Task.cancelling(): the cancel() requests that uncancel() has
 *  not taken back. TAAL_EINVAL for NULL. */
int taal_task_cancelling(const taal_task *task);

/** asyncio's Task.uncancel(): takes one cancel() request back, for the
 *  party that made it (a timeout scope that turned its cancellation into
 *  TAAL_ETIMEDOUT, a task group that cancelled its parent). Returns the
 *  count left (never below 0), or TAAL_EINVAL for NULL. As in Python 3.13
 *  (3.12 does not), reaching 0 also withdraws a request that has not been
 *  acted on yet (TAAL_CANCEL_REQUESTED: the task was ready), so that a
 *  request taken back is never delivered; one that already woke the task
 *  (it left what it waited on) is delivered all the same, as in 3.13,
 *  where its future was cancelled. */
int taal_task_uncancel(taal_task *task);
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Gather, wait and shield
 *  A gather, wait or shield holds every future given to it until it is
 *  itself freed, so that you may release the children at once and still
 *  read them, and their results, through it: one rule, "release the gather
 *  (or wait, or shield) when you are done with everything in it".
 *  @{
 */

/** asyncio.gather(): makes a future that completes when every one of the
 *  @p count futures has, with a result that is an array of their results in
 *  argument order (`void **`, see taal_future_result() and
 *  taal_gather_count()). If a child fails, the gather fails at once with
 *  that error while the other children run on. Children already done are
 *  collected at once, as Python 3.12 does: a gather of finished futures is
 *  done when this returns. The array, and every child, stay valid until the
 *  gather is freed (so a result that points into a child's frame does
 *  too); plain futures must outlive it. Release it with
 *  taal_future_release(). Returns TAAL_EINVAL, TAAL_ELOOP, TAAL_ECLOSED or
 *  TAAL_ENOMEM. */
int taal_gather(taal_loop *loop, size_t count, taal_future *const futures[],
                taal_future **gathered);

/** The number of futures in the gather @p gathered (the length of its
 *  result array); 0 for anything else. */
size_t taal_gather_count(const taal_future *gathered);

/** taal_gather_ex() flag: asyncio's `return_exceptions=True`. */
#define TAAL_RETURN_EXCEPTIONS 1u

/** asyncio.gather(*futures, return_exceptions=...): taal_gather() with
 *  @p flags (0 or TAAL_RETURN_EXCEPTIONS; other bits are TAAL_EINVAL).
 *  With TAAL_RETURN_EXCEPTIONS a child's error, TAAL_ECANCELLED included,
 *  does not end the gather: it counts as retrieved, its slot in the
 *  result array is NULL, and taal_gather_status() tells it; the gather
 *  completes with TAAL_OK when every child is done. Without it a child that
 *  fails or is cancelled on its own ends the gather at once with its status
 *  (TAAL_ECANCELLED for a cancelled child: asyncio raises CancelledError
 *  from the gather without cancelling it, or the siblings). Either way, a
 *  gather that was itself cancelled (taal_future_cancel(), or the task
 *  awaiting it) ends TAAL_ECANCELLED, even if every child swallowed its
 *  cancellation. Returns as taal_gather(). */
int taal_gather_ex(taal_loop *loop, size_t count, taal_future *const futures[],
                   unsigned flags, taal_future **gathered);

/** The status of child @p i of the gather @p gathered, without retrieving
 *  it: TAAL_SUSPENDED while it is pending, then TAAL_OK or its error;
 *  TAAL_EINVAL if @p gathered is not a gather or @p i is out of range. */
int taal_gather_status(const taal_future *gathered, size_t i);

/** When taal_wait() returns. */
typedef enum taal_wait_mode {
    TAAL_ALL_COMPLETED = 0, /**< when all are done */
    TAAL_FIRST_COMPLETED,   /**< when any is done */
    TAAL_FIRST_EXCEPTION    /**< when any fails, or all are done */
} taal_wait_mode;

/** No timeout for taal_wait(): a delay that never comes. Any delay beyond
 *  what 64 bits of nanoseconds reach (292 years; infinity too) means the
 *  same. (It is not a negative number: a negative timeout means "now".) */
#define TAAL_NO_TIMEOUT 1e18

/** The result of a wait: asyncio's `(done, pending)`, each in argument
 *  order. Taken when the result is first read (right after the await, as
 *  asyncio takes them when the awaiting task resumes); valid until the
 *  wait is freed. */
typedef struct taal_wait_sets {
    size_t done_count;     /**< how many are done */
    taal_future **done;    /**< those that are done */
    size_t pending_count;  /**< how many are not */
    taal_future **pending; /**< those that are not */
} taal_wait_sets;

/** asyncio.wait(): makes a future that completes (always with TAAL_OK)
 *  when @p mode is satisfied or @p timeout seconds have passed
 *  (TAAL_NO_TIMEOUT: never; 0 or less: the next iteration).
 *  TAAL_FIRST_EXCEPTION waits for a child that fails: one that ends
 *  cancelled (taal_future_cancelled()) is no failure, as in asyncio. It
 *  cancels nothing; its result is a taal_wait_sets. Release it with
 *  taal_future_release(). Returns TAAL_EINVAL (also for no futures, a NaN
 *  timeout, or an unknown mode), TAAL_ELOOP, TAAL_ECLOSED or TAAL_ENOMEM. */
int taal_wait(taal_loop *loop, size_t count, taal_future *const futures[],
              taal_wait_mode mode, double timeout, taal_future **waited);

/** asyncio.shield(): makes @p *outer, a future that completes as @p inner
 *  does (with its result or error, which then counts as retrieved), except
 *  that cancelling @p *outer, or the task awaiting it, does not cancel
 *  @p inner: the outer future completes with TAAL_ECANCELLED at once, and
 *  @p inner runs on, its outcome for whoever else holds it. (Cancelled
 *  that way, the outer future stops watching: an error of @p inner is
 *  reported unless someone retrieves it.) If @p inner is cancelled by other
 *  means, the outer future ends TAAL_ECANCELLED too. asyncio returns a
 *  done @p inner itself; C gives a new future, already done as @p inner
 *  is. The outer future holds @p inner (and its result) until it is freed:
 *  release it with taal_future_release(). Returns TAAL_EINVAL (NULL, a
 *  primitive's waiters), TAAL_ELOOP, TAAL_ECLOSED or TAAL_ENOMEM. */
int taal_shield(taal_loop *loop, taal_future *inner, taal_future **outer);
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Synchronisation: semaphore, lock, event, queue
 *  asyncio's primitives, built on one idea: a FIFO of waiting tasks. Every
 *  primitive is caller storage, initialised on a loop and destroyed when
 *  done; none allocates per acquire, wait, put or get (a task waits with
 *  its own handle, as it waits on a future). Unlike asyncio's, they hand
 *  over at once: release() gives the permit (or the lock, the item, the
 *  free slot) to the first waiter, so that a task running before the
 *  woken one cannot take it first, and locked() is true again at once.
 *  Every await has a _STATUS form; outside a task they fail with
 *  TAAL_ENOTASK. A waiting task that is cancelled (chapter 05) leaves the
 *  line at once; one cancelled after it was handed what it waited for,
 *  before it ran, passes it on to the next waiter (or back to the free
 *  count): a cancelled waiter never loses a permit, an item or a slot.
 *  @{
 */

/** Whose waiting tasks a taal_waiters holds. */
typedef enum taal_waiters_of {
    TAAL_WAITERS_SEMAPHORE = 1, /**< a semaphore's, for a permit */
    TAAL_WAITERS_LOCK,          /**< a lock's, for the lock */
    TAAL_WAITERS_EVENT,         /**< an event's, for it to be set */
    TAAL_WAITERS_GET,           /**< a queue's, for an item */
    TAAL_WAITERS_PUT,           /**< a queue's, for a free slot */
    TAAL_WAITERS_JOIN           /**< a queue's, for every item to be done */
} taal_waiters_of;

/** The waiting tasks of a primitive, first come first served. It is a
 *  future that never completes (kind TAAL_FUTURE_WAITERS), so that what
 *  chapter 02 knows of futures works for it unchanged: a task parks its
 *  handle on it; waiting on one inside a task's frame holds that task; the
 *  deadlock report and the trace say what a task waits for. Never pass it
 *  to a future function: they refuse it with TAAL_EINVAL. */
typedef struct taal_waiters {
    taal_future future; /**< the list (its `waiters`); never completes */
    uint8_t of;         /**< a taal_waiters_of */
    size_t woken;       /**< tasks it woke that have not run yet: they still
                             point at it, so it is in use */
} taal_waiters;

/** asyncio.Semaphore and BoundedSemaphore. Caller storage. */
typedef struct taal_semaphore {
    taal_waiters waiters; /**< tasks waiting for a permit */
    unsigned value;       /**< permits free now */
    unsigned handing;     /**< permits handed to woken tasks that have not run */
    unsigned bound;       /**< a bounded one's initial value */
    bool bounded;         /**< releasing more than acquired is an error */
    const char *name;     /**< for reports, or NULL; not copied */
} taal_semaphore;

/** Prepares @p sem with @p value free permits. Returns TAAL_OK,
 *  TAAL_EINVAL (NULL, a negative value), TAAL_ECLOSED. */
int taal_semaphore_init(taal_semaphore *sem, taal_loop *loop, int value,
                        const char *name);

/** Like taal_semaphore_init(), for a semaphore that refuses to be released
 *  more times than it was acquired (asyncio.BoundedSemaphore). */
int taal_bounded_semaphore_init(taal_semaphore *sem, taal_loop *loop, int value,
                                const char *name);

/** Gives a permit back: to the first waiting task if there is one (it now
 *  holds it), else to the free permits. A plain semaphore released more
 *  than acquired just grows, as asyncio's does; a bounded one refuses with
 *  TAAL_ERELEASE and stays as it was. TAAL_EINVAL, TAAL_ECLOSED. */
int taal_semaphore_release(taal_semaphore *sem);

/** True if an acquire would wait: no permit is free, or one is but a task
 *  that was handed one has not run yet (a newcomer queues behind it, as
 *  in asyncio). */
bool taal_semaphore_locked(const taal_semaphore *sem);

/** Forgets @p sem. TAAL_EBUSY (and nothing changes) while it is in use:
 *  while tasks wait on it, or were woken by it (handed a permit, or let
 *  out of the line to be cancelled) and have not run yet; TAAL_EINVAL. */
int taal_semaphore_destroy(taal_semaphore *sem);

/** asyncio.Lock: a bounded semaphore of one, with the error of a lock,
 *  that knows who holds it, so that it can pass priority on. */
typedef struct taal_lock {
    taal_semaphore sem; /**< one permit: the lock */
    taal_task *owner;   /**< the task holding it (or handed it), or NULL */
    taal_link held;     /**< in the loop's held_locks while it has an owner */
    bool inherit;       /**< lend waiters' priority to the owner (the default) */
} taal_lock;

/** Priority inheritance, on by default: while a task of higher priority
 *  waits for @p lock, its holder runs at that priority, so that a task of
 *  middle priority cannot keep the holder, and with it the waiter, from
 *  running (priority inversion). What is lent follows the waiters, along a
 *  chain of locks: it is taken back at once when the waiter's priority is
 *  lowered, when it stops waiting, or when inheritance is turned off. Turn
 *  it off to see the inversion. */
int taal_lock_set_inheritance(taal_lock *lock, bool on);

/** Prepares @p lock, unlocked. TAAL_EINVAL, TAAL_ECLOSED. */
int taal_lock_init(taal_lock *lock, taal_loop *loop, const char *name);

/** Unlocks @p lock, handing it to the first waiting task if there is one.
 *  TAAL_ERELEASE if it is not locked ("Lock is not acquired"). */
int taal_lock_release(taal_lock *lock);

/** True while @p lock is held (also right after release() handed it on). */
bool taal_lock_locked(const taal_lock *lock);

/** Forgets @p lock; TAAL_EBUSY while it is in use, as a semaphore. */
int taal_lock_destroy(taal_lock *lock);

/** asyncio.Event. Caller storage. */
typedef struct taal_event {
    taal_waiters waiters; /**< tasks waiting for it to be set */
    bool is_set;          /**< set() was called, and clear() not since */
    const char *name;     /**< for reports, or NULL; not copied */
} taal_event;

/** Prepares @p event, not set. TAAL_EINVAL, TAAL_ECLOSED. */
int taal_event_init(taal_event *event, taal_loop *loop, const char *name);

/** Sets @p event and wakes every waiting task, in the order they waited;
 *  a clear() right after does not stop them (they were woken). */
int taal_event_set(taal_event *event);

/** Clears @p event: tasks that wait from now on wait for the next set(). */
int taal_event_clear(taal_event *event);

/** True if @p event is set. */
bool taal_event_is_set(const taal_event *event);

/** Forgets @p event; TAAL_EBUSY while it is in use: while tasks wait on
 *  it, or were woken by it and have not run yet. */
int taal_event_destroy(taal_event *event);

/** asyncio.Queue: FIFO, bounded unless maxsize is 0. Items are pointers,
 *  which the queue never follows. Caller storage; a bounded queue's ring
 *  of items is allocated once, by taal_queue_init(). */
typedef struct taal_queue {
    taal_waiters getters; /**< tasks waiting for an item */
    taal_waiters putters; /**< tasks waiting for a free slot */
    taal_waiters joiners; /**< tasks waiting for every item to be done */
    void **items;         /**< the ring of items */
    size_t capacity;      /**< slots in the ring */
    size_t head;          /**< where the oldest item is */
    size_t count;         /**< items in the ring */
    size_t maxsize;       /**< 0: unbounded (the ring grows) */
    size_t items_handed;  /**< the oldest items, handed to woken getters */
    size_t slots_handed;  /**< free slots handed to woken putters */
    size_t unfinished;    /**< items put and not yet task_done() */
    const char *name;     /**< for reports, or NULL; not copied */
} taal_queue;

/** Prepares @p queue, empty, holding at most @p maxsize items (0: no
 *  limit). TAAL_EINVAL, TAAL_ECLOSED, TAAL_ENOMEM. */
int taal_queue_init(taal_queue *queue, taal_loop *loop, size_t maxsize, const char *name);

/** Puts @p item without waiting: TAAL_EFULL if there is no free slot (a
 *  slot handed to a waiting putter is not free), TAAL_ENOMEM if an
 *  unbounded queue could not grow. If tasks wait for an item, the first
 *  one is handed this one. */
int taal_queue_put_nowait(taal_queue *queue, void *item);

/** Takes the oldest item without waiting: TAAL_EEMPTY if there is none
 *  (an item handed to a waiting getter is not there to take). A free slot
 *  goes to the first waiting putter. */
int taal_queue_get_nowait(taal_queue *queue, void **item);

/** Items in the queue, those handed to woken getters included. */
size_t taal_queue_qsize(const taal_queue *queue);

/** True if a get would wait. */
bool taal_queue_empty(const taal_queue *queue);

/** True if a put would wait. */
bool taal_queue_full(const taal_queue *queue);

/** Says that one item taken from the queue has been dealt with. When every
 *  item put has been, the tasks in join() wake up. TAAL_ERELEASE if called
 *  more often than items were put. */
int taal_queue_task_done(taal_queue *queue);

/** Forgets @p queue and frees its ring (its items are the caller's);
 *  TAAL_EBUSY while it is in use: while tasks wait to get, put or join,
 *  or were woken by it (handed an item, a slot, "all done", or let out of
 *  a line to be cancelled) and have not run yet. */
int taal_queue_destroy(taal_queue *queue);

/** @cond INTERNAL */
int taal__semaphore_acquire(taal_semaphore *sem);
int taal__semaphore_acquired(taal_semaphore *sem);
int taal__event_wait(taal_event *event);
int taal__queue_put(taal_queue *queue, void *item);
int taal__queue_placed(taal_queue *queue, void *item);
int taal__queue_get(taal_queue *queue, void **item);
int taal__queue_taken(taal_queue *queue, void **item);
int taal__queue_join(taal_queue *queue);
int taal__handed(taal_waiters *w);

/* The shape of every wait on a primitive: start it (TAAL_OK: done at once;
 * TAAL_SUSPENDED: the task is parked; or an error), and when the task is
 * woken, finish it with `resume`, which collects what it was handed. */
#define TAAL__PARK_INTO(out, start, resume) \
    do {                                    \
        (out) = (start);                    \
        if ((out) == TAAL_SUSPENDED) {      \
            taal__self->point = __LINE__;   \
            return TAAL_SUSPENDED;          \
        case __LINE__: (out) = (resume);    \
        }                                   \
    } while (0)

/* A _STATUS form whose error fails the coroutine. */
#define TAAL__OR_FAIL(form, ...)     \
    do {                             \
        int taal__st;                \
        form(taal__st, __VA_ARGS__); \
        if (taal__st != TAAL_OK)     \
            TAAL_FAIL(taal__st);     \
    } while (0)
/** @endcond */

/** `await sem.acquire()`: takes a free permit at once, or waits, first come
 *  first served, until release() hands it one. Status form: the outcome
 *  into @p status_lvalue. */
#define TAAL_ACQUIRE_STATUS(status_lvalue, sem)                  \
    TAAL__PARK_INTO(status_lvalue, taal__semaphore_acquire(sem), \
                    taal__semaphore_acquired(sem))
/** `await sem.acquire()`, failing the coroutine on an error. */
#define TAAL_ACQUIRE(sem) TAAL__OR_FAIL(TAAL_ACQUIRE_STATUS, sem)

/** `await lock.acquire()`, status form. */
#define TAAL_LOCK_STATUS(status_lvalue, lock) \
    TAAL_ACQUIRE_STATUS(status_lvalue, &(lock)->sem)
/** `await lock.acquire()`. */
#define TAAL_LOCK(lock) TAAL__OR_FAIL(TAAL_LOCK_STATUS, lock)

/** `await event.wait()`, status form: at once if it is set. */
#define TAAL_EVENT_WAIT_STATUS(status_lvalue, event)        \
    TAAL__PARK_INTO(status_lvalue, taal__event_wait(event), \
                    taal__handed(&(event)->waiters))
/** `await event.wait()`. */
#define TAAL_EVENT_WAIT(event) TAAL__OR_FAIL(TAAL_EVENT_WAIT_STATUS, event)

/** `await queue.put(item)`, status form: at once if a slot is free, else
 *  when a get hands this task one. @p item is evaluated again on resume
 *  (rule 2): make it a frame field. */
#define TAAL_QUEUE_PUT_STATUS(status_lvalue, queue, item)        \
    TAAL__PARK_INTO(status_lvalue, taal__queue_put(queue, item), \
                    taal__queue_placed(queue, item))
/** `await queue.put(item)`. */
#define TAAL_QUEUE_PUT(queue, item) TAAL__OR_FAIL(TAAL_QUEUE_PUT_STATUS, queue, item)

/** `item = await queue.get()`, status form: the item goes into
 *  @p item_lvalue, a `void *` frame field. */
#define TAAL_QUEUE_GET_STATUS(status_lvalue, queue, item_lvalue)           \
    TAAL__PARK_INTO(status_lvalue, taal__queue_get(queue, &(item_lvalue)), \
                    taal__queue_taken(queue, &(item_lvalue)))
/** `item = await queue.get()`. */
#define TAAL_QUEUE_GET(queue, item_lvalue) \
    TAAL__OR_FAIL(TAAL_QUEUE_GET_STATUS, queue, item_lvalue)

/** `await queue.join()`, status form: until every item put is task_done(). */
#define TAAL_QUEUE_JOIN_STATUS(status_lvalue, queue)        \
    TAAL__PARK_INTO(status_lvalue, taal__queue_join(queue), \
                    taal__handed(&(queue)->joiners))
/** `await queue.join()`. */
#define TAAL_QUEUE_JOIN(queue) TAAL__OR_FAIL(TAAL_QUEUE_JOIN_STATUS, queue)
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Scopes
 *  A timeout scope and a task group are caller storage, usually fields of
 *  a task's frame, that hold on to the task while they are open: a timer
 *  that will cancel it, children that will call back. They must never
 *  outlive it. So each one starts with a taal_scope, which links it into
 *  its loop's list of open scopes; a task that finishes with scopes still
 *  open (a coroutine that returned between open and close) has them closed
 *  for it, before its frame is freed, and so does taal_loop_close().
 *  @{
 */

/** What kind of scope a taal_scope starts. */
typedef enum taal_scope_kind {
    TAAL_SCOPE_TIMEOUT = 1, /**< a taal_timeout */
    TAAL_SCOPE_TASKGROUP    /**< a taal_taskgroup */
} taal_scope_kind;

/** The head of every scope: its task, and its link in the loop's open
 *  scopes (taal_loop.scopes). */
typedef struct taal_scope {
    taal_link link;  /**< in taal_loop.scopes while open; next == NULL: not */
    taal_task *task; /**< the task it belongs to */
    uint8_t kind;    /**< a taal_scope_kind */
} taal_scope;
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Timeouts
 *  asyncio.timeout() and asyncio.wait_for(). A timeout scope is caller
 *  storage (a frame field), opened around some awaits and closed after
 *  them. If its deadline comes while it is open, it cancels its task: the
 *  code inside sees TAAL_ECANCELLED, like any cancellation, and cleans up;
 *  only the scope's boundary, taal_timeout_close(), turns it into
 *  TAAL_ETIMEDOUT, and only if this scope fired and no other cancellation
 *  is pending (cancelling() is back where it was when the scope opened).
 *  So, nested, only the scope that fired converts, and a cancellation from
 *  outside passes through as TAAL_ECANCELLED. A body that swallows the
 *  cancellation ends with what it returned: no timeout error.
 *
 *  The structured forms below cannot forget to close the scope; with the
 *  functions, every path out must call taal_timeout_close() (a task that
 *  finishes with a scope open has it disarmed for it, but the status is
 *  then lost).
 *  @{
 */

/** A deadline that never comes (asyncio's `timeout(None)`): any deadline
 *  beyond what a 64-bit nanosecond clock can reach, about 292 years. */
#define TAAL_NEVER 1e18

/** Where a timeout scope is in its life (asyncio's _State). */
typedef enum taal_timeout_state {
    TAAL_TIMEOUT_IDLE = 0, /**< never opened (zeroed storage) */
    TAAL_TIMEOUT_OPEN,     /**< open, its deadline not reached ("active") */
    TAAL_TIMEOUT_EXPIRING, /**< its deadline came: it cancelled its task */
    TAAL_TIMEOUT_EXPIRED,  /**< closed after it expired */
    TAAL_TIMEOUT_CLOSED    /**< closed in time ("finished") */
} taal_timeout_state;

/** A timeout scope: asyncio's Timeout. Caller storage; zeroed means never
 *  opened. It may be opened again once closed. */
typedef struct taal_timeout {
    taal_scope scope;    /**< its task, and its link in the open scopes */
    taal_timer timer;    /**< armed for the deadline while open */
    int64_t deadline;    /**< loop time, ns; INT64_MAX: never */
    uint32_t cancelling; /**< its task's cancelling() when it opened */
    uint8_t state;       /**< a taal_timeout_state */
    bool immediate;      /**< wait_for with a timeout of 0: it asked the
                              operation to cancel at once, not the task */
} taal_timeout;

/** asyncio.timeout(delay), entered: opens @p scope in the current task
 *  with a deadline @p delay seconds from now (TAAL_NO_TIMEOUT or
 *  TAAL_NEVER: none). A deadline that has come already (0, or a negative
 *  delay) fires as asyncio's does, with call_soon: in the next iteration,
 *  ahead of the task's next step, so even `sleep(0)` inside the scope is
 *  cancelled. Returns TAAL_OK, TAAL_EINVAL (NULL, NaN), TAAL_ENOTASK
 *  (outside a task), TAAL_EBUSY (the scope is open), or TAAL_ENOMEM (the
 *  timer heap could not grow). Opening is no await: it delivers no
 *  cancellation (asyncio's __aenter__ does not suspend either). */
int taal_timeout_open(taal_timeout *scope, double delay);

/** asyncio.timeout_at(when), entered: as taal_timeout_open(), with the
 *  deadline given in loop time (taal_loop_time()); a time already come
 *  fires in the next iteration, ahead of the task's next step;
 *  TAAL_NEVER: none. */
int taal_timeout_open_at(taal_timeout *scope, double when);

/** asyncio's Timeout.reschedule(when): moves the deadline of the open
 *  @p scope to the loop time @p when (TAAL_NEVER: none; a time already
 *  come: the next iteration, ahead of the task's next step). TAAL_ESTATE
 *  if the scope is not open or has expired ("Cannot change state of
 *  expiring Timeout"), TAAL_EINVAL for NaN,
 *  TAAL_ENOMEM (only when a scope without a deadline gets one, and the
 *  heap cannot grow; the scope is then unchanged). */
int taal_timeout_reschedule(taal_timeout *scope, double when);

/** asyncio's Timeout.when(): the deadline in loop time, or TAAL_NEVER. */
double taal_timeout_when(const taal_timeout *scope);

/** asyncio's Timeout.expired(): true once the deadline came while the
 *  scope was open (also after it closed). */
bool taal_timeout_expired(const taal_timeout *scope);

/** Leaves @p scope (asyncio's Timeout.__aexit__), where @p status is how
 *  the code inside ended, and returns the status to carry on with: if the
 *  scope expired, it takes back its cancel() (uncancel), and if
 *  @p status is TAAL_ECANCELLED and no other cancel() is pending
 *  (cancelling() is now at most what it was at open), returns
 *  TAAL_ETIMEDOUT; in every other case @p status itself. (Python 3.13
 *  also marks other exceptions with the timeout; a status has no room for
 *  that, so this is 3.12's rule.) Misuse returns an error instead:
 *  TAAL_EINVAL for NULL, TAAL_ESTATE for a scope that is not open. */
int taal_timeout_close(taal_timeout *scope, int status);

/** @cond INTERNAL */
int taal__wait_for_start(taal_timeout *scope, taal_future *future, double timeout);
/** @endcond */

/** `async with asyncio.timeout(delay): await child`: opens @p scope, awaits
 *  the coroutine @p child_frame (embedded, as TAAL_AWAIT_STATUS; initialise
 *  it first), closes the scope, and stores the outcome in
 *  @p status_lvalue: the child's status, TAAL_ETIMEDOUT if the scope
 *  expired and the child ended cancelled, or why the scope could not
 *  open. A form that cannot skip the close. */
#define TAAL_AWAIT_TIMEOUT_STATUS(status_lvalue, scope, delay, child_frame) \
    do {                                                                    \
        (status_lvalue) = taal_timeout_open((scope), (delay));              \
        if ((status_lvalue) == TAAL_OK) {                                   \
            TAAL__AWAIT_INTO(status_lvalue, &(child_frame)->co);            \
            (status_lvalue) = taal_timeout_close((scope), (status_lvalue)); \
        }                                                                   \
    } while (0)

/** `await asyncio.wait_for(future, timeout)` (3.12's, which is a timeout
 *  scope around the await): awaits @p future in the scope @p scope (a
 *  frame field) with a deadline @p timeout seconds away (TAAL_NO_TIMEOUT:
 *  none), and stores the outcome in @p status_lvalue. When the deadline
 *  comes, the waiting task is cancelled, which cancels @p future (a task
 *  sees TAAL_ECANCELLED at its await and cleans up); the waiting task
 *  resumes only when @p future is done, so the operation's cleanup,
 *  awaits and all, has finished before TAAL_ETIMEDOUT is reported. If the
 *  operation swallows the cancellation and finishes with a result, that
 *  result is what wait_for returns (TAAL_OK), as in asyncio 3.12. As there
 *  too, a @p timeout of 0 or less cancels a @p future that is not done at
 *  once, before it runs (a task that never started runs none of its
 *  body), waits for it as asyncio's _cancel_and_wait() does (one
 *  iteration more than a plain await, even for a future that the cancel
 *  finished, and also for one that refused it, such as a gather whose
 *  children are done but not yet collected), and reports TAAL_ETIMEDOUT
 *  if it ends cancelled, else its outcome (a cancellation of the waiting
 *  task itself meanwhile stays TAAL_ECANCELLED); a @p future already
 *  done gives its outcome at once. If the operation ends in the very
 *  iteration the deadline comes, the waiting task has not resumed yet
 *  when the scope cancels it, so the timeout wins whichever of the two
 *  ran first: TAAL_ETIMEDOUT, though the operation has its result, as in
 *  asyncio 3.12 and 3.13. The same holds when the deadline finds
 *  @p future refusing the cancel (that gather again): the request stays
 *  on the waiting task, which resumes when @p future is done and reports
 *  TAAL_ETIMEDOUT. Read the result with taal_future_result(). The scope
 *  may be used again once the macro is done. */
#define TAAL_WAIT_FOR_STATUS(status_lvalue, scope, future, timeout)           \
    do {                                                                      \
        (status_lvalue) = taal__wait_for_start((scope), (future), (timeout)); \
        if ((status_lvalue) == TAAL_OK) {                                     \
            TAAL__AWAIT_FUTURE_INTO(status_lvalue, (future));                 \
            (status_lvalue) = taal_timeout_close((scope), (status_lvalue));   \
        }                                                                     \
    } while (0)

/** `await asyncio.wait_for(future, timeout)`, failing the coroutine on an
 *  error (TAAL_ETIMEDOUT included). */
#define TAAL_WAIT_FOR(scope, future, timeout) \
    TAAL__OR_FAIL(TAAL_WAIT_FOR_STATUS, scope, future, timeout)
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Task groups
 *  asyncio.TaskGroup (Python 3.11): structured concurrency. A group is
 *  caller storage in a task's frame, the parent. Children created in it
 *  are held by it; the parent joins it, and the join returns only when
 *  every child has finished. The first child to fail (an error other than
 *  TAAL_ECANCELLED) cancels its siblings, and the parent too, so that the
 *  body stops waiting for work whose result no longer matters (a parent
 *  already joining is cancelled as well, as in asyncio, and its join waits
 *  on; the join takes that cancellation back). The join then reports
 *  TAAL_EGROUP, and every child's error can be read.
 *
 *      taal_taskgroup_init(&f->tg);
 *      taal_taskgroup_create_task(&f->tg, fetch_body, &(fetch){...}, sizeof(fetch),
 *                                 "a", NULL);
 *      ...                          // the body: may await
 *      f->st = TAAL_OK;             // how the body ended
 *      TAAL_TASKGROUP_JOIN_STATUS(f->st, &f->tg);
 *      if (f->st == TAAL_EGROUP)
 *          ... taal_taskgroup_error(&f->tg, i, &task) ...
 *      taal_taskgroup_destroy(&f->tg);
 *  @{
 */

/** @cond INTERNAL */
struct taal__tg_chunk;
struct taal__tg_slot;
/** @endcond */

/** A task group: asyncio.TaskGroup. Caller storage, in the parent's
 *  frame; zeroed or destroyed means not initialised. */
typedef struct taal_taskgroup {
    taal_scope scope;                  /**< its parent, and its link in the open scopes */
    taal_future done;                  /**< what join waits on: completed when the last
                                            child finishes */
    struct taal__tg_chunk *first;      /**< the children's slots, in blocks that never
                                            move (a slot's handle waits on its child) */
    struct taal__tg_chunk *last;       /**< the block new children go into */
    size_t count;                      /**< children created */
    size_t running;                    /**< children not finished */
    size_t failed;                     /**< children that failed (not cancelled) */
    struct taal__tg_slot *errors;      /**< those, in the order they failed */
    struct taal__tg_slot *errors_tail; /**< the last of them */
    int body_error;                    /**< the body's own error (not a cancellation) */
    bool joining;                      /**< join has begun: the body is over */
    bool aborting;                     /**< its children were told to stop */
    bool cancelled_parent;             /**< it cancelled its parent, and must take that
                                            back (asyncio's _parent_cancel_requested) */
    bool propagate;                    /**< the parent was cancelled from outside */
    bool joined;                       /**< join has returned */
} taal_taskgroup;

/** Prepares @p tg in the current task, its parent (asyncio's
 *  `async with TaskGroup()`). Returns TAAL_OK, TAAL_EINVAL (NULL),
 *  TAAL_ENOTASK (outside a task), TAAL_EBUSY (@p tg is in use). */
int taal_taskgroup_init(taal_taskgroup *tg);

/** TaskGroup.create_task(): creates a task running @p body, as
 *  taal_task_create() does, held by the group. @p task (may be NULL)
 *  receives it, valid until taal_taskgroup_destroy(): do not release it.
 *  Returns TAAL_OK, TAAL_EINVAL, TAAL_ESTATE (the group has been joined,
 *  or is stopping its children: asyncio's "TaskGroup is finished" and "is
 *  shutting down"), TAAL_ENOMEM (the task, or a block of slots for
 *  children). */
int taal_taskgroup_create_task(taal_taskgroup *tg, taal_body_fn body, const void *frame,
                               size_t frame_size, const char *name, taal_task **task);

/** The number of errors the join reported with TAAL_EGROUP: every child
 *  that failed (not cancelled), then the body's own error if it ended with
 *  one; 0 for NULL. */
size_t taal_taskgroup_error_count(const taal_taskgroup *tg);

/** Error @p i of @p tg (0 to error_count - 1), in the order they happened,
 *  the body's last: its status, and in @p task (if not NULL) the child
 *  that failed (NULL for the body's). TAAL_EINVAL if there is no such
 *  error (and @p task is then NULL). */
int taal_taskgroup_error(const taal_taskgroup *tg, size_t i, taal_task **task);

/** Lets go of @p tg: its references to its children (read them before),
 *  its slots, its place among the open scopes. TAAL_EBUSY (nothing
 *  changes) while a child is still running: join first. TAAL_EINVAL. */
int taal_taskgroup_destroy(taal_taskgroup *tg);

/** @cond INTERNAL */
int taal__taskgroup_join(taal_taskgroup *tg, int body);
int taal__taskgroup_rejoin(taal_taskgroup *tg, int awaited);
/** @endcond */

/** Leaves the `async with TaskGroup()` block (its __aexit__): waits until
 *  every child has finished. @p status_lvalue is both ways: on entry, how
 *  the body ended (TAAL_OK, or the status it is leaving with, such as a
 *  TAAL_ECANCELLED an await gave it); on exit, the group's outcome:
 *   - TAAL_OK: the body and every child ended well (or cancelled: a child
 *     cancelled on its own is no failure);
 *   - TAAL_EGROUP: children failed, or the body left with an error of its
 *     own; read them all with taal_taskgroup_error();
 *   - TAAL_ECANCELLED: the parent was cancelled from outside (in the body
 *     or while joining), and nothing failed: every child was cancelled and
 *     has finished;
 *   - TAAL_EINVAL (also for a positive @p status_lvalue on entry, which no
 *     body ends with), TAAL_ENOTASK (not in the parent), TAAL_ESTATE
 *     (joined before): misuse, and nothing waited for.
 *  A body error, or a cancellation from outside, cancels the children
 *  first. If the group cancelled the parent itself, the join takes that
 *  back (uncancel), once every child has finished, as Python 3.13 does;
 *  and when it reports TAAL_EGROUP while a cancellation from outside is
 *  pending, it makes that cancellation again, so that the parent's next
 *  await still sees it. (Python 3.12 took its own back before waiting, and
 *  could lose an outside one that came meanwhile: 3.13 fixed that.) */
#define TAAL_TASKGROUP_JOIN_STATUS(status_lvalue, tg)                        \
    do {                                                                     \
        (status_lvalue) = taal__taskgroup_join((tg), (status_lvalue));       \
        while ((status_lvalue) == TAAL_SUSPENDED) {                          \
            TAAL__AWAIT_FUTURE_INTO(status_lvalue, &(tg)->done);             \
            (status_lvalue) = taal__taskgroup_rejoin((tg), (status_lvalue)); \
        }                                                                    \
    } while (0)
/** @} */

#endif /* TAAL_H */
