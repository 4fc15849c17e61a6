/*
** test_coro.c -- chapter 01's unit tests: the awaitable protocol.
**
** These tests use only chapter 01's public API, so the harness also builds
** them against every later chapter (the forward matrix).
*/
#include "custom_awaitable.h"
#include "taal.h"
#include "taal_check.h"

/* ---- the seed ---------------------------------------------------------- */

TEST(seed_awaitable_suspends_exactly_once)
{
    custom_awaitable aw;
    CHECK_EQ(custom_awaitable_init(&aw, 42), TAAL_OK);
    CHECK_EQ(taal_send(&aw.co), TAAL_SUSPENDED); /* the one yield */
    CHECK(!taal_coro_done(&aw.co));
    CHECK_EQ(aw.result, 0);               /* nothing returned yet */
    CHECK_EQ(taal_send(&aw.co), TAAL_OK); /* return self.value */
    CHECK(taal_coro_done(&aw.co));
    CHECK_EQ(aw.result, 42);
    CHECK_EQ(aw.co.status, TAAL_OK);
}

TEST(seed_use_custom_awaitable_passes_the_suspension_up)
{
    use_custom_awaitable f;
    CHECK_EQ(use_custom_awaitable_init(&f), TAAL_OK);
    CHECK_EQ(taal_send(&f.co), TAAL_SUSPENDED);
    CHECK_EQ(f.result, 0);
    CHECK_EQ(taal_send(&f.co), TAAL_OK);
    CHECK_EQ(f.result, 42);
    CHECK(taal_coro_done(&f.co));
    CHECK(taal_coro_done(&f.awaitable.co));
}

/* ---- delegation through several levels --------------------------------- */

/* A chain of frames, each awaiting the next. Every level appends its letter
 * to a shared trace, yields once, awaits the level below, then adds its own
 * number to the result and appends its letter in capitals. Here the child
 * is reached through a pointer; the seed's use_custom_awaitable shows the
 * embedded form. Either way no level allocates anything. */
enum { LEVELS = 5 };
static char trace[2 * LEVELS + 1];

typedef struct level {
    taal_coro co;
    struct level *child; /* NULL at the bottom */
    int number, result;
} level;

static void note(char c)
{
    size_t n = strlen(trace);
    trace[n] = c;
    trace[n + 1] = '\0';
}

static int level_body(taal_coro *self)
{
    level *f = (level *)self;
    TAAL_BEGIN(f);
    note((char)('a' + f->number - 1));
    TAAL_YIELD();
    f->result = f->number;
    if (f->child != NULL) {
        TAAL_AWAIT(f->child);
        f->result += f->child->result;
    }
    note((char)('A' + f->number - 1));
    TAAL_END();
}

TEST(delegation_through_five_levels)
{
    level levels[LEVELS];
    for (int i = 0; i < LEVELS; i++) {
        levels[i] =
            (level){.child = i + 1 < LEVELS ? &levels[i + 1] : NULL, .number = i + 1};
        CHECK_EQ(taal_coro_init(&levels[i].co, level_body), TAAL_OK);
    }
    trace[0] = '\0';
    int suspensions = 0, rc;
    while ((rc = taal_send(&levels[0].co)) == TAAL_SUSPENDED)
        suspensions++;
    CHECK_EQ(rc, TAAL_OK);
    CHECK_EQ(suspensions, LEVELS); /* one yield per level, each passed up */
    CHECK_EQ(levels[0].result, 1 + 2 + 3 + 4 + 5);
    CHECK_STR(trace, "abcdeEDCBA");
    for (int i = 0; i < LEVELS; i++)
        CHECK(taal_coro_done(&levels[i].co));
}

/* ---- errors propagate like uncaught exceptions -------------------------- */

enum { E_APP = TAAL_EUSER - 7 }; /* an application's own error code */

typedef struct failing {
    taal_coro co;
} failing;
static int failing_body(taal_coro *self)
{
    failing *f = (failing *)self;
    TAAL_BEGIN(f);
    TAAL_YIELD();
    TAAL_FAIL(E_APP);
    TAAL_END();
}

typedef struct propagates {
    taal_coro co;
    failing child;
    bool after;
} propagates;
static int propagates_body(taal_coro *self)
{
    propagates *f = (propagates *)self;
    TAAL_BEGIN(f);
    taal_coro_init(&f->child.co, failing_body);
    TAAL_AWAIT(&f->child);
    f->after = true; /* never reached */
    TAAL_END();
}

