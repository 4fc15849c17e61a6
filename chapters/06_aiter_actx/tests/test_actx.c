/*
** test_actx.c -- chapter 06: async context managers and `async with`.
**
** The exit runs on every way out of the body, learns how it ended, and
** may swallow its error; if the enter fails, neither the body nor the exit
** runs. A cancellation may come during the enter, the body or the exit.
** Blocks nest, and nest with `async for`; the semaphore and the lock are
** managers; and every misuse is a status.
*/
#include "support.h"

/* ---- a manager whose enter and exit may await, fail or swallow
 * ------------------------- */

typedef struct res {
    taal_actx cm; /* first: the manager */
    const char *name;
    double enter_nap, exit_nap;  /* the enter or exit sleeps this long, if > 0 */
    int enter_fails, exit_fails; /* fail with this, if not 0 */
    bool suppress;               /* the exit swallows the body's error */
    bool enter_swallows_cancel;  /* the enter's sleep swallows a cancellation */
    int seen;                    /* cm.status as the exit saw it */
    int st, enters, exits;
} res;

static int res_enter(taal_coro *self)
{
    res *f = (res *)self;
    TAAL_BEGIN(&f->cm);
    f->enters++;
    note(f->name);
    note("+ ");
    if (f->enter_nap > 0) {
        TAAL_SLEEP_STATUS(f->st, f->enter_nap);
        if (f->st != TAAL_OK && !f->enter_swallows_cancel)
            TAAL_FAIL(f->st);
    }
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
    f->seen = f->cm.status;
    note(f->name);
    notef("-%d ", f->cm.status);
    if (f->exit_nap > 0)
        TAAL_SLEEP(f->exit_nap);
    if (f->exit_fails != 0)
        TAAL_FAIL(f->exit_fails);
    if (f->suppress)
        f->cm.suppress = true;
    TAAL_END();
}

/* ---- a user of one --------------------------------------------------------------------
 */

typedef struct user {
    taal_coro co;
    res a;
    taal_block with;
    double body_nap;
    int body_fails;
    bool body_breaks;
    bool body_returns; /* TAAL_RETURN_VALUE(&f->a) */
    int st;
    bool value_is_the_manager; /* `as value` gave the manager's frame */
    bool after;
} user;

