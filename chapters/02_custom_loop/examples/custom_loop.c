/*
** custom_loop.c -- the seed's CustomEventLoop example, on taal's loop.
**
**   async def example():
**       print("Start")
**       await sleep(1)
**       print("After 1 second")
**       await sleep(2)
**       print("After 2 more seconds")
**       return "Done"
**
**   loop = CustomEventLoop()
**   print(loop.run_until_complete(example()))
**
** About 3 s on the real clock, during which the process sleeps in the
** kernel; instant under TAAL_CLOCK=virtual.
*/
#include "taal.h"

#include <stdio.h>

typedef struct example {
    taal_coro co;
} example;

static int example_body(taal_coro *self)
{
    example *f = (example *)self;
    TAAL_BEGIN(f);
    puts("Start");
    TAAL_SLEEP(1);
    puts("After 1 second");
    TAAL_SLEEP(2);
    puts("After 2 more seconds");
    TAAL_RETURN_VALUE("Done");
    TAAL_END();
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* show each line as it happens */

    void *result = NULL;
    int rc = taal_run(example_body, NULL, sizeof(example), NULL, &result);
    if (rc != TAAL_OK) {
        fprintf(stderr, "custom_loop: %s\n", taal_strerror(rc));
        return 1;
    }
    puts(result); /* print(loop.run_until_complete(example())) */
    return 0;
}
