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
    taal_future *children[GUESTS];
    taal_future *gathered;
} greet_all;

/* Starts one greet task: the frame is allocated with the task, and its
 * argument is filled in before the loop gets to run it. */
static int start_greet(const char *name, taal_future **child)
{
    taal_task *task;
    int rc = taal_task_create(taal_running_loop(), greet_body, sizeof(greet), &task);
    if (rc != TAAL_OK)
        return rc;
    ((greet *)taal_task_frame(task))->name = name;
    *child = taal_task_future(task);
    return TAAL_OK;
}

static int greet_all_body(taal_coro *self)
{
    greet_all *f = (greet_all *)self;
    int rc;
    TAAL_BEGIN(f);
    for (int i = 0; i < GUESTS; i++) {
        rc = start_greet(guests[i], &f->children[i]);
        if (rc != TAAL_OK)
            TAAL_FAIL(rc);
    }
    rc = taal_gather(taal_running_loop(), GUESTS, f->children, &f->gathered);
    if (rc != TAAL_OK)
        TAAL_FAIL(rc);
    TAAL_AWAIT_FUTURE(f->gathered);
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);

    int rc =
        taal_run(greet_all_body, sizeof(greet_all), NULL, NULL); /* asyncio.run(main()) */
    if (rc != TAAL_OK) {
        fprintf(stderr, "greet: %s\n", taal_strerror(rc));
        return 1;
    }
    return 0;
}
