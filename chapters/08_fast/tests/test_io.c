/*
** test_io.c -- chapter 07: readiness in the loop, on whichever backend this
** build polls with (the suite runs once with epoll and once with poll).
**
** Watchers are driven one iteration at a time with taal_run_once(), over
** socket pairs, so that what runs in which iteration is exact; the
** polling rule is checked by counting polls and iterations, never time.
*/
#include "io_support.h"

#include <errno.h>

/* What the callbacks saw, in order. */
static char seen[256];

static void see(const char *s)
{
    size_t n = strlen(seen);
    snprintf(seen + n, sizeof seen - n, "%s", s);
}

static void see_callback(void *s)
{
    see(s);
}

/* Reads what is there, so that a level-triggered reader does not fire
 * again, and notes it. */
static void drain_and_see(void *data)
{
    taal_io *io = data;
    char buf[64];
    while (sock_read(io->fd, buf, sizeof buf) > 0)
        ;
    see("r");
}

TEST(a_reader_runs_in_the_iteration_that_polls_when_its_descriptor_is_readable)
{
    taal_loop loop;
    taal_socket fds[2];
    CHECK(socket_pair(fds));
    CHECK_EQ(open_loop(&loop), TAAL_OK);
    taal_io io = {0};
    CHECK_EQ(taal_io_open(&io, &loop, fds[0]), TAAL_OK);
    CHECK_EQ(taal_add_reader(&io, drain_and_see, &io), TAAL_OK);
    seen[0] = '\0';
    CHECK_EQ(sock_write(fds[1], "x", 1), 1);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* nothing ready: poll, run */
    CHECK_STR(seen, "r");
    CHECK_EQ(sock_write(fds[1], "y", 1), 1);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(seen, "rr");
    CHECK_EQ(taal_io_close(&io), TAAL_OK);
    CHECK_EQ(loop.io_wanted, 0);
    CHECK_EQ(taal_run_once(&loop), TAAL_EDEADLOCK); /* nothing left to wait for */
    taal_loop_close(&loop);
    sock_close(fds[0]);
    sock_close(fds[1]);
}

TEST(io_callbacks_run_before_what_was_ready_and_after_it_in_fifo_order)
{
    /* asyncio's order: _process_events appends I/O handles to _ready, then
     * due timers, and the iteration runs them all in that order. */
    taal_loop loop;
    taal_socket fds[2];
    CHECK(socket_pair(fds));
    CHECK_EQ(open_loop_every(&loop, 1), TAAL_OK); /* poll in every iteration */
    taal_io io = {0};
    taal_handle h = {0};
    taal_timer t = {0};
    taal_io_open(&io, &loop, fds[0]);
    taal_add_reader(&io, drain_and_see, &io);
    seen[0] = '\0';
    taal_call_soon(&loop, &h, see_callback, "s");
    taal_call_later(&loop, &t, 0, see_callback, "t");
    CHECK_EQ(sock_write(fds[1], "x", 1), 1);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(seen, "srt");
    taal_io_close(&io);
    taal_loop_close(&loop);
    sock_close(fds[0]);
    sock_close(fds[1]);
}

