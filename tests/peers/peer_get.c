/*
** peer_get.c -- chapter 07's HTTP client against a server nobody here
** wrote (tests/peers/README.md).
**
**   peer_get --port P [options] PATH...
**
** One session maps the host name "peer" (--name) to 127.0.0.1:P and makes
** --count GETs of http://peer PATH, the paths taken in turn, in rounds of
** --concurrency requests at once, each request its own task, with
** --pause seconds between rounds. It uses taal_http_get and the
** session's options, as a user copying it would: --pipeline N lets N
** requests be in flight on the connection (the default, 1, does not
** pipeline), --no-redirects reads a 3xx as the response instead of
** following it.
**
** It prints one line per outcome, then what the bodies were:
**
**   requests 1500
**   ok 1500               (or: TAAL_EEOF 3, TAAL_ECONNABORTED 500, ...)
**   status 200 1500
**   bytes 1234567
**   header Location: /x   (with --header Location: the first response's)
**   mismatched 0          (with --expect-file or --expect-empty)
**
** and exits 0 only if every request ended as the options ask: by default
** each with TAAL_OK; --expect-status, --expect-file and --expect-empty add
** to that; --expect-error NAME asks every request to end with that error
** instead; --any accepts every outcome (the calling script reads the
** lines). Exit 1: not as asked; 2: bad arguments or setup; 3: --timeout.
*/
#define _POSIX_C_SOURCE 200809L

#include "taal.h"
#include "taal_http.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The names of the codes a request can end with. */
static const struct {
    int code;
    const char *name;
} names[] = {
    {TAAL_OK, "ok"},
    {TAAL_EINVAL, "TAAL_EINVAL"},
    {TAAL_ENOMEM, "TAAL_ENOMEM"},
    {TAAL_ENOTASK, "TAAL_ENOTASK"},
    {TAAL_EBUSY, "TAAL_EBUSY"},
    {TAAL_ECLOSED, "TAAL_ECLOSED"},
    {TAAL_EFULL, "TAAL_EFULL"},
    {TAAL_ECANCELLED, "TAAL_ECANCELLED"},
    {TAAL_ETIMEDOUT, "TAAL_ETIMEDOUT"},
    {TAAL_ECONNREFUSED, "TAAL_ECONNREFUSED"},
    {TAAL_ECONNRESET, "TAAL_ECONNRESET"},
    {TAAL_EPIPE, "TAAL_EPIPE"},
    {TAAL_EEOF, "TAAL_EEOF"},
    {TAAL_ELIMIT, "TAAL_ELIMIT"},
    {TAAL_EMFILE, "TAAL_EMFILE"},
    {TAAL_EADDRINUSE, "TAAL_EADDRINUSE"},
    {TAAL_EADDR, "TAAL_EADDR"},
    {TAAL_EIO, "TAAL_EIO"},
    {TAAL_EPROTO, "TAAL_EPROTO"},
    {TAAL_EWFULL, "TAAL_EWFULL"},
    {TAAL_ENOTCONN, "TAAL_ENOTCONN"},
    {TAAL_ECONNABORTED, "TAAL_ECONNABORTED"},
};
enum { NAMES = sizeof names / sizeof names[0] };

static const char *code_name(int code)
{
    for (size_t i = 0; i < NAMES; i++)
        if (names[i].code == code)
            return names[i].name;
    return NULL;
}

/* The arguments. */
static struct {
    int port;
    const char *name;
    size_t count, concurrency;
    double pause, timeout;
    unsigned long long max_body;
    int expect_status; /* 0: any */
    const char *expect_file;
    bool expect_empty;
    const char *expect_error; /* a name of names[] */
    bool any;
    const char *header;
    size_t pipeline;   /* 0: the session's default */
    bool no_redirects; /* read a 3xx instead of following it */
    char **paths;
    size_t path_count;
} opt = {.name = "peer", .timeout = 15};

/* What came back. */
static char **urls;
static char *expected; /* --expect-file's bytes */
static size_t expected_len;
static size_t outcomes[NAMES + 1]; /* by names[] index; the last: other codes */
typedef struct status_count {
    int code;
    size_t count;
} status_count;
static status_count statuses[32];
static size_t status_kinds, bytes, mismatched, not_as_asked;
static bool header_seen;
static char header_line[512];

static void record_status(int code)
{
    for (size_t i = 0; i < status_kinds; i++)
        if (statuses[i].code == code) {
            statuses[i].count++;
            return;
        }
    if (status_kinds < sizeof statuses / sizeof statuses[0])
        statuses[status_kinds++] = (status_count){code, 1};
}

