
/* ---- lab 06, exercise 6: a pipeline stage with back-pressure --------------- */

/* The producer: iterates the upstream in its own task and puts every
 * value in the stage's queue, waiting while it is full; then the stage
 * itself, as the end marker. Cancelled, it stops at once: its loop closes
 * the upstream, and it puts no marker (nobody would take it). */
typedef struct buffered_producer {
    taal_coro co;
    taal_buffered *stage;
    taal_block loop;
    int st;
} buffered_producer;

static int buffered_producer_body(taal_coro *self)
{
    buffered_producer *f = (buffered_producer *)self;
    TAAL_BEGIN(f);
    TAAL_ASYNC_FOR(&f->loop, f->stage->upstream) {
        TAAL_QUEUE_PUT(&f->stage->queue, f->loop.value);
    }
    TAAL_ASYNC_FOR_END_STATUS(f->st, &f->loop);
    if (f->st == TAAL_ECANCELLED)
        TAAL_FAIL(f->st);
    f->stage->upstream_status = f->st;
    TAAL_QUEUE_PUT(&f->stage->queue, f->stage); /* the end */
    TAAL_END();
}

static int buffered_body(taal_coro *self)
{
    taal_buffered *f = (taal_buffered *)self;
    TAAL_AGEN_BEGIN(&f->gen);
    f->st = taal_queue_init(&f->queue, taal_running_loop(), f->size, "buffered");
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    f->queue_ready = true;
    f->st = taal_task_create(taal_running_loop(), buffered_producer_body,
                             &(buffered_producer){.stage = f}, sizeof(buffered_producer),
                             "producer", &f->producer);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    for (;;) {
        TAAL_QUEUE_GET(&f->queue, f->item);
        if (f->item == f)
            break;
        TAAL_AGEN_YIELD(f->item);
    }
    if (f->upstream_status != TAAL_OK)
        TAAL_FAIL(f->upstream_status);
    TAAL_AGEN_FINALLY();
    if (f->producer != NULL) {
        taal_task_cancel(f->producer); /* harmless if it has ended */
        TAAL_AWAIT_TASK_STATUS(f->st, f->producer);
        taal_task_release(f->producer);
        f->producer = NULL;
    }
    if (f->queue_ready) {
        taal_queue_destroy(&f->queue);
        f->queue_ready = false;
    }
    TAAL_AGEN_END();
}

int taal_buffered_init(taal_buffered *stage, taal_aiter *upstream, size_t size)
{
    if (stage == NULL || upstream == NULL || size == 0)
        return TAAL_EINVAL;
    stage->upstream = upstream;
    stage->size = size;
    stage->producer = NULL;
    stage->item = NULL;
    stage->upstream_status = TAAL_OK;
    stage->queue_ready = false;
    return taal_agen_init(&stage->gen, buffered_body);
}
