/*
** aiter.c -- chapter 06: async iterators, async generators, and the
** `async for` that closes what it iterates.
**
** An async iterator is a frame that starts with a taal_aiter, whose `co`
** runs one of two kinds of body:
**
**   - an __anext__ (TAAL_CORO_ANEXT): every anext starts the body again
**     from its first line, on the same frame. It ends with a value
**     (TAAL_OK, the value in co.value), TAAL_STOP, or an error.
**   - an async generator (TAAL_CORO_AGEN): every anext resumes the body
**     where it yielded. It returns TAAL_SUSPENDED both when it awaits and
**     when it yields; the yield sets `yielded` first, and that one flag is
**     all that tells the two apart. An await must suspend the consumer's
**     task too; a yield hands a value over and suspends nothing.
**
** A generator's cleanup is the part of its body after TAAL_AGEN_FINALLY().
** When the body returns before reaching it (an error, a return, a close),
** this file resumes it there, at the fixed resume point
** TAAL__POINT_FINALLY, with `exit` saying why: that is the `finally:` of
** a language without exceptions.
*/
#include "internal.h"

/* ---- iterators and generators ------------------------------------------------ */

static void aiter_clear(taal_aiter *it)
{
    it->value = NULL;
    it->mark = NULL;
    it->exit = TAAL_OK;
    it->busy = false;
    it->yielded = false;
    it->closing = false;
    it->in_finally = false;
}

int taal__aiter_init_named(taal_aiter *it, taal_body_fn anext, const char *name)
{
    if (it == NULL || anext == NULL)
        return TAAL_EINVAL;
    taal__coro_reset(&it->co, anext, TAAL_CORO_ANEXT, name);
    aiter_clear(it);
    return TAAL_OK;
}

int(taal_aiter_init)(taal_aiter *it, taal_body_fn anext)
{
    return taal__aiter_init_named(it, anext, NULL);
}

/* A generator in a task's frame goes on the task's list, as a coroutine
 * does: one left suspended at a yield when the task ends is reported. */
int taal__agen_init_named(taal_aiter *gen, taal_body_fn body, const char *name)
{
    if (gen == NULL || body == NULL)
        return TAAL_EINVAL;
    taal__coro_track(&gen->co);
    taal__coro_reset(&gen->co, body, TAAL_CORO_AGEN, name);
    aiter_clear(gen);
    return TAAL_OK;
}

int(taal_agen_init)(taal_aiter *gen, taal_body_fn body)
{
    return taal__agen_init_named(gen, body, NULL);
}

static bool aiter_valid(const taal_aiter *it)
{
    return it != NULL && it->co.body != NULL &&
           (it->co.kind == TAAL_CORO_ANEXT || it->co.kind == TAAL_CORO_AGEN);
}

/*
** The start of an anext. Returns true if the caller should now step it
** with taal__anext_step(); false with the outcome in `*status` if it is
** over already: TAAL_STOP for a generator that has finished (asyncio's
** anext of an exhausted or closed generator), or a misuse. An __anext__
** starts from its first line; its frame keeps the iterator's state.
*/
bool taal__anext_start(taal_aiter *it, int *status)
{
    /* LAB(anext) BEGIN: refuse misuse; an __anext__ starts over; a generator goes on */
    if (!aiter_valid(it)) {
        *status = TAAL_EINVAL;
        return false;
    }
    if (it->busy) {
        *status = TAAL_ERUNNING;
        return false;
    }
    if (it->co.kind == TAAL_CORO_ANEXT) {
        taal__coro_reset(&it->co, it->co.body, TAAL_CORO_ANEXT, it->co.name);
        it->mark = taal__coro_mark();
    } else if (it->co.point == TAAL_POINT_DONE) {
        *status = TAAL_STOP;
        return false;
    }
    it->busy = true;
    return true;
    /* LAB(anext) END: (void)it; *status = TAAL_ENOTIMPL; return false; */
}

/*
** The generator's body returned `rc` (it is finished, as far as
** taal_send() knows). If it has not reached its cleanup yet, it is resumed
** there, with `exit` saying why: TAAL_OK for a return, TAAL_ESTRAY for a
** TAAL_STOP (which no generator may raise), else the error, TAAL_EGENEXIT
** from a close included. Returns true if it was.
*/
static bool enter_cleanup(taal_aiter *gen, int rc)
{
    /* LAB(anext) BEGIN: not in its cleanup yet: resume it there, saying why */
    if (gen->in_finally)
        return false;
    gen->exit = rc == TAAL_STOP ? TAAL_ESTRAY : rc;
    gen->co.point = TAAL__POINT_FINALLY;
    gen->co.status = TAAL_SUSPENDED;
    return true;
    /* LAB(anext) END: (void)gen; (void)rc; return false; */
}

