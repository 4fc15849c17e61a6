/*
** doccheck.c -- the tutorial is the test.
**
** Reads Markdown files and checks two kinds of block, each announced by an
** HTML comment on the line before it (invisible when the Markdown is shown
** on a code host, plain to read in the source):
**
**   <!-- check: output of PROGRAM [ARGS...] [(exit N)] [(real clock: ...)] -->
**   ```text
**   what PROGRAM prints on stdout, exactly
**   ```
**
**   <!-- check: quote PATH -->
**   ```c
**   lines that appear, in this order and verbatim, in PATH
**   ```
**
** An output check runs the program (named on the command line with
** --program NAME=PATH) with TAAL_CLOCK=virtual, stdin from /dev/null and a
** time limit, and compares its stdout byte for byte with the block, and its
** exit status with N (default 0).
**
** With --real-clock, the programs run on the real clock instead (TAAL_CLOCK
** unset), as the tour runs them, and times may differ from the documented
** ones: a number followed by "s" or "ms" (with or without a space before
** the unit: "1.5 s", "250ms") is a time, and matches a documented time of
** the same unit that it is within the tolerance of (--time-tolerance,
** 0.25 s plus 10% of the documented time by default; a documented "2.0 s"
** passes as 1.6 to 2.4 s). Everything else on each line, numbers that are
** not times included, must be exactly as documented, and so must the
** number of lines. A program whose output legitimately depends on real
** time (two timers due together fire in either order) names the lines
** that may differ, and why, in its marker:
**
**   <!-- check: output of queue (real clock: lines 10-11: why they differ) -->
**
** Those lines must be there, with any content; the virtual clock checks
** them as usual. A quote check finds the block's lines in
** the file; a line that is only "...", "// ..." or a comment of only "..."
** stands for lines left out. The file's lab markers (docs/teaching.md),
** lines that hold nothing but a comment starting "LAB(name) BEGIN" or
** "LAB(name) END", are not part of the code: a quote shows the code without
** them, and matches as if they were not there.
**
** Usage:
**   doccheck [--root DIR] [--program NAME=PATH]... [--require NAME]...
**            [--wrap WORD]... [--timeout SECONDS] [--mutate] [--outputs-only]
**            [--real-clock [--time-tolerance SECONDS[,PERCENT]] [--echo]]
**            FILE.md...
**
**   --root     folder that quote paths are relative to (default: .)
**   --require  fail unless some output check runs NAME (no undocumented
**              example programs)
**   --wrap     a word to put before every program, e.g. valgrind
**   --timeout  the time limit of each program (default: 20 s)
**   --mutate   self-test: also change one character of each expected output
**              and require the comparison to notice
**   --outputs-only
**              check documented output only, and skip the quotes: a lab
**              handout's code has holes where the book's has answers
**   --real-clock
**              run the programs on the real clock, times within the
**              tolerance (above)
**   --time-tolerance
**              a real-clock time's tolerance: SECONDS plus PERCENT of the
**              documented time (default 0.25,10)
**   --echo     show each program's command line, then its output as it
**              prints it (the tour; on Windows, when it ends)
**
** Prints one line per check ("ok" or "FAIL" with the place and the reason),
** then "N passed, N failed" (and ", N quotes skipped"). Exits 0 if all
** passed, 1 if any failed, 2 for a usage error.
*/
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32 /* CreateProcess, a job object and temporary files */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#define strtok_r strtok_s /* the same function, by its Microsoft name */
#else                     /* fork, pipes and poll */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

enum { MAX_ARGS = 64 };

/* ---- growable text buffers --------------------------------------------- */

typedef struct text {
    char *data;
    size_t len, cap;
} text;

static bool text_append(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (t->len + n + 1 > cap)
            cap *= 2;
        char *data = realloc(t->data, cap);
        if (data == NULL)
            return false;
        t->data = data;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
    return true;
}

static void text_free(text *t)
{
    free(t->data);
    *t = (text){0};
}

/* A file's contents split into lines (without their '\n'). */
typedef struct lines {
    text all;
    char **line;
    size_t count;
} lines;