TEST(a_writer_runs_while_its_descriptor_is_writable_until_removed)
{
    taal_loop loop;
    taal_socket fds[2];
    CHECK(socket_pair(fds));
    CHECK_EQ(open_loop(&loop), TAAL_OK);
    taal_io io = {0};
    taal_io_open(&io, &loop, fds[0]);
    seen[0] = '\0';
    CHECK_EQ(taal_add_writer(&io, see_callback, "w"), TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(seen, "ww"); /* level-triggered: again and again */
    CHECK_EQ(taal_remove_writer(&io), TAAL_OK);
    CHECK_EQ(taal_run_once(&loop), TAAL_EDEADLOCK);
    CHECK_STR(seen, "ww");
    taal_io_close(&io);
    taal_loop_close(&loop);
    sock_close(fds[0]);
    sock_close(fds[1]);
}

/* Two watchers ready in the same poll; the first removes the second. */
static taal_io pair_io[2];

static void remove_the_other(void *data)
{
    (void)data;
    see("1");
    taal_remove_reader(&pair_io[1]);
}

TEST(a_reader_removed_after_it_was_made_ready_does_not_run)
{
    taal_loop loop;
    taal_socket a[2], b[2];
    CHECK(socket_pair(a));
    CHECK(socket_pair(b));
    CHECK_EQ(open_loop(&loop), TAAL_OK);
    memset(pair_io, 0, sizeof pair_io);
    taal_io_open(&pair_io[0], &loop, a[0]);
    taal_io_open(&pair_io[1], &loop, b[0]);
    taal_add_reader(&pair_io[0], remove_the_other, NULL);
    taal_add_reader(&pair_io[1], see_callback, "2");
    seen[0] = '\0';
    CHECK_EQ(sock_write(a[1], "x", 1), 1);
    CHECK_EQ(sock_write(b[1], "x", 1), 1);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    /* which of the two the kernel lists first is its business: either the
     * first ran alone (and took the second back), or the second ran first */
    CHECK(strcmp(seen, "1") == 0 || strcmp(seen, "21") == 0);
    taal_io_close(&pair_io[0]);
    taal_io_close(&pair_io[1]);
    taal_loop_close(&loop);
    sock_close(a[0]), sock_close(a[1]), sock_close(b[0]), sock_close(b[1]);
}

TEST(a_hang_up_wakes_the_reader_which_reads_the_end)
{
    taal_loop loop;
    taal_socket fds[2];
    CHECK(socket_pair(fds));
    CHECK_EQ(open_loop(&loop), TAAL_OK);
    taal_io io = {0};
    taal_io_open(&io, &loop, fds[0]);
    taal_add_reader(&io, drain_and_see, &io);
    seen[0] = '\0';
    sock_close(fds[1]);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(seen, "r");
    taal_io_close(&io);
    taal_loop_close(&loop);
    sock_close(fds[0]);
}

/* ---- the polling rule ------------------------------------------------------- */

/* Yields `n` times, counting its steps. */
typedef struct spinner {
    taal_coro co;
    int i, n;
} spinner;

static int steps;

static int spinner_body(taal_coro *self)
{
    spinner *f = (spinner *)self;
    TAAL_BEGIN(f);
    for (f->i = 0; f->i < f->n; f->i++) {
        steps++;
        TAAL_SLEEP(0);
    }
    TAAL_END();
}

static int seen_at; /* the spinner's steps when the reader ran */

static void note_steps(void *data)
{
    taal_io *io = data;
    char buf[16];
    while (sock_read(io->fd, buf, sizeof buf) > 0)
        ;
    if (seen_at < 0)
        seen_at = steps;
}

/* A busy loop (one task that only yields) with a watcher whose data is
 * already there: how many polls it makes, and in which step the reader
 * ran. */
static void busy_run(unsigned interval, int spins, uint64_t *polls)
{
    taal_loop loop;
    taal_socket fds[2];
    taal_io io = {0};
    *polls = 0;
    seen_at = -1;
    steps = 0;
    if (!socket_pair(fds) || open_loop_every(&loop, interval) != TAAL_OK)
        return;
    taal_io_open(&io, &loop, fds[0]);
    taal_add_reader(&io, note_steps, &io);
    taal_task *task = NULL;
    taal_task_create(&loop, spinner_body, &(spinner){.n = spins}, sizeof(spinner), NULL,
                     &task);
    taal_run_once(&loop); /* the spinner's first step: from now on, work is ready */
    if (sock_write(fds[1], "x", 1) != 1)
        return;
    uint64_t before = loop.io_polls;
    for (int i = 0; i < spins - 1; i++)
        taal_run_once(&loop);
    *polls = loop.io_polls - before;
    finish_task(&loop, task);
    taal_io_close(&io);
    taal_loop_close(&loop);
    sock_close(fds[0]);
    sock_close(fds[1]);
}

TEST(a_busy_loop_polls_once_every_interval_iterations_not_in_each)
{
    uint64_t polls;
    busy_run(61, 1000, &polls);
    /* 999 busy iterations, a poll in every 61st */
    CHECK_EQ(polls, 999 / 61);
    busy_run(1, 1000, &polls); /* asyncio's rule: a poll per iteration */
    CHECK_EQ(polls, 999);
    busy_run(1000, 500, &polls); /* never, while it is busy */
    CHECK_EQ(polls, 0);
}

TEST(a_descriptor_ready_while_the_loop_is_busy_waits_at_most_interval_iterations)
{
    uint64_t polls;
    unsigned intervals[] = {1, 2, 7, 61, 100};
    for (size_t i = 0; i < TAAL_COUNT(intervals); i++) {
        busy_run(intervals[i], 300, &polls);
        CHECK(seen_at >= 0);
        /* the reader runs in the iteration of the first poll after the
         * write, at most `interval` iterations later */
        if (seen_at - 1 > (int)intervals[i])
            fprintf(stderr, "interval %u: the reader waited %d steps\n", intervals[i],
                    seen_at - 1);
        CHECK(seen_at - 1 <= (int)intervals[i]);
    }
}

TEST(an_idle_loop_with_a_watcher_blocks_in_the_kernel_instead_of_reporting_a_deadlock)
{
    taal_loop loop;
    taal_socket fds[2];
    CHECK(socket_pair(fds));
    CHECK_EQ(open_loop(&loop), TAAL_OK);
    taal_io io = {0};
    taal_io_open(&io, &loop, fds[0]);
    taal_add_reader(&io, drain_and_see, &io);
    seen[0] = '\0';
    CHECK_EQ(sock_write(fds[1], "x", 1), 1);
    uint64_t polls = loop.io_polls;
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* no timer, no work: it polls */
    CHECK_EQ(loop.io_polls, polls + 1);
    CHECK_STR(seen, "r");
    CHECK_STR(reports, "");
    taal_io_close(&io);
    taal_loop_close(&loop);
    sock_close(fds[0]);
    sock_close(fds[1]);
}

static taal_socket written_fd;

static void write_now(void *data)
{
    (void)data;
    if (sock_write(written_fd, "x", 1) != 1)
        see("!");
    see("t");
}

TEST(the_virtual_clock_jumps_to_the_next_timer_only_when_no_io_came)
{
    taal_loop loop;
    taal_socket fds[2];
    CHECK(socket_pair(fds));
    CHECK_EQ(open_loop(&loop), TAAL_OK);
    taal_io io = {0};
    taal_timer t = {0};
    taal_io_open(&io, &loop, fds[0]);
    taal_add_reader(&io, drain_and_see, &io);
    written_fd = fds[1];
    seen[0] = '\0';
    taal_call_later(&loop, &t, 5, write_now, NULL);
    CHECK_EQ(sock_write(fds[1], "x", 1), 1);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* the I/O: no time passes */
    CHECK_STR(seen, "r");
    CHECK(taal_loop_time(&loop) == 0.0);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* nothing came: jump to 5 s */
    CHECK_STR(seen, "rt");
    CHECK(taal_loop_time(&loop) == 5.0);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(seen, "rtr");
    CHECK(taal_loop_time(&loop) == 5.0);
    taal_io_close(&io);
    taal_loop_close(&loop);
    sock_close(fds[0]);
    sock_close(fds[1]);
}

TEST(the_real_clock_waits_in_the_poll_for_the_next_timer)
{
    taal_loop loop;
    taal_loop_options options = {.clock = TAAL_CLOCK_MONOTONIC, .report = keep_report};
    taal_socket fds[2];
    CHECK(socket_pair(fds));
    CHECK_EQ(taal_loop_init(&loop, &options), TAAL_OK);
    taal_io io = {0};
    taal_timer t = {0};
    taal_io_open(&io, &loop, fds[0]);
    taal_add_reader(&io, drain_and_see, &io);
    seen[0] = '\0';
    written_fd = fds[1];
    double start = taal_loop_time(&loop);
    taal_call_later(&loop, &t, 0.02, write_now, NULL);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK); /* blocks in the poll for 20 ms */
    CHECK_STR(seen, "t");
    CHECK(taal_loop_time(&loop) - start >= 0.02);
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK_STR(seen, "tr");
    taal_io_close(&io);
    taal_loop_close(&loop);
    sock_close(fds[0]);
    sock_close(fds[1]);
}

