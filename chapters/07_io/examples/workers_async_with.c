/*
** workers_async_with.c -- the seed's five workers, as the seed writes
** them: with `async with sem`.
**
**   async def worker(sem, i):
**       async with sem:
**           print(f"Worker {i} acquired the semaphore")
**           await asyncio.sleep(1)
**           print(f"Worker {i} released the semaphore")
**
**   async def main():
**       sem = asyncio.Semaphore(2)
**       await asyncio.gather(*(worker(sem, i) for i in range(5)))
**
** Chapter 03's `semaphore` wrote the acquire and the release out; here the
** semaphore is an async context manager, whose exit releases the permit
** on every way out of the block (a failure, a cancellation). It prints
** the same ten lines, in about 3 s on the real clock.
** docs/seeds/workers_async_with.py is the Python twin; CPython 3.12 and
** 3.13 print the same lines.
*/
#include "taal.h"

#include <stdio.h>

enum { WORKERS = 5 };

typedef struct worker {
    taal_coro co;
    taal_semaphore *sem;
    int i;
    taal_block with;
} worker;

static int worker_body(taal_coro *self)
{
    worker *f = (worker *)self;
    TAAL_BEGIN(f);
    TAAL_ASYNC_WITH(&f->with, f->sem) {
        printf("Worker %d acquired the semaphore\n", f->i);
        TAAL_SLEEP(1);
        printf("Worker %d released the semaphore\n", f->i);
    }
    TAAL_ASYNC_WITH_END(&f->with);
    TAAL_END();
}

typedef struct workers {
    taal_coro co;
    taal_semaphore sem;
    taal_future *children[WORKERS];
    taal_future *gathered;
} workers;

static int workers_body(taal_coro *self)
{
    workers *f = (workers *)self;
    taal_loop *loop = taal_running_loop();
    int rc = TAAL_OK;
    TAAL_BEGIN(f);
    taal_semaphore_init(&f->sem, loop, 2, "sem");
    for (int i = 0; i < WORKERS && rc == TAAL_OK; i++) {
        taal_task *task;
        rc = taal_task_create(loop, worker_body, &(worker){.sem = &f->sem, .i = i},
                              sizeof(worker), NULL, &task);
        f->children[i] = rc == TAAL_OK ? taal_task_future(task) : NULL;
    }
    if (rc == TAAL_OK)
        rc = taal_gather(loop, WORKERS, f->children, &f->gathered);
    for (int i = 0; i < WORKERS; i++)
        taal_future_release(f->children[i]); /* the gather holds them */
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_FUTURE(f->gathered);
    taal_future_release(f->gathered);
    taal_semaphore_destroy(&f->sem);
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = taal_run(workers_body, NULL, sizeof(workers), NULL, NULL);
    if (rc != TAAL_OK) {
        fprintf(stderr, "workers_async_with: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
