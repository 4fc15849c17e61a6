/*
** test_fast_mem.c -- chapter 08: task memory. Task blocks come from a
** per-loop slab (chunks of blocks with no allocator's header between
** them), and the task's header is smaller (where a task was created is
** kept after its frame, in debug mode only; the head of its list of
** coroutines is its own coroutine's link). What must not change: a spawn
** that finds no memory fails cleanly, a task the program holds outlives
** its loop's close, blocks go back in any order and are used again, frames
** too big for the slab still work, and debug mode still says where a task
** was created.
*/
#include "taal.h"
#include "taal_check.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Under AddressSanitizer the slab leaves a poisoned gap of 16 bytes after
 * each block (src/slab.c), as malloc()'s red zones did. */
#if defined(__SANITIZE_ADDRESS__)
#define SLAB_GAP 16
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLAB_GAP 16
#endif
#endif
#if !defined(SLAB_GAP)
#define SLAB_GAP 0
#endif

static const taal_allocator counting = {taal_check_malloc, taal_check_realloc,
                                        taal_check_free};

/* A task that ends at once, and one with a frame too big for the slab. */
typedef struct quick {
    taal_coro co;
    int value;
} quick;

static int ended; /* quick tasks that ran to their end */

static int quick_body(taal_coro *self)
{
    quick *f = (quick *)self;
    TAAL_BEGIN(f);
    ended++;
    TAAL_END();
}

typedef struct big {
    taal_coro co;
    size_t n;                  /* the bytes of `bytes` in this task's frame */
    unsigned char bytes[4000]; /* more than the largest size class (1024) */
} big;

static int big_sum;

static int big_body(taal_coro *self)
{
    big *f = (big *)self;
    TAAL_BEGIN(f);
    for (size_t i = 0; i < f->n; i++)
        big_sum += f->bytes[i];
    TAAL_END();
}

/* A task that waits on a future nobody completes: pending at the close. */
typedef struct parked {
    taal_coro co;
    taal_future never;
} parked;

static int parked_body(taal_coro *self)
{
    parked *f = (parked *)self;
    TAAL_BEGIN(f);
    taal_future_init(&f->never, taal_running_loop());
    TAAL_AWAIT_FUTURE(&f->never);
    TAAL_END();
}

static char last_report[256];
static int reports;

static void note_report(void *ctx, const taal_report *report)
{
    (void)ctx;
    snprintf(last_report, sizeof last_report, "%s", report->message);
    reports++;
}

static void open_loop(taal_loop *loop, bool debug)
{
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL,
                                 .debug = debug ? TAAL_ON : TAAL_OFF,
                                 .report = note_report};
    CHECK_EQ(taal_loop_init(loop, &options), TAAL_OK);
}

static bool anything_ready(const taal_loop *loop)
{
    for (int level = 0; level < TAAL_PRIORITY_LEVELS; level++)
        if (loop->ready[level].next != &loop->ready[level])
            return true;
    return false;
}

/* Runs until nothing is ready. */
static void run_all(taal_loop *loop)
{
    for (int i = 0; i < 100 && anything_ready(loop); i++)
        CHECK_EQ(taal_run_once(loop), TAAL_OK);
}

/* The header lost two pointers, and blocks lie side by side in a chunk:
 * two tasks made one after the other are one block apart, no allocator's
 * header between them. */
TEST(the_header_is_144_bytes_and_blocks_lie_side_by_side)
{
    taal_loop loop;
    open_loop(&loop, false);
    taal_task *a = NULL, *b = NULL;
    CHECK_EQ(taal_task_create(&loop, quick_body, NULL, sizeof(quick), NULL, &a), TAAL_OK);
    CHECK_EQ(taal_task_create(&loop, quick_body, NULL, sizeof(quick), NULL, &b), TAAL_OK);
    /* The figures of 64-bit machines, where the frame is 16-aligned (on
     * others the header is rounded to their own strictest alignment). */
    if (sizeof(void *) == 8) {
        CHECK_EQ(sizeof(taal_task), 144);
        size_t block = (sizeof(taal_task) + sizeof(quick) + 15) / 16 * 16 + SLAB_GAP;
        CHECK_EQ((uintptr_t)b - (uintptr_t)a, (uintptr_t)block);
        CHECK_EQ((uintptr_t)taal_task_frame(a) % 16, 0);
        CHECK_EQ((uintptr_t)taal_task_frame(b) % 16, 0);
    }
    taal_task_release(a);
    taal_task_release(b);
    taal_loop_close(&loop);
}

