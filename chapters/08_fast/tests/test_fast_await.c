/*
** test_fast_await.c -- chapter 08: the await of a future and its wake-up.
** taal__await_future() asks whether a future's loop is the task's own with
** one test, and asks whether that other loop closed only when it is not:
** the statuses and their order must stay chapter 02's (a closed loop's
** future: TAAL_ECLOSED; another open loop's: TAAL_ELOOP; no task:
** TAAL_ENOTASK after TAAL_EINVAL). taal__future_finish() takes its waiters
** off the list without link_remove(): they must still wake in the order
** they came, each once, and leave the list empty.
*/
#include "taal.h"
#include "taal_check.h"

#include <string.h>

static char ran[64];
static size_t ran_len;

static void log_char(char c)
{
    if (ran_len + 1 < sizeof ran) {
        ran[ran_len++] = c;
        ran[ran_len] = '\0';
    }
}

static void reset_log(void)
{
    ran_len = 0;
    ran[0] = '\0';
}

/* ---- waiters wake in their order -------------------------------------------- */

typedef struct waiter {
    taal_coro co;
    taal_future *on;
    char name;
    int status;
} waiter;

static int waiter_body(taal_coro *self)
{
    waiter *f = (waiter *)self;
    TAAL_BEGIN(f);
    log_char(f->name);
    TAAL_AWAIT_FUTURE_STATUS(f->status, f->on);
    log_char((char)(f->name - 'a' + 'A'));
    TAAL_END();
}

static void spawn_waiter(taal_loop *loop, taal_future *on, char name, taal_task **t)
{
    waiter w = {.on = on, .name = name, .status = 1};
    *t = NULL;
    CHECK_EQ(taal_task_create(loop, waiter_body, &w, sizeof w, NULL, t), TAAL_OK);
}

TEST(waiters_wake_once_each_in_the_order_they_came)
{
    taal_loop loop;
    CHECK_EQ(taal_loop_init(&loop, NULL), TAAL_OK);
    taal_future on;
    taal_future_init(&on, &loop);
    reset_log();
    taal_task *t[4];
    for (int i = 0; i < 4; i++)
        spawn_waiter(&loop, &on, (char)('a' + i), &t[i]);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* all four park */
    CHECK_STR(ran, "abcd");
    CHECK_EQ(taal_future_set_result(&on, NULL), TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* all four wake, in order */
    CHECK_STR(ran, "abcdABCD");
    for (int i = 0; i < 4; i++) {
        CHECK(taal_future_done(taal_task_future(t[i])));
        CHECK_EQ(((waiter *)taal_task_frame(t[i]))->status, TAAL_OK);
    }
    /* The list is empty and whole: a new waiter parks on the future made
     * fresh, and wakes alone. */
    taal_future_init(&on, &loop);
    taal_task *e;
    spawn_waiter(&loop, &on, 'e', &e);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_EQ(taal_future_set_error(&on, TAAL_ETIMEDOUT), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(e)), TAAL_OK);
    CHECK_STR(ran, "abcdABCDeE");
    CHECK_EQ(((waiter *)taal_task_frame(e))->status, TAAL_ETIMEDOUT);
    for (int i = 0; i < 4; i++)
        taal_task_release(t[i]);
    taal_task_release(e);
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
}

/* Ping-pong, as bench/switch.c plays it: each switch completes the
 * future the other awaits; 1000 switches, every one accounted for. */
typedef struct player {
    taal_coro co;
    long i, rounds;
    taal_future *mine, *theirs;
    int first;
} player;

static long switches;
static int set_failures; /* a set_result() that did not return TAAL_OK */

static int player_body(taal_coro *self)
{
    player *f = (player *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->rounds; f->i++) {
        if (f->first && taal_future_set_result(f->theirs, NULL) != TAAL_OK)
            set_failures++;
        TAAL_AWAIT_FUTURE(f->mine);
        switches++;
        taal_future_init(f->mine, taal_running_loop());
        if (!f->first && taal_future_set_result(f->theirs, NULL) != TAAL_OK)
            set_failures++;
    }
    TAAL_END();
}