static void record(int st, const taal_http_get *get)
{
    size_t i = 0;
    while (i < NAMES && names[i].code != st)
        i++;
    outcomes[i]++;
    if (opt.expect_error != NULL) {
        const char *name = code_name(st);
        if (name == NULL || strcmp(name, opt.expect_error) != 0)
            not_as_asked++;
    } else if (st != TAAL_OK) {
        not_as_asked++;
    }
    if (st != TAAL_OK)
        return;
    record_status(get->status_code);
    bytes += get->body_len;
    if (opt.expect_status != 0 && get->status_code != opt.expect_status)
        not_as_asked++;
    bool same = true;
    if (opt.expect_empty)
        same = get->body_len == 0;
    else if (opt.expect_file != NULL)
        same = get->body_len == expected_len &&
               (expected_len == 0 || memcmp(get->body, expected, expected_len) == 0);
    if (!same) {
        mismatched++;
        not_as_asked++;
    }
    if (opt.header != NULL && !header_seen) {
        const char *value = taal_http_get_header(get, opt.header);
        snprintf(header_line, sizeof header_line, "header %s: %s", opt.header,
                 value != NULL ? value : "(none)");
        header_seen = true;
    }
}

/* One request, in a task of its own. */
typedef struct one_get {
    taal_coro co;
    taal_http_session *session;
    size_t index;
    taal_http_get get;
    int st;
} one_get;

static int one_get_body(taal_coro *self)
{
    one_get *f = (one_get *)self;
    TAAL_BEGIN(f);
    f->st = taal_http_get_init(&f->get, f->session, urls[f->index % opt.path_count]);
    f->get.no_redirects = opt.no_redirects;
    if (f->st == TAAL_OK)
        TAAL_AWAIT_STATUS(f->st, &f->get);
    record(f->st, &f->get);
    taal_http_get_free(&f->get);
    TAAL_END();
}

typedef struct peer_main {
    taal_coro co;
    taal_http_session session;
    taal_future **round; /* the tasks of this round */
    taal_future *all;
    size_t done, n, i;
    taal_sleep nap;
    int st;
} peer_main;

/* Starts the next round's tasks and gathers them. */
static int start_round(peer_main *f)
{
    taal_loop *loop = taal_running_loop();
    f->n = opt.count - f->done;
    if (f->n > opt.concurrency)
        f->n = opt.concurrency;
    for (size_t i = 0; i < f->n; i++) {
        taal_task *task;
        int rc = taal_task_create(
            loop, one_get_body, &(one_get){.session = &f->session, .index = f->done + i},
            sizeof(one_get), "get", &task);
        if (rc != TAAL_OK) {
            f->n = i;
            return rc;
        }
        f->round[i] = taal_task_future(task);
    }
    return taal_gather(loop, f->n, f->round, &f->all);
}

static void end_round(peer_main *f)
{
    for (size_t i = 0; i < f->n; i++)
        taal_future_release(f->round[i]);
    taal_future_release(f->all);
    f->all = NULL;
    f->done += f->n;
}

static int peer_main_body(taal_coro *self)
{
    peer_main *f = (peer_main *)self;
    TAAL_BEGIN(f);
    f->round = calloc(opt.concurrency, sizeof *f->round);
    if (f->round == NULL)
        TAAL_FAIL(TAAL_ENOMEM);
    f->st = taal_http_session_open(&f->session);
    if (f->st != TAAL_OK)
        goto out;
    /* Raised before the host is mapped: its parser takes the limits then. */
    if (opt.max_body != 0)
        f->session.limits.max_body = opt.max_body;
    if (opt.pipeline != 0)
        f->session.pipeline = opt.pipeline;
    f->st = taal_http_session_map(&f->session, opt.name, "127.0.0.1", opt.port);
    while (f->st == TAAL_OK && f->done < opt.count) {
        if (f->done > 0 && opt.pause > 0) {
            taal_sleep_init(&f->nap, opt.pause);
            TAAL_AWAIT_STATUS(f->st, &f->nap);
            if (f->st != TAAL_OK)
                break;
        }
        f->st = start_round(f);
        if (f->st != TAAL_OK)
            break;
        TAAL_AWAIT_FUTURE_STATUS(f->st, f->all);
        end_round(f);
    }
    if (f->session.open) {
        int rc = taal_http_session_close(&f->session);
        if (f->st == TAAL_OK)
            f->st = rc;
    }
out:
    free(f->round);
    if (f->st != TAAL_OK)
        TAAL_FAIL(f->st);
    TAAL_END();
}

static void on_alarm(int sig)
{
    static const char msg[] = "peer_get: --timeout reached\n";
    (void)sig;
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(3);
}

static int usage(const char *why)
{
    fprintf(stderr,
            "peer_get: %s\nusage: peer_get --port P [--name H] [--count N] "
            "[--concurrency C] [--pause S] [--max-body B] [--expect-status S] "
            "[--expect-file F | --expect-empty] [--expect-error NAME | --any] "
            "[--header NAME] [--pipeline N] [--no-redirects] [--timeout S] PATH...\n",
            why);
    return 2;
}

static bool number(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return s[0] != '\0' && *end == '\0' && errno == 0 && *out >= 0;
}

