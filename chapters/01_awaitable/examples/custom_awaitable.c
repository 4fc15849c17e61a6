/*
** custom_awaitable.c -- the seed's two coroutines, written with the macros.
** awaitable_steps.c is the same program with the macros expanded by hand.
*/
#include "custom_awaitable.h"

#include <stdio.h>

static int custom_awaitable_body(taal_coro *self)
{
    custom_awaitable *aw = (custom_awaitable *)self;
    TAAL_BEGIN(aw);
    TAAL_YIELD();           /* yield: give control back to the driver once */
    aw->result = aw->value; /* return self.value */
    TAAL_END();
}

int custom_awaitable_init(custom_awaitable *aw, int value)
{
    if (aw == NULL)
        return TAAL_EINVAL;
    aw->value = value;
    aw->result = 0;
    return taal_coro_init(&aw->co, custom_awaitable_body);
}

static int use_custom_awaitable_body(taal_coro *self)
{
    use_custom_awaitable *f = (use_custom_awaitable *)self;
    TAAL_BEGIN(f);
    custom_awaitable_init(&f->awaitable, 42);
    TAAL_AWAIT(&f->awaitable); /* result = await CustomAwaitable(42) */
    f->result = f->awaitable.result;
    printf("%d\n", f->result); /* print(result) */
    TAAL_END();
}

int use_custom_awaitable_init(use_custom_awaitable *f)
{
    if (f == NULL)
        return TAAL_EINVAL;
    f->result = 0;
    return taal_coro_init(&f->co, use_custom_awaitable_body);
}
