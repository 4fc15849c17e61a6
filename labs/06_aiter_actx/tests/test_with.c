/*
** test_with.c -- lab 06, exercise 3: the exit on every path.
**
**   int taal__with_enter(taal_coro *co, taal_block *block);
**   int taal__with_exit(taal_coro *co, taal_block *block);
**
** The enter runs one step at a time; if it succeeds the block is open (on
** the coroutine's list of blocks) and the body runs; if it fails, neither
** the body nor the exit runs, and the outcome is the enter's error. The
** exit runs on every way out of the body (its end, a break, a return, a
** failed or cancelled await), learns how the body ended, and decides the
** outcome: its own error, or TAAL_OK if it swallowed the body's, or the
** body's status. Each test reads the order of events from the trace.
*/
#include "lab.h"

typedef struct res {
    taal_actx cm;
    const char *name;
    double enter_nap, exit_nap;
    int enter_fails, exit_fails;
    bool swallow;
    int exits;
} res;

static int res_enter(taal_coro *self)
{
    res *f = (res *)self;
    TAAL_BEGIN(&f->cm);
    note(f->name);
    note("+ ");
    if (f->enter_nap > 0)
        TAAL_SLEEP(f->enter_nap);
    if (f->enter_fails != 0)
        TAAL_FAIL(f->enter_fails);
    TAAL_RETURN_VALUE(f);
    TAAL_END();
}

static int res_exit(taal_coro *self)
{
    res *f = (res *)self;
    TAAL_BEGIN(&f->cm);
    f->exits++;
    note(f->name);
    notef("-(%d)", f->cm.status);
    notef("@%d ", tenths());
    if (f->exit_nap > 0)
        TAAL_SLEEP(f->exit_nap);
    if (f->exit_fails != 0)
        TAAL_FAIL(f->exit_fails);
    f->cm.suppress = f->swallow;
    TAAL_END();
}

enum how { NORMAL, BREAK, FAIL, SLEEP };

typedef struct user {
    taal_coro co;
    res a;
    taal_block with;
    enum how how;
    int st;
    bool as_value_ok, open_inside;
} user;