TEST(a_failing_child_fails_its_awaiter)
{
    propagates f = {.after = false};
    taal_coro_init(&f.co, propagates_body);
    CHECK_EQ(taal_send(&f.co), TAAL_SUSPENDED);
    CHECK_EQ(taal_send(&f.co), E_APP);
    CHECK(taal_coro_done(&f.co));
    CHECK_EQ(f.co.status, E_APP);
    CHECK(!f.after);
    CHECK_STR(taal_strerror(E_APP), "user error");
}

typedef struct catches {
    taal_coro co;
    failing child;
    int caught;
} catches;
static int catches_body(taal_coro *self)
{
    catches *f = (catches *)self;
    TAAL_BEGIN(f);
    taal_coro_init(&f->child.co, failing_body);
    TAAL_AWAIT_STATUS(f->caught, &f->child); /* try: await / except */
    TAAL_YIELD();                            /* and carry on */
    TAAL_END();
}

TEST(await_status_catches_the_error)
{
    catches f = {.caught = 0};
    taal_coro_init(&f.co, catches_body);
    CHECK_EQ(taal_send(&f.co), TAAL_SUSPENDED); /* the child's yield */
    CHECK_EQ(taal_send(&f.co), TAAL_SUSPENDED); /* our own yield */
    CHECK_EQ(f.caught, E_APP);
    CHECK_EQ(taal_send(&f.co), TAAL_OK);
}

/* ---- state in the frame survives every await ---------------------------- */

typedef struct counter {
    taal_coro co;
    int i, n, sum;
} counter;
static int counter_body(taal_coro *self)
{
    counter *f = (counter *)self;
    TAAL_BEGIN(f);
    for (f->i = 1; f->i <= f->n; f->i++) {
        f->sum += f->i;
        TAAL_YIELD(); /* a yield inside a loop: the loop state is in the frame */
    }
    TAAL_END();
}

TEST(loops_can_await_when_their_state_is_in_the_frame)
{
    counter f = {.n = 10, .sum = 0};
    taal_coro_init(&f.co, counter_body);
    int suspensions = 0;
    while (taal_send(&f.co) == TAAL_SUSPENDED)
        suspensions++;
    CHECK_EQ(suspensions, 10);
    CHECK_EQ(f.sum, 55);
}

/* ---- misuse gets an error code, never a crash --------------------------- */

TEST(resuming_a_finished_coroutine_is_an_error)
{
    custom_awaitable aw;
    custom_awaitable_init(&aw, 7);
    while (taal_send(&aw.co) == TAAL_SUSPENDED)
        ;
    CHECK_EQ(taal_send(&aw.co), TAAL_EDEAD);
    CHECK_EQ(taal_send(&aw.co), TAAL_EDEAD);
    CHECK_EQ(aw.co.status, TAAL_OK); /* the finished state is untouched */
    CHECK_EQ(aw.result, 7);
    CHECK_STR(taal_strerror(TAAL_EDEAD), "cannot resume finished coroutine");
}