/* Dozens of spawns cost one allocation, the chunk; once they have ended,
 * the same number again costs none: the chunk is refilled from its blocks
 * on the free list, and the close frees it. */
TEST(a_chunk_s_worth_of_spawns_is_one_allocation_and_is_refilled_without_one)
{
    CHECK_EQ(taal_set_allocator(&counting), TAAL_OK);
    taal_check_alloc_reset(0);
    taal_loop loop;
    open_loop(&loop, false);
    ended = 0;
    long before = taal_check_alloc.allocs;
    for (int i = 0; i < 40; i++)
        CHECK_EQ(taal_task_create(&loop, quick_body, NULL, sizeof(quick), NULL, NULL),
                 TAAL_OK);
    CHECK_EQ(taal_check_alloc.allocs - before, 1);
    run_all(&loop);
    CHECK_EQ(ended, 40);
    before = taal_check_alloc.allocs;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 40; i++)
            CHECK_EQ(taal_task_create(&loop, quick_body, NULL, sizeof(quick), NULL, NULL),
                     TAAL_OK);
        run_all(&loop);
    }
    CHECK_EQ(ended, 160);
    CHECK_EQ(taal_check_alloc.allocs - before, 0);
    taal_loop_close(&loop);
    CHECK_EQ(taal_check_alloc_live(), 0);
    taal_set_allocator(NULL);
}

/* Each allocation of 300 spawns fails in turn (the first chunk, a chunk in
 * the middle of the spawns, the ready queue's...): the spawn that needed it
 * says TAAL_ENOMEM and nothing else changes, every task made runs to its
 * end, and the close leaves nothing allocated. */
TEST(out_of_memory_in_the_middle_of_the_spawns_is_a_clean_enomem)
{
    CHECK_EQ(taal_set_allocator(&counting), TAAL_OK);
    int failures = 0;
    for (long n = 1; n < 40; n++) {
        taal_check_alloc_reset(n);
        taal_loop loop;
        open_loop(&loop, false);
        ended = 0;
        int made = 0, refused = 0, first_refused = -1;
        for (int i = 0; i < 300; i++) {
            int rc = taal_task_create(&loop, quick_body, NULL, sizeof(quick), NULL, NULL);
            if (rc == TAAL_OK) {
                made++;
            } else {
                CHECK_EQ(rc, TAAL_ENOMEM);
                if (first_refused < 0)
                    first_refused = i;
                refused++;
            }
        }
        run_all(&loop);
        CHECK_EQ(ended, made);
        taal_loop_close(&loop);
        CHECK_EQ(taal_check_alloc_live(), 0);
        if (taal_check_alloc.attempts < n) { /* the failure was never reached */
            CHECK_EQ(refused, 0);
            break;
        }
        /* One allocation failed: one spawn, the one that needed a chunk. */
        CHECK_EQ(refused, 1);
        if (n > 1)
            CHECK(first_refused > 0); /* a later chunk: in the middle */
        failures++;
    }
    CHECK(failures >= 3); /* 300 tasks of 208 bytes: 4 chunks of 78 */
    taal_set_allocator(NULL);
}

/* Tasks the program holds outlive the close: done ones and pending ones,
 * in the slab and too big for it. Their chunk stays until the last of its
 * tasks is released, in any order; nothing is left after. */
