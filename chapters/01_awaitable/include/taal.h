/*
** taal.h -- chapter 01: the awaitable protocol.
**
** A coroutine in taal is what a coroutine is in Python: a function whose
** frame lives outside the C stack, so that it can stop at an `await`,
** return to whoever resumed it, and later carry on from that very point.
**
**   Python                          taal
**   ------------------------------  ------------------------------------
**   async def f(): ...              a frame struct + a body function
**   coro = f()                      f_frame fr; f_init(&fr, ...);
**   coro.send(None)                 taal_send(&fr.co)
**   yield        (in __await__)     TAAL_YIELD();
**   await child  (yield from)       TAAL_AWAIT(&fr->child);
**   return value                    store it in the frame; TAAL_RETURN();
**   raise error                     TAAL_FAIL(TAAL_E...);
**
** The technique is Simon Tatham's "Coroutines in C" (and Protothreads): the
** body is one big `switch` on the saved resume point, and every await is a
** `case` label inside it. docs/01_awaitable.md writes the expansion out by
** hand before it uses these macros; read that first.
**
** The rules that come with the technique, each explained in the tutorial:
**   1. Every variable that must survive an await lives in the frame, not in a
**      local: the C stack is gone once the body returns at a suspension.
**   2. An await's argument is evaluated again at every resume, so it too
**      must be made of frame fields, not locals.
**   3. No `switch` of your own may contain an await (its `case` labels would
**      capture ours). if/else, loops and goto are fine. This one cannot be
**      caught by the compiler: the coroutine fails with TAAL_EPOINT when it
**      is resumed at the lost point.
**   4. At most one await or yield per source line (the line number is the
**      resume point; two on one line fail to compile with "duplicate case
**      value").
**   5. The macros only work between TAAL_BEGIN and TAAL_END; outside them
**      they fail to compile ("'taal__self' undeclared").
*/
#ifndef TAAL_H
#define TAAL_H

#include <stdbool.h>

/** @file
 *  @brief Chapter 01: coroutine frames, the resume macros and the driver.
 */

/* ------------------------------------------------------------------------ */
/** @name Version
 *  Which chapter's API this header declares, and which version of taal it
 *  is (the `VERSION` of the CMake project). A program, or a test built
 *  against several chapters, asks the preprocessor: `#if TAAL_CHAPTER >= 5`
 *  (cancellation is there). Every chapter keeps the API of the ones before
 *  it, so compare with `>=`.
 *  @{
 */