static bool lines_read(lines *l, const char *path)
{
    *l = (lines){0};
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return false;
    char buf[4096];
    size_t n;
    bool ok = true;
    while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
        ok = text_append(&l->all, buf, n);
    fclose(f);
    if (!ok || l->all.len == 0)
        return ok;
    size_t cap = 1;
    for (size_t i = 0; i < l->all.len; i++)
        cap += l->all.data[i] == '\n';
    l->line = malloc(cap * sizeof *l->line);
    if (l->line == NULL)
        return false;
    char *p = l->all.data;
    char *end = p + l->all.len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *stop = nl ? nl : end;
        if (stop > p && stop[-1] == '\r')
            stop[-1] = '\0'; /* tolerate CRLF files */
        *stop = '\0';
        l->line[l->count++] = p;
        p = stop + 1;
    }
    return true;
}

static void lines_free(lines *l)
{
    text_free(&l->all);
    free(l->line);
    *l = (lines){0};
}

/* ---- options ---------------------------------------------------------- */

typedef struct program {
    const char *name, *path;
    bool checked; /* some output check ran it */
} program;

static struct {
    const char *root;
    program programs[MAX_ARGS];
    size_t nprograms;
    const char *required[MAX_ARGS];
    size_t nrequired;
    const char *wrap[MAX_ARGS];
    size_t nwrap;
    double timeout;
    bool mutate;
    bool outputs_only;
    bool real_clock;
    double tolerance_seconds, tolerance_share; /* of a time, on the real clock */
    bool echo;
    int passed, failed, skipped;
} opt = {
    .root = ".", .timeout = 20.0, .tolerance_seconds = 0.25, .tolerance_share = 0.10};

static program *find_program(const char *name)
{
    for (size_t i = 0; i < opt.nprograms; i++)
        if (strcmp(opt.programs[i].name, name) == 0)
            return &opt.programs[i];
    return NULL;
}

static void report(bool ok, const char *file, size_t line, const char *what)
{
    printf("%s %s:%zu: %s\n", ok ? "ok  " : "FAIL", file, line, what);
    if (ok)
        opt.passed++;
    else
        opt.failed++;
}

/* ---- running a program -------------------------------------------------- */

/* A program's stdout on Windows is in text mode: every "\n" it prints
 * arrives as "\r\n". The documented output is the same text, so a "\r"
 * just before a "\n" is dropped before comparing; any other "\r" stays. */
static void text_crlf_to_lf(text *t)
{
    size_t kept = 0;
    for (size_t i = 0; i < t->len; i++)
        if (!(t->data[i] == '\r' && i + 1 < t->len && t->data[i + 1] == '\n'))
            t->data[kept++] = t->data[i];
    t->len = kept;
    if (t->data != NULL)
        t->data[kept] = '\0';
}

typedef struct run_result {
    text out, err;
    int status; /* exit code, or 128 + signal */
    bool timed_out;
    bool started;
} run_result;

#ifdef _WIN32
/* Windows has no fork: the program is started with CreateProcess, in a job
 * object (so that a time limit ends it and every process it started), its
 * stdin the NUL device, stdout and stderr temporary files read when it
 * ends. TAAL_CLOCK=virtual (or, with --real-clock, no TAAL_CLOCK) is set
 * in doccheck's own environment, which every program inherits (main). */
static HANDLE temporary_file(SECURITY_ATTRIBUTES *inherit)
{
    char dir[MAX_PATH], path[MAX_PATH];
    if (GetTempPathA(sizeof dir, dir) == 0 || GetTempFileNameA(dir, "doc", 0, path) == 0)
        return INVALID_HANDLE_VALUE;
    return CreateFileA(path, GENERIC_READ | GENERIC_WRITE,
                       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, inherit,
                       CREATE_ALWAYS,
                       FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, NULL);
}

static void read_file(HANDLE file, text *t)
{
    char buf[4096];
    DWORD n;
    SetFilePointer(file, 0, NULL, FILE_BEGIN);
    while (ReadFile(file, buf, sizeof buf, &n, NULL) && n > 0)
        if (!text_append(t, buf, n))
            return;
}

