/*
** test_priority.c -- chapter 04's unit tests of priorities: the order of
** callbacks and tasks, strict priority and its starvation, the bound that
** aging puts on it, and priority inheritance on locks (raised, restored,
** nested, along a chain).
*/
#include "support.h"

/* ---- callbacks ------------------------------------------------------------------ */

TEST(higher_priorities_run_first_and_equal_ones_in_order)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    static taal_handle h[6];
    static const int priorities[6] = {0, 3, -2, 3, 0, -2};
    static const char *const labels[6] = {"a", "B", "c", "D", "e", "f"};
    for (int i = 0; i < 6; i++) {
        h[i] = (taal_handle){0};
        CHECK_EQ(taal_handle_set_priority(&h[i], priorities[i]), TAAL_OK);
        CHECK_EQ(taal_call_soon(&loop, &h[i], note_callback, (void *)labels[i]), TAAL_OK);
    }
    /* Strict priority: one priority per iteration, the highest with work. */
    taal_run_once(&loop);
    CHECK_STR(trace, "BD");
    taal_run_once(&loop);
    CHECK_STR(trace, "BDae");
    taal_run_once(&loop);
    CHECK_STR(trace, "BDaecf");
    taal_loop_close(&loop);
}

/* ---- tasks ------------------------------------------------------------------------- */

/* Notes its letter, then yields, `n` times. */
typedef struct spinner {
    taal_coro co;
    const char *letter;
    int i, n;
} spinner;

static int spinner_body(taal_coro *self)
{
    spinner *f = (spinner *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->n; f->i++) {
        note(f->letter);
        TAAL_SLEEP(0);
    }
    TAAL_END();
}

static taal_task *spawn_spinner(taal_loop *loop, const char *letter, int n, int priority)
{
    taal_task *task = NULL;
    taal_task_create(loop, spinner_body, &(spinner){.letter = letter, .n = n},
                     sizeof(spinner), letter, &task);
    taal_task_set_priority(task, priority);
    return task;
}

static bool finish(taal_loop *loop, taal_task **tasks, int n)
{
    bool ok = true;
    for (int i = 0; i < n; i++) {
        ok = ok && taal_run_until_complete(loop, taal_task_future(tasks[i])) == TAAL_OK;
        taal_task_release(tasks[i]);
    }
    return ok && loop_is_empty(loop);
}

TEST(a_task_of_higher_priority_runs_all_its_steps_first)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t[3] = {
        spawn_spinner(&loop, "l", 3, -1),
        spawn_spinner(&loop, "m", 3, 0),
        spawn_spinner(&loop, "h", 3, 1),
    };
    CHECK_EQ(taal_task_priority(t[2]), 1);
    CHECK(finish(&loop, t, 3));
    CHECK_STR(trace, "hhhmmmlll");
    taal_loop_close(&loop);
}

TEST(without_priorities_tasks_take_turns_as_in_chapter_03)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t[2] = {spawn_spinner(&loop, "a", 3, 0), spawn_spinner(&loop, "b", 3, 0)};
    CHECK(finish(&loop, t, 2));
    CHECK_STR(trace, "ababab");
    taal_loop_close(&loop);
}

/* ---- starvation and aging -----------------------------------------------------------
 */

/* How many iterations a low task waits for its first step while a high
 * task keeps the loop busy for `busy` steps. */
static int iterations_until_low_runs(unsigned aging, int busy)
{
    taal_loop loop;
    taal_loop_options options = {
        .clock = TAAL_CLOCK_VIRTUAL, .report = collect_report, .aging = aging};
    taal_loop_init(&loop, &options);
    trace[0] = '\0';
    taal_task *t[2] = {spawn_spinner(&loop, "h", busy, 5),
                       spawn_spinner(&loop, "l", 1, -5)};
    int iterations = 0;
    do { /* the trace holds one iteration's notes at a time */
        trace[0] = '\0';
        taal_run_once(&loop);
        iterations++;
    } while (strchr(trace, 'l') == NULL && iterations < 100000);
    finish(&loop, t, 2);
    taal_loop_close(&loop);
    return iterations;
}

