
/* ---- lab 06, exercise 5: a context manager that times its body ------------ */
#ifndef TAAL_TIMED_H
#define TAAL_TIMED_H

/** An async context manager that times the body of each block it is used
 *  for, on the loop's clock: its exit records how long the body took and
 *  how it ended, whichever way it ended, and swallows nothing. The enter
 *  gives the timer itself (`as value`). */
typedef struct taal_timed {
    taal_actx cm;   /**< first: the manager */
    double started; /**< loop time when the last body began */
    double elapsed; /**< how long the last body took, seconds */
    int status;     /**< how the last body ended */
    unsigned count; /**< bodies timed */
    double total;   /**< their time, in all */
} taal_timed;

/** Prepares @p timed, with no time counted. Returns TAAL_OK, or TAAL_EINVAL
 *  for NULL. */
int taal_timed_init(taal_timed *timed);

#endif /* TAAL_TIMED_H */
