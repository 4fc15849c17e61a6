/*
** queue.c -- the cost of a bounded queue: one producer and one consumer
** pass N items through a queue of M slots (1,000,000 items, 64 slots).
**
**   async def producer(q, n):             async def consumer(q, n):
**       for i in range(n):                    for _ in range(n):
**           await q.put(i)                        await q.get()
**
**   q = asyncio.Queue(maxsize=m)
**   await asyncio.gather(producer(q, n), consumer(q, n))
**
** Neither side suspends until it must: the producer fills the queue and
** waits for a slot; the consumer's first get hands that slot over, and it
** empties the queue before it waits in turn; the producer's next put hands
** its item to the waiting consumer, and so on, one switch for about M items
** each way. The figure is the time of the whole run divided by N. A
** counting allocator is installed for the whole run: the allocations made
** while the items pass (after the queue's ring and the tasks were made) are
** printed, and must be 0.
**
** Usage: bench_queue [N [M]].
*/
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

typedef struct side {
    taal_coro co;
    taal_queue *q;
    long n; /* items to pass */
    long i; /* items passed */
    void *item;
} side;

static int producer_body(taal_coro *self)
{
    side *f = (side *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->n; f->i++)
        TAAL_QUEUE_PUT(f->q, (void *)(f->i + 1));
    TAAL_END();
}

static int consumer_body(taal_coro *self)
{
    side *f = (side *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->n; f->i++) {
        TAAL_QUEUE_GET(f->q, f->item);
        if (f->item != (void *)(f->i + 1)) /* FIFO, nothing lost */
            TAAL_FAIL(TAAL_ESTATE);
    }
    TAAL_END();
}

typedef struct queue_main {
    taal_coro co;
    long n, slots;
    taal_queue q;
    taal_future *sides[2];
    taal_future *both;
    int64_t start;
    long allocs;
} queue_main;

static int queue_main_body(taal_coro *self)
{
    queue_main *f = (queue_main *)self;
    taal_loop *loop = taal_running_loop();
    int rc;
    TAAL_BEGIN(f);
    rc = taal_queue_init(&f->q, loop, (size_t)f->slots, "bench");
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    for (int i = 0; i < 2 && rc == TAAL_OK; i++) {
        taal_task *task;
        side frame = {.q = &f->q, .n = f->n};
        rc = taal_task_create(loop, i == 0 ? producer_body : consumer_body, &frame,
                              sizeof frame, NULL, &task);
        f->sides[i] = rc == TAAL_OK ? taal_task_future(task) : NULL;
    }
    if (rc == TAAL_OK)
        rc = taal_gather(loop, 2, f->sides, &f->both);
    taal_future_release(f->sides[0]); /* the gather holds them */
    taal_future_release(f->sides[1]);
    if (rc != TAAL_OK) {
        taal_queue_destroy(&f->q);
        TAAL_FAIL(rc);
    }
    f->allocs = bench_allocs;
    f->start = bench_now_ns();
    TAAL_AWAIT_FUTURE_STATUS(rc, f->both);
    bench_metric("item_ns", (double)(bench_now_ns() - f->start) / (double)f->n, "ns");
    bench_metric("item_allocs", (double)(bench_allocs - f->allocs), "allocs");
    taal_future_release(f->both);
    taal_queue_destroy(&f->q);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_END();
}

int main(int argc, char **argv)
{
    queue_main frame = {0};
    frame.n = bench_arg(argc, argv, 1, 20000000, 1, 1000000000);
    frame.slots = bench_arg(argc, argv, 2, 64, 1, 1000000);
    printf("# queue: %ld items through a queue of %ld slots\n", frame.n, frame.slots);
    bench_install_counting_allocator();
    int status = bench_main("bench_queue", queue_main_body, &frame, sizeof frame);
    taal_set_allocator(NULL);
    return status;
}
