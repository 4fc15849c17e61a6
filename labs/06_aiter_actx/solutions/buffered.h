
/* ---- lab 06, exercise 6: a pipeline stage with back-pressure --------------- */
#ifndef TAAL_BUFFERED_H
#define TAAL_BUFFERED_H

/** A stage of a pipeline that lets its upstream run ahead, but not too
 *  far: an async generator that runs the iteration of @p upstream in a task
 *  of its own (the producer), which puts each value in a queue of
 *  @p size, and waits when it is full (back-pressure); the stage yields
 *  the values from the queue, in order. When the upstream ends, so does the
 *  stage, with the upstream's error if it had one. Closing the stage
 *  (early, or because its own consumer failed or was cancelled) cancels the
 *  producer, whose `async for` closes the upstream, and waits for it: no
 *  task outlives the stage. The queue holds the upstream's value pointers,
 *  so the upstream must yield pointers that stay valid after its next value
 *  (not a counter in its frame). The stage must be iterated in a task,
 *  and closed before its storage goes (TAAL_ASYNC_FOR does). */
typedef struct taal_buffered {
    taal_aiter gen;       /**< first: the stage is an async generator */
    taal_aiter *upstream; /**< what it iterates */
    size_t size;          /**< values it may hold ahead */
    taal_queue queue;     /**< those values */
    taal_task *producer;  /**< the task iterating upstream, or NULL */
    void *item;           /**< the value taken from the queue */
    int upstream_status;  /**< how the upstream's iteration ended */
    int st;               /**< the stage's last await's status */
    bool queue_ready;     /**< the queue is initialised */
} taal_buffered;

/** Makes @p stage a buffered stage over @p upstream, holding at most
 *  @p size values ahead (at least 1). Returns TAAL_OK, or TAAL_EINVAL for
 *  NULL or a size of 0. */
int taal_buffered_init(taal_buffered *stage, taal_aiter *upstream, size_t size);

#endif /* TAAL_BUFFERED_H */