TEST(strict_priority_starves_a_low_task_and_aging_bounds_its_wait)
{
    /* Without aging, the low task waits for every high step. */
    CHECK_EQ(iterations_until_low_runs(0, 1000), 1002); /* 1000 steps, 1 to end */
    /* With aging N, it runs within N + TAAL_PRIORITY_LEVELS iterations,
     * whatever the load above it. */
    for (unsigned aging = 1; aging <= 64; aging *= 4) {
        int waited = iterations_until_low_runs(aging, 1000);
        CHECK(waited <= (int)aging + TAAL_PRIORITY_LEVELS);
        CHECK(waited >= (int)aging); /* and not before it aged */
    }
}

/* ---- priority inheritance
 * -------------------------------------------------------------- */

/* Sleeps `start`, takes `lock` (then `inner`, if set), notes "<name>+",
 * holds them for `hold` seconds, notes "<name>-", lets go (inner first),
 * and records its priority while holding and after each release. */
typedef struct locker {
    taal_coro co;
    taal_lock *lock, *inner;
    const char *name;
    double start, hold;
    int holding, after_inner, after;
} locker;

static int locker_body(taal_coro *self)
{
    locker *f = (locker *)self;
    taal_task *me = taal_current_task();
    TAAL_BEGIN(f);
    TAAL_SLEEP(f->start);
    TAAL_LOCK(f->lock);
    if (f->inner != NULL)
        TAAL_LOCK(f->inner);
    note(f->name);
    note("+");
    TAAL_SLEEP(f->hold);
    f->holding = taal_task_priority(me);
    note(f->name);
    note("-");
    if (f->inner != NULL)
        taal_lock_release(f->inner);
    f->after_inner = taal_task_priority(me);
    taal_lock_release(f->lock);
    f->after = taal_task_priority(me);
    TAAL_END();
}

static taal_task *spawn_locker(taal_loop *loop, locker frame, int priority)
{
    taal_task *task = NULL;
    taal_task_create(loop, locker_body, &frame, sizeof frame, frame.name, &task);
    taal_task_set_priority(task, priority);
    return task;
}

/* Sleeps `start`, then notes its letter and yields, `n` times. */
typedef struct busy {
    taal_coro co;
    double start;
    int i, n;
} busy;

static int busy_body(taal_coro *self)
{
    busy *f = (busy *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(f->start);
    for (f->i = 0; f->i < f->n; f->i++) {
        note("m");
        TAAL_SLEEP(0);
    }
    TAAL_END();
}

/*
** The inversion. L (low) takes the lock and waits 0.2 s for something,
** holding it. H (high) wants the lock at 0.1 s and waits for L. At 0.2 s,
** L could finish, but M (middle), which needs no lock, starts then too and
** has four steps of work: with strict priority M runs first, and H, the
** most urgent, waits for M. With inheritance L runs at H's priority while
** H waits, so L finishes, H runs, and only then M.
*/
static int inversion(bool inherit, int *l_holding, int *l_after)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_lock lock;
    taal_lock_init(&lock, &loop, "l");
    taal_lock_set_inheritance(&lock, inherit);
    taal_task *t[3] = {
        spawn_locker(&loop, (locker){.lock = &lock, .name = "L", .hold = 0.2}, -1),
        spawn_locker(&loop, (locker){.lock = &lock, .name = "H", .start = 0.1}, 1),
    };
    taal_task_create(&loop, busy_body, &(busy){.start = 0.2, .n = 4}, sizeof(busy), "M",
                     &t[2]);
    taal_task_set_priority(t[2], 0);
    int rc = taal_run_until_complete(&loop, taal_task_future(t[1]));
    locker *l = taal_task_frame(t[0]);
    *l_holding = l->holding;
    *l_after = l->after;
    rc = rc == TAAL_OK && finish(&loop, t, 3) ? TAAL_OK : TAAL_EUSER;
    taal_lock_destroy(&lock);
    taal_loop_close(&loop);
    return rc;
}

