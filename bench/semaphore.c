/*
** semaphore.c -- the cost of a contended semaphore: T tasks share a
** semaphore of V permits (100 tasks, 4 permits); each acquires it, yields
** once while holding it, and releases it, R rounds in all.
**
**   async def user(sem, rounds):
**       for _ in range(rounds):
**           await sem.acquire()
**           await asyncio.sleep(0)
**           sem.release()
**
**   sem = asyncio.Semaphore(v)
**   await asyncio.gather(*(user(sem, r // t) for _ in range(t)))
**
** With 96 tasks always waiting, nearly every acquire parks the task, and
** every release hands the permit to the first waiter and wakes it: one
** round is a park, a hand-over, a wake-up and a sleep(0). The figure is the
** time of the whole run divided by the rounds. A counting allocator is
** installed for the whole run: the allocations made while the tasks run
** (after they were created) are printed, and must be 0.
**
** Usage: bench_semaphore [R [T [V]]].
*/
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

typedef struct user {
    taal_coro co;
    taal_semaphore *sem;
    long rounds; /* rounds to make */
    long i;      /* rounds made */
} user;

static int user_body(taal_coro *self)
{
    user *f = (user *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->rounds; f->i++) {
        TAAL_ACQUIRE(f->sem);
        TAAL_SLEEP(0);
        taal_semaphore_release(f->sem);
    }
    TAAL_END();
}

enum { MAX_TASKS = 1000 };

typedef struct semaphore_main {
    taal_coro co;
    long rounds, tasks, permits;
    taal_semaphore sem;
    taal_future *users[MAX_TASKS];
    taal_future *all;
    int64_t start;
    long allocs;
} semaphore_main;

static int semaphore_main_body(taal_coro *self)
{
    semaphore_main *f = (semaphore_main *)self;
    taal_loop *loop = taal_running_loop();
    int rc = TAAL_OK;
    long started = 0;
    TAAL_BEGIN(f);
    rc = taal_semaphore_init(&f->sem, loop, (int)f->permits, "bench");
    for (; rc == TAAL_OK && started < f->tasks; started++) {
        taal_task *task;
        user frame = {.sem = &f->sem, .rounds = f->rounds / f->tasks};
        rc = taal_task_create(loop, user_body, &frame, sizeof frame, NULL, &task);
        f->users[started] = rc == TAAL_OK ? taal_task_future(task) : NULL;
    }
    if (rc == TAAL_OK)
        rc = taal_gather(loop, (size_t)f->tasks, f->users, &f->all);
    for (long i = 0; i < started; i++)
        taal_future_release(f->users[i]); /* the gather holds them */
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    f->allocs = bench_allocs;
    f->start = bench_now_ns();
    TAAL_AWAIT_FUTURE(f->all);
    {
        long rounds = f->rounds / f->tasks * f->tasks;
        bench_metric("round_ns", (double)(bench_now_ns() - f->start) / (double)rounds,
                     "ns");
        bench_metric("round_allocs", (double)(bench_allocs - f->allocs), "allocs");
    }
    taal_future_release(f->all);
    rc = taal_semaphore_destroy(&f->sem);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_END();
}

int main(int argc, char **argv)
{
    semaphore_main frame = {0};
    frame.rounds = bench_arg(argc, argv, 1, 10000000, 1, 1000000000);
    frame.tasks = bench_arg(argc, argv, 2, 100, 1, MAX_TASKS);
    frame.permits = bench_arg(argc, argv, 3, 4, 1, 1000000);
    if (frame.rounds < frame.tasks)
        frame.rounds = frame.tasks;
    printf("# semaphore: %ld tasks share %ld permits, %ld rounds in all\n", frame.tasks,
           frame.permits, frame.rounds / frame.tasks * frame.tasks);
    bench_install_counting_allocator();
    int status = bench_main("bench_semaphore", semaphore_main_body, &frame, sizeof frame);
    taal_set_allocator(NULL);
    return status;
}