/*
** One step of an anext in progress: TAAL_SUSPENDED while the iterator
** awaits (the task must wait), then its outcome: TAAL_OK with the value in
** it->value, TAAL_STOP, or an error. A generator that yields without
** awaiting runs to its yield in this one call.
*/
int taal__anext_step(taal_aiter *it)
{
    /* LAB(anext) BEGIN: send; tell a yield from an await; at the end, the cleanup */
    taal_coro *co = &it->co;
    for (;;) {
        int rc = taal_send(co);
        if (rc == TAAL_SUSPENDED) {
            if (!it->yielded)
                return TAAL_SUSPENDED; /* an await: the task waits */
            it->yielded = false;
            it->busy = false;
            return TAAL_OK; /* a yield: the value is in it->value */
        }
        if (co->kind == TAAL_CORO_ANEXT) {
            it->busy = false;
            taal__coro_check_since(it->mark);
            if (rc == TAAL_OK)
                it->value = co->value;
            return rc;
        }
        if (enter_cleanup(it, rc))
            continue;
        it->busy = false;
        it->value = NULL;
        if (rc == TAAL_OK)
            return TAAL_STOP; /* it ran to its end: no more values */
        return rc == TAAL_STOP ? TAAL_ESTRAY : rc;
    }
    /* LAB(anext) END: (void)it; return TAAL_ENOTIMPL; */
}

/*
** The start of an aclose. True if the generator must be stepped with
** taal__aclose_step(); false, with the outcome in `*status`, if there is
** nothing to run: an __anext__ iterator has nothing to close; a generator
** that finished is closed; one that never started is marked finished
** without running anything (its cleanup belongs to a body that never
** began), as Python's aclose() does.
*/
bool taal__aclose_start(taal_aiter *it, int *status)
{
    /* LAB(aclose) BEGIN: refuse misuse; nothing to run unless it is suspended */
    if (!aiter_valid(it)) {
        *status = TAAL_EINVAL;
        return false;
    }
    if (it->busy) {
        *status = TAAL_ERUNNING;
        return false;
    }
    *status = TAAL_OK;
    if (it->co.kind == TAAL_CORO_ANEXT || it->co.point == TAAL_POINT_DONE)
        return false;
    if (it->co.point == 0) {
        it->co.point = TAAL_POINT_DONE;
        it->co.status = TAAL_OK;
        return false;
    }
    it->closing = true;
    it->busy = true;
    return true;
    /* LAB(aclose) END: (void)it; *status = TAAL_ENOTIMPL; return false; */
}

/*
** One step of an aclose in progress. The generator resumes at its yield,
** which says TAAL_EGENEXIT; its body ends there (taal_send() leaves its
** open blocks on the way) and its cleanup runs, awaiting as it likes.
** Ending with TAAL_EGENEXIT, or TAAL_OK, is a clean close. A yield now is
** TAAL_EIGNORED, and the generator is finished all the same: it would
** never be resumed again.
*/
int taal__aclose_step(taal_aiter *it)
{
    /* LAB(aclose) BEGIN: send; an await, a yield (an error now), or the end */
    taal_coro *co = &it->co;
    for (;;) {
        int rc = taal_send(co);
        if (rc == TAAL_SUSPENDED) {
            if (!it->yielded)
                return TAAL_SUSPENDED;
            it->yielded = false;
            co->point = TAAL_POINT_DONE;
            co->status = rc = TAAL_EIGNORED;
        } else if (enter_cleanup(it, rc)) {
            continue;
        }
        it->busy = false;
        it->closing = false;
        it->value = NULL;
        if (rc == TAAL_OK || rc == TAAL_EGENEXIT)
            return TAAL_OK;
        return rc == TAAL_STOP ? TAAL_ESTRAY : rc;
    }
    /* LAB(aclose) END: (void)it; return TAAL_ENOTIMPL; */
}

/* ---- async for --------------------------------------------------------------- */

/* Is the block in use by a statement that has not reached its END? */
bool taal__block_open(const taal_block *block)
{
    return block->phase >= TAAL_BLOCK_ENTERING && block->phase <= TAAL_BLOCK_EXITING;
}

/* Takes `block` off the open blocks of `co` (it is normally the first). */
void taal__block_unlink(taal_coro *co, taal_block *block)
{
    for (taal_block **link = &co->blocks; *link != NULL; link = &(*link)->outer) {
        if (*link == block) {
            *link = block->outer;
            break;
        }
    }
    block->outer = NULL;
}

/* Puts `block` first on the open blocks of `co`: from now to its END, a
 * return from the body comes back to it (taal_send()'s leave_block()). */
