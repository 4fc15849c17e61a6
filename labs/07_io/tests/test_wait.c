/*
** test_wait.c -- lab 07, exercise 2: the loop blocks in the poll until I/O
** or the next timer; the virtual clock jumps only when no I/O came.
*/
#include "io_support.h"

#include <sys/wait.h>
#include <time.h>

static char seen[64];

static void see(void *s)
{
    size_t n = strlen(seen);
    snprintf(seen + n, sizeof seen - n, "%s", (const char *)s);
}

static void drain_read(void *data)
{
    taal_io *io = data;
    char buf[64];
    while (read(io->fd, buf, sizeof buf) > 0)
        ;
    see("r");
}

TEST(on_the_real_clock_one_poll_waits_for_the_next_timer)
{
    taal_loop loop;
    taal_loop_options options = {.clock = TAAL_CLOCK_MONOTONIC, .report = keep_report};
    int fds[2];
    CHECK(socket_pair(fds));
    CHECK_EQ(taal_loop_init(&loop, &options), TAAL_OK);
    taal_io io = {0};
    taal_timer t = {0};
    taal_io_open(&io, &loop, fds[0]);
    taal_add_reader(&io, drain_read, &io); /* nothing will come */
    seen[0] = '\0';
    /* The time before the timer is armed: read after it, it would be later
     * than the timer's own start, and a wake right at the deadline would
     * look early (it did, under the sanitizers on a loaded machine). */
    double start = taal_loop_time(&loop);
    taal_call_later(&loop, &t, 0.03, see, "t");
    uint64_t polls = loop.io_polls;
    CHECK_EQ(taal_run_once(&loop),
             TAAL_OK); /* one iteration: blocked 30 ms, then ran it */
    CHECK_STR(seen, "t");
    CHECK_EQ(loop.io_polls - polls, 1); /* not a spin */
    CHECK(taal_loop_time(&loop) - start >= 0.03);
    taal_io_close(&io);
    taal_loop_close(&loop);
    close(fds[0]);
    close(fds[1]);
}

TEST(on_the_real_clock_a_timeout_is_rounded_up_not_down)
{
    /* 1.5 ms: a poll of 1 ms would wake before the timer, find it not due,
     * and poll again. */
    taal_loop loop;
    taal_loop_options options = {.clock = TAAL_CLOCK_MONOTONIC, .report = keep_report};
    int fds[2];
    CHECK(socket_pair(fds));
    CHECK_EQ(taal_loop_init(&loop, &options), TAAL_OK);
    taal_io io = {0};
    taal_timer t = {0};
    taal_io_open(&io, &loop, fds[0]);
    taal_add_reader(&io, drain_read, &io);
    seen[0] = '\0';
    taal_call_later(&loop, &t, 0.0015, see, "t");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(seen, "t");
    taal_io_close(&io);
    taal_loop_close(&loop);
    close(fds[0]);
    close(fds[1]);
}

TEST(on_the_virtual_clock_io_that_came_keeps_time_still)
{
    taal_loop loop;
    int fds[2];
    CHECK(socket_pair(fds));
    CHECK_EQ(open_loop(&loop), TAAL_OK);
    taal_io io = {0};
    taal_timer t = {0};
    taal_io_open(&io, &loop, fds[0]);
    taal_add_reader(&io, drain_read, &io);
    seen[0] = '\0';
    taal_call_later(&loop, &t, 5, see, "t");
    CHECK_EQ(write(fds[1], "x", 1), 1);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(seen, "r");
    CHECK(taal_loop_time(&loop) == 0.0); /* the I/O came: no time passed */
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(seen, "rt"); /* nothing came: time jumped to the timer */
    CHECK(taal_loop_time(&loop) == 5.0);
    taal_io_close(&io);
    taal_loop_close(&loop);
    close(fds[0]);
    close(fds[1]);
}

TEST(with_no_timer_the_loop_waits_in_the_kernel_until_io_comes)
{
    /* A child process writes after 20 ms of real time: the loop, with a
     * watcher and no timer, must block until then, not return empty-handed. */
    taal_loop loop;
    int fds[2];
    CHECK(socket_pair(fds));
    CHECK_EQ(open_loop(&loop), TAAL_OK);
    taal_io io = {0};
    taal_io_open(&io, &loop, fds[0]);
    taal_add_reader(&io, drain_read, &io);
    seen[0] = '\0';
    fflush(stdout);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
        _exit(write(fds[1], "x", 1) == 1 ? 0 : 1);
    }
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(seen, "r");
    waitpid(child, NULL, 0);
    taal_io_close(&io);
    taal_loop_close(&loop);
    close(fds[0]);
    close(fds[1]);
}

static const taal_test tests[] = {
    TEST_ENTRY(on_the_real_clock_one_poll_waits_for_the_next_timer),
    TEST_ENTRY(on_the_real_clock_a_timeout_is_rounded_up_not_down),
    TEST_ENTRY(on_the_virtual_clock_io_that_came_keeps_time_still),
    TEST_ENTRY(with_no_timer_the_loop_waits_in_the_kernel_until_io_comes),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