TEST(null_and_uninitialised_arguments_are_invalid)
{
    CHECK_EQ(taal_send(NULL), TAAL_EINVAL);
    CHECK_EQ(taal_coro_init(NULL, failing_body), TAAL_EINVAL);
    taal_coro co = {0};
    CHECK_EQ(taal_coro_init(&co, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_send(&co), TAAL_EINVAL); /* a zeroed frame has no body */
    CHECK(!taal_coro_done(NULL));
    CHECK_EQ(custom_awaitable_init(NULL, 1), TAAL_EINVAL);
    CHECK_EQ(use_custom_awaitable_init(NULL), TAAL_EINVAL);
    CHECK_STR(taal_strerror(TAAL_EINVAL), "invalid argument");
}

typedef struct selfish {
    taal_coro co;
} selfish;
static int selfish_body(taal_coro *self)
{
    selfish *f = (selfish *)self;
    TAAL_BEGIN(f);
    TAAL_AWAIT(f); /* awaits its own frame: Python's "already executing" */
    TAAL_END();
}

TEST(a_coroutine_cannot_await_itself)
{
    selfish f;
    taal_coro_init(&f.co, selfish_body);
    CHECK_EQ(taal_send(&f.co), TAAL_ERUNNING);
    CHECK(taal_coro_done(&f.co));
    CHECK(!f.co.running);
    CHECK_STR(taal_strerror(TAAL_ERUNNING), "cannot resume running coroutine");
}

typedef struct reuses {
    taal_coro co;
    custom_awaitable child;
} reuses;
static int reuses_body(taal_coro *self)
{
    reuses *f = (reuses *)self;
    TAAL_BEGIN(f);
    custom_awaitable_init(&f->child, 1);
    TAAL_AWAIT(&f->child);
    TAAL_AWAIT(&f->child); /* "cannot reuse already awaited coroutine" */
    TAAL_END();
}

TEST(awaiting_a_finished_child_again_fails)
{
    reuses f;
    taal_coro_init(&f.co, reuses_body);
    CHECK_EQ(taal_send(&f.co), TAAL_SUSPENDED);
    CHECK_EQ(taal_send(&f.co), TAAL_EDEAD);
}

static int returns_positive(taal_coro *self)
{
    (void)self;
    return 5; /* neither TAAL_SUSPENDED nor a status */
}

TEST(a_hand_written_body_returning_nonsense_is_invalid)
{
    taal_coro co;
    taal_coro_init(&co, returns_positive);
    CHECK_EQ(taal_send(&co), TAAL_EINVAL);
    CHECK(taal_coro_done(&co));
}

/* Rule 3 broken: a yield inside a switch of the coroutine's own. Its
 * `case` label belongs to the inner switch, so on resume the coroutine's
 * switch has no label for the saved point. */
typedef struct switcher {
    taal_coro co;
    int mode;
    int after; /* set once the code after the yield has run */
} switcher;

static int switcher_body(taal_coro *self)
{
    switcher *f = (switcher *)self;
    TAAL_BEGIN(f);
    switch (f->mode) {
    case 1:
        TAAL_YIELD();
        f->after = 1;
        break;
    default: break;
    }
    TAAL_END();
}

TEST(an_await_inside_a_switch_of_your_own_fails_on_resume)
{
    switcher f = {.mode = 1};
    taal_coro_init(&f.co, switcher_body);
    CHECK_EQ(taal_send(&f.co), TAAL_SUSPENDED);
    CHECK_EQ(taal_send(&f.co), TAAL_EPOINT); /* not a silent TAAL_OK */
    CHECK_EQ(f.after, 0);                    /* the rest was not run */
    CHECK(taal_coro_done(&f.co));
    CHECK_STR(taal_strerror(TAAL_EPOINT), "resumed at an unknown point");
}

TEST(every_status_has_a_name)
{
    CHECK_STR(taal_strerror(TAAL_OK), "ok");
    CHECK_STR(taal_strerror(TAAL_SUSPENDED), "suspended");
    CHECK_STR(taal_strerror(TAAL_ENOMEM), "out of memory");
    CHECK_STR(taal_strerror(-999), "unknown status");
    CHECK_STR(taal_strerror(42), "unknown status");
}

/* TAAL_CHAPTER and TAAL_VERSION. These tests run against every later
 * chapter too: the header is chapter 01 or later, and exactly the one the
 * build says it built them against, of the CMake project's version. */
TEST(the_header_says_which_chapter_and_which_version_of_taal_it_is)
{
    CHECK(TAAL_CHAPTER >= 1);
    CHECK_EQ(TAAL_CHAPTER, TAAL_TESTED_CHAPTER);
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", TAAL_VERSION_MAJOR, TAAL_VERSION_MINOR,
             TAAL_VERSION_PATCH);
    CHECK_STR(version, TAAL_VERSION);
    CHECK_STR(TAAL_VERSION, TAAL_TESTED_VERSION);
}

static const taal_test tests[] = {
    TEST_ENTRY(seed_awaitable_suspends_exactly_once),
    TEST_ENTRY(seed_use_custom_awaitable_passes_the_suspension_up),
    TEST_ENTRY(delegation_through_five_levels),
    TEST_ENTRY(a_failing_child_fails_its_awaiter),
    TEST_ENTRY(await_status_catches_the_error),
    TEST_ENTRY(loops_can_await_when_their_state_is_in_the_frame),
    TEST_ENTRY(resuming_a_finished_coroutine_is_an_error),
    TEST_ENTRY(null_and_uninitialised_arguments_are_invalid),
    TEST_ENTRY(a_coroutine_cannot_await_itself),
    TEST_ENTRY(awaiting_a_finished_child_again_fails),
    TEST_ENTRY(a_hand_written_body_returning_nonsense_is_invalid),
    TEST_ENTRY(an_await_inside_a_switch_of_your_own_fails_on_resume),
    TEST_ENTRY(every_status_has_a_name),
    TEST_ENTRY(the_header_says_which_chapter_and_which_version_of_taal_it_is),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