/* ---- misuse, and closing --------------------------------------------------- */

TEST(bad_input_to_watchers_is_refused)
{
    taal_loop loop;
    CHECK_EQ(open_loop(&loop), TAAL_OK);
    taal_io io = {0};
    CHECK_EQ(taal_io_open(NULL, &loop, 0), TAAL_EINVAL);
    CHECK_EQ(taal_io_open(&io, NULL, 0), TAAL_EINVAL);
    CHECK_EQ(taal_io_open(&io, &loop, -1), TAAL_EINVAL);
    CHECK_EQ(taal_add_reader(&io, see_callback, NULL), TAAL_EINVAL); /* not open */
    CHECK_EQ(taal_add_reader(NULL, see_callback, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_remove_reader(NULL), TAAL_EINVAL);
    CHECK_EQ(taal_io_close(NULL), TAAL_EINVAL);
    CHECK_EQ(taal_io_close(&io), TAAL_OK); /* closing a closed one: harmless */
    CHECK_EQ(taal_io_open(&io, &loop, 0), TAAL_OK);
    CHECK_EQ(taal_io_open(&io, &loop, 0), TAAL_EBUSY);
    CHECK_EQ(taal_add_reader(&io, NULL, NULL), TAAL_EINVAL);
    CHECK_EQ(taal_remove_writer(&io), TAAL_OK); /* none: harmless */
    CHECK_EQ(taal_io_close(&io), TAAL_OK);
    CHECK_EQ(taal_set_nonblocking(-1), TAAL_EIO);
    CHECK_STR(taal_strerror(TAAL_ECONNREFUSED), "connection refused");
    CHECK_STR(taal_strerror(TAAL_EWFULL), "write buffer is full");
    CHECK_STR(taal_strerror(-69), "unknown status");
    CHECK_EQ(taal_status_from_errno(ECONNREFUSED), TAAL_ECONNREFUSED);
    CHECK_EQ(taal_status_from_errno(ENFILE), TAAL_EMFILE);
    CHECK_EQ(taal_status_from_errno(EACCES), TAAL_EIO);
    taal_loop_close(&loop);
    CHECK_EQ(taal_io_open(&io, &loop, 0), TAAL_ECLOSED);
}

/* A refused or reset connection is the same status on every system: on
 * Windows, Winsock's own codes (what WSAGetLastError() and SO_ERROR say)
 * map as the errno values of the same meaning do. */
TEST(system_errors_map_to_the_same_statuses_on_every_system)
{
    CHECK_EQ(taal_status_from_errno(ECONNRESET), TAAL_ECONNRESET);
    CHECK_EQ(taal_status_from_errno(EADDRINUSE), TAAL_EADDRINUSE);
    CHECK_EQ(taal_status_from_errno(ECONNABORTED), TAAL_ECONNABORTED);
    CHECK_EQ(taal_status_from_errno(EMFILE), TAAL_EMFILE);
    CHECK_EQ(taal_status_from_errno(ENOBUFS), TAAL_ENOMEM);
    CHECK_EQ(taal_status_from_errno(ETIMEDOUT), TAAL_ETIMEDOUT);
#ifdef _WIN32
    CHECK_EQ(taal_status_from_errno(WSAECONNREFUSED), TAAL_ECONNREFUSED);
    CHECK_EQ(taal_status_from_errno(WSAECONNRESET), TAAL_ECONNRESET);
    CHECK_EQ(taal_status_from_errno(WSAECONNABORTED), TAAL_ECONNABORTED);
    CHECK_EQ(taal_status_from_errno(WSAEADDRINUSE), TAAL_EADDRINUSE);
    CHECK_EQ(taal_status_from_errno(WSAEMFILE), TAAL_EMFILE);
    CHECK_EQ(taal_status_from_errno(WSAENOBUFS), TAAL_ENOMEM);
    CHECK_EQ(taal_status_from_errno(WSAETIMEDOUT), TAAL_ETIMEDOUT);
    CHECK_EQ(taal_status_from_errno(WSAEACCES), TAAL_EIO);
    /* a socket that is none: Winsock says WSAENOTSOCK, which is TAAL_EIO */
    CHECK_EQ(taal_set_nonblocking(TAAL_INVALID_SOCKET), TAAL_EIO);
#endif
}

TEST(closing_the_loop_forgets_its_watchers_and_closes_its_poller)
{
    int before = open_fds();
    taal_loop loop;
    taal_socket fds[2];
    CHECK(socket_pair(fds));
    CHECK_EQ(open_loop(&loop), TAAL_OK);
    taal_io io = {0};
    taal_io_open(&io, &loop, fds[0]);
    taal_add_reader(&io, drain_and_see, &io);
    taal_add_writer(&io, see_callback, "w");
    CHECK_EQ(taal_run_once(&loop), TAAL_OK);
    CHECK(loop.poller != NULL);
    taal_loop_close(&loop);
    CHECK(io.loop == NULL);
    CHECK(!taal_handle_pending(&io.reader));
    CHECK(!taal_handle_pending(&io.writer));
    CHECK_EQ(io.fd, fds[0]); /* the descriptor is the caller's: still open */
    sock_close(fds[0]);
    sock_close(fds[1]);
    CHECK_EQ(open_fds(), before); /* the epoll descriptor too is gone */
}

/* CMake says which backend it built (TAAL_POLL_BACKEND); and a CI step
 * that must run on poll() says so in TAAL_EXPECT_BACKEND, so that an option
 * silently ignored cannot pass for a test of the other backend. */
TEST(the_backend_is_the_one_this_build_chose)
{
    const char *name = taal_io_backend();
    CHECK(strcmp(name, "epoll") == 0 || strcmp(name, "poll") == 0 ||
          strcmp(name, "wsapoll") == 0);
#ifdef TAAL_CH08_BACKEND_NAME
    CHECK_STR(name, TAAL_CH08_BACKEND_NAME);
#endif
    const char *wanted = getenv("TAAL_EXPECT_BACKEND");
    if (wanted != NULL && wanted[0] != '\0')
        CHECK_STR(name, wanted);
}

/* TAAL_CHAPTER and TAAL_VERSION. These tests run against every later
 * chapter too: the header is chapter 07 or later, and exactly the one the
 * build says it built them against, of the CMake project's version. */
TEST(the_header_says_which_chapter_and_which_version_of_taal_it_is)
{
    CHECK(TAAL_CHAPTER >= 7);
    CHECK_EQ(TAAL_CHAPTER, TAAL_TESTED_CHAPTER);
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", TAAL_VERSION_MAJOR, TAAL_VERSION_MINOR,
             TAAL_VERSION_PATCH);
    CHECK_STR(version, TAAL_VERSION);
    CHECK_STR(TAAL_VERSION, TAAL_TESTED_VERSION);
}