static int user_body(taal_coro *self)
{
    user *f = (user *)self;
    TAAL_BEGIN(f);
    taal_actx_init(&f->a.cm, res_enter, res_exit);
    TAAL_ASYNC_WITH(&f->with, &f->a.cm) {
        f->as_value_ok = f->with.value == &f->a;
        f->open_inside = f->co.blocks == &f->with;
        note("body ");
        if (f->how == BREAK)
            break;
        if (f->how == FAIL)
            TAAL_FAIL(TAAL_EUSER);
        if (f->how == SLEEP)
            TAAL_SLEEP(10);
    }
    TAAL_ASYNC_WITH_END_STATUS(f->st, &f->with);
    notef("out=%d", f->st);
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(a_body_that_ends_normally_is_followed_by_the_exit)
{
    user fr = {.a = {.name = "a", .enter_nap = 1, .exit_nap = 1}};
    int st;
    CHECK(run_task(user_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "a+ body a-(0)@10 out=0");
    CHECK(fr.as_value_ok);
    CHECK(fr.open_inside);       /* the block is open while the body runs */
    CHECK(fr.co.blocks == NULL); /* and closed afterwards */
    CHECK_EQ(fr.with.phase, TAAL_BLOCK_IDLE);
    CHECK(fr.a.cm.with == NULL);
}

TEST(a_failed_enter_runs_neither_the_body_nor_the_exit)
{
    user fr = {.a = {.name = "a", .enter_nap = 1, .enter_fails = TAAL_EUSER}};
    int st;
    CHECK(run_task(user_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_EUSER);
    CHECK_STR(trace, "a+ out=-1000");
    CHECK_EQ(fr.a.exits, 0);
    CHECK(fr.co.blocks == NULL);
}

TEST(a_break_and_a_return_leave_through_the_exit)
{
    user fr = {.a = {.name = "a"}, .how = BREAK};
    int st;
    CHECK(run_task(user_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "a+ body a-(0)@0 out=0");
    user ret = {.a = {.name = "a", .exit_nap = 1}, .how = FAIL};
    CHECK(run_task(user_body, &ret, sizeof ret, &st));
    CHECK_EQ(st, TAAL_EUSER);
    CHECK_STR(trace, "a+ body a-(-1000)@0 out=-1000");
}

TEST(the_exit_may_swallow_the_body_s_error_or_replace_it_with_its_own)
{
    user fr = {.a = {.name = "a", .swallow = true}, .how = FAIL};
    int st;
    CHECK(run_task(user_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "a+ body a-(-1000)@0 out=0");
    user replaced = {.a = {.name = "a", .exit_fails = TAAL_EUSER - 1}, .how = FAIL};
    CHECK(run_task(user_body, &replaced, sizeof replaced, &st));
    CHECK_STR(trace, "a+ body a-(-1000)@0 out=-1001");
    user failing = {.a = {.name = "a", .exit_fails = TAAL_EUSER - 1}};
    CHECK(run_task(user_body, &failing, sizeof failing, &st));
    CHECK_STR(trace, "a+ body a-(0)@0 out=-1001");
}

TEST(a_cancel_in_the_body_runs_the_exit_which_may_await_or_swallow_it)
{
    user fr = {.a = {.name = "a", .exit_nap = 1}, .how = SLEEP};
    int st;
    CHECK(run_task_cancelled_at(user_body, &fr, sizeof fr, 2, &st));
    CHECK_EQ(st, TAAL_ECANCELLED);
    CHECK_STR(trace, "a+ body a-(-16)@20 out=-16");
    user swallowed = {.a = {.name = "a", .swallow = true}, .how = SLEEP};
    CHECK(run_task_cancelled_at(user_body, &swallowed, sizeof swallowed, 2, &st));
    CHECK_EQ(st, TAAL_OK); /* the task goes on, and ends normally */
    CHECK_STR(trace, "a+ body a-(-16)@20 out=0");
}

TEST(a_cancel_in_the_enter_fails_it_and_one_in_the_exit_is_its_error)
{
    user enter = {.a = {.name = "a", .enter_nap = 2}};
    int st;
    CHECK(run_task_cancelled_at(user_body, &enter, sizeof enter, 1, &st));
    CHECK_STR(trace, "a+ out=-16");
    CHECK_EQ(enter.a.exits, 0);
    user exit = {.a = {.name = "a", .exit_nap = 2}};
    CHECK(run_task_cancelled_at(user_body, &exit, sizeof exit, 1, &st));
    CHECK_STR(trace, "a+ body a-(0)@0 out=-16");
}

/* Two blocks, one in the other, and a lock. */
typedef struct nest {
    taal_coro co;
    res a, b;
    taal_lock lock;
    taal_block outer, inner, locked;
    int fail, st;
} nest;

static int nest_body(taal_coro *self)
{
    nest *f = (nest *)self;
    TAAL_BEGIN(f);
    taal_actx_init(&f->a.cm, res_enter, res_exit);
    taal_actx_init(&f->b.cm, res_enter, res_exit);
    taal_lock_init(&f->lock, taal_running_loop(), "lock");
    TAAL_ASYNC_WITH(&f->outer, &f->a.cm) {
        TAAL_ASYNC_WITH(&f->locked, &f->lock) {
            TAAL_ASYNC_WITH(&f->inner, &f->b.cm) {
                note("body ");
                if (f->fail != 0)
                    TAAL_FAIL(f->fail);
            }
            TAAL_ASYNC_WITH_END(&f->inner);
        }
        TAAL_ASYNC_WITH_END(&f->locked);
        note("never? ");
    }
    TAAL_ASYNC_WITH_END_STATUS(f->st, &f->outer);
    notef("locked=%d ", taal_lock_locked(&f->lock));
    notef("out=%d", f->st);
    taal_lock_destroy(&f->lock);
    TAAL_END();
}

TEST(an_error_deep_inside_leaves_every_block_innermost_first)
{
    nest fr = {.a = {.name = "a"}, .b = {.name = "b"}, .fail = TAAL_EUSER};
    int st;
    CHECK(run_task(nest_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "a+ b+ body b-(-1000)@0 a-(-1000)@0 locked=0 out=-1000");
    nest ok = {.a = {.name = "a"}, .b = {.name = "b"}};
    CHECK(run_task(nest_body, &ok, sizeof ok, &st));
    CHECK_STR(trace, "a+ b+ body b-(0)@0 never? a-(0)@0 locked=0 out=0");
}

static const taal_test tests[] = {
    TEST_ENTRY(a_body_that_ends_normally_is_followed_by_the_exit),
    TEST_ENTRY(a_failed_enter_runs_neither_the_body_nor_the_exit),
    TEST_ENTRY(a_break_and_a_return_leave_through_the_exit),
    TEST_ENTRY(the_exit_may_swallow_the_body_s_error_or_replace_it_with_its_own),
    TEST_ENTRY(a_cancel_in_the_body_runs_the_exit_which_may_await_or_swallow_it),
    TEST_ENTRY(a_cancel_in_the_enter_fails_it_and_one_in_the_exit_is_its_error),
    TEST_ENTRY(an_error_deep_inside_leaves_every_block_innermost_first),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
