
/* ---- lab 06, exercise 5: a context manager that times its body ------------ */

static int timed_enter(taal_coro *self)
{
    taal_timed *f = (taal_timed *)self;
    TAAL_BEGIN(&f->cm);
    f->started = taal_loop_time(taal_running_loop());
    TAAL_RETURN_VALUE(f);
    TAAL_END();
}

/* Whatever the body did, the time is recorded; suppress stays false. */
static int timed_exit(taal_coro *self)
{
    taal_timed *f = (taal_timed *)self;
    TAAL_BEGIN(&f->cm);
    f->elapsed = taal_loop_time(taal_running_loop()) - f->started;
    f->status = f->cm.status;
    f->count++;
    f->total += f->elapsed;
    TAAL_END();
}

int taal_timed_init(taal_timed *timed)
{
    if (timed == NULL)
        return TAAL_EINVAL;
    timed->started = timed->elapsed = timed->total = 0;
    timed->status = TAAL_OK;
    timed->count = 0;
    return taal_actx_init(&timed->cm, timed_enter, timed_exit);
}
