/*
** taal.h -- chapter 03: the semaphore, and what its waiter queue gives.
**
** Chapter 02 made the loop: a ready queue, futures, tasks, timers, gather
** and wait. This chapter adds the synchronisation primitives of asyncio,
** all built on one idea, a FIFO of waiting tasks: a semaphore, a bounded
** semaphore, a lock, an event and a bounded queue. A waiter is woken with
** what it waited for already in hand (the permit, the lock, the item, the
** free slot), so nobody who arrives later can take it first. Everything of
** chapter 02 is here unchanged; the new parts are at "Synchronisation".
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
 *  @brief Chapter 03: coroutines, the event loop, futures, tasks, timers,
 *  gather and wait, and the semaphore, lock, event and queue.
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
#define TAAL_CHAPTER 3       /**< this chapter's number, 1 to 7 */
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
    TAAL_OK = 0,          /**< success; for taal_send(): the coroutine finished */
    TAAL_SUSPENDED = 1,   /**< taal_send(): the coroutine stopped at an await */
    TAAL_EINVAL = -1,     /**< invalid argument (NULL, uninitialised frame or future) */
    TAAL_EDEAD = -2,      /**< the coroutine has already finished */
    TAAL_ERUNNING = -3,   /**< the coroutine is already running (it awaited itself) */
    TAAL_ENOMEM = -4,     /**< an allocation failed */
    TAAL_EPOINT = -5,     /**< resumed at a point its body does not have (rule 3) */
    TAAL_ESTATE = -6,     /**< invalid state: a result set twice, or read too early */
    TAAL_ENOTASK = -7,    /**< an await that needs a task ran outside one */
    TAAL_ELOOP = -8,      /**< the future, timer or handle belongs to another loop */
    TAAL_EBUSY = -9,      /**< the loop is running or closing, or the handle is in use */
    TAAL_ECLOSED = -10,   /**< the loop is closed */
    TAAL_EDEADLOCK = -11, /**< tasks wait, but nothing is ready and no timer is set */
    TAAL_ESTOPPED = -12,  /**< the loop stopped before the future completed */
    TAAL_EFULL = -13,     /**< the queue is full (put_nowait) */
    TAAL_EEMPTY = -14,    /**< the queue is empty (get_nowait) */
    TAAL_ERELEASE = -15,  /**< released more than acquired: a bounded semaphore,
                               an unlocked lock, task_done() too often */
    TAAL_ENOTIMPL = -99,  /**< not implemented: a hole of a lab handout, to fill */
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
 *  the following statement. This is the bare `yield` of `__await__`. */
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
 *  taal allocates in four places: a task (header and frame in one block), a
 *  gather or wait (one block each), the timer heap's array when it grows,
 *  and, when tracing, one buffer per loop. Everything else (handles,
 *  timers, plain futures, the loop itself) lives in storage you provide.
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
} taal_handle;

/** True while @p handle is in the ready queue or waiting on a future. */
bool taal_handle_pending(const taal_handle *handle);
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
    /* What runs next. */
    taal_link ready; /**< handles to run, in FIFO order */

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
    taal_link rings; /**< queues' rings of items: close frees those left */

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
    TAAL_FUTURE_WAITERS    /**< the waiting tasks of a semaphore, lock, event or
                                queue: never completes (see taal_waiters) */
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

/** A task: a future, plus what it takes to step a coroutine. Its 128
 *  bytes are followed by the coroutine's frame, in the same block. */
struct taal_task {
    taal_future future;  /**< the task is a future: first member */
    taal_timer step;     /**< the task's one handle: in the ready queue ("run
                              me"), in a future's waiters ("wake me when it is
                              done"), armed in the heap ("asleep"), or idle
                              ("running", or finished) */
    const char *name;    /**< its name, or NULL for "Task-<id>"; not copied */
    const char *created; /**< where it was created, "file.c:42" (debug reports) */
    uint32_t id;         /**< for the default name; unique in its loop */
    uint32_t frame_size; /**< the size of the frame that follows */
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

/** asyncio.run(): makes a loop with @p options (NULL: every default, from
 *  the environment), runs the coroutine @p body to the end as its main
 *  task, named "main", closes the loop, and returns the coroutine's status.
 *  The frame is made as taal_task_create() makes it, from @p frame and
 *  @p frame_size. If @p result is not NULL it receives the
 *  TAAL_RETURN_VALUE, which must not point into the frame (the frame is
 *  gone when taal_run() returns). Returns TAAL_EINVAL, TAAL_EBUSY (called
 *  while a loop runs), TAAL_ENOMEM, TAAL_EDEADLOCK, or the coroutine's
 *  error. */
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
 *  TAAL_EBUSY (already parked or asleep). */
int taal__await_future(taal_future *future);

/** Arms the current task's timer; for exactly 0 it does nothing, so that
 *  the suspension is a bare yield. Returns TAAL_OK, TAAL_EINVAL,
 *  TAAL_ENOTASK, TAAL_EBUSY (the task is already parked on a future: a
 *  coroutine that drives children by hand can try), or TAAL_ENOMEM; used by
 *  TAAL_SLEEP. */
int taal__sleep_start(double seconds);

/** `await future`: suspends until @p future is done; if it failed, this
 *  coroutine fails with the same error. Read the result afterwards with
 *  taal_future_result(). */
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
 *  TAAL_EINVAL. */
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
 *  into it. On resume the outcome is TAAL_OK: the timer fired. */
#define TAAL__SLEEP_INTO(out, seconds)      \
    do {                                    \
        (out) = taal__sleep_start(seconds); \
        if ((out) == TAAL_OK) {             \
            taal__self->point = __LINE__;   \
            return TAAL_SUSPENDED;          \
        case __LINE__: (out) = TAAL_OK;     \
        }                                   \
    } while (0)
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Gather and wait
 *  A gather or wait holds every future given to it until it is itself
 *  freed, so that you may release the children at once and still read
 *  them, and their results, through it: one rule, "release the gather (or
 *  wait) when you are done with everything in it".
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
 *  (TAAL_NO_TIMEOUT: never; 0 or less: the next iteration). It cancels
 *  nothing; its result is a taal_wait_sets. Release it with
 *  taal_future_release(). Returns TAAL_EINVAL (also for no futures, a NaN
 *  timeout, or an unknown mode), TAAL_ELOOP, TAAL_ECLOSED or
 *  TAAL_ENOMEM. */
int taal_wait(taal_loop *loop, size_t count, taal_future *const futures[],
              taal_wait_mode mode, double timeout, taal_future **waited);
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
 *  TAAL_ENOTASK.
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
 *  while tasks wait on it, or were woken by it (handed a permit) and have
 *  not run yet; TAAL_EINVAL. */
int taal_semaphore_destroy(taal_semaphore *sem);

/** asyncio.Lock: a bounded semaphore of one, with the error of a lock. */
typedef struct taal_lock {
    taal_semaphore sem; /**< one permit: the lock */
} taal_lock;

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
 *  or were woken by it (handed an item, a slot, "all done") and have not
 *  run yet. */
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

#endif /* TAAL_H */
