/*
** steps_trace.h -- awaitable_steps writes a trace of its sends when
** TAAL_TRACE names a file, in the format the loop of chapter 02 writes (see
** tools/README.md), so that tools/timeline can draw chapter 01 too. Only
** the tutorial's picture needs it; steps_trace.c says how it works.
*/
#ifndef STEPS_TRACE_H
#define STEPS_TRACE_H

#include "taal.h"

/* Starts the trace, if TAAL_TRACE is set: `outer` is use_custom_awaitable's
 * header, `inner` custom_awaitable's, embedded in it. */
void trace_open(taal_coro *outer, taal_coro *inner);

/* Around every taal_send() of the driver. */
void trace_before_send(void);
void trace_after_send(int rc);

#endif /* STEPS_TRACE_H */