static int parse(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        double v = 0;
        if (a[0] != '-') { /* a path: argv's order is kept, options moved */
            argv[1 + opt.path_count++] = argv[i];
            continue;
        }
        if (strcmp(a, "--expect-empty") == 0) {
            opt.expect_empty = true;
            continue;
        }
        if (strcmp(a, "--no-redirects") == 0) {
            opt.no_redirects = true;
            continue;
        }
        if (strcmp(a, "--any") == 0) {
            opt.any = true;
            continue;
        }
        if (!has_value)
            return usage("an option without its value");
        const char *s = argv[++i];
        if (strcmp(a, "--name") == 0)
            opt.name = s;
        else if (strcmp(a, "--expect-file") == 0)
            opt.expect_file = s;
        else if (strcmp(a, "--expect-error") == 0)
            opt.expect_error = s;
        else if (strcmp(a, "--header") == 0)
            opt.header = s;
        else if (!number(s, &v))
            return usage("not a number");
        else if (strcmp(a, "--port") == 0)
            opt.port = (int)v;
        else if (strcmp(a, "--count") == 0)
            opt.count = (size_t)v;
        else if (strcmp(a, "--concurrency") == 0)
            opt.concurrency = (size_t)v;
        else if (strcmp(a, "--pause") == 0)
            opt.pause = v;
        else if (strcmp(a, "--timeout") == 0)
            opt.timeout = v;
        else if (strcmp(a, "--max-body") == 0)
            opt.max_body = (unsigned long long)v;
        else if (strcmp(a, "--expect-status") == 0)
            opt.expect_status = (int)v;
        else if (strcmp(a, "--pipeline") == 0)
            opt.pipeline = (size_t)v;
        else
            return usage("an unknown option");
    }
    opt.paths = &argv[1];
    if (opt.port < 1 || opt.port > 65535 || opt.path_count == 0)
        return usage("no --port, or no path");
    if (opt.expect_error != NULL) {
        bool known = false;
        for (size_t i = 0; i < NAMES; i++)
            known = known || strcmp(names[i].name, opt.expect_error) == 0;
        if (!known)
            return usage("--expect-error: not a code this client ends with");
    }
    if (opt.count == 0)
        opt.count = opt.path_count;
    if (opt.concurrency == 0)
        opt.concurrency = opt.count;
    return 0;
}

static int read_expected(void)
{
    FILE *in = fopen(opt.expect_file, "rb");
    if (in == NULL)
        return -1;
    size_t cap = 1 << 16;
    expected = malloc(cap);
    size_t n;
    while (expected != NULL &&
           (n = fread(expected + expected_len, 1, cap - expected_len, in)) > 0) {
        expected_len += n;
        if (expected_len == cap) {
            char *more = realloc(expected, cap * 2);
            if (more == NULL)
                free(expected);
            expected = more;
            cap *= 2;
        }
    }
    int bad = ferror(in) || expected == NULL;
    fclose(in);
    return bad ? -1 : 0;
}

static int build_urls(void)
{
    urls = calloc(opt.path_count, sizeof *urls);
    if (urls == NULL)
        return -1;
    for (size_t i = 0; i < opt.path_count; i++) {
        size_t len = strlen("http://") + strlen(opt.name) + strlen(opt.paths[i]) + 1;
        urls[i] = malloc(len);
        if (urls[i] == NULL)
            return -1;
        snprintf(urls[i], len, "http://%s%s", opt.name, opt.paths[i]);
    }
    return 0;
}

static void report(int rc)
{
    printf("requests %zu\n", opt.count);
    for (size_t i = 0; i <= NAMES; i++)
        if (outcomes[i] != 0)
            printf("%s %zu\n", i < NAMES ? names[i].name : "other", outcomes[i]);
    for (size_t i = 0; i < status_kinds; i++)
        printf("status %d %zu\n", statuses[i].code, statuses[i].count);
    printf("bytes %zu\n", bytes);
    if (opt.header != NULL)
        printf("%s\n", header_seen ? header_line : "header (no response)");
    if (opt.expect_file != NULL || opt.expect_empty)
        printf("mismatched %zu\n", mismatched);
    if (rc != TAAL_OK)
        printf("run %s\n", code_name(rc) != NULL ? code_name(rc) : taal_strerror(rc));
}

int main(int argc, char **argv)
{
    int bad = parse(argc, argv);
    if (bad != 0)
        return bad;
    if (opt.expect_file != NULL && read_expected() != 0) {
        fprintf(stderr, "peer_get: cannot read %s\n", opt.expect_file);
        return 2;
    }
    if (build_urls() != 0) {
        fprintf(stderr, "peer_get: out of memory\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, on_alarm);
    alarm((unsigned)(opt.timeout + 0.999));
    /* The real clock: the pauses are the point, whatever TAAL_CLOCK says. */
    taal_loop_options options = {.clock = TAAL_CLOCK_MONOTONIC};
    int rc = taal_run(peer_main_body, NULL, sizeof(peer_main), &options, NULL);
    alarm(0);
    report(rc);
    for (size_t i = 0; i < opt.path_count; i++)
        free(urls[i]);
    free(urls);
    free(expected);
    if (rc != TAAL_OK)
        return 1;
    if (opt.any)
        return 0;
    size_t finished = 0;
    for (size_t i = 0; i <= NAMES; i++)
        finished += outcomes[i];
    return not_as_asked == 0 && finished == opt.count ? 0 : 1;
}