TEST(without_inheritance_a_middle_task_keeps_a_high_one_waiting)
{
    int holding, after;
    CHECK_EQ(inversion(false, &holding, &after), TAAL_OK);
    CHECK_STR(trace, "L+mmmmL-H+H-"); /* H waited for all of M */
    CHECK_EQ(holding, -1);
}

TEST(with_inheritance_the_holder_runs_at_the_waiters_priority_until_it_lets_go)
{
    int holding, after;
    CHECK_EQ(inversion(true, &holding, &after), TAAL_OK);
    CHECK_STR(trace, "L+L-H+H-mmmm"); /* L ran at H's priority, before M */
    CHECK_EQ(holding, 1);             /* lent */
    CHECK_EQ(after, -1);              /* given back */
}

/* L holds two locks, outer then inner; M waits for the outer one, H for
 * the inner one. L runs at H's priority; when it lets the inner one go it
 * still holds the outer one, which M waits for: it runs at M's priority,
 * not its own, until it lets that one go too. */
TEST(a_task_holding_two_locks_keeps_what_the_other_still_lends_it)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_lock outer, inner;
    taal_lock_init(&outer, &loop, "outer");
    taal_lock_init(&inner, &loop, "inner");
    taal_task *t[3] = {
        spawn_locker(
            &loop, (locker){.lock = &outer, .inner = &inner, .name = "L", .hold = 1}, -3),
        spawn_locker(&loop, (locker){.lock = &outer, .name = "M", .start = 0.1}, 0),
        spawn_locker(&loop, (locker){.lock = &inner, .name = "H", .start = 0.2}, 2),
    };
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t[0])), TAAL_OK);
    locker *l = taal_task_frame(t[0]);
    CHECK_EQ(l->holding, 2);     /* H's */
    CHECK_EQ(l->after_inner, 0); /* M's: it still holds what M waits for */
    CHECK_EQ(l->after, -3);      /* its own */
    CHECK(finish(&loop, t, 3));
    CHECK_STR(trace, "L+L-H+H-M+M-");
    taal_lock_destroy(&outer);
    taal_lock_destroy(&inner);
    taal_loop_close(&loop);
}

/* A chain: Lo holds B; M holds A and waits for B; H waits for A. H's
 * priority reaches Lo through M. */
static taal_task *chain_low;
static int chain_seen;

static void probe(void *data)
{
    (void)data;
    chain_seen = taal_task_priority(chain_low);
}

TEST(a_priority_is_lent_along_a_chain_of_locks)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_lock a, b;
    taal_lock_init(&a, &loop, "a");
    taal_lock_init(&b, &loop, "b");
    taal_task *t[3] = {
        spawn_locker(&loop, (locker){.lock = &b, .name = "Lo", .hold = 1}, -5),
        spawn_locker(&loop, (locker){.lock = &a, .inner = &b, .name = "M", .start = 0.1},
                     0),
        spawn_locker(&loop, (locker){.lock = &a, .name = "H", .start = 0.2}, 5),
    };
    chain_low = t[0];
    taal_timer look = {0};
    taal_call_at(&loop, &look, 0.5, probe, NULL);
    CHECK(finish(&loop, t, 3));
    CHECK_EQ(chain_seen, 5);
    CHECK_STR(trace, "Lo+Lo-M+M-H+H-");
    taal_lock_destroy(&a);
    taal_lock_destroy(&b);
    taal_loop_close(&loop);
}

/*
** What is lent follows the waiter, down as well as up (issue 19). The
** chain of the test above, at other priorities: C (0) holds b; B (0) takes
** a, then waits for b; A (10) waits for a, and lends 10 to B and, through
** B, to C. At 0.5 s, while they all still wait, a callback changes what
** is lent, and notes B's and C's priorities before and after.
*/
typedef struct chain {
    taal_loop loop;
    taal_lock a, b;
    taal_task *t[3]; /* C, B, A */
    int before[2], after[2];
} chain;