TEST(closing_with_tasks_still_held_keeps_their_chunk_until_the_last_release)
{
    CHECK_EQ(taal_set_allocator(&counting), TAAL_OK);
    taal_check_alloc_reset(0);
    taal_loop loop;
    open_loop(&loop, false);
    taal_task *done1 = NULL, *done2 = NULL, *pending = NULL, *large = NULL;
    CHECK_EQ(taal_task_create(&loop, quick_body, &(quick){.value = 1}, sizeof(quick),
                              NULL, &done1),
             TAAL_OK);
    CHECK_EQ(taal_task_create(&loop, quick_body, NULL, sizeof(quick), NULL, &done2),
             TAAL_OK);
    CHECK_EQ(taal_task_create(&loop, parked_body, NULL, sizeof(parked), NULL, &pending),
             TAAL_OK);
    CHECK_EQ(taal_task_create(&loop, big_body, NULL, sizeof(big), NULL, &large), TAAL_OK);
    for (int i = 0; i < 60; i++) /* fire and forget: freed by the close */
        CHECK_EQ(taal_task_create(&loop, quick_body, NULL, sizeof(quick), NULL, NULL),
                 TAAL_OK);
    run_all(&loop);
    CHECK(taal_future_done(taal_task_future(done1)));
    CHECK(!taal_future_done(taal_task_future(pending)));
    reports = 0;
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
    CHECK_EQ(reports, 1); /* the pending one */
    /* Still readable after the close. */
    CHECK_EQ(((quick *)taal_task_frame(done1))->value, 1);
    CHECK_EQ(taal_future_status(taal_task_future(done2)), TAAL_OK);
    CHECK_EQ(taal_future_status(taal_task_future(pending)), TAAL_SUSPENDED); /* inert */
    /* Left: the chunk of done1 and done2, the chunk of the pending one (a
     * bigger frame: another class) and the big block. */
    CHECK_EQ(taal_check_alloc_live(), 3);
    taal_task_release(large);
    taal_task_release(done2);
    CHECK_EQ(taal_check_alloc_live(), 2); /* done1 still holds its chunk */
    CHECK_EQ(((quick *)taal_task_frame(done1))->value, 1);
    taal_task_release(pending);
    CHECK_EQ(taal_check_alloc_live(), 1);
    taal_task_release(done1);
    CHECK_EQ(taal_check_alloc_live(), 0);
    taal_set_allocator(NULL);
}

/* 300 tasks held through the close, four chunks of them: each chunk goes
 * with the last of its tasks, whatever chunk the close found first, and
 * every frame stays as it was until its task is released. */
TEST(many_tasks_held_through_the_close_free_each_chunk_with_its_last)
{
    enum { HELD = 300 };
    static taal_task *held[HELD];
    CHECK_EQ(taal_set_allocator(&counting), TAAL_OK);
    taal_check_alloc_reset(0);
    taal_loop loop;
    open_loop(&loop, false);
    for (int i = 0; i < HELD; i++)
        CHECK_EQ(taal_task_create(&loop, quick_body, &(quick){.value = i}, sizeof(quick),
                                  NULL, &held[i]),
                 TAAL_OK);
    long chunks = taal_check_alloc.allocs;
    CHECK(chunks >= 2);
    run_all(&loop);
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
    CHECK_EQ(taal_check_alloc_live(), chunks);
    /* The odd ones first, then the even ones from the last: the first
     * chunk's tasks are released last of all. */
    for (int i = 1; i < HELD; i += 2)
        taal_task_release(held[i]);
    CHECK_EQ(taal_check_alloc_live(), chunks);
    for (int i = HELD - 2; i >= 0; i -= 2) {
        CHECK_EQ(((quick *)taal_task_frame(held[i]))->value, i);
        taal_task_release(held[i]);
    }
    CHECK_EQ(taal_check_alloc_live(), 0);
    taal_set_allocator(NULL);
}

/* Four tasks released in each of the 24 orders: their blocks go back to
 * the free list whatever the order, and the next four tasks take the same
 * four blocks, with no allocation. */
TEST(tasks_freed_in_every_order_give_their_blocks_back)
{
    CHECK_EQ(taal_set_allocator(&counting), TAAL_OK);
    taal_check_alloc_reset(0);
    taal_loop loop;
    open_loop(&loop, false);
    taal_task *t[4];
    for (int i = 0; i < 4; i++)
        CHECK_EQ(taal_task_create(&loop, quick_body, NULL, sizeof(quick), NULL, &t[i]),
                 TAAL_OK);
    uintptr_t blocks[4];
    for (int i = 0; i < 4; i++)
        blocks[i] = (uintptr_t)t[i];
    long allocs = taal_check_alloc.allocs;
    int orders = 0;
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 4; c++) {
                int d = 6 - a - b - c;
                if (a == b || a == c || b == c || d < 0 || d > 3 || d == a || d == b ||
                    d == c)
                    continue;
                run_all(&loop);
                int order[4] = {a, b, c, d};
                uintptr_t last = (uintptr_t)t[d];
                for (int i = 0; i < 4; i++)
                    taal_task_release(t[order[i]]);
                for (int i = 0; i < 4; i++) {
                    CHECK_EQ(taal_task_create(&loop, quick_body, NULL, sizeof(quick),
                                              NULL, &t[i]),
                             TAAL_OK);
                    int found = 0;
                    for (int j = 0; j < 4; j++)
                        found += (uintptr_t)t[i] == blocks[j];
                    CHECK_EQ(found, 1);
                }
                /* The last released is the first taken: a LIFO free list. */
                CHECK_EQ((uintptr_t)t[0], last);
                orders++;
            }
    CHECK_EQ(orders, 24);
    CHECK_EQ(taal_check_alloc.allocs, allocs);
    for (int i = 0; i < 4; i++)
        taal_task_release(t[i]);
    taal_loop_close(&loop);
    CHECK_EQ(taal_check_alloc_live(), 0);
    taal_set_allocator(NULL);
}