static int user_body(taal_coro *self)
{
    user *f = (user *)self;
    TAAL_BEGIN(f);
    taal_actx_init(&f->a.cm, res_enter, res_exit);
    TAAL_ASYNC_WITH(&f->with, &f->a.cm) {
        f->value_is_the_manager = f->with.value == &f->a;
        notef("body@%d ", tenths());
        if (f->body_nap > 0)
            TAAL_SLEEP(f->body_nap);
        if (f->body_fails != 0)
            TAAL_FAIL(f->body_fails);
        if (f->body_breaks)
            break;
        if (f->body_returns)
            TAAL_RETURN_VALUE(&f->a);
        note("body-end ");
    }
    TAAL_ASYNC_WITH_END_STATUS(f->st, &f->with);
    notef("st=%d", f->st);
    notef("@%d", tenths());
    f->after = true;
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(the_exit_runs_after_a_body_that_ends_normally)
{
    user fr = {.a = {.name = "a", .enter_nap = 1, .exit_nap = 1}, .body_nap = 1};
    int st;
    CHECK(run_task(user_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "a+ body@10 body-end a-0 st=0@30");
    CHECK(fr.value_is_the_manager);
    CHECK_EQ(fr.a.enters, 1);
    CHECK_EQ(fr.a.exits, 1);
    CHECK(fr.a.cm.with == NULL);
    CHECK_EQ(fr.with.phase, TAAL_BLOCK_IDLE);
    CHECK(fr.co.blocks == NULL);
}

TEST(the_exit_sees_an_error_of_the_body_which_goes_on_after_it)
{
    user fr = {.a = {.name = "a", .exit_nap = 1}, .body_fails = TAAL_EUSER};
    int st;
    CHECK(run_task(user_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_EUSER);
    CHECK_STR(trace, "a+ body@0 a--1000 st=-1000@10");
    CHECK_EQ(fr.a.seen, TAAL_EUSER);
}

TEST(the_exit_may_swallow_the_error_and_the_code_after_the_block_runs)
{
    user fr = {.a = {.name = "a", .suppress = true}, .body_fails = TAAL_EUSER};
    int st;
    CHECK(run_task(user_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "a+ body@0 a--1000 st=0@0");
    CHECK(fr.after);
}

TEST(a_break_leaves_through_the_exit)
{
    user fr = {.a = {.name = "a"}, .body_breaks = true};
    int st;
    CHECK(run_task(user_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "a+ body@0 a-0 st=0@0");
}

TEST(a_return_from_the_body_runs_the_exit_and_returns)
{
    /* Python: `return` inside `async with` runs __aexit__ (with no
     * exception), then returns: the code after the block does not run. */
    user fr = {.a = {.name = "a", .exit_nap = 1}, .body_returns = true};
    int st;
    CHECK(run_task(user_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "a+ body@0 a-0 ");
    CHECK(!fr.after);
    CHECK(fr.co.value != NULL); /* the value it returned is kept */
    CHECK_EQ(fr.a.exits, 1);
    user failing = {.a = {.name = "a", .exit_fails = TAAL_EUSER}, .body_returns = true};
    CHECK(run_task(user_body, &failing, sizeof failing, &st));
    CHECK_EQ(st, TAAL_EUSER); /* the exit's error replaces the return */
    CHECK(failing.after);     /* ... and the _STATUS form hands it on */
}

TEST(if_the_enter_fails_neither_the_body_nor_the_exit_runs)
{
    user fr = {.a = {.name = "a", .enter_fails = TAAL_EUSER}};
    int st;
    CHECK(run_task(user_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_EUSER);
    CHECK_STR(trace, "a+ st=-1000@0");
    CHECK_EQ(fr.a.exits, 0);
    CHECK(fr.a.cm.with == NULL);
}

TEST(an_error_of_the_exit_replaces_the_body_s)
{
    user fr = {.a = {.name = "a", .exit_fails = TAAL_EUSER - 1},
               .body_fails = TAAL_EUSER};
    int st;
    CHECK(run_task(user_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_EUSER - 1);
    user ok = {.a = {.name = "a", .exit_fails = TAAL_EUSER - 1}};
    CHECK(run_task(user_body, &ok, sizeof ok, &st));
    CHECK_EQ(st, TAAL_EUSER - 1);
}

/* ---- cancellation --------------------------------------------------------------- */

TEST(a_cancel_in_the_body_runs_the_exit_which_may_await)
{
    user fr = {.a = {.name = "a", .exit_nap = 1}, .body_nap = 2};
    CHECK_EQ(cancelled_at(user_body, &fr, sizeof fr, 0.5), TAAL_ECANCELLED);
    CHECK_STR(trace, "a+ body@0 a--16 st=-16@15");
    CHECK_EQ(fr.a.seen, TAAL_ECANCELLED);
}

TEST(an_exit_that_swallows_the_cancellation_lets_the_task_end_normally)
{
    user fr = {.a = {.name = "a", .suppress = true}, .body_nap = 2};
    CHECK_EQ(cancelled_at(user_body, &fr, sizeof fr, 0.5), TAAL_OK);
    CHECK_STR(trace, "a+ body@0 a--16 st=0@5");
    CHECK(fr.after);
}

TEST(a_cancel_during_the_enter_fails_it_and_the_exit_does_not_run)
{
    user fr = {.a = {.name = "a", .enter_nap = 1}};
    CHECK_EQ(cancelled_at(user_body, &fr, sizeof fr, 0.5), TAAL_ECANCELLED);
    CHECK_STR(trace, "a+ st=-16@5");
    CHECK_EQ(fr.a.exits, 0);
}

TEST(an_enter_that_swallows_the_cancellation_enters_and_the_exit_runs)
{
    user fr = {.a = {.name = "a", .enter_nap = 1, .enter_swallows_cancel = true}};
    CHECK_EQ(cancelled_at(user_body, &fr, sizeof fr, 0.5), TAAL_OK);
    CHECK_STR(trace, "a+ body@5 body-end a-0 st=0@5");
}

TEST(a_cancel_during_the_exit_is_its_error)
{
    user fr = {.a = {.name = "a", .exit_nap = 2}, .body_nap = 1};
    CHECK_EQ(cancelled_at(user_body, &fr, sizeof fr, 1.5), TAAL_ECANCELLED);
    CHECK_STR(trace, "a+ body@0 body-end a-0 st=-16@15");
    CHECK_EQ(fr.a.exits, 1);
}

/* ---- nesting ---------------------------------------------------------------------- */

typedef struct two {
    taal_coro co;
    res a, b;
    taal_block outer, inner;
    int fail, inner_st, st;
    bool same_block, same_manager;
} two;

static int two_body(taal_coro *self)
{
    two *f = (two *)self;
    TAAL_BEGIN(f);
    taal_actx_init(&f->a.cm, res_enter, res_exit);
    taal_actx_init(&f->b.cm, res_enter, res_exit);
    TAAL_ASYNC_WITH(&f->outer, &f->a.cm) {
        TAAL_ASYNC_WITH(f->same_block ? &f->outer : &f->inner,
                        f->same_manager ? &f->a.cm : &f->b.cm) {
            note("body ");
            if (f->fail != 0)
                TAAL_FAIL(f->fail);
        }
        TAAL_ASYNC_WITH_END_STATUS(f->inner_st, f->same_block ? &f->outer : &f->inner);
        notef("inner=%d ", f->inner_st);
        if (f->inner_st != TAAL_OK)
            TAAL_FAIL(f->inner_st);
    }
    TAAL_ASYNC_WITH_END_STATUS(f->st, &f->outer);
    notef("outer=%d", f->st);
    TAAL_END();
}

TEST(nested_blocks_exit_in_reverse_order_and_an_error_passes_both_exits)
{
    two fr = {.a = {.name = "a"}, .b = {.name = "b"}};
    int st;
    CHECK(run_task(two_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "a+ b+ body b-0 inner=0 a-0 outer=0");
    two err = {.a = {.name = "a"}, .b = {.name = "b"}, .fail = TAAL_EUSER};
    CHECK(run_task(two_body, &err, sizeof err, &st));
    CHECK_STR(trace, "a+ b+ body b--1000 inner=-1000 a--1000 outer=-1000");
}

TEST(an_inner_exit_that_swallows_the_error_leaves_the_outer_clean)
{
    two fr = {
        .a = {.name = "a"}, .b = {.name = "b", .suppress = true}, .fail = TAAL_EUSER};
    int st;
    CHECK(run_task(two_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "a+ b+ body b--1000 inner=0 a-0 outer=0");
}

TEST(a_block_or_a_coroutine_manager_in_use_is_refused_with_ebusy)
{
    two fr = {.a = {.name = "a"}, .b = {.name = "b"}, .same_block = true};
    int st;
    CHECK(run_task(two_body, &fr, sizeof fr, &st));
    /* the inner statement is refused; the open one goes on, and its exit
     * sees the error the body then raised */
    CHECK_STR(trace, "a+ inner=-9 a--9 outer=-9");
    two busy = {.a = {.name = "a"}, .same_manager = true};
    CHECK(run_task(two_body, &busy, sizeof busy, &st));
    CHECK_STR(trace, "a+ inner=-9 a--9 outer=-9");
    CHECK_EQ(busy.a.enters, 1);
    CHECK_EQ(busy.a.exits, 1);
}

/* The failing END of a statement that misused an open block fails the
 * coroutine with TAAL_EBUSY, which leaves the open block through its exit. */
typedef struct clash {
    taal_coro co;
    res a, b;
    taal_block with;
    int st;
} clash;

static int clash_body(taal_coro *self)
{
    clash *f = (clash *)self;
    TAAL_BEGIN(f);
    taal_actx_init(&f->a.cm, res_enter, res_exit);
    taal_actx_init(&f->b.cm, res_enter, res_exit);
    TAAL_ASYNC_WITH(&f->with, &f->a.cm) {
        TAAL_ASYNC_WITH(&f->with, &f->b.cm) {
            note("never ");
        }
        TAAL_ASYNC_WITH_END(&f->with);
        note("never ");
    }
    TAAL_ASYNC_WITH_END_STATUS(f->st, &f->with);
    notef("st=%d", f->st);
    TAAL_END();
}

TEST(the_failing_end_of_a_misused_block_leaves_the_open_one_through_its_exit)
{
    clash fr = {.a = {.name = "a"}, .b = {.name = "b"}};
    int st;
    CHECK(run_task(clash_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "a+ a--9 st=-9");
    CHECK_EQ(fr.b.enters, 0);
}

/* A block in a loop is used again once its END ran. */
typedef struct repeat {
    taal_coro co;
    res a;
    taal_block with;
    int i;
} repeat;

static int repeat_body(taal_coro *self)
{
    repeat *f = (repeat *)self;
    TAAL_BEGIN(f);
    taal_actx_init(&f->a.cm, res_enter, res_exit);
    for (f->i = 0; f->i < 3; f->i++) {
        TAAL_ASYNC_WITH(&f->with, &f->a.cm) {
            TAAL_SLEEP(0.1);
        }
        TAAL_ASYNC_WITH_END(&f->with);
    }
    TAAL_END();
}

TEST(a_block_in_a_loop_enters_and_exits_each_time)
{
    repeat fr = {.a = {.name = "a"}};
    int st;
    CHECK(run_task(repeat_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "a+ a-0 a+ a-0 a+ a-0 ");
}

/* ---- with and for together -------------------------------------------------------- */

typedef struct gen3 {
    taal_aiter gen;
    int i;
} gen3;

static int gen3_body(taal_coro *self)
{
    gen3 *f = (gen3 *)self;
    TAAL_AGEN_BEGIN(&f->gen);
    for (f->i = 1; f->i <= 3; f->i++)
        TAAL_AGEN_YIELD(&f->i);
    TAAL_AGEN_FINALLY();
    note("gen-cleanup ");
    TAAL_AGEN_END();
}

typedef struct mixed {
    taal_coro co;
    res a;
    gen3 g;
    taal_block with, loop;
} mixed;

static int mixed_body(taal_coro *self)
{
    mixed *f = (mixed *)self;
    TAAL_BEGIN(f);
    taal_actx_init(&f->a.cm, res_enter, res_exit);
    taal_agen_init(&f->g.gen, gen3_body);
    TAAL_ASYNC_WITH(&f->with, &f->a.cm) {
        TAAL_ASYNC_FOR(&f->loop, &f->g.gen) {
            notef("%d ", *(int *)f->loop.value);
            if (*(int *)f->loop.value == 2)
                TAAL_FAIL(TAAL_EUSER); /* through the loop, then the block */
        }
        TAAL_ASYNC_FOR_END(&f->loop);
        note("never ");
    }
    TAAL_ASYNC_WITH_END(&f->with);
    note("never");
    TAAL_END();
}

TEST(a_return_from_a_loop_in_a_block_closes_the_loop_then_exits_the_block)
{
    mixed fr = {.a = {.name = "a"}};
    int st;
    CHECK(run_task(mixed_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_EUSER);
    CHECK_STR(trace, "a+ 1 2 gen-cleanup a--1000 ");
}

/* A block inside a generator: closing the generator at a yield inside the
 * block runs the exit (with TAAL_EGENEXIT) before the generator's cleanup. */
typedef struct holder {
    taal_aiter gen;
    taal_lock *lock;
    taal_block with;
    int i;
} holder;

static int holder_body(taal_coro *self)
{
    holder *f = (holder *)self;
    TAAL_AGEN_BEGIN(&f->gen);
    TAAL_ASYNC_WITH(&f->with, f->lock) {
        note("locked ");
        for (f->i = 1; f->i <= 3; f->i++)
            TAAL_AGEN_YIELD(&f->i);
    }
    TAAL_ASYNC_WITH_END(&f->with);
    TAAL_AGEN_FINALLY();
    notef("cleanup(locked=%d) ", taal_lock_locked(f->lock));
    TAAL_AGEN_END();
}

typedef struct holder_user {
    taal_coro co;
    taal_lock lock;
    holder h;
    taal_block loop;
    int st;
} holder_user;

static int holder_user_body(taal_coro *self)
{
    holder_user *f = (holder_user *)self;
    TAAL_BEGIN(f);
    taal_lock_init(&f->lock, taal_running_loop(), "lock");
    f->h.lock = &f->lock;
    taal_agen_init(&f->h.gen, holder_body);
    TAAL_ASYNC_FOR(&f->loop, &f->h.gen) {
        notef("%d ", *(int *)f->loop.value);
        break;
    }
    TAAL_ASYNC_FOR_END_STATUS(f->st, &f->loop);
    notef("locked=%d", taal_lock_locked(&f->lock));
    taal_lock_destroy(&f->lock);
    TAAL_END();
}

TEST(closing_a_generator_inside_a_block_runs_the_exit_before_its_cleanup)
{
    holder_user fr = {0};
    int st;
    CHECK(run_task(holder_user_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_EQ(fr.st, TAAL_OK);
    CHECK_STR(trace, "locked 1 cleanup(locked=0) locked=0");
}

/* ---- the semaphore and the lock -------------------------------------------------------
 */

typedef struct worker {
    taal_coro co;
    taal_semaphore *sem;
    taal_block with;
    const char *name;
    double hold;
    taal_task *victim; /* cancelled right after this worker's block ends */
    int st;
} worker;

static int worker_body(taal_coro *self)
{
    worker *f = (worker *)self;
    TAAL_BEGIN(f);
    TAAL_ASYNC_WITH(&f->with, f->sem) {
        note(f->name);
        notef("@%d ", tenths());
        TAAL_SLEEP(f->hold);
    }
    TAAL_ASYNC_WITH_END_STATUS(f->st, &f->with);
    if (f->victim != NULL)
        taal_task_cancel(f->victim); /* it was just handed the permit */
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(a_semaphore_s_block_releases_and_a_cancelled_waiter_loses_no_permit)
{
    taal_loop loop;
    taal_semaphore sem;
    taal_task *a, *b, *c, *d;
    open_loop(&loop);
    trace[0] = '\0';
    taal_semaphore_init(&sem, &loop, 1, "sem");
    taal_task_create(&loop, worker_body, &(worker){.sem = &sem, .name = "a", .hold = 1},
                     sizeof(worker), "a", &a);
    taal_task_create(&loop, worker_body, &(worker){.sem = &sem, .name = "b", .hold = 1},
                     sizeof(worker), "b", &b);
    taal_task_create(&loop, worker_body, &(worker){.sem = &sem, .name = "c", .hold = 1},
                     sizeof(worker), "c", &c);
    taal_task_create(&loop, worker_body, &(worker){.sem = &sem, .name = "d", .hold = 1},
                     sizeof(worker), "d", &d);
    ((worker *)taal_task_frame(a))->victim = b; /* handed a's permit, then cancelled */
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);    /* a holds it; b, c and d wait */
    taal_task_cancel(c);                        /* cancelled while in line */
    CHECK_EQ(finish_task(&loop, a), TAAL_OK);
    CHECK_EQ(finish_task(&loop, b), TAAL_ECANCELLED);
    CHECK_EQ(finish_task(&loop, c), TAAL_ECANCELLED);
    CHECK_EQ(finish_task(&loop, d), TAAL_OK);
    CHECK_STR(trace, "a@0 d@10 ");
    CHECK(!taal_semaphore_locked(&sem));
    CHECK_EQ(sem.value, 1);
    CHECK_EQ(taal_semaphore_destroy(&sem), TAAL_OK);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

typedef struct locker {
    taal_coro co;
    taal_lock lock;
    taal_block with;
    bool owned;
    int st;
} locker;

static int locker_body(taal_coro *self)
{
    locker *f = (locker *)self;
    TAAL_BEGIN(f);
    taal_lock_init(&f->lock, taal_running_loop(), "lock");
    TAAL_ASYNC_WITH(&f->with, &f->lock) {
        f->owned = f->lock.owner == taal_current_task() && f->with.value == &f->lock;
        TAAL_FAIL(TAAL_EUSER);
    }
    TAAL_ASYNC_WITH_END_STATUS(f->st, &f->with);
    notef("locked=%d", taal_lock_locked(&f->lock));
    taal_lock_destroy(&f->lock);
    TAAL_END();
}

TEST(a_lock_s_block_is_released_when_its_body_fails)
{
    locker fr = {0};
    int st;
    CHECK(run_task(locker_body, &fr, sizeof fr, &st));
    CHECK(fr.owned);
    CHECK_EQ(fr.st, TAAL_EUSER);
    CHECK_STR(trace, "locked=0");
}

/* ---- bad input
 * --------------------------------------------------------------------------- */

typedef struct bad {
    taal_coro co;
    taal_actx zero;
    taal_block with;
    int null_manager, zero_manager, null_sem, null_lock, null_block;
    int ran;
} bad;

static int bad_body(taal_coro *self)
{
    bad *f = (bad *)self;
    TAAL_BEGIN(f);
    TAAL_ASYNC_WITH(&f->with, (taal_actx *)NULL) {
        f->ran++;
    }
    TAAL_ASYNC_WITH_END_STATUS(f->null_manager, &f->with);
    TAAL_ASYNC_WITH(&f->with, &f->zero) {
        f->ran++;
    }
    TAAL_ASYNC_WITH_END_STATUS(f->zero_manager, &f->with);
    TAAL_ASYNC_WITH(&f->with, (taal_semaphore *)NULL) {
        f->ran++;
    }
    TAAL_ASYNC_WITH_END_STATUS(f->null_sem, &f->with);
    TAAL_ASYNC_WITH(&f->with, (taal_lock *)NULL) {
        f->ran++;
    }
    TAAL_ASYNC_WITH_END_STATUS(f->null_lock, &f->with);
    TAAL_ASYNC_WITH((taal_block *)NULL, &f->zero) {
        f->ran++;
    }
    TAAL_ASYNC_WITH_END_STATUS(f->null_block, (taal_block *)NULL);
    TAAL_END();
}

TEST(bad_input_to_the_manager_forms_is_refused)
{
    res r;
    CHECK_EQ(taal_actx_init(NULL, res_enter, res_exit), TAAL_EINVAL);
    CHECK_EQ(taal_actx_init(&r.cm, NULL, res_exit), TAAL_EINVAL);
    CHECK_EQ(taal_actx_init(&r.cm, res_enter, NULL), TAAL_EINVAL);
    CHECK_EQ((taal_actx_init)(&r.cm, res_enter, res_exit), TAAL_OK);
    bad fr = {0};
    int st;
    CHECK(run_task(bad_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_EQ(fr.ran, 0);
    CHECK_EQ(fr.null_manager, TAAL_EINVAL);
    CHECK_EQ(fr.zero_manager, TAAL_EINVAL);
    CHECK_EQ(fr.null_sem, TAAL_EINVAL);
    CHECK_EQ(fr.null_lock, TAAL_EINVAL);
    CHECK_EQ(fr.null_block, TAAL_EINVAL);
}

static const taal_test tests[] = {
    TEST_ENTRY(the_exit_runs_after_a_body_that_ends_normally),
    TEST_ENTRY(the_exit_sees_an_error_of_the_body_which_goes_on_after_it),
    TEST_ENTRY(the_exit_may_swallow_the_error_and_the_code_after_the_block_runs),
    TEST_ENTRY(a_break_leaves_through_the_exit),
    TEST_ENTRY(a_return_from_the_body_runs_the_exit_and_returns),
    TEST_ENTRY(if_the_enter_fails_neither_the_body_nor_the_exit_runs),
    TEST_ENTRY(an_error_of_the_exit_replaces_the_body_s),
    TEST_ENTRY(a_cancel_in_the_body_runs_the_exit_which_may_await),
    TEST_ENTRY(an_exit_that_swallows_the_cancellation_lets_the_task_end_normally),
    TEST_ENTRY(a_cancel_during_the_enter_fails_it_and_the_exit_does_not_run),
    TEST_ENTRY(an_enter_that_swallows_the_cancellation_enters_and_the_exit_runs),
    TEST_ENTRY(a_cancel_during_the_exit_is_its_error),
    TEST_ENTRY(nested_blocks_exit_in_reverse_order_and_an_error_passes_both_exits),
    TEST_ENTRY(an_inner_exit_that_swallows_the_error_leaves_the_outer_clean),
    TEST_ENTRY(a_block_or_a_coroutine_manager_in_use_is_refused_with_ebusy),
    TEST_ENTRY(the_failing_end_of_a_misused_block_leaves_the_open_one_through_its_exit),
    TEST_ENTRY(a_block_in_a_loop_enters_and_exits_each_time),
    TEST_ENTRY(a_return_from_a_loop_in_a_block_closes_the_loop_then_exits_the_block),
    TEST_ENTRY(closing_a_generator_inside_a_block_runs_the_exit_before_its_cleanup),
    TEST_ENTRY(a_semaphore_s_block_releases_and_a_cancelled_waiter_loses_no_permit),
    TEST_ENTRY(a_lock_s_block_is_released_when_its_body_fails),
    TEST_ENTRY(bad_input_to_the_manager_forms_is_refused),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
