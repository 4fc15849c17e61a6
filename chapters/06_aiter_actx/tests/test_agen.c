/*
** test_agen.c -- chapter 06: async generators, and the `async for` that
** closes them.
**
** A generator yields values without suspending its consumer's task, and
** suspends the task when it awaits. Its cleanup (after TAAL_AGEN_FINALLY)
** runs once, whichever way it ends: exhausted, failed, returned, closed
** before it started (not at all: it never began), mid-way, after its end,
** twice; with awaits in it; with its task cancelled while it awaits or
** while it waits at a yield. An `async for` closes it at a break, at an
** error of its body, at a cancellation, before the loop ends.
*/
#include "support.h"

/* ---- a generator of 1..n ---------------------------------------------------- */

typedef struct counter {
    taal_aiter gen;        /* first: the generator */
    int n;                 /* yields 1..n */
    double nap;            /* sleeps this long before each value, if > 0 */
    double cleanup_nap;    /* its cleanup sleeps this long, if > 0 */
    int fail_at;           /* fails with TAAL_EUSER instead of yielding this value */
    int return_at;         /* returns (ends early) instead of yielding this value */
    int stop_at;           /* fails with TAAL_STOP (not allowed) at this value */
    bool catch_cancel;     /* its sleeps swallow a cancellation */
    bool yield_in_cleanup; /* its cleanup yields 99 */
    int i, st;
    int exit_seen; /* gen.exit when its cleanup began */
    int cleanups;  /* times its cleanup began */
} counter;

static int counter_body(taal_coro *self)
{
    counter *f = (counter *)self;
    TAAL_AGEN_BEGIN(&f->gen);
    for (f->i = 1; f->i <= f->n; f->i++) {
        if (f->nap > 0 && f->catch_cancel) {
            TAAL_SLEEP_STATUS(f->st, f->nap);
            if (f->st == TAAL_ECANCELLED)
                note("swallowed ");
        } else if (f->nap > 0) {
            TAAL_SLEEP(f->nap);
        }
        if (f->i == f->fail_at)
            TAAL_FAIL(TAAL_EUSER);
        if (f->i == f->return_at)
            TAAL_RETURN();
        if (f->i == f->stop_at)
            TAAL_FAIL(TAAL_STOP);
        TAAL_AGEN_YIELD(&f->i);
    }
    TAAL_AGEN_FINALLY();
    f->exit_seen = f->gen.exit;
    f->cleanups++;
    note("cleanup ");
    if (f->yield_in_cleanup) {
        f->i = 99;
        TAAL_AGEN_YIELD(&f->i);
    }
    if (f->cleanup_nap > 0)
        TAAL_SLEEP(f->cleanup_nap);
    note("cleaned ");
    TAAL_AGEN_END();
}

/* ---- a consumer: async for over a counter ---------------------------------------- */

typedef struct consumer {
    taal_coro co;
    counter c;
    taal_block loop;
    int break_after;  /* `break` after this many values */
    int fail_after;   /* TAAL_FAIL(TAAL_EUSER) in the body after this many */
    int return_after; /* TAAL_RETURN_VALUE(&f->seen) after this many */
    double body_nap;  /* the body sleeps this long for each value */
    int seen, st;
    bool after; /* the code after the loop ran */
} consumer;

static int consumer_body(taal_coro *self)
{
    consumer *f = (consumer *)self;
    TAAL_BEGIN(f);
    taal_agen_init(&f->c.gen, counter_body);
    TAAL_ASYNC_FOR(&f->loop, &f->c.gen) {
        notef("v%d ", *(int *)f->loop.value);
        f->seen++;
        if (f->body_nap > 0)
            TAAL_SLEEP(f->body_nap);
        if (f->seen == f->fail_after)
            TAAL_FAIL(TAAL_EUSER);
        if (f->seen == f->return_after)
            TAAL_RETURN_VALUE(&f->seen);
        if (f->seen == f->break_after)
            break;
    }
    TAAL_ASYNC_FOR_END_STATUS(f->st, &f->loop);
    notef("end=%d", f->st);
    f->after = true;
    TAAL_FAIL(f->st);
    TAAL_END();
}

