/*
** loop.c -- chapter 02: the event loop.
**
** The loop owns three things: a ready queue (handles to run, FIFO), a timer
** heap (handles to run at a deadline), and a clock. One iteration is the
** numbered list in taal_run_once(); everything else here is bookkeeping
** around it: memory, reports, time, the heap, and closing.
*/
#define _POSIX_C_SOURCE 200809L

#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- memory ------------------------------------------------------------- */

static taal_allocator allocator = {malloc, realloc, free};

int taal_set_allocator(const taal_allocator *replacement)
{
    if (replacement == NULL) {
        allocator = (taal_allocator){malloc, realloc, free};
        return TAAL_OK;
    }
    if (!replacement->malloc || !replacement->realloc || !replacement->free)
        return TAAL_EINVAL;
    allocator = *replacement;
    return TAAL_OK;
}

void *taal__alloc(size_t size)
{
    return allocator.malloc(size);
}

void *taal__realloc(void *ptr, size_t size)
{
    return allocator.realloc(ptr, size);
}

void taal__free(void *ptr)
{
    if (ptr != NULL)
        allocator.free(ptr);
}

/* ---- reports -------------------------------------------------------------- */

static void report_to_stderr(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "taal: %s\n", line);
}

void taal__report(taal_loop *loop, const char *format, ...)
{
    char line[512];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    loop->report(loop->report_ctx, line);
}

/* ---- time ------------------------------------------------------------------ */

/*
** Time is kept in 64-bit nanoseconds: 292 years before it overflows, where
** 32 bits of milliseconds would wrap in 49 days (a bug Redis's ae.c once
** had). The real clock is CLOCK_MONOTONIC, which never jumps when the
** wall-clock time is changed.
*/
static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t taal__now(taal_loop *loop)
{
    if (!loop->virtual_clock)
        loop->now = monotonic_ns();
    return loop->now;
}

double taal_loop_time(taal_loop *loop)
{
    return loop == NULL ? 0.0 : (double)taal__now(loop) / 1e9;
}

int taal__delay_ns(double seconds, int64_t *ns)
{
    if (!(seconds >= 0)) /* also false for NaN */
        return TAAL_EINVAL;
    *ns = seconds >= 9.2e9 ? INT64_MAX : (int64_t)(seconds * 1e9 + 0.5);
    return TAAL_OK;
}