static void run(char *const argv[], run_result *r)
{
    *r = (run_result){.status = -1};
    char command[8192]; /* each argument quoted: none of ours holds a quote */
    size_t len = 0;
    for (int i = 0; argv[i] != NULL; i++) {
        int n = snprintf(command + len, sizeof command - len, "%s\"%s\"", i ? " " : "",
                         argv[i]);
        if (n < 0 || (size_t)n >= sizeof command - len)
            return;
        len += (size_t)n;
    }
    SECURITY_ATTRIBUTES inherit = {sizeof inherit, NULL, TRUE};
    HANDLE in = CreateFileA("NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE,
                            &inherit, OPEN_EXISTING, 0, NULL);
    HANDLE out = temporary_file(&inherit), err = temporary_file(&inherit);
    HANDLE job = CreateJobObjectA(NULL, NULL);
    STARTUPINFOA si = {.cb = sizeof si,
                       .dwFlags = STARTF_USESTDHANDLES,
                       .hStdInput = in,
                       .hStdOutput = out,
                       .hStdError = err};
    PROCESS_INFORMATION pi;
    fflush(stdout);
    if (in != INVALID_HANDLE_VALUE && out != INVALID_HANDLE_VALUE &&
        err != INVALID_HANDLE_VALUE && job != NULL &&
        CreateProcessA(NULL, command, NULL, NULL, TRUE, CREATE_SUSPENDED, NULL, NULL, &si,
                       &pi)) {
        r->started = true;
        AssignProcessToJobObject(job, pi.hProcess);
        ResumeThread(pi.hThread);
        DWORD limit = (DWORD)(opt.timeout * 1000);
        if (WaitForSingleObject(pi.hProcess, limit) == WAIT_TIMEOUT) {
            r->timed_out = true;
            TerminateJobObject(job, 137);
            WaitForSingleObject(pi.hProcess, INFINITE);
        }
        DWORD code = 0;
        GetExitCodeProcess(pi.hProcess, &code);
        r->status = (int)code;
        CloseHandle(pi.hThread);
        CloseHandle(pi.hProcess);
        read_file(out, &r->out);
        read_file(err, &r->err);
        if (opt.echo) { /* no pipes here: shown when the program ends */
            fwrite(r->out.data ? r->out.data : "", 1, r->out.len, stdout);
            fwrite(r->err.data ? r->err.data : "", 1, r->err.len, stderr);
            fflush(stdout);
            fflush(stderr);
        }
    } else {
        fprintf(stderr, "doccheck: cannot run %s (error %lu)\n", argv[0],
                (unsigned long)GetLastError());
    }
    HANDLE handles[] = {in, out, err};
    for (int i = 0; i < 3; i++)
        if (handles[i] != INVALID_HANDLE_VALUE)
            CloseHandle(handles[i]);
    if (job != NULL)
        CloseHandle(job);
    text_crlf_to_lf(&r->out);
}
#else
static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs argv (already wrapped) and collects stdout and stderr until it exits
 * or the time limit passes, in which case its whole process group dies. */
static void run(char *const argv[], run_result *r)
{
    *r = (run_result){.status = -1};
    int out[2], err[2];
    if (pipe(out) != 0)
        return;
    if (pipe(err) != 0) {
        close(out[0]);
        close(out[1]);
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        close(out[0]);
        close(err[0]);
        if (opt.real_clock)
            unsetenv("TAAL_CLOCK");
        else
            setenv("TAAL_CLOCK", "virtual", 1);
        execvp(argv[0], argv);
        fprintf(stderr, "doccheck: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    if (pid < 0) {
        close(out[0]);
        close(err[0]);
        return;
    }
    r->started = true;
    struct pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    text *sinks[2] = {&r->out, &r->err};
    int open_fds = 2;
    double deadline = now_seconds() + opt.timeout;
    while (open_fds > 0) {
        double left = deadline - now_seconds();
        if (left <= 0) {
            r->timed_out = true;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            break;
        }
        if (poll(fds, 2, (int)(left * 1000) + 1) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || fds[i].revents == 0)
                continue;
            char buf[4096];
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n > 0 && opt.echo) { /* the tour: shown as it is printed */
                FILE *to = i == 0 ? stdout : stderr;
                fwrite(buf, 1, (size_t)n, to);
                fflush(to);
            }
            if (n > 0 && text_append(sinks[i], buf, (size_t)n))
                continue;
            close(fds[i].fd); /* end of file, error, or out of memory */
            fds[i].fd = -1;
            open_fds--;
        }
    }
    for (int i = 0; i < 2; i++)
        if (fds[i].fd >= 0)
            close(fds[i].fd);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    text_crlf_to_lf(&r->out);
}
#endif

