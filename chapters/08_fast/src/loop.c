/*
** loop.c -- chapter 04: the event loop, with priorities (and chapter 05's
** open scopes, which a closing loop must forget; chapter 06's check of
** the frames of tasks still pending when it closes; chapter 07's poll for
** I/O in step 1 of an iteration, whose details are in io.c).
**
** The loop owns three things: a ready queue (handles to run: one FIFO per
** priority), a timer heap (handles to run at a deadline), and a clock. One
** iteration is the numbered list in run_once(); everything else here is
** bookkeeping around it: reports, time, the heap, priorities, and
** closing. (Memory, the allocator and chapter 08's slab of task blocks,
** is slab.c's.)
*/
#define _POSIX_C_SOURCE 200809L

#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _WIN32
/* The clock and the sleep on Windows, which has neither clock_gettime nor
 * nanosleep (MinGW-w64 has them only in its winpthread library, MSVC not
 * at all): see taal__monotonic_ns() and sleep_until(). */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif

/* ---- reports -------------------------------------------------------------- */

static void report_to_stderr(void *ctx, const taal_report *report)
{
    (void)ctx;
    fprintf(stderr, "taal: %s\n", report->message);
}

void taal__report(taal_loop *loop, taal_report_kind kind, taal_future *future, int status,
                  const char *format, ...)
{
    char line[512];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    taal_report report = {kind, loop, future, NULL, status, line};
    if (future != NULL && future->kind == TAAL_FUTURE_TASK)
        report.task = (taal_task *)future;
    if (loop != NULL)
        loop->report(loop->report_ctx, &report);
    else
        report_to_stderr(NULL, &report);
}

/* ---- time ------------------------------------------------------------------ */

/*
** Time is kept in 64-bit nanoseconds: 292 years before it overflows, where
** 32 bits of milliseconds would wrap in 49 days (a bug Redis's ae.c once
** had). The real clock is CLOCK_MONOTONIC, which never jumps when the
** wall-clock time is changed; on Windows it is the performance counter,
** monotonic too, which counts QueryPerformanceFrequency() ticks a second
** (10 MHz on current Windows), converted here without overflowing.
*/
int64_t taal__monotonic_ns(void)
{
#ifdef _WIN32
    LARGE_INTEGER hz, count;
    QueryPerformanceFrequency(&hz);
    QueryPerformanceCounter(&count);
    return (int64_t)(count.QuadPart / hz.QuadPart * 1000000000 +
                     count.QuadPart % hz.QuadPart * 1000000000 / hz.QuadPart);
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
#endif
}

int64_t taal__now(taal_loop *loop)
{
    if (!loop->virtual_clock)
        loop->now = taal__monotonic_ns();
    return loop->now;
}

double taal_loop_time(taal_loop *loop)
{
    return loop == NULL ? 0.0 : (double)taal__now(loop) / 1e9;
}

/* Seconds (a delay, or a loop time) as nanoseconds, rounded to the
 * nearest. Beyond what 64 bits of nanoseconds hold (292 years, infinity
 * too) it saturates at the ends of time instead of overflowing. Not NaN. */
int64_t taal__seconds_ns(double seconds)
{
    if (seconds >= 9.2e9)
        return INT64_MAX;
    if (seconds <= -9.2e9)
        return INT64_MIN;
    return (int64_t)(seconds * 1e9 + (seconds >= 0 ? 0.5 : -0.5));
}

/* A delay may be negative: one computed as `deadline - now` is, as soon as
 * the deadline has passed, and asyncio takes it for "now" (a timer at
 * now + delay, so before the timers due at now). Only NaN has no meaning. */
int taal__delay_ns(double seconds, int64_t *ns)
{
    if (seconds != seconds) /* NaN */
        return TAAL_EINVAL;
    *ns = taal__seconds_ns(seconds);
    return TAAL_OK;
}

