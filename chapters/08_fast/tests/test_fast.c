/*
** test_fast.c -- chapter 08: what its optimisations must not change. The
** earlier chapters' tests (the forward matrix) check the API; these check
** the new insides where the old tests could miss a mistake: the 4-ary
** timer heap on many timers with ties and removals anywhere, and the ready
** queue's level map at every priority.
*/
#include "taal.h"
#include "taal_check.h"

#include <stdint.h>

enum { TIMERS = 3000 };

typedef struct fired {
    int count;
    int order[TIMERS]; /* which timer fired n-th */
} fired;

static fired log_;
static int deadline_of[TIMERS]; /* in ms: few distinct values, so many ties */

static void note(void *data)
{
    log_.order[log_.count++] = (int)(intptr_t)data;
}

/* A seeded generator, so that every run tests the same heap. */
static uint32_t next_random(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

static void open_virtual(taal_loop *loop)
{
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL};
    CHECK_EQ(taal_loop_init(loop, &options), TAAL_OK);
}

/* Every timer fires once, by (deadline, arming order), however the heap was
 * built and whichever entries were taken out of it: the first, the last,
 * a leaf, an inner entry with four children, one whose filler must move up. */
TEST(timers_fire_by_deadline_then_arming_order_after_removals_anywhere)
{
    static taal_timer timers[TIMERS];
    static bool stopped[TIMERS];
    taal_loop loop;
    open_virtual(&loop);
    uint32_t state = 8;
    log_.count = 0;
    for (int i = 0; i < TIMERS; i++) {
        timers[i] = (taal_timer){0};
        stopped[i] = false;
        deadline_of[i] = (int)(next_random(&state) % 50);
        CHECK_EQ(taal_timer_start(&loop, &timers[i], deadline_of[i] / 1000.0, note,
                                  (void *)(intptr_t)i),
                 TAAL_OK);
    }
    CHECK_EQ(loop.heap_len, TIMERS);
    /* Stop a third of them, at random places in the heap. */
    int kept = TIMERS;
    for (int n = 0; n < TIMERS / 3; n++) {
        int i = (int)(next_random(&state) % TIMERS);
        if (stopped[i])
            continue;
        CHECK_EQ(taal_timer_stop(&loop, &timers[i]), TAAL_OK);
        CHECK_EQ(timers[i].index, 0);
        stopped[i] = true;
        kept--;
    }
    CHECK_EQ(loop.heap_len, (uint32_t)kept);
    /* Every entry's index points back at it, and no entry is earlier than
     * its parent (children of i: 4i+1..4i+4). */
    for (uint32_t i = 0; i < loop.heap_len; i++) {
        CHECK_EQ(loop.heap[i].timer->index, i + 1);
        if (i > 0) {
            const taal_heap_entry *parent = &loop.heap[(i - 1) / 4], *e = &loop.heap[i];
            CHECK(parent->deadline < e->deadline ||
                  (parent->deadline == e->deadline && parent->seq < e->seq));
        }
    }
    while (loop.heap_len > 0)
        CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_EQ(log_.count, kept);
    for (int n = 1; n < log_.count; n++) {
        int a = log_.order[n - 1], b = log_.order[n];
        CHECK(!stopped[b]);
        CHECK(deadline_of[a] < deadline_of[b] ||
              (deadline_of[a] == deadline_of[b] && a < b));
    }
    taal_loop_close(&loop);
}

static char ran[64];
static size_t ran_len;

static void note_level(void *data)
{
    ran[ran_len++] = *(const char *)data;
}

/* The highest priority with work runs first, at each of the 32 levels: the
 * level map's highest bit (count-leading-zeros, or the C11 search) finds
 * every one of them, the lowest and the highest included. */
TEST(every_priority_level_runs_highest_first)
{
    static const char labels[] = "abcdefghijklmnopqrstuvwxyzABCDEF"; /* 32 */
    taal_loop loop;
    open_virtual(&loop);
    taal_handle handles[32] = {0};
    ran_len = 0;
    for (int p = TAAL_PRIORITY_MIN; p <= TAAL_PRIORITY_MAX; p++) {
        int i = p - TAAL_PRIORITY_MIN;
        CHECK_EQ(taal_handle_set_priority(&handles[i], p), TAAL_OK);
        CHECK_EQ(taal_call_soon(&loop, &handles[i], note_level, (void *)&labels[i]),
                 TAAL_OK);
    }
    /* One level per iteration, the highest first. */
    for (int n = 0; n < 32; n++)
        CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    ran[ran_len] = '\0';
    CHECK_STR(ran, "FEDCBAzyxwvutsrqponmlkjihgfedcba");
    taal_loop_close(&loop);
}

static const taal_test tests[] = {
    TEST_ENTRY(timers_fire_by_deadline_then_arming_order_after_removals_anywhere),
    TEST_ENTRY(every_priority_level_runs_highest_first),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