/* ---- the checks ------------------------------------------------------- */

/* A fenced block: its lines and where they start in the Markdown file. */
typedef struct block {
    char **line;
    size_t count;
    size_t first_line; /* 1-based line number of the first content line */
} block;

/* Lines first..last (1-based) of an output block that may differ on the
 * real clock, from "(real clock: lines A-B: why)"; none if last is 0. */
typedef struct exemption {
    size_t first, last;
} exemption;

/* Is there a time at s[at]: a number, not part of a longer word or number,
 * then "s" or "ms" (after one space or none), not followed by a letter or
 * digit? If so, its value in seconds, its length and its unit's spelling
 * (" s", "s", " ms" or "ms"). */
static bool time_at(const char *s, size_t at, double *seconds, size_t *len,
                    const char **unit)
{
    const char *p = s + at;
    if (!isdigit((unsigned char)*p))
        return false;
    if (at > 0 && (isalnum((unsigned char)p[-1]) || p[-1] == '.' || p[-1] == '_'))
        return false;
    const char *q = p;
    while (isdigit((unsigned char)*q))
        q++;
    if (*q == '.' && isdigit((unsigned char)q[1]))
        for (q++; isdigit((unsigned char)*q);)
            q++;
    static const char *const units[] = {" ms", "ms", " s", "s"};
    for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
        size_t n = strlen(units[u]);
        if (strncmp(q, units[u], n) == 0 && !isalnum((unsigned char)q[n]) &&
            q[n] != '_') {
            *seconds = strtod(p, NULL) / (strchr(units[u], 'm') ? 1000.0 : 1.0);
            *len = (size_t)(q - p) + n;
            *unit = units[u];
            return true;
        }
    }
    return false;
}

/* Does the line printed (got, len bytes) match the one documented? Exactly,
 * on the virtual clock; on the real one, each documented time may be any
 * time of the same unit within the tolerance. */
static bool line_matches(const char *want, const char *got, size_t len)
{
    if (!opt.real_clock)
        return strlen(want) == len && memcmp(want, got, len) == 0;
    size_t i = 0, j = 0;
    while (want[i] != '\0') {
        double w, g;
        size_t wlen, glen;
        const char *wunit, *gunit;
        if (time_at(want, i, &w, &wlen, &wunit)) {
            /* got is a line of the whole output, which ends it with '\n' or
             * '\0': no time runs past its end */
            if (!time_at(got, j, &g, &glen, &gunit))
                return false;
            if (strcmp(wunit, gunit) != 0 ||
                !(g >= w - opt.tolerance_seconds - opt.tolerance_share * w &&
                  g <= w + opt.tolerance_seconds + opt.tolerance_share * w))
                return false;
            i += wlen;
            j += glen;
            continue;
        }
        if (j == len || want[i] != got[j])
            return false;
        i++;
        j++;
    }
    return j == len;
}

/* Compares the output with the block, line by line (lines the exemption
 * names, on the real clock, need only be there); if `explain`, prints the
 * first difference, naming the Markdown line that holds the expectation. */
static bool compare_output(const char *file, const block *b, const char *actual,
                           exemption ex, bool explain)
{
    const char *p = actual;
    for (size_t i = 0;; i++) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        bool actual_ends = *p == '\0';
        if (i == b->count) {
            if (explain && !actual_ends)
                printf("    %s:%zu: expected end of output, got '%.*s'\n", file,
                       b->first_line + i, (int)len, p);
            else if (explain)
                printf("    the last line lacks its newline\n");
            return actual_ends && p > actual && p[-1] == '\n';
        }
        if (actual_ends) {
            if (explain)
                printf("    %s:%zu: expected '%s' on line %zu, got end of output\n", file,
                       b->first_line + i, b->line[i], i + 1);
            return false;
        }
        bool exempt = opt.real_clock && i + 1 >= ex.first && i + 1 <= ex.last;
        if ((!exempt && !line_matches(b->line[i], p, len)) || !nl) {
            if (explain) {
                printf("    %s:%zu: expected '%s' on line %zu, got '%.*s'%s", file,
                       b->first_line + i, b->line[i], i + 1, (int)len, p,
                       nl ? "" : " (no newline)");
                if (opt.real_clock)
                    printf(" (on the real clock, a time may differ by %g s + %g%%, "
                           "nothing else)",
                           opt.tolerance_seconds, opt.tolerance_share * 100);
                printf("\n");
            }
            return false;
        }
        p = nl + 1;
    }
}

