/*
** io_support.h -- what chapter 07's test files share: loops on the virtual
** clock whose reports are kept, a count of open descriptors (nothing may
** stay open), socket pairs, running a task to its end, and the few socket
** calls that differ on Windows (sock_read, sock_write, sock_close), and a
** test's way to say that it cannot run here (skip_test).
*/
#ifndef TAAL_IO_SUPPORT_H
#define TAAL_IO_SUPPORT_H

#define _POSIX_C_SOURCE 200809L

#include "taal.h"
#include "taal_check.h"

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#define SHUT_WR SD_SEND /* shutdown(): no more sending */
#else
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#endif

/* A test that cannot run on this system says why and ends its process
 * with 77, which CMakeLists.txt makes ctest's SKIP_RETURN_CODE: it shows
 * as skipped, never as passed. (ctest runs each test in a process of its
 * own; run without arguments, the program stops at the first skip.) */
static inline void skip_test(const char *why)
{
    printf("skipped: %s\n", why);
    fflush(NULL);
    exit(77);
}

/* On a system where test `name` cannot run at all, it is defined so
 * instead of with TEST(), with the reason it is skipped. (CMake finds the
 * tests by their TEST( lines, which the file still has for this one.) */
#define SKIPPED_TEST(name, why) \
    static void name(void)      \
    {                           \
        skip_test(why);         \
    }

/* Reading, writing and closing a socket: read(), write() and close() on
 * POSIX; recv(), send() and closesocket() on Windows, where a socket is no
 * file descriptor. */
#ifdef _WIN32
static inline long sock_read(taal_socket s, void *buf, size_t n)
{
    return recv(s, buf, (int)n, 0);
}

static inline long sock_write(taal_socket s, const void *buf, size_t n)
{
    return send(s, buf, (int)n, 0);
}

static inline void sock_close(taal_socket s)
{
    closesocket(s);
}

/* Winsock for the tests' own sockets, made before any loop is: started
 * once, and left to the process's end. */
static inline void sock_startup(void)
{
    static bool started;
    WSADATA wsa;
    if (!started)
        started = WSAStartup(MAKEWORD(2, 2), &wsa) == 0;
}
#else
static inline long sock_read(taal_socket s, void *buf, size_t n)
{
    return (long)read(s, buf, n);
}

static inline long sock_write(taal_socket s, const void *buf, size_t n)
{
    return (long)write(s, buf, n);
}

static inline void sock_close(taal_socket s)
{
    close(s);
}

static inline void sock_startup(void)
{
}
#endif

/* The reports of the loop under test, one line each. */
static char reports[4096];

static inline void keep_report(void *ctx, const taal_report *report)
{
    (void)ctx;
    size_t used = strlen(reports);
    snprintf(reports + used, sizeof reports - used, "%s\n", report->message);
}

/* A loop on the virtual clock that reports into `reports`, polling for I/O
 * every `interval` iterations while busy (0: the default). */
static inline int open_loop_every(taal_loop *loop, unsigned interval)
{
    taal_loop_options options = {
        .clock = TAAL_CLOCK_VIRTUAL, .report = keep_report, .io_interval = interval};
    reports[0] = '\0';
    return taal_loop_init(loop, &options);
}

static inline int open_loop(taal_loop *loop)
{
    return open_loop_every(loop, 0);
}

/* Tasks, gathers and waits the loop still holds, and streams and servers. */
static inline int live_objects(const taal_loop *loop)
{
    int n = 0;
    for (const taal_link *l = loop->objects.next; l != &loop->objects; l = l->next)
        n++;
    for (const taal_link *l = loop->sockets.next; l != &loop->sockets; l = l->next)
        n++;
    return n;
}

#ifdef _WIN32
/* The sockets this process has open. Windows has no /proc/self/fd, and
 * GetProcessHandleCount() is a stub under wine (always 0); so each handle
 * value a small process may have (multiples of 4, below 65536) is asked
 * whether it is a socket. That is all the chapter opens on Windows (the
 * WSAPoll backend has no descriptor of its own), and it is quick: Winsock
 * answers WSAENOTSOCK without asking the kernel. */
static inline int open_fds(void)
{
    sock_startup();
    int n = 0;
    for (uintptr_t h = 4; h < 65536; h += 4) {
        int type, len = sizeof type;
        n += getsockopt((SOCKET)h, SOL_SOCKET, SO_TYPE, (char *)&type, &len) == 0;
    }
    return n;
}

/* A connected pair of non-blocking stream sockets: Windows has no
 * socketpair(), so a TCP connection over 127.0.0.1, made through a
 * listener that is closed again. */
static inline bool socket_pair(taal_socket fds[2])
{
    sock_startup();
    struct sockaddr_in in = {0};
    int len = sizeof in;
    in.sin_family = AF_INET;
    in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    SOCKET l = socket(AF_INET, SOCK_STREAM, 0);
    fds[0] = fds[1] = INVALID_SOCKET;
    bool ok = l != INVALID_SOCKET && bind(l, (struct sockaddr *)&in, sizeof in) == 0 &&
              listen(l, 1) == 0 && getsockname(l, (struct sockaddr *)&in, &len) == 0 &&
              (fds[1] = socket(AF_INET, SOCK_STREAM, 0)) != INVALID_SOCKET &&
              connect(fds[1], (struct sockaddr *)&in, sizeof in) == 0 &&
              (fds[0] = accept(l, NULL, NULL)) != INVALID_SOCKET;
    if (l != INVALID_SOCKET)
        closesocket(l);
    if (ok) {
        int one = 1; /* the tests send a byte at a time, and want it there now */
        setsockopt(fds[0], IPPROTO_TCP, TCP_NODELAY, (char *)&one, sizeof one);
        setsockopt(fds[1], IPPROTO_TCP, TCP_NODELAY, (char *)&one, sizeof one);
    }
    return ok && taal_set_nonblocking(fds[0]) == TAAL_OK &&
           taal_set_nonblocking(fds[1]) == TAAL_OK;
}
#else
/* The descriptors this process has open, counted in /proc/self/fd (or
 * /dev/fd): a test counts before and after, and nothing may stay open. */
static inline int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        d = opendir("/dev/fd");
    if (d == NULL)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

/* A connected pair of non-blocking stream sockets. */
static inline bool socket_pair(taal_socket fds[2])
{
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
        return false;
    return taal_set_nonblocking(fds[0]) == TAAL_OK &&
           taal_set_nonblocking(fds[1]) == TAAL_OK;
}
#endif

/* Runs the loop until `task` is done and releases it; its status. */
static inline int finish_task(taal_loop *loop, taal_task *task)
{
    if (task == NULL)
        return TAAL_EINVAL;
    int rc = taal_run_until_complete(loop, taal_task_future(task));
    taal_task_release(task);
    return rc;
}

/* Runs `body` with `frame` as a task to its end: its status. */
static inline int run_task(taal_loop *loop, taal_body_fn body, const void *frame,
                           size_t size)
{
    taal_task *task = NULL;
    int rc = taal_task_create(loop, body, frame, size, "test", &task);
    return rc != TAAL_OK ? rc : finish_task(loop, task);
}

#endif /* TAAL_IO_SUPPORT_H */