static const taal_test tests[] = {
    TEST_ENTRY(a_reader_runs_in_the_iteration_that_polls_when_its_descriptor_is_readable),
    TEST_ENTRY(io_callbacks_run_before_what_was_ready_and_after_it_in_fifo_order),
    TEST_ENTRY(a_writer_runs_while_its_descriptor_is_writable_until_removed),
    TEST_ENTRY(a_reader_removed_after_it_was_made_ready_does_not_run),
    TEST_ENTRY(a_hang_up_wakes_the_reader_which_reads_the_end),
    TEST_ENTRY(a_busy_loop_polls_once_every_interval_iterations_not_in_each),
    TEST_ENTRY(
        a_descriptor_ready_while_the_loop_is_busy_waits_at_most_interval_iterations),
    TEST_ENTRY(
        an_idle_loop_with_a_watcher_blocks_in_the_kernel_instead_of_reporting_a_deadlock),
    TEST_ENTRY(the_virtual_clock_jumps_to_the_next_timer_only_when_no_io_came),
    TEST_ENTRY(the_real_clock_waits_in_the_poll_for_the_next_timer),
    TEST_ENTRY(bad_input_to_watchers_is_refused),
    TEST_ENTRY(system_errors_map_to_the_same_statuses_on_every_system),
    TEST_ENTRY(closing_the_loop_forgets_its_watchers_and_closes_its_poller),
    TEST_ENTRY(the_backend_is_the_one_this_build_chose),
    TEST_ENTRY(the_header_says_which_chapter_and_which_version_of_taal_it_is),
};

int main(int argc, char **argv)
{
    return taal_check_main(argc, argv, tests, TAAL_COUNT(tests));
}