TEST(async_for_gets_every_value_and_the_cleanup_runs_before_the_loop_ends)
{
    consumer fr = {.c = {.n = 3}};
    int st;
    CHECK(run_task(consumer_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "v1 v2 v3 cleanup cleaned end=0");
    CHECK_EQ(fr.c.cleanups, 1);
    CHECK_EQ(fr.c.exit_seen, TAAL_OK);
    CHECK_EQ(fr.loop.phase, TAAL_BLOCK_IDLE);
    CHECK(fr.co.blocks == NULL);
}

/* The values of a generator that never awaits arrive in one step of the
 * task: yielding suspends the generator, not the task. */
typedef struct stepper {
    taal_coro co;
    counter c;
    int st, values;
} stepper;

static int stepper_body(taal_coro *self)
{
    stepper *f = (stepper *)self;
    TAAL_BEGIN(f);
    taal_agen_init(&f->c.gen, counter_body);
    for (;;) {
        TAAL_ANEXT_STATUS(f->st, &f->c.gen);
        if (f->st != TAAL_OK)
            break;
        f->values += *(int *)f->c.gen.value;
    }
    TAAL_END();
}

TEST(a_generator_that_never_awaits_yields_without_suspending_the_task)
{
    taal_loop loop;
    taal_task *task;
    open_loop(&loop);
    trace[0] = '\0';
    CHECK_EQ(taal_task_create(&loop, stepper_body, &(stepper){.c = {.n = 4}},
                              sizeof(stepper), NULL, &task),
             TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* one step: all of it */
    CHECK(taal_future_done(taal_task_future(task)));
    stepper *f = taal_task_frame(task);
    CHECK_EQ(f->values, 1 + 2 + 3 + 4);
    CHECK_EQ(f->st, TAAL_STOP);
    CHECK_STR(trace, "cleanup cleaned ");
    CHECK_EQ(finish_task(&loop, task), TAAL_OK);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* A generator that awaits suspends its consumer: the values come 1 s apart. */
typedef struct timed {
    taal_coro co;
    counter c;
    taal_block loop;
} timed;

static int timed_body(taal_coro *self)
{
    timed *f = (timed *)self;
    TAAL_BEGIN(f);
    taal_agen_init(&f->c.gen, counter_body);
    TAAL_ASYNC_FOR(&f->loop, &f->c.gen) {
        notef("%d@", *(int *)f->loop.value);
        notef("%d ", tenths());
    }
    TAAL_ASYNC_FOR_END(&f->loop);
    TAAL_END();
}

TEST(a_generator_that_awaits_suspends_its_consumer_at_each_await)
{
    timed fr = {.c = {.n = 3, .nap = 1, .cleanup_nap = 0.5}};
    int st;
    CHECK(run_task(timed_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "1@10 2@20 3@30 cleanup cleaned ");
}

TEST(a_break_closes_the_generator_at_once_and_its_cleanup_sees_the_close)
{
    consumer fr = {.c = {.n = 5}, .break_after = 2};
    int st;
    CHECK(run_task(consumer_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "v1 v2 cleanup cleaned end=0");
    CHECK_EQ(fr.c.exit_seen, TAAL_EGENEXIT);
    CHECK(taal_coro_done(&fr.c.gen.co));
}

TEST(an_error_in_the_loop_body_closes_the_generator_then_propagates)
{
    consumer fr = {.c = {.n = 5, .cleanup_nap = 1}, .fail_after = 2};
    int st;
    CHECK(run_task(consumer_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_EUSER);
    /* the status form of END gets it, after the close, and carries on */
    CHECK_STR(trace, "v1 v2 cleanup cleaned end=-1000");
    CHECK(fr.after);
    CHECK_EQ(fr.c.exit_seen, TAAL_EGENEXIT);
}

TEST(a_return_from_the_loop_body_closes_the_generator_and_returns)
{
    /* Python: `return` inside `async for` (with aclosing) closes the
     * generator, then returns: the code after the loop does not run. */
    consumer fr = {.c = {.n = 5, .cleanup_nap = 1}, .return_after = 2};
    int st;
    CHECK(run_task(consumer_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "v1 v2 cleanup cleaned ");
    CHECK(!fr.after);
    CHECK(fr.co.value != NULL); /* the value it returned is kept */
    CHECK_EQ(fr.c.exit_seen, TAAL_EGENEXIT);
}

TEST(an_error_in_the_generator_runs_its_cleanup_and_reaches_the_consumer)
{
    consumer fr = {.c = {.n = 5, .fail_at = 3}};
    int st;
    CHECK(run_task(consumer_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_EUSER);
    CHECK_STR(trace, "v1 v2 cleanup cleaned end=-1000");
    CHECK_EQ(fr.c.exit_seen, TAAL_EUSER);
    CHECK_EQ(fr.c.cleanups, 1);
}

TEST(a_generator_that_returns_early_runs_its_cleanup_and_ends_the_loop)
{
    consumer fr = {.c = {.n = 5, .return_at = 2}};
    int st;
    CHECK(run_task(consumer_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "v1 cleanup cleaned end=0");
    CHECK_EQ(fr.c.exit_seen, TAAL_OK);
}

TEST(a_generator_may_not_raise_stop_it_fails_with_estray)
{
    consumer fr = {.c = {.n = 5, .stop_at = 2}};
    int st;
    CHECK(run_task(consumer_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_ESTRAY);
    CHECK_STR(trace, "v1 cleanup cleaned end=-19");
    CHECK_EQ(fr.c.exit_seen, TAAL_ESTRAY);
}

/* ---- aclose, by hand --------------------------------------------------------------- */

typedef struct closer {
    taal_coro co;
    counter c;
    int take;   /* anext this many times first */
    int closes; /* then aclose this many times */
    int st, i;
    int closed[2];  /* the status of each aclose */
    int next_after; /* an anext after the closes */
} closer;

static int closer_body(taal_coro *self)
{
    closer *f = (closer *)self;
    TAAL_BEGIN(f);
    taal_agen_init(&f->c.gen, counter_body);
    for (f->i = 0; f->i < f->take; f->i++) {
        TAAL_ANEXT_STATUS(f->st, &f->c.gen);
        notef("n%d ", f->st == TAAL_OK ? *(int *)f->c.gen.value : f->st);
    }
    for (f->i = 0; f->i < f->closes; f->i++) {
        TAAL_ACLOSE_STATUS(f->closed[f->i], &f->c.gen);
        notef("closed@%d ", tenths());
    }
    TAAL_ANEXT_STATUS(f->next_after, &f->c.gen);
    TAAL_END();
}

TEST(aclose_before_the_start_runs_nothing_and_ends_the_generator)
{
    closer fr = {.c = {.n = 3}, .closes = 1};
    int st;
    CHECK(run_task(closer_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_EQ(fr.closed[0], TAAL_OK);
    CHECK_EQ(fr.c.cleanups, 0); /* its body never began: nor did its cleanup */
    CHECK_EQ(fr.next_after, TAAL_STOP);
    CHECK_STR(trace, "closed@0 ");
}

TEST(aclose_mid_way_runs_the_cleanup_once_with_genexit)
{
    closer fr = {.c = {.n = 5}, .take = 2, .closes = 1};
    int st;
    CHECK(run_task(closer_body, &fr, sizeof fr, &st));
    CHECK_EQ(fr.closed[0], TAAL_OK);
    CHECK_EQ(fr.c.cleanups, 1);
    CHECK_EQ(fr.c.exit_seen, TAAL_EGENEXIT);
    CHECK_EQ(fr.next_after, TAAL_STOP);
    CHECK_STR(trace, "n1 n2 cleanup cleaned closed@0 ");
}

TEST(aclose_after_the_end_and_aclose_twice_are_harmless)
{
    closer fr = {.c = {.n = 1}, .take = 3, .closes = 2};
    int st;
    CHECK(run_task(closer_body, &fr, sizeof fr, &st));
    CHECK_EQ(fr.closed[0], TAAL_OK);
    CHECK_EQ(fr.closed[1], TAAL_OK);
    CHECK_EQ(fr.c.cleanups, 1);
    CHECK_STR(trace, "n1 cleanup cleaned n2 n2 closed@0 closed@0 ");
    closer twice = {.c = {.n = 5}, .take = 1, .closes = 2};
    CHECK(run_task(closer_body, &twice, sizeof twice, &st));
    CHECK_EQ(twice.closed[0], TAAL_OK);
    CHECK_EQ(twice.closed[1], TAAL_OK);
    CHECK_EQ(twice.c.cleanups, 1);
}

TEST(a_cleanup_that_awaits_suspends_the_aclose)
{
    closer fr = {.c = {.n = 5, .cleanup_nap = 1.5}, .take = 1, .closes = 1};
    int st;
    CHECK(run_task(closer_body, &fr, sizeof fr, &st));
    CHECK_EQ(fr.closed[0], TAAL_OK);
    CHECK_STR(trace, "n1 cleanup cleaned closed@15 ");
}

TEST(a_yield_during_the_close_is_eignored_and_the_generator_ends_anyway)
{
    closer fr = {.c = {.n = 5, .yield_in_cleanup = true}, .take = 1, .closes = 2};
    int st;
    CHECK(run_task(closer_body, &fr, sizeof fr, &st));
    CHECK_EQ(fr.closed[0], TAAL_EIGNORED);
    CHECK_EQ(fr.closed[1], TAAL_OK);
    CHECK_EQ(fr.next_after, TAAL_STOP);
    CHECK(taal_coro_done(&fr.c.gen.co));
    CHECK_STR(trace, "n1 cleanup closed@0 closed@0 ");
}

TEST(a_yield_in_the_cleanup_at_the_end_is_one_more_value)
{
    consumer fr = {.c = {.n = 2, .yield_in_cleanup = true}};
    int st;
    CHECK(run_task(consumer_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_STR(trace, "v1 v2 cleanup v99 cleaned end=0");
}

/* ---- cancellation ---------------------------------------------------------------- */

TEST(a_task_cancelled_while_its_generator_awaits_ends_cleanly)
{
    /* The generator sleeps 1 s before each value; the cancel comes at
     * 2.5 s, in its third sleep: its cleanup runs (and may await), the
     * anext fails with the cancellation, and the loop has nothing to close. */
    consumer fr = {.c = {.n = 5, .nap = 1, .cleanup_nap = 0.5}};
    CHECK_EQ(cancelled_at(consumer_body, &fr, sizeof fr, 2.5), TAAL_ECANCELLED);
    CHECK_STR(trace, "v1 v2 cleanup cleaned end=-16");
    CHECK_EQ(fr.c.exit_seen, TAAL_ECANCELLED);
    CHECK_EQ(fr.c.cleanups, 1);
}

TEST(a_task_cancelled_while_its_generator_waits_at_a_yield_closes_it)
{
    /* The body sleeps 1 s for each value; the cancel comes at 1.5 s, in the
     * body's second sleep: the body returns, the loop closes the
     * generator (its cleanup awaiting 0.5 s), then the error goes on. */
    consumer fr = {.c = {.n = 5, .cleanup_nap = 0.5}, .body_nap = 1};
    CHECK_EQ(cancelled_at(consumer_body, &fr, sizeof fr, 1.5), TAAL_ECANCELLED);
    CHECK_STR(trace, "v1 v2 cleanup cleaned end=-16");
    CHECK_EQ(fr.c.exit_seen, TAAL_EGENEXIT);
    CHECK(fr.after); /* the status form of END carried on */
}

/* A main that starts a consumer and returns while its generator sleeps. */
typedef struct leaving_main {
    taal_coro co;
} leaving_main;

static int leaving_main_body(taal_coro *self)
{
    leaving_main *f = (leaving_main *)self;
    TAAL_BEGIN(f);
    taal_task_create(taal_running_loop(), consumer_body,
                     &(consumer){.c = {.n = 5, .nap = 1, .cleanup_nap = 0.5}},
                     sizeof(consumer), "consumer", NULL);
    TAAL_SLEEP(2.5);
    TAAL_END();
}

/* asyncio.run() closes the async generators still alive when main has
 * returned (shutdown_asyncgens). A taal generator lives in the frame of
 * the task that iterates it, and taal_run() cancels that task (chapter
 * 05): its `async for` closes the generator as the cancellation unwinds
 * it, its cleanup awaiting, before the loop closes. */
TEST(taal_runs_end_closes_the_generator_of_a_task_main_left_running)
{
    trace[0] = reports[0] = '\0';
    taal_loop_options options = {.clock = TAAL_CLOCK_VIRTUAL, .report = collect_report};
    CHECK_EQ(taal_run(leaving_main_body, NULL, sizeof(leaving_main), &options, NULL),
             TAAL_OK);
    CHECK_STR(trace, "v1 v2 cleanup cleaned end=-16");
    CHECK_STR(reports, "");
}

TEST(a_generator_that_swallows_the_cancellation_goes_on_yielding)
{
    consumer fr = {.c = {.n = 3, .nap = 1, .catch_cancel = true}};
    CHECK_EQ(cancelled_at(consumer_body, &fr, sizeof fr, 1.5), TAAL_OK);
    CHECK_STR(trace, "v1 swallowed v2 v3 cleanup cleaned end=0");
}

TEST(a_cancel_during_the_cleanup_interrupts_its_await)
{
    closer fr = {.c = {.n = 5, .cleanup_nap = 2}, .take = 1, .closes = 1};
    CHECK_EQ(cancelled_at(closer_body, &fr, sizeof fr, 1), TAAL_OK);
    CHECK_EQ(fr.closed[0], TAAL_ECANCELLED);
    CHECK_STR(trace, "n1 cleanup closed@10 ");
    CHECK(taal_coro_done(&fr.c.gen.co));
}

/* ---- two consumers -------------------------------------------------------------------
 */

typedef struct sharer {
    taal_coro co;
    taal_aiter *gen;
    int next, close;
} sharer;

static int sharer_body(taal_coro *self)
{
    sharer *f = (sharer *)self;
    TAAL_BEGIN(f);
    TAAL_ANEXT_STATUS(f->next, f->gen);
    TAAL_ACLOSE_STATUS(f->close, f->gen);
    TAAL_END();
}

typedef struct owner {
    taal_coro co;
    counter c;
    taal_task *other;
    int first, st;
} owner;

static int owner_body(taal_coro *self)
{
    owner *f = (owner *)self;
    TAAL_BEGIN(f);
    taal_agen_init(&f->c.gen, counter_body);
    taal_task_create(taal_running_loop(), sharer_body, &(sharer){.gen = &f->c.gen},
                     sizeof(sharer), "other", &f->other);
    TAAL_ANEXT_STATUS(f->first, &f->c.gen); /* asleep in it while the other tries */
    TAAL_AWAIT_TASK(f->other);
    TAAL_ACLOSE_STATUS(f->st, &f->c.gen);
    TAAL_END();
}

TEST(an_anext_or_aclose_while_another_runs_is_erunning)
{
    taal_loop loop;
    taal_task *task;
    open_loop(&loop);
    trace[0] = '\0';
    CHECK_EQ(taal_task_create(&loop, owner_body, &(owner){.c = {.n = 3, .nap = 1}},
                              sizeof(owner), "owner", &task),
             TAAL_OK);
    CHECK_EQ(taal_run_until_complete(&loop, taal_task_future(task)), TAAL_OK);
    owner *f = taal_task_frame(task);
    sharer *s = taal_task_frame(f->other);
    CHECK_EQ(s->next, TAAL_ERUNNING);
    CHECK_EQ(s->close, TAAL_ERUNNING);
    CHECK_EQ(f->first, TAAL_OK);
    CHECK_EQ(f->st, TAAL_OK);
    taal_task_release(f->other);
    taal_task_release(task);
    CHECK(loop_is_empty(&loop));
    taal_loop_close(&loop);
}

/* ---- generators of generators --------------------------------------------------------
 */

/* Yields each value of an inner counter, doubled. */
typedef struct doubler {
    taal_aiter gen;
    counter inner;
    taal_block loop;
    int value;
} doubler;

static int doubler_body(taal_coro *self)
{
    doubler *f = (doubler *)self;
    TAAL_AGEN_BEGIN(&f->gen);
    taal_agen_init(&f->inner.gen, counter_body);
    TAAL_ASYNC_FOR(&f->loop, &f->inner.gen) {
        f->value = 2 * *(int *)f->loop.value;
        TAAL_AGEN_YIELD(&f->value);
    }
    TAAL_ASYNC_FOR_END(&f->loop);
    TAAL_AGEN_FINALLY();
    note("outer-cleanup ");
    TAAL_AGEN_END();
}

typedef struct pipeline {
    taal_coro co;
    doubler d;
    taal_block loop;
    int st;
} pipeline;

static int pipeline_body(taal_coro *self)
{
    pipeline *f = (pipeline *)self;
    TAAL_BEGIN(f);
    taal_agen_init(&f->d.gen, doubler_body);
    TAAL_ASYNC_FOR(&f->loop, &f->d.gen) {
        notef("%d ", *(int *)f->loop.value);
        if (*(int *)f->loop.value == 4)
            break;
    }
    TAAL_ASYNC_FOR_END_STATUS(f->st, &f->loop);
    TAAL_END();
}

TEST(closing_a_generator_closes_the_one_it_iterates_first)
{
    pipeline fr = {.d = {.inner = {.n = 5, .cleanup_nap = 1}}};
    int st;
    CHECK(run_task(pipeline_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_EQ(fr.st, TAAL_OK);
    /* the close reaches the outer generator's yield, inside its loop: the
     * loop closes the inner one (which awaits), then the outer cleans up */
    CHECK_STR(trace, "2 4 cleanup cleaned outer-cleanup ");
    CHECK_EQ(fr.d.inner.exit_seen, TAAL_EGENEXIT);
}

TEST(a_pipeline_run_to_its_end_cleans_up_inside_out)
{
    pipeline fr = {.d = {.inner = {.n = 1}}};
    int st;
    CHECK(run_task(pipeline_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "2 cleanup cleaned outer-cleanup ");
    CHECK_EQ(fr.d.inner.exit_seen, TAAL_OK);
}

/* ---- the yield's status form
 * ------------------------------------------------------------ */

typedef struct polite {
    taal_aiter gen;
    int st, value;
} polite;

static int polite_body(taal_coro *self)
{
    polite *f = (polite *)self;
    TAAL_AGEN_BEGIN(&f->gen);
    f->value = 7;
    TAAL_AGEN_YIELD_STATUS(f->st, &f->value);
    notef("yield said %d ", f->st);
    TAAL_AGEN_FINALLY();
    notef("exit %d", f->gen.exit);
    TAAL_AGEN_END();
}

typedef struct polite_user {
    taal_coro co;
    polite p;
    int st, closed;
} polite_user;

static int polite_user_body(taal_coro *self)
{
    polite_user *f = (polite_user *)self;
    TAAL_BEGIN(f);
    taal_agen_init(&f->p.gen, polite_body);
    TAAL_ANEXT_STATUS(f->st, &f->p.gen);
    TAAL_ACLOSE_STATUS(f->closed, &f->p.gen);
    TAAL_END();
}

TEST(the_yield_status_form_hands_the_close_to_the_body)
{
    polite_user fr = {0};
    int st;
    CHECK(run_task(polite_user_body, &fr, sizeof fr, &st));
    CHECK_EQ(fr.st, TAAL_OK);
    CHECK_EQ(fr.closed, TAAL_OK);
    /* the body carried on after its yield, and ran to its cleanup */
    CHECK_STR(trace, "yield said -20 exit 0");
}

/* ---- no loop needed -------------------------------------------------------------- */

TEST(a_generator_that_never_awaits_runs_without_a_loop)
{
    /* Driven by hand, as chapter 01 drives coroutines: no task, no loop. */
    stepper fr = {.c = {.n = 3}};
    trace[0] = '\0';
    taal_coro_init(&fr.co, stepper_body);
    CHECK_EQ(taal_send(&fr.co), TAAL_OK);
    CHECK_EQ(fr.values, 6);
    CHECK_EQ(fr.st, TAAL_STOP);
    CHECK_STR(trace, "cleanup cleaned ");
}

/* ---- bad input ------------------------------------------------------------------- */

typedef struct misuser {
    taal_coro co;
    counter c;
    taal_aiter zero;
    taal_block loop, inner;
    int null_next, null_close, zero_next, zero_close, loop_null, loop_zero;
    int outer_st, inner_st;
    int inner_values;
} misuser;

static int misuser_body(taal_coro *self)
{
    misuser *f = (misuser *)self;
    TAAL_BEGIN(f);
    TAAL_ANEXT_STATUS(f->null_next, (taal_aiter *)NULL);
    TAAL_ACLOSE_STATUS(f->null_close, (taal_aiter *)NULL);
    TAAL_ANEXT_STATUS(f->zero_next, &f->zero);
    TAAL_ACLOSE_STATUS(f->zero_close, &f->zero);
    TAAL_ASYNC_FOR(&f->loop, (taal_aiter *)NULL) {
        note("never ");
    }
    TAAL_ASYNC_FOR_END_STATUS(f->loop_null, &f->loop);
    TAAL_ASYNC_FOR(&f->loop, &f->zero) {
        note("never ");
    }
    TAAL_ASYNC_FOR_END_STATUS(f->loop_zero, &f->loop);
    /* one block, two loops at once: the inner one is refused */
    taal_agen_init(&f->c.gen, counter_body);
    TAAL_ASYNC_FOR(&f->loop, &f->c.gen) {
        TAAL_ASYNC_FOR(&f->loop, &f->c.gen) {
            f->inner_values++;
        }
        TAAL_ASYNC_FOR_END_STATUS(f->inner_st, &f->loop);
        notef("v%d ", *(int *)f->loop.value);
    }
    TAAL_ASYNC_FOR_END_STATUS(f->outer_st, &f->loop);
    TAAL_END();
}

TEST(bad_input_to_the_generator_forms_is_refused)
{
    CHECK_EQ(taal_agen_init(NULL, counter_body), TAAL_EINVAL);
    counter c;
    CHECK_EQ(taal_agen_init(&c.gen, NULL), TAAL_EINVAL);
    misuser fr = {.c = {.n = 2}};
    int st;
    CHECK(run_task(misuser_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_EQ(fr.null_next, TAAL_EINVAL);
    CHECK_EQ(fr.null_close, TAAL_EINVAL);
    CHECK_EQ(fr.zero_next, TAAL_EINVAL);
    CHECK_EQ(fr.zero_close, TAAL_EINVAL);
    CHECK_EQ(fr.loop_null, TAAL_EINVAL);
    CHECK_EQ(fr.loop_zero, TAAL_EINVAL);
    CHECK_EQ(fr.inner_st, TAAL_EBUSY);
    CHECK_EQ(fr.inner_values, 0);
    CHECK_EQ(fr.outer_st, TAAL_OK); /* the open loop went on undisturbed */
    CHECK_STR(trace, "v1 v2 cleanup cleaned ");
    CHECK_EQ(taal_strerror(TAAL_STOP)[0], 'n');
    CHECK_STR(taal_strerror(TAAL_EIGNORED), "async generator ignored its close");
}

static const taal_test tests[] = {
    TEST_ENTRY(async_for_gets_every_value_and_the_cleanup_runs_before_the_loop_ends),
    TEST_ENTRY(a_generator_that_never_awaits_yields_without_suspending_the_task),
    TEST_ENTRY(a_generator_that_awaits_suspends_its_consumer_at_each_await),
    TEST_ENTRY(a_break_closes_the_generator_at_once_and_its_cleanup_sees_the_close),
    TEST_ENTRY(an_error_in_the_loop_body_closes_the_generator_then_propagates),
    TEST_ENTRY(a_return_from_the_loop_body_closes_the_generator_and_returns),
    TEST_ENTRY(an_error_in_the_generator_runs_its_cleanup_and_reaches_the_consumer),
    TEST_ENTRY(a_generator_that_returns_early_runs_its_cleanup_and_ends_the_loop),
    TEST_ENTRY(a_generator_may_not_raise_stop_it_fails_with_estray),
    TEST_ENTRY(aclose_before_the_start_runs_nothing_and_ends_the_generator),
    TEST_ENTRY(aclose_mid_way_runs_the_cleanup_once_with_genexit),
    TEST_ENTRY(aclose_after_the_end_and_aclose_twice_are_harmless),
    TEST_ENTRY(a_cleanup_that_awaits_suspends_the_aclose),
    TEST_ENTRY(a_yield_during_the_close_is_eignored_and_the_generator_ends_anyway),
    TEST_ENTRY(a_yield_in_the_cleanup_at_the_end_is_one_more_value),
    TEST_ENTRY(a_task_cancelled_while_its_generator_awaits_ends_cleanly),
    TEST_ENTRY(taal_runs_end_closes_the_generator_of_a_task_main_left_running),
    TEST_ENTRY(a_task_cancelled_while_its_generator_waits_at_a_yield_closes_it),
    TEST_ENTRY(a_generator_that_swallows_the_cancellation_goes_on_yielding),
    TEST_ENTRY(a_cancel_during_the_cleanup_interrupts_its_await),
    TEST_ENTRY(an_anext_or_aclose_while_another_runs_is_erunning),
    TEST_ENTRY(closing_a_generator_closes_the_one_it_iterates_first),
    TEST_ENTRY(a_pipeline_run_to_its_end_cleans_up_inside_out),
    TEST_ENTRY(the_yield_status_form_hands_the_close_to_the_body),
    TEST_ENTRY(a_generator_that_never_awaits_runs_without_a_loop),
    TEST_ENTRY(bad_input_to_the_generator_forms_is_refused),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
