/*
** test_ready.c -- lab 07, exercise 1: a watcher the kernel found ready has
** its reader and writer made ready, once each, if it waits for them.
*/
#include "io_support.h"

static char seen[256];

static void see(void *s)
{
    size_t n = strlen(seen);
    snprintf(seen + n, sizeof seen - n, "%s", (const char *)s);
}

/* Reads what is there and notes "r". */
static void drain_read(void *data)
{
    taal_io *io = data;
    char buf[64];
    while (read(io->fd, buf, sizeof buf) > 0)
        ;
    see("r");
}

TEST(a_readable_descriptor_runs_its_reader_in_the_iteration_that_polled)
{
    taal_loop loop;
    int fds[2];
    CHECK(socket_pair(fds));
    CHECK_EQ(open_loop(&loop), TAAL_OK);
    taal_io io = {0};
    taal_io_open(&io, &loop, fds[0]);
    taal_add_reader(&io, drain_read, &io);
    seen[0] = '\0';
    CHECK_EQ(write(fds[1], "x", 1), 1);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(seen, "r");
    taal_io_close(&io);
    taal_loop_close(&loop);
    close(fds[0]);
    close(fds[1]);
}

TEST(a_writable_descriptor_runs_its_writer_and_not_a_reader_it_has_not)
{
    taal_loop loop;
    int fds[2];
    CHECK(socket_pair(fds));
    CHECK_EQ(open_loop(&loop), TAAL_OK);
    taal_io io = {0};
    taal_io_open(&io, &loop, fds[0]);
    taal_add_writer(&io, see, "w");
    seen[0] = '\0';
    CHECK_EQ(write(fds[1], "x", 1), 1); /* readable too, but no reader waits */
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(seen, "w");
    taal_io_close(&io);
    taal_loop_close(&loop);
    close(fds[0]);
    close(fds[1]);
}

TEST(a_hang_up_makes_both_the_reader_and_the_writer_ready)
{
    taal_loop loop;
    int fds[2];
    CHECK(socket_pair(fds));
    CHECK_EQ(open_loop(&loop), TAAL_OK);
    taal_io io = {0};
    taal_io_open(&io, &loop, fds[0]);
    taal_add_reader(&io, drain_read, &io);
    taal_add_writer(&io, see, "w");
    seen[0] = '\0';
    close(fds[1]);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK(strcmp(seen, "rw") == 0 || strcmp(seen, "wr") == 0);
    taal_io_close(&io);
    taal_loop_close(&loop);
    close(fds[0]);
}

/* Yields `n` times at priority 5: while it runs, nothing at 0 does. */
typedef struct busy {
    taal_coro co;
    int i, n;
} busy;

static int busy_body(taal_coro *self)
{
    busy *f = (busy *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->n; f->i++)
        TAAL_SLEEP(0);
    TAAL_END();
}

TEST(a_reader_still_waiting_in_the_ready_queue_is_not_pushed_again)
{
    /* Polls in every iteration find the descriptor readable again and
     * again, while the reader waits behind a busy task of higher priority:
     * pushed twice, its link would corrupt the queue. */
    taal_loop loop;
    int fds[2];
    CHECK(socket_pair(fds));
    CHECK_EQ(open_loop_every(&loop, 1), TAAL_OK);
    taal_io io = {0};
    taal_io_open(&io, &loop, fds[0]);
    taal_add_reader(&io, drain_read, &io);
    taal_task *task = NULL;
    taal_task_create(&loop, busy_body, &(busy){.n = 50}, sizeof(busy), NULL, &task);
    taal_task_set_priority(task, 5);
    seen[0] = '\0';
    CHECK_EQ(write(fds[1], "x", 1), 1);
    for (int i = 0; i < 30; i++)
        CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(seen, ""); /* ready all along, behind the busy task */
    CHECK_EQ(finish_task(&loop, task), TAAL_OK);
    for (int i = 0; i < 3 && seen[0] == '\0'; i++)
        CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(seen, "r"); /* once */
    taal_io_close(&io);
    taal_loop_close(&loop);
    close(fds[0]);
    close(fds[1]);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_readable_descriptor_runs_its_reader_in_the_iteration_that_polled),
    TEST_ENTRY(a_writable_descriptor_runs_its_writer_and_not_a_reader_it_has_not),
    TEST_ENTRY(a_hang_up_makes_both_the_reader_and_the_writer_ready),
    TEST_ENTRY(a_reader_still_waiting_in_the_ready_queue_is_not_pushed_again),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
