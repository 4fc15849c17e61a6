/*
** test_buffered.c -- lab 06, exercise 6: a pipeline stage with
** back-pressure.
**
**   int taal_buffered_init(taal_buffered *stage, taal_aiter *upstream, size_t size);
**
** The stage's upstream runs in a producer task of its own, ahead of the
** consumer but never by more than the queue holds: when the consumer takes
** a value, at most `size` others have been produced and not consumed yet
** (size - 1 in the queue, and one in the producer's hand, waiting for the
** slot just freed). The trace shows each value produced ("p") and
** consumed ("c"), and the tests count how far ahead the producer got. The values
** come in order; the upstream's end is the stage's, its error the
** stage's error; closing the stage stops the producer, which closes the
** upstream, before the close is over; and no task is left behind.
**
** This file does not compile until taal_buffered exists: that fails this
** exercise only.
*/
#include "lab.h"

/* Yields pointers to 1..n, from a table (the values must outlive the next
 * one: the queue holds pointers), noting "p<i>"; fails at `fail_at`. */
static const int values[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

typedef struct source {
    taal_aiter gen;
    int n, fail_at, i;
    int *produced;
} source;

static int source_body(taal_coro *self)
{
    source *f = (source *)self;
    TAAL_AGEN_BEGIN(&f->gen);
    for (f->i = 1; f->i <= f->n; f->i++) {
        if (f->i == f->fail_at)
            TAAL_FAIL(TAAL_EUSER);
        notef("p%d ", f->i);
        (*f->produced)++;
        TAAL_AGEN_YIELD(&values[f->i]);
    }
    TAAL_AGEN_FINALLY();
    notef("source-cleanup(%d) ", f->gen.exit);
    TAAL_AGEN_END();
}

typedef struct sink {
    taal_coro co;
    source src;
    taal_buffered stage;
    taal_block loop;
    size_t size;
    int produced, consumed, lead, break_after, st;
    double nap;
} sink;

static int sink_body(taal_coro *self)
{
    sink *f = (sink *)self;
    TAAL_BEGIN(f);
    f->src.produced = &f->produced;
    taal_agen_init(&f->src.gen, source_body);
    taal_buffered_init(&f->stage, &f->src.gen, f->size);
    TAAL_ASYNC_FOR(&f->loop, &f->stage.gen) {
        f->consumed++;
        if (f->produced - f->consumed > f->lead)
            f->lead = f->produced - f->consumed;
        notef("c%d ", *(int *)f->loop.value);
        if (f->consumed == f->break_after)
            break;
        TAAL_SLEEP(f->nap);
    }
    TAAL_ASYNC_FOR_END_STATUS(f->st, &f->loop);
    notef("end=%d", f->st);
    TAAL_END();
}

TEST(every_value_comes_in_order_and_the_upstream_ends_the_stage)
{
    sink fr = {.src = {.n = 5}, .size = 2, .nap = 1};
    int st;
    CHECK(run_task(sink_body, &fr, sizeof fr, &st));
    CHECK_EQ(st, TAAL_OK);
    CHECK_EQ(fr.st, TAAL_OK);
    CHECK_EQ(fr.consumed, 5);
    CHECK(strstr(trace, "source-cleanup(0) ") != NULL);
    CHECK(strstr(trace, "end=0") != NULL);
}

TEST(the_producer_runs_ahead_but_never_further_than_the_queue_allows)
{
    for (size_t size = 1; size <= 3; size++) {
        sink fr = {.src = {.n = 12}, .size = size, .nap = 1};
        int st;
        CHECK(run_task(sink_body, &fr, sizeof fr, &st));
        CHECK_EQ(fr.consumed, 12);
        /* size - 1 in the queue, and one in the producer's hand */
        if (fr.lead != (int)size)
            fprintf(stderr, "size %zu: the producer got %d ahead\n", size, fr.lead);
        CHECK_EQ(fr.lead, (int)size);
    }
}

TEST(the_exact_interleaving_with_a_queue_of_two)
{
    sink fr = {.src = {.n = 5}, .size = 2, .nap = 1};
    int st;
    CHECK(run_task(sink_body, &fr, sizeof fr, &st));
    /* the producer runs until the queue is full (p3 waits in its hand);
     * each value taken frees a slot, and it produces one more */
    CHECK_STR(trace, "p1 p2 p3 c1 p4 c2 p5 c3 source-cleanup(0) c4 c5 end=0");
}

TEST(an_upstream_error_reaches_the_consumer_after_the_values_before_it)
{
    sink fr = {.src = {.n = 5, .fail_at = 3}, .size = 4, .nap = 1};
    int st;
    CHECK(run_task(sink_body, &fr, sizeof fr, &st));
    CHECK_STR(trace, "p1 p2 source-cleanup(-1000) c1 c2 end=-1000");
}

TEST(closing_the_stage_stops_the_producer_which_closes_the_upstream)
{
    sink fr = {.src = {.n = 12}, .size = 2, .nap = 1, .break_after = 2};
    int st;
    CHECK(run_task(sink_body, &fr, sizeof fr, &st)); /* and no task is left */
    /* the producer, woken with a slot for p4, is cancelled before it puts
     * it; its loop closes the source; p5 is never made */
    CHECK_STR(trace, "p1 p2 p3 c1 p4 c2 source-cleanup(-20) end=0");
    CHECK(fr.stage.producer == NULL);
}

TEST(a_cancelled_consumer_stops_the_producer_too)
{
    sink fr = {.src = {.n = 12}, .size = 2, .nap = 1};
    int st;
    CHECK(run_task_cancelled_at(sink_body, &fr, sizeof fr, 1.5, &st));
    CHECK_STR(trace, "p1 p2 p3 c1 p4 c2 p5 source-cleanup(-20) end=-16");
}

TEST(init_refuses_nothing_and_a_size_of_zero)
{
    taal_buffered stage;
    source s;
    CHECK_EQ(taal_buffered_init(NULL, &s.gen, 1), TAAL_EINVAL);
    CHECK_EQ(taal_buffered_init(&stage, NULL, 1), TAAL_EINVAL);
    CHECK_EQ(taal_buffered_init(&stage, &s.gen, 0), TAAL_EINVAL);
}

static const taal_test tests[] = {
    TEST_ENTRY(every_value_comes_in_order_and_the_upstream_ends_the_stage),
    TEST_ENTRY(the_producer_runs_ahead_but_never_further_than_the_queue_allows),
    TEST_ENTRY(the_exact_interleaving_with_a_queue_of_two),
    TEST_ENTRY(an_upstream_error_reaches_the_consumer_after_the_values_before_it),
    TEST_ENTRY(closing_the_stage_stops_the_producer_which_closes_the_upstream),
    TEST_ENTRY(a_cancelled_consumer_stops_the_producer_too),
    TEST_ENTRY(init_refuses_nothing_and_a_size_of_zero),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