/* A frame too big for every size class is allocated on its own, works as
 * any other (its copy, its step), and is freed when released; the largest
 * frame that fits a class and the smallest that does not both work. */
TEST(frames_too_big_for_the_slab_still_work)
{
    CHECK_EQ(taal_set_allocator(&counting), TAAL_OK);
    taal_check_alloc_reset(0);
    taal_loop loop;
    open_loop(&loop, false);
    static big frame;
    for (size_t i = 0; i < sizeof frame.bytes; i++)
        frame.bytes[i] = (unsigned char)(i % 7);
    frame.n = sizeof frame.bytes;
    int expected = 0;
    for (size_t i = 0; i < sizeof frame.bytes; i++)
        expected += frame.bytes[i];
    big_sum = 0;
    long live = taal_check_alloc_live();
    taal_task *t = NULL;
    CHECK_EQ(taal_task_create(&loop, big_body, &frame, sizeof frame, NULL, &t), TAAL_OK);
    CHECK_EQ(taal_check_alloc_live(), live + 1);
    run_all(&loop);
    CHECK_EQ(big_sum, expected);
    taal_task_release(t);
    CHECK_EQ(taal_check_alloc_live(), live); /* freed at once, not kept */
    /* Around the largest class, 64 * 16 = 1024 bytes with the header. */
    size_t largest = TAAL_POOL_CLASSES * 16 - sizeof(taal_task);
    for (size_t size = largest - 16; size <= largest + 16; size += 8) {
        frame.n = size - offsetof(big, bytes);
        expected = 0;
        for (size_t i = 0; i < frame.n; i++)
            expected += frame.bytes[i];
        big_sum = 0;
        CHECK_EQ(taal_task_create(&loop, big_body, &frame, size, NULL, &t), TAAL_OK);
        run_all(&loop);
        CHECK_EQ(big_sum, expected); /* its frame, all of it, copied */
        taal_task_release(t);
    }
    taal_loop_close(&loop);
    CHECK_EQ(taal_check_alloc_live(), 0);
    taal_set_allocator(NULL);
}

/* Where a task was created is kept after its frame in debug mode, and
 * reports still name it; out of debug mode they do not, as before. A frame
 * of an odd size puts the note at an odd place: it is copied, not read in
 * place. */
TEST(debug_mode_still_says_where_a_task_was_created)
{
    for (int debug = 0; debug < 2; debug++) {
        taal_loop loop;
        open_loop(&loop, debug == 1);
        taal_task *t = NULL;
        reports = 0;
        last_report[0] = '\0';
        CHECK_EQ(
            taal_task_create(&loop, parked_body, NULL, sizeof(parked) + 3, "odd", &t),
            TAAL_OK);
        run_all(&loop);
        CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
        CHECK_EQ(reports, 1);
        if (debug)
            CHECK(strstr(last_report, "task odd (created at test_fast_mem.c:") != NULL);
        else
            CHECK(strstr(last_report, "created at") == NULL);
        CHECK(strstr(last_report, "was still pending") != NULL);
        taal_task_release(t);
    }
}

static const taal_test tests[] = {
    TEST_ENTRY(the_header_is_144_bytes_and_blocks_lie_side_by_side),
    TEST_ENTRY(a_chunk_s_worth_of_spawns_is_one_allocation_and_is_refilled_without_one),
    TEST_ENTRY(out_of_memory_in_the_middle_of_the_spawns_is_a_clean_enomem),
    TEST_ENTRY(closing_with_tasks_still_held_keeps_their_chunk_until_the_last_release),
    TEST_ENTRY(many_tasks_held_through_the_close_free_each_chunk_with_its_last),
    TEST_ENTRY(tasks_freed_in_every_order_give_their_blocks_back),
    TEST_ENTRY(frames_too_big_for_the_slab_still_work),
    TEST_ENTRY(debug_mode_still_says_where_a_task_was_created),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
