/* Must not compile: `async with` a manager that is none of the kinds the
 * form knows (a semaphore, a lock, a coroutine manager). */
#include "taal.h"

typedef struct user {
    taal_coro co;
    taal_block with;
    int not_a_manager;
} user;

int user_body(taal_coro *self)
{
    user *f = (user *)self;
    TAAL_BEGIN(f);
    TAAL_ASYNC_WITH(&f->with, &f->not_a_manager) {
    }
    TAAL_ASYNC_WITH_END(&f->with);
    TAAL_END();
}