static void chain_start(chain *c, taal_callback_fn change)
{
    open_loop(&c->loop);
    trace[0] = '\0';
    taal_lock_init(&c->a, &c->loop, "a");
    taal_lock_init(&c->b, &c->loop, "b");
    c->t[0] = spawn_locker(&c->loop, (locker){.lock = &c->b, .name = "C", .hold = 1}, 0);
    c->t[1] = spawn_locker(
        &c->loop, (locker){.lock = &c->a, .inner = &c->b, .name = "B", .start = 0.1}, 0);
    c->t[2] =
        spawn_locker(&c->loop, (locker){.lock = &c->a, .name = "A", .start = 0.2}, 10);
    static taal_timer at_half;
    at_half = (taal_timer){0};
    taal_call_at(&c->loop, &at_half, 0.5, change, c);
}

static void chain_note(chain *c, int seen[2])
{
    seen[0] = taal_task_priority(c->t[1]);
    seen[1] = taal_task_priority(c->t[0]);
}

static bool chain_finish(chain *c)
{
    bool ok = finish(&c->loop, c->t, 3);
    ok = ok && taal_lock_destroy(&c->a) == TAAL_OK && taal_lock_destroy(&c->b) == TAAL_OK;
    taal_loop_close(&c->loop);
    return ok;
}

static void lower_a(void *data)
{
    chain *c = data;
    chain_note(c, c->before);
    taal_task_set_priority(c->t[2], -5);
    chain_note(c, c->after);
}

TEST(lowering_a_waiters_priority_takes_back_what_it_lent_along_the_chain)
{
    static chain c;
    chain_start(&c, lower_a);
    CHECK(chain_finish(&c));
    CHECK_EQ(c.before[0], 10); /* B, lent by A */
    CHECK_EQ(c.before[1], 10); /* C, through B */
    CHECK_EQ(c.after[0], 0);   /* A lends -5 now: each runs at its own */
    CHECK_EQ(c.after[1], 0);
}

static void switch_a_off(void *data)
{
    chain *c = data;
    chain_note(c, c->before);
    taal_lock_set_inheritance(&c->a, false);
    chain_note(c, c->after);
    taal_lock_set_inheritance(&c->a, true);
    CHECK_EQ(taal_task_priority(c->t[0]), 10); /* lent again */
}

TEST(switching_inheritance_off_takes_back_what_the_lock_lent)
{
    static chain c;
    chain_start(&c, switch_a_off);
    CHECK(chain_finish(&c));
    CHECK_EQ(c.before[1], 10);
    CHECK_EQ(c.after[0], 0);
    CHECK_EQ(c.after[1], 0);
}

/* Another task (here a callback) releases a, which B holds while it waits
 * for b: a goes to A, B lends nothing any more, and neither does C keep
 * what it was lent through B. */
static void release_a(void *data)
{
    chain *c = data;
    chain_note(c, c->before);
    taal_lock_release(&c->a);
    chain_note(c, c->after);
}

TEST(a_waiting_holder_that_loses_its_lock_takes_back_what_it_lent_along)
{
    static chain c;
    chain_start(&c, release_a);
    CHECK(chain_finish(&c));
    CHECK_EQ(c.before[1], 10);
    CHECK_EQ(c.after[0], 0);
    CHECK_EQ(c.after[1], 0);
}

TEST(a_ready_task_whose_priority_changes_moves)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_task *t[2] = {spawn_spinner(&loop, "a", 2, 0), spawn_spinner(&loop, "b", 2, 0)};
    taal_task_set_priority(t[1], 1); /* both ready: b moves ahead */
    CHECK(finish(&loop, t, 2));
    CHECK_STR(trace, "bbaa");
    CHECK_EQ(taal_task_set_priority(t[0] = spawn_spinner(&loop, "x", 0, 0), 16),
             TAAL_EINVAL);
    CHECK_EQ(taal_task_set_priority(NULL, 0), TAAL_EINVAL);
    CHECK(finish(&loop, t, 1));
    taal_loop_close(&loop);
}

