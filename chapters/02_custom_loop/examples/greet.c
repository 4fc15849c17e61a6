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
*/
#include "taal.h"

#include <stdio.h>

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

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);

    int rc = taal_run(greet_all_body, NULL, sizeof(greet_all), NULL,
                      NULL); /* asyncio.run(main()) */
    if (rc != TAAL_OK) {
        fprintf(stderr, "greet: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
