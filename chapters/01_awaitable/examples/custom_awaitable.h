/*
** custom_awaitable.h -- the seed program of chapter 01, as taal coroutines.
**
**   class CustomAwaitable:
**       def __init__(self, value):
**           self.value = value
**       def __await__(self):
**           yield              # give control back to the driver once
**           return self.value  # then finish with the value
**
**   async def use_custom_awaitable():
**       result = await CustomAwaitable(42)
**       print(result)
**
** Each Python coroutine becomes a frame struct and an init function; the
** body functions stay private to custom_awaitable.c.
*/
#ifndef CUSTOM_AWAITABLE_H
#define CUSTOM_AWAITABLE_H

#include "taal.h"

/** The frame of `CustomAwaitable(value).__await__()`. */
typedef struct custom_awaitable {
    taal_coro co; /**< header: must be first */
    int value;    /**< argument: what to finish with */
    int result;   /**< result: set when the coroutine finishes */
} custom_awaitable;

/** `CustomAwaitable(value)`: prepares the frame; nothing runs yet. */
int custom_awaitable_init(custom_awaitable *aw, int value);

/** The frame of `use_custom_awaitable()`. */
typedef struct use_custom_awaitable {
    taal_coro co;               /**< header: must be first */
    custom_awaitable awaitable; /**< the frame it awaits, embedded (yield from) */
    int result;                 /**< what the await gave (and what it printed) */
} use_custom_awaitable;

/** `use_custom_awaitable()`: prepares the frame; nothing runs yet. */
int use_custom_awaitable_init(use_custom_awaitable *f);

#endif /* CUSTOM_AWAITABLE_H */
