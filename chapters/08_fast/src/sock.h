/*
** sock.h -- the sockets API, the same on POSIX systems and on Windows.
**
** Winsock is BSD sockets with other names in a few places, and io.c,
** stream.c and the WSAPoll backend need only those few:
**
**   POSIX                     Windows (Winsock 2)
**   int descriptor, -1        SOCKET (an unsigned integer), INVALID_SOCKET
**   close()                   closesocket()
**   errno                     WSAGetLastError(), codes of its own (WSAE...)
**   fcntl(O_NONBLOCK)         ioctlsocket(FIONBIO)
**   connect(): EINPROGRESS    connect(): WSAEWOULDBLOCK
**   send(MSG_NOSIGNAL)        send() (no SIGPIPE to suppress)
**   shutdown(SHUT_WR)         shutdown(SD_SEND)
**   poll()                    WSAPoll() (poll_wsapoll.c)
**
** The public type is taal_socket (taal.h): int on POSIX, so that code
** written for POSIX compiles unchanged, and a SOCKET-sized unsigned
** integer on Windows. Errors are read with taal__sock_errno(), which on
** Windows translates Winsock's codes to the errno values of the same
** meaning that <errno.h> has, so that the rest of the code compares with
** EWOULDBLOCK and ECONNRESET everywhere, and taal_status_from_errno() maps
** them to the same TAAL_E* codes.
*/
#ifndef TAAL_SOCK_H
#define TAAL_SOCK_H

#include "internal.h"

#include <errno.h>

#ifdef _WIN32
/* Vista's API at least: WSAPoll and inet_pton are not in older ones. */
#if !defined(_WIN32_WINNT) || _WIN32_WINNT < 0x0600
#undef _WIN32_WINNT
#define _WIN32_WINNT 0x0600
#endif
#define WIN32_LEAN_AND_MEAN
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>

_Static_assert(sizeof(taal_socket) == sizeof(SOCKET) && (taal_socket)-1 > 0,
               "taal_socket holds a SOCKET");

/* Winsock counts lengths in int, and takes buffers as char *. */
typedef int taal__ssize;
#define TAAL__SOCK_LEN(n) ((int)((n) > INT_MAX ? INT_MAX : (n)))
#define TAAL__SHUT_WR SD_SEND
#define TAAL__SEND_FLAGS 0 /* no SIGPIPE on Windows */
#define taal__sock_close closesocket

/* Winsock's error for the last call, as the errno of the same meaning. */
int taal__sock_errno(void);

/* A connect() that goes on in the background: Winsock says WSAEWOULDBLOCK
 * (translated to EWOULDBLOCK), POSIX EINPROGRESS. */
#define TAAL__CONNECT_PENDING(err) ((err) == EWOULDBLOCK || (err) == EINPROGRESS)
#else
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

typedef ssize_t taal__ssize;
#define TAAL__SOCK_LEN(n) (n)
#define TAAL__SHUT_WR SHUT_WR
#ifdef MSG_NOSIGNAL
#define TAAL__SEND_FLAGS MSG_NOSIGNAL
#else
#define TAAL__SEND_FLAGS 0 /* macOS: SO_NOSIGPIPE on the socket instead */
#endif
#define taal__sock_close close
#define taal__sock_errno() errno
#define TAAL__CONNECT_PENDING(err) ((err) == EINPROGRESS)
#endif

/* The errno of an error that Winsock reported as a WSAE code (SO_ERROR's
 * value); the same value on POSIX. */
int taal__sock_error(int err);

#endif /* TAAL_SOCK_H */