#define TAAL_CHAPTER 1       /**< this chapter's number, 1 to 7 */
#define TAAL_VERSION_MAJOR 0 /**< taal's version: major */
#define TAAL_VERSION_MINOR 1 /**< taal's version: minor */
#define TAAL_VERSION_PATCH 0 /**< taal's version: patch */
#define TAAL_VERSION "0.1.0" /**< the three, as a string */
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Status codes
 *  Every taal operation returns an int: zero for success, a positive value
 *  for "not finished yet", a negative TAAL_E... code for an error. A
 *  coroutine finishes with TAAL_OK or with one of the errors; the codes are
 *  values, never exceptions, and taal_strerror() names each one.
 *  @{
 */
enum {
    TAAL_OK = 0,         /**< success; for taal_send(): the coroutine finished */
    TAAL_SUSPENDED = 1,  /**< taal_send(): the coroutine stopped at an await */
    TAAL_EINVAL = -1,    /**< invalid argument (NULL, uninitialised frame) */
    TAAL_EDEAD = -2,     /**< the coroutine has already finished */
    TAAL_ERUNNING = -3,  /**< the coroutine is already running (it awaited itself) */
    TAAL_ENOMEM = -4,    /**< an allocation failed */
    TAAL_EPOINT = -5,    /**< resumed at a point its body does not have (an
                              await inside a `switch` of your own: rule 3) */
    TAAL_ENOTIMPL = -99, /**< not implemented: a hole of a lab handout, to fill */
    /** Coroutines may fail with codes of their own: any value at or below
     *  TAAL_EUSER is yours, and taal_strerror() calls it "user error". */
    TAAL_EUSER = -1000
};

/** A short English description of a status code ("cannot resume finished
 *  coroutine"). Never NULL; unknown codes give "unknown status". */
const char *taal_strerror(int status);
/** @} */

/* ------------------------------------------------------------------------ */
/** @name Coroutine frames
 *  @{
 */

/** The coroutine header; see struct taal_coro. */
typedef struct taal_coro taal_coro;

/** A coroutine's body. It runs from the saved resume point to the next
 *  await (returning TAAL_SUSPENDED) or to its end (returning TAAL_OK or an
 *  error). Write it with TAAL_BEGIN ... TAAL_END rather than by hand. */
typedef int (*taal_body_fn)(taal_coro *self);

/** Resume point of a coroutine that has finished. */
#define TAAL_POINT_DONE (-1)

/** The header every coroutine frame starts with.
 *
 *  A frame is a struct whose first member is a taal_coro, followed by the
 *  coroutine's arguments, its locals and the frames of the coroutines it
 *  awaits directly. Because the header is the first member, a pointer to the
 *  header and a pointer to the frame are the same address (C11 6.7.2.1p15),
 *  which is how the body gets its frame back.
 */
struct taal_coro {
    taal_body_fn body; /**< the coroutine's function; NULL = not initialised */
    int point;         /**< where to resume: 0 = start, a line = an await,
                            TAAL_POINT_DONE = finished */
    int status;        /**< how it finished (TAAL_OK or an error); TAAL_SUSPENDED
                            until then */
    bool running;      /**< true while its body is on the C stack */
};

/** Prepares a coroutine header: not started, not finished. Call it from the
 *  coroutine's own init function, which then stores the arguments.
 *  Returns TAAL_OK, or TAAL_EINVAL if @p co or @p body is NULL. */
int taal_coro_init(taal_coro *co, taal_body_fn body);

/** True once @p co has finished (with a value or with an error). */
bool taal_coro_done(const taal_coro *co);

/** Resumes @p co once, like Python's `coro.send(None)`.
 *
 *  Returns TAAL_SUSPENDED if the coroutine stopped at an await, TAAL_OK if it
 *  finished (its result is in its frame), or the error it finished with.
 *  Misuse never runs the body: TAAL_EINVAL for NULL or an uninitialised
 *  frame, TAAL_EDEAD for a finished coroutine, TAAL_ERUNNING for one that is
 *  already running. */
int taal_send(taal_coro *co);
/** @} */

/* ------------------------------------------------------------------------ */
/** @name The coroutine macros
 *  Each macro is the hand-written code of docs/01_awaitable.md, given a name.
 *  @{
 */

/** Opens a coroutine body. @p frame is a pointer to the frame struct, whose
 *  first member is `taal_coro co`. Declares `taal__self`, which every other
 *  macro uses: that is what makes an await outside a body fail to compile. */
#define TAAL_BEGIN(frame)                       \
    taal_coro *const taal__self = &(frame)->co; \
    switch (taal__self->point) {                \
    case 0:

/** Gives control back to the driver once; the next taal_send() resumes on
 *  the following statement. This is the bare `yield` of `__await__`. */
#define TAAL_YIELD()                  \
    do {                              \
        taal__self->point = __LINE__; \
        return TAAL_SUSPENDED;        \
    case __LINE__:;                   \
    } while (0)

/** Awaits the coroutine whose frame is @p child_frame, embedded in this
 *  frame, like `yield from`: each resume of this coroutine resumes the child,
 *  each suspension of the child suspends this coroutine, and when the child
 *  finishes this one continues. If the child fails, this coroutine fails
 *  with the same code (an uncaught exception propagates); use
 *  TAAL_AWAIT_STATUS to look at the error instead. */
#define TAAL_AWAIT(child_frame)                         \
    do {                                                \
        int taal__st;                                   \
        TAAL__AWAIT_INTO(taal__st, &(child_frame)->co); \
        if (taal__st != TAAL_OK)                        \
            TAAL_FAIL(taal__st);                        \
    } while (0)

/** Like TAAL_AWAIT, but stores the child's final status (TAAL_OK or an
 *  error) in the int lvalue @p status_lvalue and carries on, which is a
 *  `try: await child / except` in one line. The lvalue should be a frame
 *  field if it is read after a later await. */
#define TAAL_AWAIT_STATUS(status_lvalue, child_frame) \
    TAAL__AWAIT_INTO(status_lvalue, &(child_frame)->co)

/** The shared core of both awaits (internal: use TAAL_AWAIT). The resume
 *  point is set *before* the child's first step, so that resuming this
 *  coroutine re-enters the child. `if (0) { case N:; }` puts the case label
 *  where control can only arrive by the switch, which keeps
 *  -Wimplicit-fallthrough quiet in standard C. */
#define TAAL__AWAIT_INTO(out, child_co) \
    do {                                \
        taal__self->point = __LINE__;   \
        if (0) {                        \
        case __LINE__:;                 \
        }                               \
        (out) = taal_send(child_co);    \
        if ((out) == TAAL_SUSPENDED)    \
            return TAAL_SUSPENDED;      \
    } while (0)

/** Finishes the coroutine successfully; its results are whatever it stored
 *  in its frame. */
#define TAAL_RETURN() return TAAL_OK

/** Finishes the coroutine with the error @p status (a negative code).
 *  taal_send() marks the frame finished; the macro only returns. */
#define TAAL_FAIL(status) return (status)

/** Closes a coroutine body; falling off the end is TAAL_RETURN(). A resume
 *  point that is not one of the body's own `case` labels lands on the
 *  `default:` and fails with TAAL_EPOINT: that is what an await inside a
 *  `switch` of your own does (rule 3), since its label belongs to your
 *  switch. */
#define TAAL_END()               \
    TAAL_RETURN();               \
    default: return TAAL_EPOINT; \
        }

/** @} */

#endif /* TAAL_H */
