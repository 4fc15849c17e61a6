/*
** queue.c -- a producer, two consumers, a bounded queue, and join().
**
**   async def producer(q):
**       for job in range(1, 7):
**           await q.put(job)
**           print(f"{t:.1f} s: put job {job} (queue holds {q.qsize()})")
**       for _ in range(2):
**           await q.put(None)        # one "no more jobs" per consumer
**
**   async def consumer(q, name, seconds):
**       while True:
**           job = await q.get()
**           if job is None:
**               q.task_done(); return
**           print(f"{t:.1f} s: {name} starts job {job}")
**           await asyncio.sleep(seconds)
**           q.task_done()
**
**   q = asyncio.Queue(maxsize=2)   # with a fast and a slow consumer
**   await producer(q); await q.join(); print("join() returns ...")
**
** The queue holds two jobs at most, so the producer waits whenever the
** consumers fall behind (back-pressure), and join() returns when the last
** job is done, not when the queue is empty. The Python twin,
** docs/seeds/queue.py, prints the same lines on CPython 3.12 and 3.13.
*/
#include "taal.h"

#include <stdint.h> /* intptr_t: a number in a pointer, on every platform */
#include <stdio.h>

enum { JOBS = 6, CONSUMERS = 2 };

/* Seconds since the program began, as its twin prints them: the loop's
 * clock counts from an arbitrary moment (on the real clock, boot). */
static double started;

static double now(void)
{
    return taal_loop_time(taal_running_loop()) - started;
}

typedef struct producer {
    taal_coro co;
    taal_queue *q;
    long job;
} producer;

/* Jobs are numbers carried in the queue's pointers; NULL means "no more".
 * Through intptr_t, since a long is narrower than a pointer on 64-bit Windows. */
static int producer_body(taal_coro *self)
{
    producer *f = (producer *)self;
    TAAL_BEGIN(f);
    for (f->job = 1; f->job <= JOBS; f->job++) {
        TAAL_QUEUE_PUT(f->q, (void *)(intptr_t)f->job);
        printf("%.1f s: put job %ld (queue holds %zu)\n", now(), f->job,
               taal_queue_qsize(f->q));
    }
    for (f->job = 0; f->job < CONSUMERS; f->job++)
        TAAL_QUEUE_PUT(f->q, NULL);
    TAAL_END();
}

typedef struct consumer {
    taal_coro co;
    taal_queue *q;
    const char *name;
    double seconds;
    void *job;
} consumer;

static int consumer_body(taal_coro *self)
{
    consumer *f = (consumer *)self;
    TAAL_BEGIN(f);
    for (;;) {
        TAAL_QUEUE_GET(f->q, f->job);
        if (f->job == NULL) {
            taal_queue_task_done(f->q);
            TAAL_RETURN();
        }
        printf("%.1f s: %s starts job %ld\n", now(), f->name, (long)(intptr_t)f->job);
        TAAL_SLEEP(f->seconds);
        taal_queue_task_done(f->q);
    }
    TAAL_END();
}

typedef struct jobs {
    taal_coro co;
    taal_queue q;
    taal_future *consumers[CONSUMERS];
    taal_future *both;
    producer produce; /* awaited directly, as `await producer(q)` */
} jobs;

static int start(jobs *f, int i, const char *name, double seconds)
{
    taal_task *task;
    int rc = taal_task_create(taal_running_loop(), consumer_body,
                              &(consumer){.q = &f->q, .name = name, .seconds = seconds},
                              sizeof(consumer), name, &task);
    f->consumers[i] = rc == TAAL_OK ? taal_task_future(task) : NULL;
    return rc;
}

static int jobs_body(taal_coro *self)
{
    jobs *f = (jobs *)self;
    int rc;
    TAAL_BEGIN(f);
    started = taal_loop_time(taal_running_loop());
    rc = taal_queue_init(&f->q, taal_running_loop(), 2, "jobs");
    if (rc == TAAL_OK)
        rc = start(f, 0, "fast", 1);
    if (rc == TAAL_OK)
        rc = start(f, 1, "slow", 2);
    if (rc == TAAL_OK)
        rc = taal_gather(taal_running_loop(), CONSUMERS, f->consumers, &f->both);
    taal_future_release(f->consumers[0]);
    taal_future_release(f->consumers[1]);
    if (rc != TAAL_OK) {
        taal_queue_destroy(&f->q);
        TAAL_FAIL(rc);
    }
    f->produce = (producer){.q = &f->q};
    taal_coro_init(&f->produce.co, producer_body);
    TAAL_AWAIT(&f->produce);
    TAAL_QUEUE_JOIN(&f->q);
    printf("%.1f s: join() returns: every job is done\n", now());
    TAAL_AWAIT_FUTURE(f->both);
    taal_future_release(f->both);
    taal_queue_destroy(&f->q);
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = taal_run(jobs_body, NULL, sizeof(jobs), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "queue: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
