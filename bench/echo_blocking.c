/*
** echo_blocking.c -- the machine's limit for echo.c's one connection: the
** same loopback echo of 64-byte messages with no event loop at all.
**
** A server in a child process (fork), as in echo.c, accepts one connection
** and echoes it with blocking read() and write(); the client writes 64
** bytes and blocks in read() until all 64 are back, ROUND_TRIPS times. Both
** sockets have TCP_NODELAY, as taal's and asyncio's do. Each round trip is
** then one write and one read on each side and nothing else: no poll, no
** non-blocking read that finds nothing, no scheduling. What taal's echo
** spends above this is the price of its loop.
**
** Usage: bench_echo_blocking [ROUND_TRIPS [CONNECTIONS]]. CONNECTIONS is
** read and ignored (the runner gives it echo.c's arguments): one blocking
** connection is the reference for echo's one connection; 100 would take
** 100 threads, which measures the kernel's scheduler, not a limit.
** It prints round_trips_1_conn, the metric echo.c prints for one connection.
** It needs nothing of taal.
*/
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MESSAGE = 64 };

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long arg(int argc, char **argv, int index, long fallback, long min, long max)
{
    if (index >= argc)
        return fallback;
    char *end;
    errno = 0;
    long value = strtol(argv[index], &end, 10);
    if (errno != 0 || end == argv[index] || *end != '\0' || value < min || value > max) {
        fprintf(stderr,
                "%s: argument %d must be a whole number in [%ld, %ld], not '%s'\n",
                argv[0], index, min, max, argv[index]);
        exit(2);
    }
    return value;
}

/* Writes all of buf; false on an error. */
static bool write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        buf += n;
        len -= (size_t)n;
    }
    return true;
}

static void no_delay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* The child: listens on 127.0.0.1, tells the parent its port through the
 * pipe, echoes one connection until the client closes it. */
static int serve(int pipe_fd)
{
    int port = -1;
    struct sockaddr_in addr;
    socklen_t len = sizeof addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    if (listener >= 0 && bind(listener, (struct sockaddr *)&addr, sizeof addr) == 0 &&
        listen(listener, 1) == 0 &&
        getsockname(listener, (struct sockaddr *)&addr, &len) == 0)
        port = ntohs(addr.sin_port);
    if (write(pipe_fd, &port, sizeof port) != (ssize_t)sizeof port || port < 0) {
        perror("bench_echo_blocking server");
        return 1;
    }
    close(pipe_fd);
    int fd;
    while ((fd = accept(listener, NULL, NULL)) < 0 && errno == EINTR)
        ;
    close(listener);
    if (fd < 0) {
        perror("bench_echo_blocking server: accept");
        return 1;
    }
    no_delay(fd);
    char data[4096];
    for (;;) {
        ssize_t n = read(fd, data, sizeof data);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || !write_all(fd, data, (size_t)n))
            break;
    }
    close(fd);
    return 0;
}

/* The client: ROUND_TRIPS round trips over one connection to `port`. */
static int client(int port, long round_trips)
{
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons((uint16_t)port);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        perror("bench_echo_blocking: connect");
        if (fd >= 0)
            close(fd);
        return 1;
    }
    no_delay(fd);
    char data[MESSAGE];
    memset(data, 'e', sizeof data);
    int64_t start = now_ns();
    bool ok = true;
    for (long i = 0; ok && i < round_trips; i++) {
        ok = write_all(fd, data, MESSAGE);
        for (size_t got = 0; ok && got < MESSAGE;) {
            ssize_t n = read(fd, data + got, MESSAGE - got);
            if (n < 0 && errno == EINTR)
                continue;
            ok = n > 0;
            got += ok ? (size_t)n : 0;
        }
    }
    double seconds = (double)(now_ns() - start) / 1e9;
    if (!ok)
        fprintf(stderr, "bench_echo_blocking: the connection failed: %s\n",
                errno ? strerror(errno) : "closed early");
    close(fd);
    if (!ok)
        return 1;
    printf("round_trips_1_conn %.6g per_s\n", (double)round_trips / seconds);
    return 0;
}

int main(int argc, char **argv)
{
    long round_trips = arg(argc, argv, 1, 200000, 1, 1000000000);
    (void)arg(argc, argv, 2, 100, 1, 10000); /* echo.c's CONNECTIONS: checked, unused */
    printf("# echo_blocking: %ld round trips of %d bytes over 1 blocking connection\n",
           round_trips, MESSAGE);
    fflush(stdout);
    signal(SIGPIPE, SIG_IGN);
    int fds[2];
    if (pipe(fds) != 0) {
        perror("bench_echo_blocking: pipe");
        return 1;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("bench_echo_blocking: fork");
        return 1;
    }
    if (child == 0) {
        close(fds[0]);
        _exit(serve(fds[1]));
    }
    close(fds[1]);
    int port = -1, status = 1;
    if (read(fds[0], &port, sizeof port) == (ssize_t)sizeof port && port > 0)
        status = client(port, round_trips);
    else
        fprintf(stderr, "bench_echo_blocking: the server did not start\n");
    close(fds[0]);
    /* The server ends when the connection closes; a kill in case it never
     * had one. */
    int child_status;
    if (status != 0 || port <= 0)
        kill(child, SIGTERM);
    while (waitpid(child, &child_status, 0) < 0 && errno == EINTR)
        ;
    return status;
}