/* The block's lines, each ended by '\n': what the program must print. */
static bool expected_text(const block *b, text *t)
{
    *t = (text){0};
    if (!text_append(t, "", 0))
        return false;
    for (size_t i = 0; i < b->count; i++)
        if (!text_append(t, b->line[i], strlen(b->line[i])) || !text_append(t, "\n", 1))
            return false;
    return true;
}

static void print_indented(const char *label, const text *t)
{
    if (t->len == 0)
        return;
    printf("    %s:\n", label);
    const char *p = t->data;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        printf("    | %.*s\n", (int)len, p);
        p += len + (nl != NULL);
    }
}

/* Reads " lines A-B: why)" or " line A: why)" (after "(real clock:"): the
 * reason must be there, and the lines counted from 1. */
static bool parse_exemption(const char *s, exemption *ex)
{
    while (*s == ' ')
        s++;
    if (strncmp(s, "lines ", 6) == 0)
        s += 6;
    else if (strncmp(s, "line ", 5) == 0)
        s += 5;
    else
        return false;
    char *end;
    if (!isdigit((unsigned char)*s))
        return false;
    ex->first = ex->last = (size_t)strtoul(s, &end, 10);
    if (*end == '-') {
        if (!isdigit((unsigned char)end[1]))
            return false;
        ex->last = (size_t)strtoul(end + 1, &end, 10);
    }
    if (ex->first == 0 || ex->last < ex->first || *end != ':')
        return false;
    for (s = end + 1; *s == ' ';)
        s++;
    const char *close = strchr(s, ')');
    return close != NULL && close > s; /* a reason, however short */
}

static void check_output(const char *file, size_t marker_line, char *spec, const block *b)
{
    /* What the report calls the check: the marker, but for the reason of a
     * real-clock exemption, which can be long. */
    char what[512];
    const char *clause = strstr(spec, "(real clock:");
    const char *clause_end = clause ? strchr(clause, ')') : NULL;
    if (clause_end != NULL)
        snprintf(what, sizeof what, "output of %.*s(real clock: exemption)%s",
                 (int)(clause - spec), spec, clause_end + 1);
    else
        snprintf(what, sizeof what, "output of %s", spec);

    /* "(exit N)" at the end of the spec sets the expected exit status, and
     * "(real clock: lines A-B: why)" the lines that may differ on the real
     * clock; both are cut off the command line. */
    int want_status = 0;
    char *paren = strstr(spec, "(exit ");
    if (paren != NULL)
        want_status = atoi(paren + 6);
    exemption ex = {0, 0};
    char *real = strstr(spec, "(real clock:");
    if (real != NULL && !parse_exemption(real + 12, &ex)) {
        report(false, file, marker_line, what);
        printf(
            "    a real-clock exemption reads '(real clock: lines A-B: why they differ)' "
            "or '(real clock: line A: why)', with 1 <= A <= B <= the block's %zu lines\n",
            b->count);
        return;
    }
    if (ex.last > b->count) {
        report(false, file, marker_line, what);
        printf("    the real-clock exemption names line %zu of a block of %zu lines\n",
               ex.last, b->count);
        return;
    }
    if (paren != NULL)
        *paren = '\0';
    if (real != NULL)
        *real = '\0';
    char *argv[MAX_ARGS + 1];
    size_t argc = 0;
    for (size_t i = 0; i < opt.nwrap && argc < MAX_ARGS - 1; i++)
        argv[argc++] = (char *)opt.wrap[i];
    char *save = NULL;
    char *name = strtok_r(spec, " \t", &save);
    program *prog = name ? find_program(name) : NULL;
    if (prog == NULL) {
        report(false, file, marker_line, what);
        printf("    no program named '%s' (give it with --program NAME=PATH)\n",
               name ? name : "");
        return;
    }
    prog->checked = true;
    argv[argc++] = (char *)prog->path;
    for (char *a; (a = strtok_r(NULL, " \t", &save)) != NULL && argc < MAX_ARGS;)
        argv[argc++] = a;
    argv[argc] = NULL;

    if (opt.echo) {
        printf("\n$ %s", name);
        for (size_t i = opt.nwrap + 1; i < argc; i++)
            printf(" %s", argv[i]);
        printf("\n");
    }
    run_result r;
    run(argv, &r);
    text want;
    bool same = false;
    if (!expected_text(b, &want)) {
        printf("doccheck: out of memory\n");
    } else if (r.started && !r.timed_out && opt.real_clock) {
        same = r.out.data != NULL && strlen(r.out.data) == r.out.len &&
               compare_output(file, b, r.out.data, ex, false);
    } else if (r.started && !r.timed_out) {
        same = r.out.len == want.len &&
               memcmp(r.out.data ? r.out.data : "", want.data, want.len) == 0;
    }
    bool ok = same && r.status == want_status;
    report(ok, file, marker_line, what);
    if (!r.started)
        printf("    could not start the program\n");
    else if (r.timed_out)
        printf("    timed out after %.0f s\n", opt.timeout);
    else if (!same)
        compare_output(file, b, r.out.data ? r.out.data : "", ex, true);
    if (!ok && r.started && !r.timed_out && r.status != want_status)
        printf("    exit status %d, expected %d\n", r.status, want_status);
    if (!ok) {
        print_indented("stdout", &r.out);
        print_indented("stderr", &r.err);
    }

    /* Self-test: one changed character must turn a pass into a failure. */
    if (ok && opt.mutate && !opt.real_clock && want.len > 0) {
        want.data[0] = want.data[0] == 'x' ? 'y' : 'x';
        bool noticed = r.out.len != want.len || memcmp(r.out.data, want.data, want.len);
        report(noticed, file, marker_line, "a one-character change is noticed");
    }
    text_free(&want);
    text_free(&r.out);
    text_free(&r.err);
}