static int64_t add_saturating(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Blocks the thread until the loop's time reaches `deadline`. The virtual
 * clock just jumps there; the real one sleeps in the kernel, on an absolute
 * deadline so that a signal (EINTR) cannot make it sleep too long. */
static void sleep_until(taal_loop *loop, int64_t deadline)
{
    if (loop->virtual_clock) {
        if (deadline > loop->now)
            loop->now = deadline;
        return;
    }
    struct timespec ts = {(time_t)(deadline / 1000000000), (long)(deadline % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* ---- the timer heap -------------------------------------------------------- */

/*
** A binary min-heap in an array: the children of entry i are 2i+1 and 2i+2,
** and no entry is later than its children, so the earliest timer is always
** at index 0. The key (deadline, sequence) is stored by value in the entry,
** so comparing two entries never follows a pointer. Each timer remembers
** its position (plus one, so that zero means "not armed"), which makes
** removing a timer O(log n) instead of a search. (taal_heap_entry is in
** taal.h.)
*/

static bool entry_before(const taal_heap_entry *a, const taal_heap_entry *b)
{
    return a->deadline < b->deadline || (a->deadline == b->deadline && a->seq < b->seq);
}

static void heap_place(taal_loop *loop, size_t i, taal_heap_entry entry)
{
    loop->heap[i] = entry;
    entry.timer->index = i + 1;
}

static void sift_up(taal_loop *loop, size_t i)
{
    taal_heap_entry entry = loop->heap[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!entry_before(&entry, &loop->heap[parent]))
            break;
        heap_place(loop, i, loop->heap[parent]);
        i = parent;
    }
    heap_place(loop, i, entry);
}

static void sift_down(taal_loop *loop, size_t i)
{
    taal_heap_entry entry = loop->heap[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= loop->heap_len)
            break;
        if (child + 1 < loop->heap_len &&
            entry_before(&loop->heap[child + 1], &loop->heap[child]))
            child++;
        if (!entry_before(&loop->heap[child], &entry))
            break;
        heap_place(loop, i, loop->heap[child]);
        i = child;
    }
    heap_place(loop, i, entry);
}

static int heap_push(taal_loop *loop, taal_heap_entry entry)
{
    if (loop->heap_len == loop->heap_cap) {
        size_t cap = loop->heap_cap ? 2 * loop->heap_cap : 16;
        taal_heap_entry *heap = taal__realloc(loop->heap, cap * sizeof *heap);
        if (heap == NULL)
            return TAAL_ENOMEM;
        loop->heap = heap;
        loop->heap_cap = cap;
    }
    loop->heap[loop->heap_len++] = entry;
    sift_up(loop, loop->heap_len - 1);
    return TAAL_OK;
}

/* Removes entry i: the last entry fills the hole, then moves up if it is
 * earlier than the hole's parent, or else down (the root has no parent, so
 * popping the earliest timer only ever sifts down). */
static void heap_remove(taal_loop *loop, size_t i)
{
    loop->heap[i].timer->index = 0;
    taal_heap_entry last = loop->heap[--loop->heap_len];
    if (i == loop->heap_len)
        return; /* it was the last entry: no hole */
    loop->heap[i] = last;
    if (i > 0 && entry_before(&last, &loop->heap[(i - 1) / 2]))
        sift_up(loop, i);
    else
        sift_down(loop, i);
}

int taal_timer_start(taal_loop *loop, taal_timer *timer, double delay,
                     taal_callback_fn fn, void *arg)
{
    int64_t ns;
    if (loop == NULL || timer == NULL || fn == NULL || taal__delay_ns(delay, &ns))
        return TAAL_EINVAL;
    if (loop->closed)
        return TAAL_ECLOSED;
    if (timer->index != 0 || taal_handle_pending(&timer->handle))
        return TAAL_EBUSY;
    taal_heap_entry entry = {add_saturating(taal__now(loop), ns), loop->timer_seq, timer};
    int rc = heap_push(loop, entry);
    if (rc != TAAL_OK)
        return rc;
    loop->timer_seq++;
    timer->handle.fn = fn;
    timer->handle.arg = arg;
    return TAAL_OK;
}

int taal_timer_stop(taal_loop *loop, taal_timer *timer)
{
    if (loop == NULL || timer == NULL)
        return TAAL_EINVAL;
    if (timer->index != 0 &&
        (timer->index > loop->heap_len || loop->heap[timer->index - 1].timer != timer))
        return TAAL_EINVAL; /* armed, but on another loop */
    if (timer->index != 0)
        heap_remove(loop, timer->index - 1);
    link_remove(&timer->handle.link); /* due, but not run yet */
    return TAAL_OK;
}

/* ---- handles --------------------------------------------------------------- */

bool taal_handle_pending(const taal_handle *handle)
{
    return handle != NULL && link_linked(&handle->link);
}

int taal_call_soon(taal_loop *loop, taal_handle *handle, taal_callback_fn fn, void *arg)
{
    if (loop == NULL || handle == NULL || fn == NULL)
        return TAAL_EINVAL;
    if (loop->closed)
        return TAAL_ECLOSED;
    if (taal_handle_pending(handle))
        return TAAL_EBUSY;
    handle->fn = fn;
    handle->arg = arg;
    list_push_back(&loop->ready, &handle->link);
    return TAAL_OK;
}

/* ---- the loop ------------------------------------------------------------ */

/* asyncio's _running_loop: one running loop per thread, so that a program
 * may run a loop in each of several threads (loops are not shared). */
_Thread_local taal_loop *taal__running_loop;

taal_loop *taal_running_loop(void)
{
    return taal__running_loop;
}

int taal_loop_init(taal_loop *loop, const taal_loop_options *options)
{
    taal_loop_options defaults = {0};
    if (options == NULL)
        options = &defaults;
    if (loop == NULL || options->clock > TAAL_CLOCK_VIRTUAL)
        return TAAL_EINVAL;
    memset(loop, 0, sizeof *loop);
    list_init(&loop->ready);
    list_init(&loop->objects);
    if (options->clock == TAAL_CLOCK_FROM_ENV) {
        const char *clock = getenv("TAAL_CLOCK");
        loop->virtual_clock = clock != NULL && strcmp(clock, "virtual") == 0;
    } else {
        loop->virtual_clock = options->clock == TAAL_CLOCK_VIRTUAL;
    }
    loop->now = loop->virtual_clock ? 0 : monotonic_ns();
    loop->next_task_id = 1;
    loop->report = options->report ? options->report : report_to_stderr;
    loop->report_ctx = options->report_ctx;
    return TAAL_OK;
}

/* Nothing is ready and no timer is set: no callback will ever run again,
 * so whoever waits, waits forever. CPython hangs here; taal says who waits
 * for what, so that the bug can be found. */
static void report_deadlock(taal_loop *loop)
{
    taal__report(loop, "deadlock: nothing is ready and no timer is set, "
                       "so nothing can wake what waits");
    for (taal_link *l = loop->objects.next; l != &loop->objects; l = l->next) {
        taal_future *future = TAAL_CONTAINER_OF(l, taal_future, node);
        if (future->kind != TAAL_FUTURE_TASK || taal_future_done(future))
            continue;
        taal_task *task = (taal_task *)future;
        char name[64], what[128];
        taal_task_name(task, name, sizeof name);
        if (task->awaiting != NULL) {
            taal__future_describe(task->awaiting, what, sizeof what);
            taal__report(loop, "  %s waits for %s", name, what);
        }
    }
}

/*
** One iteration of the loop, asyncio's _run_once:
**
**   1. If nothing is ready, block until the earliest timer is due (in the
**      kernel, or by jumping the virtual clock). With no timer either,
**      nothing can ever become ready: report a deadlock instead of hanging.
**   2. Move every timer that is due to the ready queue, earliest first.
**   3. Run the callbacks that are ready now, and only those: anything they
**      schedule runs in the next iteration, so a callback that keeps
**      re-scheduling itself cannot starve the timers.
*/
static int run_once(taal_loop *loop)
{
    /* 1. Wait. */
    if (list_empty(&loop->ready) && !loop->stopping) {
        if (loop->heap_len == 0) {
            report_deadlock(loop);
            return TAAL_EDEADLOCK;
        }
        sleep_until(loop, loop->heap[0].deadline);
    }

    /* 2. Due timers. The clock is read only if a timer is armed. */
    if (loop->heap_len > 0) {
        int64_t now = taal__now(loop);
        while (loop->heap_len > 0 && loop->heap[0].deadline <= now) {
            taal_timer *timer = loop->heap[0].timer;
            heap_remove(loop, 0);
            list_push_back(&loop->ready, &timer->handle.link);
        }
    }

    /* 3. Run what was ready when this step began. */
    taal_link batch;
    list_init(&batch);
    list_splice_back(&batch, &loop->ready);
    while (!list_empty(&batch)) {
        taal_link *link = batch.next;
        link_remove(link);
        taal_handle *handle = TAAL_CONTAINER_OF(link, taal_handle, link);
        handle->fn(handle->arg);
    }
    return TAAL_OK;
}

static int enter(taal_loop *loop)
{
    if (loop == NULL)
        return TAAL_EINVAL;
    if (loop->closed)
        return TAAL_ECLOSED;
    if (loop->running || taal__running_loop != NULL)
        return TAAL_EBUSY;
    loop->running = true;
    taal__running_loop = loop;
    return TAAL_OK;
}

static void leave(taal_loop *loop)
{
    loop->running = false;
    loop->stopping = false;
    taal__running_loop = NULL;
}

int taal_run_once(taal_loop *loop)
{
    int rc = enter(loop);
    if (rc != TAAL_OK)
        return rc;
    rc = run_once(loop);
    leave(loop);
    return rc;
}

int taal_run_forever(taal_loop *loop)
{
    int rc = enter(loop);
    if (rc != TAAL_OK)
        return rc;
    do {
        rc = run_once(loop);
    } while (rc == TAAL_OK && !loop->stopping);
    leave(loop);
    return rc;
}

int taal_stop(taal_loop *loop)
{
    if (loop == NULL)
        return TAAL_EINVAL;
    loop->stopping = true;
    return TAAL_OK;
}

static void stop_loop(void *loop)
{
    taal_stop(loop);
}

int taal_run_until_complete(taal_loop *loop, taal_future *future)
{
    if (loop == NULL || future == NULL)
        return TAAL_EINVAL;
    if (loop->closed)
        return TAAL_ECLOSED;
    if (future->loop != loop)
        return TAAL_ELOOP;
    if (loop->running)
        return TAAL_EBUSY;
    /* Even for a future that is done, the loop runs one iteration, as
     * asyncio's does: the stopper is scheduled with call_soon either way.
     * The reference keeps the future alive if someone releases it meanwhile. */
    taal_handle stopper = {0};
    taal__future_retain(future);
    taal_future_add_done_callback(future, &stopper, stop_loop, loop);
    int rc = taal_run_forever(loop);
    taal_future_remove_done_callback(future, &stopper);
    if (rc == TAAL_OK)
        rc = taal_future_done(future) ? taal_future_status(future) : TAAL_ESTOPPED;
    taal__future_unref(future);
    return rc;
}

/*
** Closing: first report what is left and unhook every task, gather and
** wait from every list (so that no list points into memory about to be
** freed), then free them all, then forget the handles and timers that
** belong to the caller.
*/
int taal_loop_close(taal_loop *loop)
{
    if (loop == NULL)
        return TAAL_EINVAL;
    if (loop->running)
        return TAAL_EBUSY;
    if (loop->closed)
        return TAAL_OK;

    taal_link *l;
    for (l = loop->objects.next; l != &loop->objects; l = l->next) {
        taal_future *future = TAAL_CONTAINER_OF(l, taal_future, node);
        if (future->kind == TAAL_FUTURE_TASK && !taal_future_done(future)) {
            char name[64];
            taal_task_name((taal_task *)future, name, sizeof name);
            taal__report(loop, "task %s was still pending when the loop closed", name);
        }
    }
    for (l = loop->objects.next; l != &loop->objects; l = l->next)
        taal__future_dispose(TAAL_CONTAINER_OF(l, taal_future, node));
    while (!list_empty(&loop->objects)) {
        l = loop->objects.next;
        link_remove(l);
        taal__future_destroy(TAAL_CONTAINER_OF(l, taal_future, node));
    }

    while (!list_empty(&loop->ready))
        link_remove(loop->ready.next);
    for (size_t i = 0; i < loop->heap_len; i++)
        loop->heap[i].timer->index = 0;
    taal__free(loop->heap);
    loop->heap = NULL;
    loop->heap_len = loop->heap_cap = 0;
    loop->closed = true;
    return TAAL_OK;
}