/* Takes the lock and ends, holding it (asyncio allows that, and another
 * task's release): the lock must not keep naming the finished task, whose
 * block is freed, when it changes hands. */
typedef struct keeper {
    taal_coro co;
    taal_lock *lock;
} keeper;

static int keeper_body(taal_coro *self)
{
    keeper *f = (keeper *)self;
    TAAL_BEGIN(f);
    TAAL_LOCK(f->lock);
    TAAL_END();
}

TEST(a_lock_whose_holder_ended_holding_it_can_be_released_by_another)
{
    taal_loop loop;
    open_loop(&loop);
    trace[0] = '\0';
    taal_lock lock;
    taal_lock_init(&lock, &loop, "l");
    taal_task *k = NULL;
    taal_task_create(&loop, keeper_body, &(keeper){.lock = &lock}, sizeof(keeper), "k",
                     &k);
    CHECK(finish(&loop, &k, 1)); /* freed, the lock still locked */
    CHECK(taal_lock_locked(&lock));
    CHECK(lock.owner == NULL);
    taal_task *w = spawn_locker(&loop, (locker){.lock = &lock, .name = "w"}, 5);
    taal_run_once(&loop); /* w's sleep(0) ... */
    taal_run_once(&loop); /* ... then it waits: nobody to lend its priority to */
    CHECK_EQ(taal_lock_release(&lock), TAAL_OK); /* from outside any task */
    CHECK(lock.owner == w);
    CHECK(finish(&loop, &w, 1));
    CHECK_STR(trace, "w+w-");
    CHECK(!taal_lock_locked(&lock));
    CHECK_EQ(taal_lock_destroy(&lock), TAAL_OK);
    taal_loop_close(&loop);
}

/* TAAL_CHAPTER and TAAL_VERSION. These tests run against every later
 * chapter too: the header is chapter 04 or later, and exactly the one the
 * build says it built them against, of the CMake project's version. */
TEST(the_header_says_which_chapter_and_which_version_of_taal_it_is)
{
    CHECK(TAAL_CHAPTER >= 4);
    CHECK_EQ(TAAL_CHAPTER, TAAL_TESTED_CHAPTER);
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", TAAL_VERSION_MAJOR, TAAL_VERSION_MINOR,
             TAAL_VERSION_PATCH);
    CHECK_STR(version, TAAL_VERSION);
    CHECK_STR(TAAL_VERSION, TAAL_TESTED_VERSION);
}

static const taal_test tests[] = {
    TEST_ENTRY(higher_priorities_run_first_and_equal_ones_in_order),
    TEST_ENTRY(a_task_of_higher_priority_runs_all_its_steps_first),
    TEST_ENTRY(without_priorities_tasks_take_turns_as_in_chapter_03),
    TEST_ENTRY(strict_priority_starves_a_low_task_and_aging_bounds_its_wait),
    TEST_ENTRY(without_inheritance_a_middle_task_keeps_a_high_one_waiting),
    TEST_ENTRY(with_inheritance_the_holder_runs_at_the_waiters_priority_until_it_lets_go),
    TEST_ENTRY(a_task_holding_two_locks_keeps_what_the_other_still_lends_it),
    TEST_ENTRY(a_priority_is_lent_along_a_chain_of_locks),
    TEST_ENTRY(lowering_a_waiters_priority_takes_back_what_it_lent_along_the_chain),
    TEST_ENTRY(switching_inheritance_off_takes_back_what_the_lock_lent),
    TEST_ENTRY(a_waiting_holder_that_loses_its_lock_takes_back_what_it_lent_along),
    TEST_ENTRY(a_ready_task_whose_priority_changes_moves),
    TEST_ENTRY(a_lock_whose_holder_ended_holding_it_can_be_released_by_another),
    TEST_ENTRY(the_header_says_which_chapter_and_which_version_of_taal_it_is),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