static bool is_elision(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return strcmp(s, "...") == 0 || strcmp(s, "// ...") == 0 ||
           strcmp(s, "/* ... */") == 0 || strcmp(s, "# ...") == 0;
}

/* Is s a lab marker: blanks aside, nothing but one comment whose text
 * starts "LAB(name) BEGIN" or "LAB(name) END"? */
static bool is_lab_marker(const char *s)
{
    static const char open[] = "/* LAB(";
    while (*s == ' ' || *s == '\t')
        s++;
    if (strncmp(s, open, sizeof open - 1) != 0)
        return false;
    s += sizeof open - 1;
    const char *name = s;
    while (isalnum((unsigned char)*s) || *s == '_')
        s++;
    if (s == name)
        return false;
    if (strncmp(s, ") BEGIN", 7) != 0 && strncmp(s, ") END", 5) != 0)
        return false;
    const char *end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    return end - s >= 2 && end[-2] == '*' && end[-1] == '/' && strstr(s, "*/") == end - 2;
}

/* Takes the lab markers out of src, keeping in `number` each remaining
 * line's 1-based line number in the file, for messages. */
static bool drop_lab_markers(lines *src, size_t **number)
{
    *number = malloc((src->count + 1) * sizeof **number);
    if (*number == NULL)
        return false;
    size_t kept = 0;
    for (size_t i = 0; i < src->count; i++) {
        if (is_lab_marker(src->line[i]))
            continue;
        src->line[kept] = src->line[i];
        (*number)[kept++] = i + 1;
    }
    (*number)[kept] = src->count + 1; /* "the end of the file" */
    src->count = kept;
    return true;
}