/* a + b, clamped to the range of int64_t; b may be negative (a delay). */
static int64_t add_saturating(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

/* Blocks the thread until the loop's time reaches `deadline`. The virtual
 * clock just jumps there; the real one sleeps in the kernel, on an absolute
 * deadline so that a signal (EINTR) cannot make it sleep too long. Where
 * there is no clock_nanosleep (macOS), nanosleep sleeps for what is left,
 * and the clock is read again after every wake, early or not. Windows
 * does the same with a high-resolution waitable timer (Windows 10 1803 and
 * later), or else Sleep(), whose milliseconds the system rounds up to its
 * tick (15.6 ms unless a program asked for finer). */
static void sleep_until(taal_loop *loop, int64_t deadline)
{
    if (loop->virtual_clock) {
        if (deadline > loop->now)
            loop->now = deadline;
        return;
    }
#if defined(_WIN32)
#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x2
#endif
    HANDLE timer = CreateWaitableTimerExW(
        NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION, TIMER_ALL_ACCESS);
    for (int64_t left; (left = deadline - taal__monotonic_ns()) > 0;) {
        if (left > 3600 * (int64_t)1000000000) /* a long wait, an hour at a time */
            left = 3600 * (int64_t)1000000000;
        LARGE_INTEGER due; /* negative: relative, in units of 100 ns */
        due.QuadPart = -((left + 99) / 100);
        if (timer != NULL && SetWaitableTimer(timer, &due, 0, NULL, NULL, FALSE))
            WaitForSingleObject(timer, INFINITE);
        else
            Sleep((DWORD)((left + 999999) / 1000000));
    }
    if (timer != NULL)
        CloseHandle(timer);
#elif defined(TAAL_HAVE_CLOCK_NANOSLEEP)
    struct timespec ts = {(time_t)(deadline / 1000000000), (long)(deadline % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
#else
    for (int64_t left; (left = deadline - taal__monotonic_ns()) > 0;) {
        struct timespec ts = {(time_t)(left / 1000000000), (long)(left % 1000000000)};
        nanosleep(&ts, NULL);
    }
#endif
}

/* ---- the timer heap -------------------------------------------------------- */

/*
** A 4-ary min-heap in an array (chapter 08; chapters 02-07 have a binary
** one): the children of entry i are 4i+1 to 4i+4, and no entry is later
** than its children, so the earliest timer is always at index 0. The key
** (deadline, sequence) is stored by value in the entry, so comparing two
** entries never follows a pointer. Each timer remembers its position (plus
** one, so that zero means "not armed"), which makes removing a timer
** O(log n) instead of a search. (taal_heap_entry is in taal.h.)
**
** Why four: with 10^6 timers a binary heap is 20 levels deep, and popping
** the earliest timer walks all of them, each level a cache miss once the
** heap outgrows the cache. A 4-ary heap is 10 levels deep; each level
** compares four siblings instead of two, but the four lie side by side in
** memory (96 bytes, two cache lines), so the walk misses half as often.
** Pushing a timer sifts up, which a 4-ary heap does in half the steps.
** libev made the same choice ("the difference is about 5% with 50000+
** watchers"); docs/08_fast.md has taal's figures.
*/
enum { HEAP_D = 4 }; /* children per entry */

static bool entry_before(const taal_heap_entry *a, const taal_heap_entry *b)
{
    return a->deadline < b->deadline || (a->deadline == b->deadline && a->seq < b->seq);
}

static void heap_place(taal_loop *loop, uint32_t i, taal_heap_entry entry)
{
    loop->heap[i] = entry;
    entry.timer->index = i + 1;
}

static void sift_up(taal_loop *loop, uint32_t i)
{
    taal_heap_entry entry = loop->heap[i];
    while (i > 0) {
        uint32_t parent = (i - 1) / HEAP_D;
        if (!entry_before(&entry, &loop->heap[parent]))
            break;
        heap_place(loop, i, loop->heap[parent]);
        i = parent;
    }
    heap_place(loop, i, entry);
}

/* The earliest of the children of entry i (which has at least one). The
 * fast path: all four exist; the slow path: the last, partial family. */
static uint32_t earliest_child(const taal_loop *loop, uint32_t i)
{
    const taal_heap_entry *heap = loop->heap;
    uint32_t first = HEAP_D * i + 1, best = first;
    if (first + HEAP_D <= loop->heap_len) {
        if (entry_before(&heap[first + 1], &heap[best]))
            best = first + 1;
        if (entry_before(&heap[first + 2], &heap[best]))
            best = first + 2;
        if (entry_before(&heap[first + 3], &heap[best]))
            best = first + 3;
        return best;
    }
    for (uint32_t c = first + 1; c < loop->heap_len; c++)
        if (entry_before(&heap[c], &heap[best]))
            best = c;
    return best;
}

static void sift_down(taal_loop *loop, uint32_t i)
{
    taal_heap_entry entry = loop->heap[i];
    /* Entry i has a child if 4i+1 < len: the first `parents` entries do. */
    uint32_t parents = loop->heap_len < 2 ? 0 : (loop->heap_len - 2) / HEAP_D + 1;
    while (i < parents) {
        uint32_t child = earliest_child(loop, i);
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
        if (loop->heap_cap >= UINT32_MAX / 2)
            return TAAL_ENOMEM; /* 2^31 timers: the index would overflow */
        uint32_t cap = loop->heap_cap ? 2 * loop->heap_cap : 16;
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
static void heap_remove(taal_loop *loop, uint32_t i)
{
    loop->heap[i].timer->index = 0;
    taal_heap_entry last = loop->heap[--loop->heap_len];
    if (i == loop->heap_len)
        return; /* it was the last entry: no hole */
    loop->heap[i] = last;
    if (i > 0 && entry_before(&last, &loop->heap[(i - 1) / HEAP_D]))
        sift_up(loop, i);
    else
        sift_down(loop, i);
}

/* ---- timers ------------------------------------------------------------------ */

static int arm_at(taal_loop *loop, taal_timer *timer, int64_t deadline)
{
    taal_heap_entry entry = {deadline, loop->timer_seq, timer};
    int rc = heap_push(loop, entry);
    if (rc != TAAL_OK)
        return rc;
    loop->timer_seq++;
    timer->loop_id = loop->id;
    timer->when = deadline;
    timer->handle.cancelled = false;
    timer->handle.armed = true;
    return TAAL_OK;
}

int taal__timer_arm(taal_loop *loop, taal_timer *timer, int64_t ns)
{
    return arm_at(loop, timer, add_saturating(taal__now(loop), ns));
}

int taal__timer_arm_at(taal_loop *loop, taal_timer *timer, int64_t deadline)
{
    return arm_at(loop, timer, deadline);
}

void taal__timer_disarm(taal_loop *loop, taal_timer *timer)
{
    if (timer->index != 0)
        heap_remove(loop, timer->index - 1);
    timer->handle.armed = false;
    link_remove(&timer->handle.link); /* due, but not run yet */
}

/* Arms a user's timer for the loop time `deadline`, checked. */
static int start_at(taal_loop *loop, taal_timer *timer, int64_t deadline,
                    taal_callback_fn fn, void *data)
{
    if (loop->closed || loop->closing)
        return TAAL_ECLOSED;
    if (timer->index != 0 || taal_handle_pending(&timer->handle))
        return TAAL_EBUSY;
    int rc = arm_at(loop, timer, deadline);
    if (rc != TAAL_OK)
        return rc;
    timer->handle.fn.call = fn;
    timer->handle.data = data;
    timer->handle.future = NULL;
    if (loop->trace != NULL)
        taal__trace_timer(loop, "timer.arm", timer);
    return TAAL_OK;
}

int taal_timer_start(taal_loop *loop, taal_timer *timer, double delay,
                     taal_callback_fn fn, void *data)
{
    int64_t ns;
    if (loop == NULL || timer == NULL || fn == NULL || taal__delay_ns(delay, &ns))
        return TAAL_EINVAL;
    return start_at(loop, timer, add_saturating(taal__now(loop), ns), fn, data);
}

int taal_call_later(taal_loop *loop, taal_timer *timer, double delay, taal_callback_fn fn,
                    void *data)
{
    return taal_timer_start(loop, timer, delay, fn, data);
}

/* A deadline in the past is due at once: it runs in the next iteration,
 * in the order of its deadline among the other due timers. */
int taal_call_at(taal_loop *loop, taal_timer *timer, double when, taal_callback_fn fn,
                 void *data)
{
    if (loop == NULL || timer == NULL || fn == NULL || when != when) /* NaN */
        return TAAL_EINVAL;
    return start_at(loop, timer, taal__seconds_ns(when), fn, data);
}

/* A timer is on `loop` if it was armed there and, when it is in the heap,
 * the heap entry at its index is its own. */
static bool timer_on_loop(const taal_loop *loop, const taal_timer *timer)
{
    if (timer->loop_id != loop->id)
        return false;
    return timer->index == 0 || (timer->index <= loop->heap_len &&
                                 loop->heap[timer->index - 1].timer == timer);
}

int taal_timer_stop(taal_loop *loop, taal_timer *timer)
{
    if (loop == NULL || timer == NULL)
        return TAAL_EINVAL;
    if (timer->index == 0 && !taal_handle_pending(&timer->handle))
        return TAAL_OK; /* idle: nothing to stop */
    if (!timer_on_loop(loop, timer))
        return TAAL_ELOOP;
    taal__timer_disarm(loop, timer);
    if (loop->trace != NULL)
        taal__trace_timer(loop, "timer.stop", timer);
    return TAAL_OK;
}

/* Cancelling is stopping, remembered: cancelled() says so afterwards. */
int taal_timer_cancel(taal_loop *loop, taal_timer *timer)
{
    /* LAB(cancel) BEGIN: stop the timer, and remember that it was cancelled */
    int rc = taal_timer_stop(loop, timer);
    if (rc == TAAL_OK)
        timer->handle.cancelled = true;
    return rc;
    /* LAB(cancel) END: (void)loop; (void)timer; return TAAL_ENOTIMPL; */
}

double taal_timer_when(const taal_timer *timer)
{
    /* LAB(cancel) BEGIN: the deadline it was last armed for, in seconds */
    return timer == NULL ? 0.0 : (double)timer->when / 1e9;
    /* LAB(cancel) END: (void)timer; return -1.0; */
}

/* ---- handles --------------------------------------------------------------- */

bool taal_handle_pending(const taal_handle *handle)
{
    return handle != NULL && link_linked(&handle->link);
}

int taal_call_soon(taal_loop *loop, taal_handle *handle, taal_callback_fn fn, void *data)
{
    if (loop == NULL || handle == NULL || fn == NULL)
        return TAAL_EINVAL;
    if (loop->closed || loop->closing)
        return TAAL_ECLOSED;
    if (taal_handle_pending(handle))
        return TAAL_EBUSY;
    handle->fn.call = fn;
    handle->data = data;
    handle->future = NULL;
    handle->cancelled = false;
    taal__ready_push(loop, handle);
    return TAAL_OK;
}

int taal_handle_set_priority(taal_handle *handle, int priority)
{
    if (handle == NULL || priority < TAAL_PRIORITY_MIN || priority > TAAL_PRIORITY_MAX)
        return TAAL_EINVAL;
    handle->priority = (int8_t)priority;
    return TAAL_OK;
}

/* A call_soon handle is in the ready queue (or in the batch running now)
 * until it runs: taking it out is all that cancelling needs. */
int taal_handle_cancel(taal_handle *handle)
{
    /* LAB(cancel) BEGIN: take it out of the ready queue, and remember it */
    if (handle == NULL || handle->future != NULL || handle->armed)
        return TAAL_EINVAL; /* a done-callback, a task waiting, or a timer */
    link_remove(&handle->link);
    handle->cancelled = true;
    return TAAL_OK;
    /* LAB(cancel) END: (void)handle; return TAAL_ENOTIMPL; */
}

bool taal_handle_cancelled(const taal_handle *handle)
{
    return handle != NULL && handle->cancelled;
}

/* ---- the ready queue: one FIFO per priority -------------------------------- */

/*
** The ready queue is an array of FIFOs, one per priority, and a 32-bit map
** of which of them have work, so that the highest priority with work is
** found in a constant number of steps, as the schedulers of real-time
** kernels find theirs. A bit may stay set after its FIFO emptied (a handle
** can be taken out of any list without knowing which); finding the FIFO
** empty clears it.
*/
/* taal__ready_push() is in internal.h, inline. */

/* The highest bit set in `bits` (not 0), in five steps: a binary search,
 * since C11 has no "count leading zeros". Chapter 08: gcc and clang have
 * one, which is a single instruction on most machines (x86's bsr/lzcnt,
 * ARM's clz), where the search took about fifteen. */
static int highest_bit(uint32_t bits)
{
#if defined(__GNUC__)
    if (sizeof(unsigned) == sizeof(uint32_t))
        return 31 - __builtin_clz(bits);
#endif
    int n = 0;
    if (bits >> 16) {
        n += 16;
        bits >>= 16;
    }
    if (bits >> 8) {
        n += 8;
        bits >>= 8;
    }
    if (bits >> 4) {
        n += 4;
        bits >>= 4;
    }
    if (bits >> 2) {
        n += 2;
        bits >>= 2;
    }
    if (bits >> 1) {
        n += 1;
    }
    return n;
}

/* The lowest bit set in `bits` (not 0): the highest bit of bits & -bits. */
static int lowest_bit(uint32_t bits)
{
    return highest_bit(bits & (~bits + 1));
}

/* The highest priority with work, or -1; clears the bits of empty FIFOs. */
static int highest_ready(taal_loop *loop)
{
    /* LAB(ready) BEGIN: the highest priority with work, clearing stale bits */
    while (loop->ready_levels != 0) {
        int level = highest_bit(loop->ready_levels);
        if (!list_empty(&loop->ready[level]))
            return level;
        loop->ready_levels &= ~(UINT32_C(1) << level);
    }
    return -1;
    /* LAB(ready) END: return list_empty(&loop->ready[0]) ? -1 : 0; */
}

/*
** Which priority runs this iteration. Strictly, the highest with work.
** With aging, every priority with work that is passed over counts the
** iterations it waited, and one that has waited `aging` of them runs
** instead (the one that waited longest): its priority has risen, in
** effect, to the top. A priority with work therefore runs within about
** aging + 32 iterations, however much work is above it. Of two that have
** waited equally long, the higher runs.
*/
static int pick_level(taal_loop *loop, int top)
{
    /* LAB(aging) BEGIN: the highest priority `top`, unless another has aged */
    if (loop->aging == 0 || top < 0)
        return top;
    int chosen = top;
    uint32_t longest = 0;
    for (uint32_t bits = loop->ready_levels; bits != 0; bits &= bits - 1) {
        int level = lowest_bit(bits);
        uint32_t waited = loop->waited[level];
        if (level != top && waited >= loop->aging && waited >= longest &&
            !list_empty(&loop->ready[level])) {
            longest = waited;
            chosen = level;
        }
    }
    for (uint32_t bits = loop->ready_levels; bits != 0; bits &= bits - 1) {
        int level = lowest_bit(bits);
        if (level != chosen && !list_empty(&loop->ready[level]))
            loop->waited[level]++; /* passed over once more */
    }
    loop->waited[chosen] = 0;
    return chosen;
    /* LAB(aging) END: (void)loop; return top; */
}

/* Is `handle` waiting in the ready FIFO of its priority? Its list is a
 * ring: walk it round, looking for that FIFO's head. (Only equality is
 * asked: C does not order pointers into different objects.) Only a task
 * whose priority changes while it is ready asks, so the walk is rare. */
static bool in_ready_fifo(taal_loop *loop, const taal_handle *handle)
{
    if (!link_linked(&handle->link))
        return false;
    const taal_link *fifo = &loop->ready[taal__level(handle->priority)];
    for (const taal_link *l = handle->link.next; l != &handle->link; l = l->next) {
        if (l == fifo)
            return true;
    }
    return false; /* waiting on a future, or in the batch running now */
}

void taal__ready_move(taal_loop *loop, taal_handle *handle, int priority)
{
    bool queued = in_ready_fifo(loop, handle);
    handle->priority = (int8_t)priority;
    if (queued) {
        link_remove(&handle->link);
        taal__ready_push(loop, handle);
    }
}

/* ---- opening a loop --------------------------------------------------------- */

/* asyncio's _running_loop: one running loop per thread, so that a program
 * may run a loop in each of several threads (loops are not shared). */
TAAL__THREAD_LOCAL taal_loop *taal__running_loop;

/* Loop numbers, to tell which loop a timer was armed on. */
static TAAL__THREAD_LOCAL uint32_t last_loop_id;

taal_loop *taal_running_loop(void)
{
    return taal__running_loop;
}

/* A yes/no environment variable: "1" or "0" (unset or empty: `fallback`).
 * Anything else is reported and refused, so that a typo is not silently
 * taken for the default. */
static int env_flag(taal_loop *loop, const char *name, bool *out)
{
    const char *value = getenv(name);
    if (value == NULL || value[0] == '\0' || strcmp(value, "0") == 0) {
        *out = false;
        return TAAL_OK;
    }
    if (strcmp(value, "1") == 0) {
        *out = true;
        return TAAL_OK;
    }
    taal__report(loop, TAAL_REPORT_MISUSE, NULL, TAAL_EINVAL,
                 "%s=%s is not understood: use 1 or 0", name, value);
    return TAAL_EINVAL;
}

static int choose_clock(taal_loop *loop, taal_clock clock)
{
    if (clock != TAAL_CLOCK_FROM_ENV) {
        loop->virtual_clock = clock == TAAL_CLOCK_VIRTUAL;
        return TAAL_OK;
    }
    const char *value = getenv("TAAL_CLOCK");
    if (value == NULL || value[0] == '\0' || strcmp(value, "monotonic") == 0) {
        loop->virtual_clock = false;
        return TAAL_OK;
    }
    if (strcmp(value, "virtual") == 0) {
        loop->virtual_clock = true;
        return TAAL_OK;
    }
    taal__report(loop, TAAL_REPORT_MISUSE, NULL, TAAL_EINVAL,
                 "TAAL_CLOCK=%s is not a clock: use \"virtual\" or \"monotonic\"", value);
    return TAAL_EINVAL;
}

static int choose_debug(taal_loop *loop, const taal_loop_options *options)
{
    if (options->debug == TAAL_FROM_ENV) {
        int rc = env_flag(loop, "TAAL_DEBUG", &loop->debug);
        if (rc != TAAL_OK)
            return rc;
    } else {
        loop->debug = options->debug == TAAL_ON;
    }
    double slow = options->slow_step > 0 ? options->slow_step : 0.1;
    return taal__delay_ns(slow, &loop->slow_step);
}

int taal_loop_init(taal_loop *loop, const taal_loop_options *options)
{
    taal_loop_options defaults = {0};
    if (options == NULL)
        options = &defaults;
    if (loop == NULL || options->clock > TAAL_CLOCK_VIRTUAL || options->debug > TAAL_ON)
        return TAAL_EINVAL;
    memset(loop, 0, sizeof *loop);
    for (int level = 0; level < TAAL_PRIORITY_LEVELS; level++)
        list_init(&loop->ready[level]);
    list_init(&loop->batch);
    list_init(&loop->held_locks);
    list_init(&loop->objects);
    list_init(&loop->rings);
    list_init(&loop->scopes);
    loop->aging = options->aging;
    loop->report = options->report ? options->report : report_to_stderr;
    loop->report_ctx = options->report_ctx;
    if (choose_clock(loop, options->clock) != TAAL_OK ||
        choose_debug(loop, options) != TAAL_OK)
        return TAAL_EINVAL;
    loop->now = loop->virtual_clock ? 0 : taal__monotonic_ns();
    loop->start = loop->now;
    loop->id = ++last_loop_id;
    loop->next_task_id = 1;
    taal__io_init(loop, options->io_interval); /* chapter 07 */
    const char *trace = options->trace != NULL ? options->trace : getenv("TAAL_TRACE");
    if (trace != NULL && trace[0] != '\0')
        loop->trace = taal__trace_open(loop, trace);
    return TAAL_OK;
}

/* ---- one iteration ------------------------------------------------------------ */

/* Nothing is ready and no timer is set: no callback will ever run again,
 * so whoever waits, waits forever. CPython hangs here; taal says who waits
 * for what, so that the bug can be found. */
static void report_deadlock(taal_loop *loop)
{
    taal__report(loop, TAAL_REPORT_DEADLOCK, NULL, TAAL_EDEADLOCK,
                 "deadlock: nothing is ready and no timer is set, "
                 "so nothing can wake what waits");
    for (taal_link *l = loop->objects.next; l != &loop->objects; l = l->next) {
        taal_future *future = TAAL_CONTAINER_OF(l, taal_future, u.node);
        if (future->kind != TAAL_FUTURE_TASK || taal_future_done(future))
            continue;
        taal_task *task = (taal_task *)future;
        taal_future *on = taal__task_waiting_on(task);
        if (on == NULL)
            continue;
        char name[96], what[128];
        taal__task_describe(task, name, sizeof name);
        taal__future_describe(on, what, sizeof what);
        taal__report(loop, TAAL_REPORT_WAITS_FOR, future, TAAL_OK, "  %s waits for %s",
                     name, what);
    }
}

/* With tracing on, a plain callback's run is recorded with its duration. */
static void run_traced(taal_loop *loop, taal_handle *handle)
{
    int64_t began = taal__now(loop);
    taal__handle_run(handle);
    taal__trace_callback(loop, began);
}

/*
** One iteration of the loop, asyncio's _run_once:
**
**   1. If nothing is ready, block until the earliest timer is due (in the
**      kernel, or by jumping the virtual clock). With no timer either,
**      nothing can ever become ready: report a deadlock instead of hanging.
**      Chapter 07: while a watcher wants an event, the kernel's poller is
**      where the loop blocks, and the descriptors that became ready move
**      their callbacks to the ready queue. While work is ready, the loop
**      polls with a zero timeout once every io_interval iterations only.
**      Chapter 08: first, small writes held back leave, if the loop is
**      about to poll or wait, or they have waited TAAL__HOLD_ROUNDS
**      iterations (held_due()).
**   2. Move every timer that is due to the ready queue, earliest first,
**      each to the FIFO of its priority.
**   3. Pick the priority to run: the highest with work, or one that aging
**      says has waited long enough.
**   4. Run the callbacks that are ready now at that priority, and only
**      those: anything they schedule runs in a later iteration, so a
**      callback that keeps re-scheduling itself cannot starve the timers.
**      With no priorities set, everything is at priority 0, and this is
**      chapter 03's loop exactly.
*/
/*
** Chapter 08: does what streams hold back leave now? Before the loop polls
** or waits: the peer then has every byte before this loop looks for its
** answer, or sleeps. And, however busy the loop is and at whatever
** priority, at the start of the TAAL__HOLD_ROUNDS-th iteration after the
** one that held the first of them.
*/
static bool held_due(taal_loop *loop, int top)
{
    if (top < 0 || (loop->io_wanted > 0 && loop->io_ticks + 1 >= loop->io_interval))
        return true;
    return ++loop->held_rounds >= TAAL__HOLD_ROUNDS;
}

TAAL__ALWAYS_INLINE static inline int run_once(taal_loop *loop)
{
    /* 1. Wait (and, chapter 07, poll for I/O), after sending what is held. */
    int top = highest_ready(loop);
    if (loop->holding > 0 && held_due(loop, top)) {
        taal__streams_send_held(loop);
        top = highest_ready(loop); /* a send that failed woke its writer */
    }
    if (top < 0 && !loop->stopping) {
        if (loop->heap_len == 0 && loop->io_wanted == 0) {
            report_deadlock(loop);
            return TAAL_EDEADLOCK;
        }
        if (loop->io_wanted == 0)
            sleep_until(loop, loop->heap[0].deadline);
        else if (taal__io_wait(loop, loop->heap_len ? loop->heap[0].deadline : INT64_MAX))
            top = highest_ready(loop);
    } else if (loop->io_wanted > 0 && ++loop->io_ticks >= loop->io_interval) {
        if (taal__io_poll(loop, 0))
            top = highest_ready(loop);
    }

    /* 2. Due timers. The clock is read only if a timer is armed. */
    if (loop->heap_len > 0) {
        int64_t now = taal__now(loop);
        bool moved = false;
        while (loop->heap_len > 0 && loop->heap[0].deadline <= now) {
            taal_timer *timer = loop->heap[0].timer;
            heap_remove(loop, 0);
            timer->handle.armed = false;
            taal__ready_push(loop, &timer->handle);
            moved = true;
        }
        if (moved)
            top = highest_ready(loop); /* a timer may have brought a higher one */
    }

    /* 3. Pick the priority to run, and 4. run what was ready at it. */
    int level = loop->aging == 0 ? top : pick_level(loop, top); /* ch. 08: no call */
    if (level < 0)
        return TAAL_OK; /* stopping, and nothing was ready */
    list_splice_back(&loop->batch, &loop->ready[level]);
    loop->ready_levels &= ~(UINT32_C(1) << level); /* that FIFO is empty now */
    while (!list_empty(&loop->batch)) {
        taal_link *link = loop->batch.next;
        link->prev->next = link->next; /* link_remove(), known to be linked */
        link->next->prev = link->prev;
        link->prev = link->next = NULL;
        taal_handle *handle = TAAL_CONTAINER_OF(link, taal_handle, link);
        if (loop->trace == NULL || taal__is_task_step(handle))
            taal__handle_run(handle);
        else
            run_traced(loop, handle);
    }
    return TAAL_OK;
}

static int enter(taal_loop *loop)
{
    if (loop == NULL)
        return TAAL_EINVAL;
    if (loop->closed || loop->closing)
        return TAAL_ECLOSED;
    if (loop->running || taal__running_loop != NULL)
        return TAAL_EBUSY;
    loop->running = true;
    taal__running_loop = loop;
    return TAAL_OK;
}

static void leave(taal_loop *loop)
{
    if (loop->holding > 0) /* chapter 08: the program gets every byte out */
        taal__streams_send_held(loop);
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
    loop->forever = !loop->stopping; /* a stop asked for before: one iteration */
    do {
        rc = run_once(loop);
    } while (rc == TAAL_OK && !loop->stopping);
    loop->forever = false;
    leave(loop);
    return rc;
}

int taal_stop(taal_loop *loop)
{
    if (loop == NULL)
        return TAAL_EINVAL;
    if (loop->closed)
        return TAAL_ECLOSED;
    loop->stopping = true;
    loop->forever = false; /* chapter 08: no step runs again without an iteration */
    return TAAL_OK;
}

static void stop_when_done(taal_future *future, void *loop)
{
    (void)future;
    taal_stop(loop);
}

int taal_run_until_complete(taal_loop *loop, taal_future *future)
{
    if (loop == NULL || !taal__future_valid(future) ||
        future->kind == TAAL_FUTURE_WAITERS)
        return TAAL_EINVAL;
    if (loop->closed || loop->closing || future->loop == NULL)
        return TAAL_ECLOSED;
    if (future->loop != loop)
        return TAAL_ELOOP;
    if (loop->running)
        return TAAL_EBUSY;
    /* Even for a future that is done, the loop runs one iteration, as
     * asyncio's does: the stopper is scheduled with call_soon either way.
     * Our own reference keeps the future readable after the stopper ran,
     * even if someone releases it meanwhile. */
    taal_handle stopper = {0};
    taal__future_retain(future);
    taal_future_add_done_callback(future, &stopper, stop_when_done, loop);
    int rc = taal_run_forever(loop);
    taal_future_remove_done_callback(future, &stopper);
    if (rc == TAAL_OK)
        rc = taal_future_done(future) ? taal__future_retrieve(future) : TAAL_ESTOPPED;
    taal__future_unref(future);
    return rc;
}

/* ---- closing ------------------------------------------------------------------ */

static void report_pending_tasks(taal_loop *loop)
{
    for (taal_link *l = loop->objects.next; l != &loop->objects; l = l->next) {
        taal_future *future = TAAL_CONTAINER_OF(l, taal_future, u.node);
        if (future->kind == TAAL_FUTURE_TASK && !taal_future_done(future)) {
            char name[96];
            taal__task_describe((taal_task *)future, name, sizeof name);
            taal__report(loop, TAAL_REPORT_PENDING_AT_CLOSE, future, TAAL_OK,
                         "task %s was still pending when the loop closed", name);
            taal__coros_check((taal_task *)future); /* its frame goes too */
        }
    }
}

/* While `keep` is being built, a kept future's refs count its holders. */
static void keep_child(taal_future *child, void *keep)
{
    taal_future *kept = taal__future_keeper(child); /* a plain one: its frame's task */
    if (kept != NULL && kept->refs++ == 0) {
        link_remove(&kept->u.node);
        list_push_back(keep, &kept->u.node);
    }
}

/*
** What code outside the loop still holds survives the close: every future
** made while the loop was not running and not released yet, and whatever a
** surviving gather or wait holds (so that its results stay readable).
** Their reference counts are counted afresh, since every reference the
** loop's own lists held is gone: one for the program, one per surviving
** holder. The rest stays in loop->objects, to be freed.
*/
static void keep_what_the_program_holds(taal_loop *loop, taal_link *keep)
{
    taal_link *l, *next;
    for (l = loop->objects.next; l != &loop->objects; l = l->next)
        TAAL_CONTAINER_OF(l, taal_future, u.node)->refs = 0;
    for (l = loop->objects.next; l != &loop->objects; l = next) {
        next = l->next;
        taal_future *future = TAAL_CONTAINER_OF(l, taal_future, u.node);
        if (!future->released && future->outside) {
            future->refs = 1;
            link_remove(l);
            list_push_back(keep, l);
        }
    }
    /* Breadth first: holders appended to `keep` are visited in turn. */
    for (l = keep->next; l != keep; l = l->next)
        taal__future_for_each_child(TAAL_CONTAINER_OF(l, taal_future, u.node), keep_child,
                                    keep);
}

/* Handles of the caller's that are still queued (call_soon, due timers,
 * done-callbacks whose future is done) and timers still armed are simply
 * forgotten: their storage is the caller's. */
static void forget_list(taal_link *list)
{
    while (!list_empty(list)) {
        taal_handle *handle = TAAL_CONTAINER_OF(list->next, taal_handle, link);
        link_remove(&handle->link);
        handle->future = NULL;
    }
}

static void forget_callers_handles(taal_loop *loop)
{
    for (int level = 0; level < TAAL_PRIORITY_LEVELS; level++)
        forget_list(&loop->ready[level]);
    loop->ready_levels = 0;
    list_init(&loop->held_locks); /* locks of freed frames: forget them */
    for (uint32_t i = 0; i < loop->heap_len; i++) {
        loop->heap[i].timer->index = 0;
        loop->heap[i].timer->handle.armed = false;
    }
    taal__free(loop->heap);
    loop->heap = NULL;
    loop->heap_len = loop->heap_cap = 0;
}

/*
** Closing, in order:
**   1. report every task still pending;
**   2. take every task, gather and wait off every list, so that no list
**      points into memory about to be freed and nothing can run again;
**      then forget the caller's handles and timers, and the open scopes
**      (any of them may live in a frame that step 3 frees), emptying the
**      ready queue before freeing anything;
**   3. keep what the program still holds, inert (see taal_loop_close()
**      in taal.h), and free the rest (reporting errors nobody retrieved);
**   4. free the loop's own memory: the timer heap, the free lists, the
**      trace.
** A report function that tries to close the loop again finds it closing.
*/
int taal_loop_close(taal_loop *loop)
{
    if (loop == NULL)
        return TAAL_EINVAL;
    if (loop->running || loop->closing)
        return TAAL_EBUSY;
    if (loop->closed)
        return TAAL_OK;
    loop->closing = true;

    report_pending_tasks(loop);
    taal_link *l;
    for (l = loop->objects.next; l != &loop->objects; l = l->next)
        taal__future_unhook(TAAL_CONTAINER_OF(l, taal_future, u.node));
    /* The caller's handles and timers, and the open scopes, may be in the
     * frames of tasks about to be freed: forget them first. The ready
     * queue goes first of all, before anything is freed: a handle in it
     * may live in what the next steps free (the callback of a task
     * group's slot, or of a server's stream, whose child has finished).
     * Chapter 07: streams and servers are closed and freed, watchers
     * forgotten. */
    forget_callers_handles(loop);
    taal__io_close(loop);
    taal__scopes_forget(loop);

    taal_link keep;
    list_init(&keep);
    keep_what_the_program_holds(loop, &keep);
    /* Every report before any free: a report may name another future of
     * the list (a shield names its inner one), which must still be there. */
    for (l = loop->objects.next; l != &loop->objects; l = l->next)
        taal__future_report_unretrieved(TAAL_CONTAINER_OF(l, taal_future, u.node));
    while (!list_empty(&loop->objects)) {
        l = loop->objects.next;
        link_remove(l);
        taal__future_destroy(TAAL_CONTAINER_OF(l, taal_future, u.node));
    }
    while (!list_empty(&keep)) {
        l = keep.next;
        link_remove(l);
        taal_future *future = TAAL_CONTAINER_OF(l, taal_future, u.node);
        if (future->kind == TAAL_FUTURE_TASK)
            taal__task_keep((taal_task *)future); /* and its slab chunk */
        taal__future_orphan(future);
    }

    taal__slab_close(loop);
    taal__queue_rings_free(loop);
    if (loop->trace != NULL)
        taal__trace_close(loop);
    loop->closing = false;
    loop->closed = true;
    return TAAL_OK;
}

/* ---- debugging --------------------------------------------------------------- */

static void describe_state(taal_loop *loop, const taal_task *task, char *buf, size_t size)
{
    taal_future *on = taal__task_waiting_on(task);
    const char *cancel = task->cancel != TAAL_CANCEL_NONE ? ", being cancelled" : "";
    if (taal_future_done(&task->future))
        snprintf(buf, size, "done: %s", taal_strerror(task->future.status));
    else if (loop->current == task)
        snprintf(buf, size, "running%s", cancel);
    else if (task->step.index != 0)
        snprintf(buf, size, "sleeping until %.3f s",
                 (double)(loop->heap[task->step.index - 1].deadline - loop->start) / 1e9);
    else if (on != NULL) {
        char what[128];
        taal__future_describe(on, what, sizeof what);
        snprintf(buf, size, "waiting for %s%s", what, cancel);
    } else
        snprintf(buf, size, "ready%s", cancel);
}

int taal_loop_dump(taal_loop *loop)
{
    if (loop == NULL)
        return TAAL_EINVAL;
    int count = 0;
    for (taal_link *l = loop->objects.next; l != &loop->objects; l = l->next) {
        taal_future *future = TAAL_CONTAINER_OF(l, taal_future, u.node);
        if (future->kind != TAAL_FUTURE_TASK)
            continue;
        char name[96], state[160];
        taal__task_describe((taal_task *)future, name, sizeof name);
        describe_state(loop, (taal_task *)future, state, sizeof state);
        taal__report(loop, TAAL_REPORT_DUMP, future, future->status, "%s: %s", name,
                     state);
        count++;
    }
    return count;
}