TEST(ping_pong_through_futures_counts_every_switch)
{
    taal_loop loop;
    CHECK_EQ(taal_loop_init(&loop, NULL), TAAL_OK);
    taal_future to_a, to_b;
    taal_future_init(&to_a, &loop);
    taal_future_init(&to_b, &loop);
    player a = {.rounds = 500, .mine = &to_a, .theirs = &to_b, .first = 1};
    player b = {.rounds = 500, .mine = &to_b, .theirs = &to_a, .first = 0};
    taal_task *ta = NULL, *tb = NULL;
    switches = 0;
    set_failures = 0;
    CHECK_EQ(taal_task_create(&loop, player_body, &a, sizeof a, NULL, &ta), TAAL_OK);
    CHECK_EQ(taal_task_create(&loop, player_body, &b, sizeof b, NULL, &tb), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(tb)), TAAL_OK);
    CHECK_EQ(taal_future_status(taal_task_future(ta)), TAAL_OK);
    CHECK_EQ(switches, 1000);
    CHECK_EQ(set_failures, 0);
    taal_task_release(ta);
    taal_task_release(tb);
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
}

/* ---- the statuses of a wrong await, in chapter 02's order ----------------- */

typedef struct misuse {
    taal_coro co;
    taal_future *other_open;   /* a future of another loop, open */
    taal_future *other_closed; /* a task's future whose loop has closed */
    int st[4];
} misuse;

static int misuse_body(taal_coro *self)
{
    misuse *f = (misuse *)self;
    TAAL_BEGIN(f);
    TAAL_AWAIT_FUTURE_STATUS(f->st[0], f->other_open);
    TAAL_AWAIT_FUTURE_STATUS(f->st[1], f->other_closed);
    TAAL_AWAIT_FUTURE_STATUS(f->st[2], NULL);
    TAAL_AWAIT_FUTURE_STATUS(f->st[3], taal_task_future(taal_current_task()));
    TAAL_END();
}

typedef struct sleeper {
    taal_coro co;
} sleeper;

static int forever_body(taal_coro *self)
{
    sleeper *f = (sleeper *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(3600);
    TAAL_END();
}

static int pending_reports;

static void count_pending(void *ctx, const taal_report *report)
{
    (void)ctx;
    if (report->kind == TAAL_REPORT_PENDING_AT_CLOSE)
        pending_reports++;
}

TEST(a_wrong_await_keeps_its_status_and_order)
{
    taal_loop loop, other, gone;
    taal_loop_options quiet = {.report = count_pending};
    pending_reports = 0;
    CHECK_EQ(taal_loop_init(&loop, NULL), TAAL_OK);
    CHECK_EQ(taal_loop_init(&other, NULL), TAAL_OK);
    CHECK_EQ(taal_loop_init(&gone, &quiet), TAAL_OK);
    taal_future theirs;
    taal_future_init(&theirs, &other);
    /* A task of a loop that then closes: its future is kept, loop-less. */
    taal_task *orphan = NULL;
    CHECK_EQ(taal_task_create(&gone, forever_body, NULL, sizeof(sleeper), NULL, &orphan),
             TAAL_OK);
    CHECK_EQ(taal_run_once(&gone), TAAL_OK);
    taal_loop_close(&gone); /* reports the pending task, which is kept */
    CHECK_EQ(pending_reports, 1);

    misuse m = {.other_open = &theirs, .other_closed = taal_task_future(orphan)};
    taal_task *t = NULL;
    CHECK_EQ(taal_task_create(&loop, misuse_body, &m, sizeof m, NULL, &t), TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(t)), TAAL_OK);
    misuse *got = taal_task_frame(t);
    CHECK_EQ(got->st[0], TAAL_ELOOP);
    CHECK_EQ(got->st[1], TAAL_ECLOSED);
    CHECK_EQ(got->st[2], TAAL_EINVAL);
    CHECK_EQ(got->st[3], TAAL_ERUNNING);
    /* Outside a task: TAAL_EINVAL comes before TAAL_ENOTASK. */
    CHECK_EQ(taal__await_future(NULL), TAAL_EINVAL);
    CHECK_EQ(taal__await_future(&theirs), TAAL_ENOTASK);
    taal_task_release(t);
    taal_task_release(orphan);
    CHECK_EQ(taal_loop_close(&loop), TAAL_OK);
    CHECK_EQ(taal_loop_close(&other), TAAL_OK);
}

static const taal_test tests[] = {
    TEST_ENTRY(waiters_wake_once_each_in_the_order_they_came),
    TEST_ENTRY(ping_pong_through_futures_counts_every_switch),
    TEST_ENTRY(a_wrong_await_keeps_its_status_and_order),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