static void check_quote(const char *file, size_t marker_line, const char *path,
                        const block *b)
{
    char what[512], full[4096];
    snprintf(what, sizeof what, "quote of %.480s", path /* a message: long paths cut */);
    if (opt.outputs_only) {
        opt.skipped++;
        return;
    }
    snprintf(full, sizeof full, "%s/%s", opt.root, path);
    lines src;
    size_t *number = NULL;
    if (!lines_read(&src, full) || !drop_lab_markers(&src, &number)) {
        report(false, file, marker_line, what);
        printf("    cannot read %s\n", full);
        lines_free(&src);
        free(number);
        return;
    }
    /* Match segment by segment; each must start after the previous one. */
    size_t from = 0, i = 0;
    while (i < b->count) {
        if (is_elision(b->line[i])) {
            i++;
            continue;
        }
        size_t seg_end = i;
        while (seg_end < b->count && !is_elision(b->line[seg_end]))
            seg_end++;
        /* Find the start with the longest run of matching lines. */
        size_t best_at = 0, best_len = 0;
        for (size_t s = from; s < src.count; s++) {
            size_t k = 0;
            while (i + k < seg_end && s + k < src.count &&
                   strcmp(src.line[s + k], b->line[i + k]) == 0)
                k++;
            if (k > best_len) {
                best_len = k;
                best_at = s;
            }
            if (k == seg_end - i)
                break;
        }
        if (best_len < seg_end - i) {
            size_t bad = i + best_len;
            report(false, file, marker_line, what);
            if (best_len == 0)
                printf("    %s:%zu: '%s' is not in %s\n", file, b->first_line + bad,
                       b->line[bad], path);
            else
                printf("    %s:%zu: quoted '%s', but %s:%zu says '%s'\n", file,
                       b->first_line + bad, b->line[bad], path,
                       number[best_at + best_len],
                       best_at + best_len < src.count ? src.line[best_at + best_len]
                                                      : "(end of file)");
            lines_free(&src);
            free(number);
            return;
        }
        from = best_at + best_len;
        i = seg_end;
    }
    report(true, file, marker_line, what);
    lines_free(&src);
    free(number);
}

/* ---- reading a Markdown file -------------------------------------------- */

/* CommonMark: a fence is three or more ` or ~, indented at most three
 * spaces (four make it an indented code line). */
static const char *skip_fence_indent(const char *s)
{
    for (int i = 0; i < 3 && *s == ' '; i++)
        s++;
    return s;
}

static bool fence_of(const char *s, char *ch, size_t *len)
{
    s = skip_fence_indent(s);
    if (*s != '`' && *s != '~')
        return false;
    size_t n = 0;
    while (s[n] == *s)
        n++;
    if (n < 3)
        return false;
    *ch = *s;
    *len = n;
    return true;
}

static bool closes_fence(const char *s, char ch, size_t len)
{
    s = skip_fence_indent(s);
    size_t n = 0;
    while (s[n] == ch)
        n++;
    if (n < len)
        return false;
    for (s += n; *s; s++)
        if (*s != ' ' && *s != '\t')
            return false;
    return true;
}

/* If s is "<!-- check: SPEC -->", copies SPEC into spec and returns true. */
static bool marker_of(const char *s, char *spec, size_t size)
{
    static const char open[] = "<!-- check:", close[] = "-->";
    while (*s == ' ')
        s++;
    if (strncmp(s, open, sizeof open - 1) != 0)
        return false;
    s += sizeof open - 1;
    while (*s == ' ')
        s++;
    const char *end = strstr(s, close);
    if (end == NULL)
        end = s + strlen(s);
    while (end > s && end[-1] == ' ')
        end--;
    snprintf(spec, size, "%.*s", (int)(end - s), s);
    return true;
}

static void check_file(const char *file)
{
    lines md;
    if (!lines_read(&md, file)) {
        report(false, file, 0, "read the file");
        printf("    cannot read %s\n", file);
        lines_free(&md);
        return;
    }
    char fch = 0;
    size_t flen = 0;
    bool in_code = false;
    for (size_t i = 0; i < md.count; i++) {
        char spec[512];
        if (in_code) {
            in_code = !closes_fence(md.line[i], fch, flen);
            continue;
        }
        if (fence_of(md.line[i], &fch, &flen)) {
            in_code = true; /* markers inside ordinary code blocks are examples */
            continue;
        }
        if (!marker_of(md.line[i], spec, sizeof spec))
            continue;
        size_t marker_line = i + 1;
        size_t j = i + 1;
        while (j < md.count && md.line[j][0] == '\0')
            j++;
        if (j == md.count || !fence_of(md.line[j], &fch, &flen)) {
            report(false, file, marker_line, spec);
            printf("    the marker is not followed by a fenced code block\n");
            continue;
        }
        size_t k = j + 1;
        while (k < md.count && !closes_fence(md.line[k], fch, flen))
            k++;
        if (k == md.count) {
            report(false, file, marker_line, spec);
            printf("    the code block is never closed\n");
            break;
        }
        block b = {md.line + j + 1, k - j - 1, j + 2};
        if (strncmp(spec, "output of ", 10) == 0)
            check_output(file, marker_line, spec + 10, &b);
        else if (strncmp(spec, "quote ", 6) == 0)
            check_quote(file, marker_line, spec + 6, &b);
        else {
            report(false, file, marker_line, spec);
            printf("    unknown check (expected 'output of PROGRAM' or 'quote PATH')\n");
        }
        i = k;
    }
    if (in_code) {
        report(false, file, md.count, "code blocks");
        printf("    a code block is never closed\n");
    }
    lines_free(&md);
}

