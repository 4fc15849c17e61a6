/*
** greet.c -- three greetings at once, with gather.
**
**   async def greet(name):
**       await asyncio.sleep(1)
**       print(f"नमस्ते, {name}!")
**
**   async def main():
**       tasks = [greet("Alice"), greet("Bob"), greet("Charlie")]
**       await asyncio.gather(*tasks)
**
**   asyncio.run(main())
**
** The three sleeps overlap: about 1 s in all on the real clock, not 3.
**
** `greet --one-by-one` runs the other way, for comparison (the tutorial
** shows both timelines): it awaits each greeting in turn, as
**
**   async def main():
**       for name in ("Alice", "Bob", "Charlie"):
**           await greet(name)
**
** would, and takes 3 s.
*/
#include "taal.h"

#include <stdio.h>
#include <string.h>

enum { GUESTS = 3 };
static const char *const guests[GUESTS] = {"Alice", "Bob", "Charlie"};

typedef struct greet {
    taal_coro co;
    const char *name;
} greet;

static int greet_body(taal_coro *self)
{
    greet *f = (greet *)self;
    TAAL_BEGIN(f);
    TAAL_SLEEP(1);
    printf("नमस्ते, %s!\n", f->name);
    TAAL_END();
}

typedef struct greet_all {
    taal_coro co;
    int started; /* tasks created so far */
    taal_future *children[GUESTS];
    taal_future *gathered;
} greet_all;

/* Starts one greet task, greet(name): the frame is the coroutine's
 * arguments, copied into the task's own block. */
static int start_greet(const char *name, taal_future **child)
{
    greet frame = {.name = name};
    taal_task *task;
    int rc = taal_task_create(taal_running_loop(), greet_body, &frame, sizeof frame, name,
                              &task);
    if (rc == TAAL_OK)
        *child = taal_task_future(task);
    return rc;
}

static int greet_all_body(taal_coro *self)
{
    greet_all *f = (greet_all *)self;
    int rc = TAAL_OK;
    TAAL_BEGIN(f);
    for (f->started = 0; f->started < GUESTS; f->started++) {
        rc = start_greet(guests[f->started], &f->children[f->started]);
        if (rc != TAAL_OK)
            break;
    }
    if (rc == TAAL_OK)
        rc = taal_gather(taal_running_loop(), GUESTS, f->children, &f->gathered);
    for (int i = 0; i < f->started; i++)
        taal_future_release(f->children[i]); /* the gather holds them now */
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_FUTURE(f->gathered);
    taal_future_release(f->gathered);
    TAAL_END();
}

/* The same greetings, each awaited directly (no task, no gather) before
 * the next starts: `await greet(name)` embeds greet's frame in main's. */
typedef struct greet_each {
    taal_coro co;
    int i;
    greet one;
} greet_each;

static int greet_each_body(taal_coro *self)
{
    greet_each *f = (greet_each *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < GUESTS; f->i++) {
        f->one = (greet){.name = guests[f->i]};
        taal_coro_init(&f->one.co, greet_body);
        TAAL_AWAIT(&f->one);
    }
    TAAL_END();
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc;
    if (argc > 1 && strcmp(argv[1], "--one-by-one") == 0)
        rc = taal_run(greet_each_body, NULL, sizeof(greet_each), NULL, NULL);
    else
        rc = taal_run(greet_all_body, NULL, sizeof(greet_all), NULL,
                      NULL); /* asyncio.run(main()) */
    if (rc != TAAL_OK) {
        fprintf(stderr, "greet: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