void taal__block_link(taal_coro *co, taal_block *block)
{
    block->outer = co->blocks;
    co->blocks = block;
}

/*
** The END of an open block (an `async for`'s close, an `async with`'s
** exit): one still inside was left by a `break`, a normal end; one leaving
** leaves the open blocks first, so that nothing the close or the exit does
** can come back to it, and its exit starts afresh. True while the close or
** the exit is to run; false if the block never opened (nothing to end).
*/
bool taal__block_end(taal_coro *co, taal_block *block)
{
    if (block->phase == TAAL_BLOCK_INSIDE) {
        block->phase = TAAL_BLOCK_LEAVING; /* a `break` */
        block->status = TAAL_OK;
    }
    if (block->phase == TAAL_BLOCK_LEAVING) {
        taal__block_unlink(co, block);
        block->phase = TAAL_BLOCK_EXITING;
        block->resumed = false;
        block->suppress = false;
    }
    return block->phase == TAAL_BLOCK_EXITING;
}

/* The loop begins: the block is open from here to its END, so that a
 * return from its body comes back to close the iterator. A block that is
 * already open is left alone: the misuse is counted, and reported by the
 * END of the statement that misused it. */
void taal__for_begin(taal_coro *co, taal_block *block, taal_aiter *it, int line)
{
    if (block == NULL)
        return;
    if (taal__block_open(block)) {
        block->misused++;
        return;
    }
    *block =
        (taal_block){.kind = TAAL_BLOCK_FOR, .phase = TAAL_BLOCK_ENTERING, .line = line};
    block->u.iter = it;
    taal__block_link(co, block);
}

/* An anext has ended with `st`: a value, and the body runs; else the loop
 * is over, and its status is TAAL_OK for the end of the values. */
static int for_got(taal_block *block, int st)
{
    block->resumed = false;
    if (st == TAAL_OK) {
        block->phase = TAAL_BLOCK_INSIDE;
        block->value = block->u.iter->value;
    } else {
        block->phase = TAAL_BLOCK_LEAVING;
        block->status = st == TAAL_STOP ? TAAL_OK : st;
        block->value = NULL;
    }
    return TAAL_OK;
}

/* The head of each turn of the loop: the next value, one step at a time.
 * A block that is leaving (its values ran out, or taal_send() brought the
 * body back here to leave) does nothing: the loop then breaks. */
int taal__for_next(taal_block *block)
{
    if (block == NULL || block->misused > 0)
        return TAAL_OK;
    if (block->phase == TAAL_BLOCK_INSIDE) {
        block->phase = TAAL_BLOCK_ENTERING; /* the body ran: the next value */
        block->resumed = false;
    }
    if (block->phase != TAAL_BLOCK_ENTERING)
        return TAAL_OK;
    int st;
    if (!block->resumed) {
        if (!taal__anext_start(block->u.iter, &st))
            return for_got(block, st);
        block->resumed = true;
    }
    st = taal__anext_step(block->u.iter);
    if (st == TAAL_SUSPENDED)
        return TAAL_SUSPENDED;
    return for_got(block, st);
}

bool taal__for_inside(const taal_block *block)
{
    return block != NULL && block->misused == 0 && block->phase == TAAL_BLOCK_INSIDE;
}

/* The aclose has ended with `st`: a later error replaces the loop's. */
static int close_done(taal_block *block, int st)
{
    block->resumed = false;
    if (st != TAAL_OK)
        block->status = st;
    block->phase = TAAL_BLOCK_DONE;
    return TAAL_OK;
}

/*
** The END of the loop: the iterator is closed, however the loop ended. A
** block still inside was left by a `break`: that is a normal end. The
** block leaves the open ones before the close begins, so that nothing
** the close does can come back to it.
*/
int taal__for_close(taal_coro *co, taal_block *block)
{
    if (block == NULL || block->misused > 0 || !taal__block_end(co, block))
        return TAAL_OK;
    int st;
    if (!block->resumed) {
        if (!taal__aclose_start(block->u.iter, &st))
            return close_done(block, st);
        block->resumed = true;
    }
    st = taal__aclose_step(block->u.iter);
    if (st == TAAL_SUSPENDED)
        return TAAL_SUSPENDED;
    return close_done(block, st);
}

/* The loop's outcome; the block is idle again. */
int taal__for_end(taal_block *block)
{
    if (block == NULL)
        return TAAL_EINVAL;
    if (block->misused > 0) {
        block->misused--;
        return TAAL_EBUSY;
    }
    int st = block->phase == TAAL_BLOCK_DONE ? block->status : TAAL_EINVAL;
    block->phase = TAAL_BLOCK_IDLE;
    block->value = NULL;
    return st;
}