/* ---- main ----------------------------------------------------------------- */

static int usage(const char *why)
{
    fprintf(
        stderr,
        "doccheck: %s\n"
        "usage: doccheck [--root DIR] [--program NAME=PATH]... [--require NAME]...\n"
        "                [--wrap WORD]... [--timeout SECONDS] [--mutate] "
        "[--outputs-only]\n"
        "                [--real-clock [--time-tolerance SECONDS[,PERCENT]] [--echo]]\n"
        "                FILE.md...\n",
        why);
    return 2;
}

int main(int argc, char **argv)
{
    int first_file = argc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--mutate") == 0) {
            opt.mutate = true;
        } else if (strcmp(a, "--outputs-only") == 0) {
            opt.outputs_only = true;
        } else if (strcmp(a, "--real-clock") == 0) {
            opt.real_clock = true;
        } else if (strcmp(a, "--echo") == 0) {
            opt.echo = true;
        } else if (strcmp(a, "--time-tolerance") == 0 && has_value) {
            char *end;
            opt.tolerance_seconds = strtod(argv[++i], &end);
            if (*end == ',')
                opt.tolerance_share = strtod(end + 1, &end) / 100;
            if (*end != '\0' || !(opt.tolerance_seconds >= 0) ||
                !(opt.tolerance_share >= 0))
                return usage("--time-tolerance takes SECONDS or SECONDS,PERCENT");
        } else if (strcmp(a, "--root") == 0 && has_value) {
            opt.root = argv[++i];
        } else if (strcmp(a, "--timeout") == 0 && has_value) {
            opt.timeout = atof(argv[++i]);
            if (!(opt.timeout > 0))
                return usage("--timeout needs a positive number of seconds");
        } else if (strcmp(a, "--program") == 0 && has_value) {
            char *eq = strchr(argv[++i], '=');
            if (eq == NULL || opt.nprograms == MAX_ARGS)
                return usage("--program takes NAME=PATH");
            *eq = '\0';
            opt.programs[opt.nprograms++] = (program){argv[i], eq + 1, false};
        } else if (strcmp(a, "--require") == 0 && has_value) {
            if (opt.nrequired == MAX_ARGS)
                return usage("too many --require");
            opt.required[opt.nrequired++] = argv[++i];
        } else if (strcmp(a, "--wrap") == 0 && has_value) {
            if (opt.nwrap == MAX_ARGS - 2)
                return usage("too many --wrap");
            opt.wrap[opt.nwrap++] = argv[++i];
        } else if (a[0] == '-' && a[1] == '-') {
            return usage("unknown option or missing value");
        } else {
            first_file = i;
            break;
        }
    }
    if (first_file == argc)
        return usage("no Markdown file given");
#ifdef _WIN32
    /* inherited by every program run */
    SetEnvironmentVariableA("TAAL_CLOCK", opt.real_clock ? NULL : "virtual");
#endif

    for (int i = first_file; i < argc; i++)
        check_file(argv[i]);

    for (size_t i = 0; i < opt.nrequired; i++) {
        program *p = find_program(opt.required[i]);
        bool ok = p != NULL && p->checked;
        char what[256];
        snprintf(what, sizeof what, "%s has documented output", opt.required[i]);
        report(ok, argv[first_file], 0, what);
        if (!ok)
            printf("    no '<!-- check: output of %s -->' block in the files given\n",
                   opt.required[i]);
    }
    if (opt.passed + opt.failed == 0) {
        printf("doccheck: no checks found: nothing was tested\n");
        opt.failed++;
    }
    if (opt.skipped > 0)
        printf("%d passed, %d failed, %d quotes skipped\n", opt.passed, opt.failed,
               opt.skipped);
    else
        printf("%d passed, %d failed\n", opt.passed, opt.failed);
    return opt.failed ? 1 : 0;
}
