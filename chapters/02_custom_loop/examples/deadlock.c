/*
** deadlock.c -- a task waits for a future that nobody will ever complete.
**
** The consumer awaits an order; the producer was meant to hand it over
** with taal_future_set_result() and forgot. Once the producer is done,
** nothing is ready and no timer is set: CPython's loop would wait forever.
** taal's loop says who waits for what, and run_until_complete returns
** TAAL_EDEADLOCK. The reports go to stdout here, to be read in order.
*/
#include "taal.h"

#include <stdio.h>

static void report_to_stdout(void *ctx, const taal_report *report)
{
    (void)ctx;
    printf("report: %s\n", report->message);
}

typedef struct consumer {
    taal_coro co;
    taal_future *order;
} consumer;

static int consumer_body(taal_coro *self)
{
    consumer *f = (consumer *)self;
    TAAL_BEGIN(f);
    puts("consumer: waiting for the order");
    TAAL_AWAIT_FUTURE(f->order);
    puts("consumer: got it"); /* never printed */
    TAAL_END();
}

typedef struct producer {
    taal_coro co;
} producer;

static int producer_body(taal_coro *self)
{
    producer *f = (producer *)self;
    TAAL_BEGIN(f);
    puts("producer: cooking");
    TAAL_SLEEP(0.5);
    puts("producer: done (and forgot to hand the order over)");
    TAAL_END();
}

typedef struct restaurant {
    taal_coro co;
    taal_future order;
    taal_task *consumer;
} restaurant;

static int restaurant_body(taal_coro *self)
{
    restaurant *f = (restaurant *)self;
    taal_loop *loop = taal_running_loop();
    int rc;
    TAAL_BEGIN(f);
    taal_future_init(&f->order, loop);
    rc = taal_task_create(loop, consumer_body, &(consumer){.order = &f->order},
                          sizeof(consumer), "consumer", &f->consumer);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    rc = taal_task_create(loop, producer_body, NULL, sizeof(producer), "producer", NULL);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_TASK(f->consumer);
    TAAL_END();
}

int main(void)
{
    taal_loop loop;
    taal_loop_options options = {.report = report_to_stdout};
    taal_task *main_task = NULL;
    int rc = taal_loop_init(&loop, &options);
    if (rc == TAAL_OK)
        rc = taal_task_create(&loop, restaurant_body, NULL, sizeof(restaurant), "main",
                              &main_task);
    if (rc == TAAL_OK)
        rc = taal_run_until_complete(&loop, taal_task_future(main_task));
    printf("run_until_complete: %s\n", taal_strerror(rc));
    taal_loop_close(&loop);
    taal_task_release(main_task); /* held through the close; this frees it */
    return rc == TAAL_OK ? 0 : 1;
}
