/*
** runner.c -- runs every benchmark and its CPython twin, and prints the table.
**
** For each scenario it runs the C program and the Python script alternately,
** several times each, reads the figures they print ("metric value unit" per
** line, '#' for comments), and measures each run from outside with wait4():
** wall time, CPU time, peak resident set size. Then it prints one Markdown
** table: the median of every metric on each side and their ratio.
**
**   runner --program [LABEL:]bench_spawn=PATH ... --scripts DIR [options]
**
** The C side can be more than one runtime: programs given with a label
** (`--program ch07:bench_spawn=PATH --program ch08:bench_spawn=PATH2`) are
** one side per label, in the order the labels first appear, run one after
** the other in every round and compared with each other in the table
** (bench/CMakeLists.txt passes one label per chapter of
** TAAL_BENCH_CHAPTERS). A side with no program for a scenario skips it,
** with a message: chapter 02 has no sockets, so no echo.
**
** Two reference sides, for the echo scenario only, run in the same rounds:
** a blocking C echo pair (`--program bench_echo_blocking=PATH`, no taal,
** the machine's limit for one connection), and echo.py on uvloop where the
** Python side can import it (skipped with a message otherwise).
**
** Issue 24's targets: when a runtime is labelled ch08, the runner ends with
** a second table, one row per target the issue sets chapter 08 (warm spawn
** at 10,000 and 1,000,000 tasks, bytes per pending task, sleep(0),
** ping-pong, a timer at 10^6, a semaphore round, echo, HTTP): ch07's and
** ch08's medians with their ranges, their ratio, CPython's, the target and
** whether ch08 meets it, and the load average while the scenario ran. The
** targets relative to chapter 07 need a runtime labelled ch07 in the same
** run (the bench preset measures both). --markdown writes that table, with
** the date, the machine, the compiler and the load, to a file; bench/
** table.cmake puts it into docs/benchmarks.md.
**
** Options (--help lists them too):
**   --reps N          runs of each side per scenario (default 5)
**   --quick           tiny sizes: proves the machinery, measures nothing
**   --only NAME       one scenario
**   --targets         only the scenarios issue 24 sets targets for
**   --markdown FILE   write the targets' table to FILE (see above)
**   --note TEXT       a note for FILE's first line (table.cmake: the commit)
**   --c-only          skip the Python twins (and uvloop)
**   --python PATH     the interpreter (default: python3 on the PATH)
**   --uvloop-python PATH  the interpreter for the uvloop side (default: --python's)
**   --build-type T    the CMake build type, printed (a warning unless Release)
**   --compiler TEXT   the compiler, printed
**
** The runner needs no Python: without python3 it says so and runs the C
** side alone. It unsets TAAL_CLOCK, so every program runs on the real clock.
*/
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* wait4(): not POSIX; glibc and musl declare it with this */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- the scenarios ---------------------------------------------------------- */

/* Sizes: each side runs for roughly 0.5 to 5 s (docs/benchmarks.md). Where
 * the Python twin would take far longer at the C side's size, it runs
 * smaller; every figure is per task, per switch or per timer. */
typedef struct scenario {
    const char *name;       /* what --only takes */
    const char *program;    /* the C program's name in --program */
    const char *script;     /* the Python twin, in --scripts */
    const char *c_args;     /* the C side's arguments, full size */
    const char *py_args;    /* the Python side's */
    const char *quick_args; /* both sides' with --quick */
    const char *blocking;   /* the blocking C reference's program, or NULL */
    bool uvloop;            /* the twin takes --uvloop */
} scenario;

static const scenario scenarios[] = {
    {"spawn", "bench_spawn", "spawn.py", "1000000 5", "200000 2", "1000 3", NULL, false},
    /* the same program, a batch that fits in the caches (issue 24's 10k row) */
    {"spawn_10k", "bench_spawn", "spawn.py", "10000 41", "10000 5", "1000 3", NULL,
     false},
    {"switch", "bench_switch", "switch.py", "50000000 50000000", "300000 300000",
     "1000 1000", NULL, false},
    {"timers", "bench_timers", "timers.py", "1000000 0.5", "100000 0.5", "200 0.02", NULL,
     false},
    {"memory", "bench_memory", "memory.py", "1000000", "250000", "1000", NULL, false},
    {"idle", "bench_idle", "idle.py", "10000 2", "10000 2", "100 0.02", NULL, false},
    {"semaphore", "bench_semaphore", "semaphore.py", "10000000 100 4", "100000 100 4",
     "1000 10 4", NULL, false},
    {"queue", "bench_queue", "queue.py", "20000000 64", "1000000 64", "1000 8", NULL,
     false},
    {"priority", "bench_priority", "priority.py", "20000000 8", "300000 8", "1000 8",
     NULL, false},
    {"timer_cancel", "bench_timer_cancel", "timer_cancel.py", "1000000 0.5", "200000 0.5",
     "200 0.02", NULL, false},
    {"cancel", "bench_cancel", "cancel.py", "100000 7", "100000 3", "1000 2", NULL,
     false},
    {"timeout", "bench_timeout", "timeout.py", "5000000", "200000", "1000", NULL, false},
    {"agen", "bench_agen", "agen.py", "10000000", "1000000", "1000", NULL, false},
    {"actx", "bench_actx", "actx.py", "10000000", "1000000", "1000", NULL, false},
    /* the blocking pair runs the C side's size, uvloop the Python side's */
    {"echo", "bench_echo", "echo.py", "200000 100", "20000 100", "200 10",
     "bench_echo_blocking", true},
    /* not http.py: a script of that name would hide the `http` package */
    {"http", "bench_http", "http_keepalive.py", "100000", "20000", "160", NULL, false},
};
enum { SCENARIOS = sizeof scenarios / sizeof scenarios[0] };

/* Issue 24's targets for chapter 08, each judged on the runtime labelled
 * "ch08" in this run, and printed beside chapter 07's figure ("ch07") when
 * it ran too: TAAL_BENCH_CHAPTERS="07 08", which the bench preset sets. */
typedef enum target_kind {
    AT_MOST,     /* a cost: ch08's median at most `value` */
    OF_BLOCKING, /* a rate: ch08's at least `value` times the blocking pair's */
    OF_BASE      /* a rate: ch08's at least `value` times ch07's */
} target_kind;

typedef struct target {
    const char *scenario;
    const char *metric;
    const char *what; /* the row */
    target_kind kind;
    double value;
} target;

static const char target_label[] = "ch08", base_label[] = "ch07";

static const target targets[] = {
    {"spawn_10k", "warm_ns_per_task", "warm spawn + gather, 10k tasks (ns a task)",
     AT_MOST, 40},
    {"spawn", "warm_ns_per_task", "warm spawn + gather, 1M tasks (ns a task)", AT_MOST,
     80},
    /* judged as if the frame were 32 bytes: see frame_adjusted() */
    {"memory", "bytes_per_pending_task", "bytes per pending task, 32-byte frame", AT_MOST,
     128},
    {"switch", "yield_ns", "`sleep(0)` switch (ns)", AT_MOST, 12},
    {"switch", "pingpong_ns", "ping-pong through futures (ns)", AT_MOST, 20},
    {"timers", "overhead_ns_per_timer", "timer overhead at 10^6 timers (ns a timer)",
     AT_MOST, 500},
    {"semaphore", "round_ns", "semaphore acquire+release round (ns)", AT_MOST, 30},
    {"echo", "round_trips_1_conn", "echo, 1 connection (round trips/s)", OF_BLOCKING,
     0.9},
    {"echo", "round_trips_100_conns", "echo, 100 connections (round trips/s)", OF_BASE,
     1.3},
    {"http", "requests_16_at_once", "HTTP keep-alive, 16 in flight (requests/s)", OF_BASE,
     1.3},
};
enum { TARGETS = sizeof targets / sizeof targets[0] };

/* The sides of a run: one per runtime measured (a label of --program), then
 * CPython, then the two references of the echo scenario. */
enum { MAX_RUNTIMES = 6 };
enum { SIDE_PY = MAX_RUNTIMES, SIDE_BLOCKING, SIDE_UVLOOP, SIDES };

enum { MAX_REPS = 25, MAX_METRICS = 16, MAX_ARGS = 16 };

/* One metric of one scenario: its values on each side, one per run. */
typedef struct metric {
    char name[64];
    char unit[16];
    double values[SIDES][MAX_REPS];
    int count[SIDES];
} metric;

/* What one scenario collected. */
typedef struct results {
    metric metrics[MAX_METRICS];
    int metric_count;
    double maxrss[SIDES]; /* the largest peak RSS of any run, bytes */
    int runs[SIDES];      /* successful runs */
    bool failed;
    double load_min, load_max;     /* the 1-minute load average before its runs */
    int loads;                     /* how many of those were read */
    double share[SIDES][MAX_REPS]; /* each run's CPU time over its wall time */
} results;

/* ---- options ------------------------------------------------------------- */

/* One runtime measured: its label and its program for each scenario. */
typedef struct runtime {
    char label[16];                  /* "C" when --program has no label */
    const char *programs[SCENARIOS]; /* path of each C program, or NULL */
} runtime;

typedef struct options {
    runtime runtimes[MAX_RUNTIMES];
    int runtime_count;
    const char *blocking[SCENARIOS]; /* the blocking C references' paths */
    const char *scripts;             /* folder of the Python twins */
    const char *python;              /* the interpreter, or NULL */
    const char *uvloop_python;       /* the uvloop side's, or NULL: python's */
    const char *only;
    const char *build_type;
    const char *compiler;
    const char *markdown; /* --markdown: where the targets' table goes, or NULL */
    const char *note;     /* --note: printed with it (the commit) */
    int reps;
    bool quick;
    bool c_only;
    bool targets; /* --targets: only the scenarios issue 24 sets a target for */
} options;

static const char help[] =
    "usage: runner --program [LABEL:]NAME=PATH... --scripts DIR [options]\n"
    "  --program NAME=PATH  a benchmark program (bench_spawn, bench_switch, ...)\n"
    "  --program LABEL:NAME=PATH\n"
    "                       the same, for the runtime LABEL (e.g. ch07): each label\n"
    "                       is one side of the table, compared with the others\n"
    "  --program bench_echo_blocking=PATH\n"
    "                       the blocking C echo pair, measured beside echo\n"
    "  --scripts DIR        the folder of the Python twins (spawn.py, ...)\n"
    "  --reps N             runs of each side per scenario (default 5)\n"
    "  --quick              tiny sizes: proves the machinery, measures nothing\n"
    "  --only NAME          one scenario: spawn, spawn_10k, switch, timers, memory,\n"
    "                       idle, semaphore, queue, priority, timer_cancel, cancel,\n"
    "                       timeout, agen, actx, echo or http\n"
    "  --targets            only the scenarios issue 24 sets chapter 08 a target\n"
    "                       for (spawn, spawn_10k, switch, timers, memory,\n"
    "                       semaphore, echo, http)\n"
    "  --markdown FILE      also write the targets' table (ch07 against ch08, with\n"
    "                       the machine, the load and the date) to FILE\n"
    "  --note TEXT          a note for that file's first line (e.g. the commit)\n"
    "  --c-only             skip the Python twins (and uvloop)\n"
    "  --python PATH        the interpreter (default: python3 on the PATH)\n"
    "  --uvloop-python PATH the interpreter for echo on uvloop (default: --python's)\n"
    "  --build-type T       the CMake build type, printed\n"
    "  --compiler TEXT      the compiler, printed\n";

static void usage(void)
{
    fprintf(stderr,
            "usage: runner --program [LABEL:]NAME=PATH... --scripts DIR [--reps N] "
            "[--quick] [--only NAME] [--targets] [--markdown FILE] [--note TEXT] "
            "[--c-only] [--python PATH] [--uvloop-python PATH] [--build-type T] "
            "[--compiler TEXT]\n");
    exit(2);
}

/* Reads one --program value: [LABEL:]NAME=PATH. */
static void add_program(options *o, const char *value)
{
    const char *eq = strchr(value, '=');
    const char *colon = strchr(value, ':');
    if (eq == NULL || (colon != NULL && colon > eq)) /* a ':' in PATH is PATH's */
        colon = NULL;
    const char *name = colon != NULL ? colon + 1 : value;
    size_t label_len = colon != NULL ? (size_t)(colon - value) : 1;
    const char *label = colon != NULL ? value : "C";
    if (eq == NULL || label_len == 0 || label_len >= sizeof o->runtimes[0].label) {
        fprintf(stderr, "runner: --program takes [LABEL:]NAME=PATH, not '%s'\n", value);
        usage();
    }
    size_t name_len = (size_t)(eq - name);
    for (int s = 0; s < SCENARIOS; s++) {
        const char *ref = scenarios[s].blocking;
        if (ref != NULL && strlen(ref) == name_len && strncmp(name, ref, name_len) == 0) {
            if (colon != NULL) {
                fprintf(stderr, "runner: %s is a reference, measured once: no label\n",
                        ref);
                usage();
            }
            o->blocking[s] = eq + 1;
            return;
        }
    }
    bool known = false; /* one program can serve several scenarios (spawn) */
    for (int s = 0; s < SCENARIOS; s++) {
        size_t len = strlen(scenarios[s].program);
        known |= name_len == len && strncmp(name, scenarios[s].program, len) == 0;
    }
    if (!known) {
        fprintf(stderr, "runner: unknown program '%s'\n", value);
        usage();
    }
    int r;
    for (r = 0; r < o->runtime_count; r++)
        if (strlen(o->runtimes[r].label) == label_len &&
            strncmp(o->runtimes[r].label, label, label_len) == 0)
            break;
    if (r == o->runtime_count) {
        if (r == MAX_RUNTIMES) {
            fprintf(stderr, "runner: at most %d runtimes (labels) in one run\n",
                    MAX_RUNTIMES);
            usage();
        }
        memcpy(o->runtimes[r].label, label, label_len);
        o->runtimes[r].label[label_len] = '\0';
        o->runtime_count++;
    }
    for (int s = 0; s < SCENARIOS; s++) {
        size_t len = strlen(scenarios[s].program);
        if (name_len == len && strncmp(name, scenarios[s].program, len) == 0)
            o->runtimes[r].programs[s] = eq + 1;
    }
}

static void parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->reps = 5;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--help") == 0) {
            fputs(help, stdout);
            exit(0);
        } else if (strcmp(arg, "--quick") == 0) {
            o->quick = true;
        } else if (strcmp(arg, "--c-only") == 0) {
            o->c_only = true;
        } else if (strcmp(arg, "--targets") == 0) {
            o->targets = true;
        } else if (value == NULL) {
            usage();
        } else if (strcmp(arg, "--program") == 0) {
            add_program(o, value);
            i++;
        } else if (strcmp(arg, "--scripts") == 0) {
            o->scripts = value;
            i++;
        } else if (strcmp(arg, "--python") == 0) {
            o->python = value;
            i++;
        } else if (strcmp(arg, "--uvloop-python") == 0) {
            o->uvloop_python = value;
            i++;
        } else if (strcmp(arg, "--only") == 0) {
            o->only = value;
            i++;
        } else if (strcmp(arg, "--build-type") == 0) {
            o->build_type = value;
            i++;
        } else if (strcmp(arg, "--compiler") == 0) {
            o->compiler = value;
            i++;
        } else if (strcmp(arg, "--markdown") == 0) {
            o->markdown = value;
            i++;
        } else if (strcmp(arg, "--note") == 0) {
            o->note = value;
            i++;
        } else if (strcmp(arg, "--reps") == 0) {
            char *end;
            long reps = strtol(value, &end, 10);
            if (*end != '\0' || reps < 1 || reps > MAX_REPS) {
                fprintf(stderr, "runner: --reps takes 1 to %d\n", MAX_REPS);
                usage();
            }
            o->reps = (int)reps;
            i++;
        } else {
            usage();
        }
    }
    if (o->only != NULL) {
        int s;
        for (s = 0; s < SCENARIOS && strcmp(scenarios[s].name, o->only) != 0; s++)
            ;
        if (s == SCENARIOS) {
            fprintf(stderr, "runner: unknown scenario '%s'\n", o->only);
            usage();
        }
    }
    if (o->runtime_count == 0) {
        fprintf(stderr, "runner: no --program: nothing to measure\n");
        usage();
    }
}

/* ---- running a program ------------------------------------------------------- */

typedef struct run {
    char *out;     /* its standard output, NUL-terminated */
    int status;    /* its exit status, or 128 + signal, or -1 */
    double wall_s; /* measured from here */
    double cpu_s;  /* user + system */
    double maxrss; /* peak RSS, bytes */
} run;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Splits `args` (space-separated, no quoting) onto the end of argv. */
static int split_args(char *args, char **argv, int argc)
{
    for (char *word = strtok(args, " "); word != NULL && argc < MAX_ARGS - 1;
         word = strtok(NULL, " "))
        argv[argc++] = word;
    argv[argc] = NULL;
    return argc;
}

/* Runs argv[0] with argv, capturing its stdout (stderr passes through).
 * Returns false if it could not be started at all. */
static bool run_program(char *const argv[], run *r)
{
    memset(r, 0, sizeof *r);
    r->status = -1;
    int fds[2];
    if (pipe(fds) != 0) {
        perror("runner: pipe");
        return false;
    }
    fflush(stdout);
    double start = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        perror("runner: fork");
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], STDOUT_FILENO) < 0)
            _exit(126);
        close(fds[1]);
        execv(argv[0], argv);
        fprintf(stderr, "runner: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    size_t len = 0, cap = 4096;
    char *out = malloc(cap);
    for (;;) {
        if (out != NULL && len + 1024 > cap) {
            char *bigger = realloc(out, cap * 2);
            if (bigger == NULL) {
                free(out);
                out = NULL;
            } else {
                out = bigger;
                cap *= 2;
            }
        }
        char scratch[1024];
        char *into = out != NULL ? out + len : scratch;
        ssize_t n = read(fds[0], into, 1023);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (out != NULL)
            len += (size_t)n;
    }
    close(fds[0]);
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            perror("runner: wait4");
            free(out);
            return false;
        }
    }
    r->wall_s = now_s() - start;
    r->cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    r->maxrss = (double)ru.ru_maxrss * 1024.0; /* kilobytes on Linux */
    if (WIFEXITED(status))
        r->status = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        r->status = 128 + WTERMSIG(status);
    if (out == NULL) {
        fprintf(stderr, "runner: out of memory reading %s\n", argv[0]);
        r->status = -1;
        return true;
    }
    out[len] = '\0';
    r->out = out;
    return true;
}

/* ---- figures --------------------------------------------------------------- */

static metric *find_metric(results *res, const char *name, const char *unit)
{
    for (int i = 0; i < res->metric_count; i++)
        if (strcmp(res->metrics[i].name, name) == 0)
            return &res->metrics[i];
    if (res->metric_count == MAX_METRICS)
        return NULL;
    metric *m = &res->metrics[res->metric_count++];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    snprintf(m->unit, sizeof m->unit, "%s", unit);
    return m;
}

/* Reads the "metric value unit" lines of one run into `res`, printing them
 * on one line as it goes. Returns false on a line it cannot read, or if
 * there is no figure at all. */
static bool collect(results *res, int side, char *out)
{
    bool ok = true;
    int figures = 0;
    for (char *line = strtok(out, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char name[64], unit[16];
        double value;
        if (sscanf(line, "%63s %lf %15s", name, &value, unit) != 3) {
            fprintf(stderr, "runner: cannot read the line '%s'\n", line);
            ok = false;
            continue;
        }
        metric *m = find_metric(res, name, unit);
        if (m == NULL) {
            fprintf(stderr, "runner: too many metrics; '%s' ignored\n", name);
            continue;
        }
        if (m->count[side] < MAX_REPS)
            m->values[side][m->count[side]++] = value;
        printf(" %s=%.4g", name, value);
        figures++;
    }
    if (figures == 0)
        printf(" (no figures)");
    return ok && figures > 0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *values, int count)
{
    double sorted[MAX_REPS];
    memcpy(sorted, values, (size_t)count * sizeof *values);
    qsort(sorted, (size_t)count, sizeof *sorted, compare_doubles);
    return count % 2 ? sorted[count / 2]
                     : (sorted[count / 2 - 1] + sorted[count / 2]) / 2;
}

/* A figure with about four significant digits and no exponent. */
static const char *format(char *buf, size_t size, double v)
{
    double a = v < 0 ? -v : v;
    if (a == 0)
        snprintf(buf, size, "0");
    else if (v == (double)(long long)v && a < 1e15)
        snprintf(buf, size, "%lld", (long long)v);
    else if (a >= 1000)
        snprintf(buf, size, "%.0f", v);
    else if (a >= 100)
        snprintf(buf, size, "%.1f", v);
    else if (a >= 10)
        snprintf(buf, size, "%.2f", v);
    else if (a >= 0.001)
        snprintf(buf, size, "%.4f", v);
    else
        snprintf(buf, size, "%.2g", v);
    return buf;
}

/* ---- the machine --------------------------------------------------------------- */

static void cpu_model(char *buf, size_t size)
{
    snprintf(buf, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon != NULL) {
                colon += 1 + (colon[1] == ' ');
                colon[strcspn(colon, "\n")] = '\0';
                snprintf(buf, size, "%s", colon);
            }
            break;
        }
    }
    fclose(f);
}

/* Finds `name` on the PATH; writes the full path into buf. */
static bool find_on_path(const char *name, char *buf, size_t size)
{
    const char *path = getenv("PATH");
    if (path == NULL)
        return false;
    while (*path != '\0') {
        size_t len = strcspn(path, ":");
        int n = snprintf(buf, size, "%.*s/%s", (int)len, len ? path : ".", name);
        if (n > 0 && (size_t)n < size && access(buf, X_OK) == 0)
            return true;
        path += len + (path[len] == ':');
    }
    return false;
}

/* Asks the interpreter for its real path (so that a wrapper script such as
 * pyenv's shim is not timed with it) and its version. */
static bool probe_python(const char *python, char *exe, size_t exe_size, char *version,
                         size_t version_size)
{
    char *argv[] = {(char *)python, "-c",
                    "import sys, platform; print(sys.executable); "
                    "print(platform.python_implementation(), platform.python_version())",
                    NULL};
    run r;
    if (!run_program(argv, &r))
        return false;
    bool ok = r.status == 0 && r.out != NULL;
    if (ok) {
        char *line2 = strchr(r.out, '\n');
        ok = line2 != NULL;
        if (ok) {
            *line2++ = '\0';
            line2[strcspn(line2, "\n")] = '\0';
            snprintf(exe, exe_size, "%s", r.out[0] ? r.out : python);
            snprintf(version, version_size, "%s", line2);
        }
    }
    free(r.out);
    return ok;
}

/* The 1-minute load average, or -1 if it cannot be read. */
static double load_average(void)
{
    double load = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f == NULL)
        return -1;
    if (fscanf(f, "%lf", &load) != 1)
        load = -1;
    fclose(f);
    return load;
}

/* ---- main ------------------------------------------------------------------------ */

/* The interpreters and what each side is called. */
typedef struct context {
    const char *python; /* NULL: no Python side */
    const char *uvloop; /* NULL: no uvloop side */
    char labels[SIDES][32];
} context;

static bool run_side(const options *o, const context *cx, int s, int side, results *res,
                     int rep)
{
    const scenario *sc = &scenarios[s];
    char args[256], script[4096];
    bool c_side = side < MAX_RUNTIMES || side == SIDE_BLOCKING;
    snprintf(args, sizeof args, "%s",
             o->quick ? sc->quick_args
             : c_side ? sc->c_args
                      : sc->py_args);
    char *argv[MAX_ARGS];
    int argc = 0;
    if (side < MAX_RUNTIMES) {
        argv[argc++] = (char *)o->runtimes[side].programs[s];
    } else if (side == SIDE_BLOCKING) {
        argv[argc++] = (char *)o->blocking[s];
    } else {
        snprintf(script, sizeof script, "%s/%s", o->scripts, sc->script);
        argv[argc++] = (char *)(side == SIDE_PY ? cx->python : cx->uvloop);
        argv[argc++] = script;
        if (side == SIDE_UVLOOP)
            argv[argc++] = "--uvloop";
    }
    split_args(args, argv, argc);

    double load = load_average();
    if (load >= 0) {
        if (res->loads == 0 || load < res->load_min)
            res->load_min = load;
        if (res->loads == 0 || load > res->load_max)
            res->load_max = load;
        res->loads++;
    }
    printf("%-12s %-10s %d/%d:", sc->name, cx->labels[side], rep + 1, o->reps);
    run r;
    if (!run_program(argv, &r)) {
        printf(" could not run\n");
        return false;
    }
    bool ok = r.status == 0 && collect(res, side, r.out);
    free(r.out);
    printf("  (%.2f s, %.2f s CPU, %.1f MiB)%s\n", r.wall_s, r.cpu_s,
           r.maxrss / 1048576.0, ok ? "" : "  FAILED");
    if (r.status != 0)
        fprintf(stderr, "runner: %s exited with status %d\n", argv[0], r.status);
    if (ok && res->runs[side] < MAX_REPS && r.wall_s > 0)
        res->share[side][res->runs[side]] = r.cpu_s / r.wall_s;
    if (ok) {
        res->runs[side]++;
        if (r.maxrss > res->maxrss[side])
            res->maxrss[side] = r.maxrss;
    }
    return ok;
}

static bool has_target(int s)
{
    for (int t = 0; t < TARGETS; t++)
        if (strcmp(targets[t].scenario, scenarios[s].name) == 0)
            return true;
    return false;
}

static bool selected(const options *o, int s)
{
    return (o->only == NULL || strcmp(o->only, scenarios[s].name) == 0) &&
           (!o->targets || has_target(s));
}

/* How many times better `side` does than `base` on metric m: for a cost
 * (ns, bytes, seconds) base's over side's, for a rate (per_s) side's over
 * base's. 0 if either has no figure. */
static double better(const metric *m, int side, int base)
{
    if (m->count[side] == 0 || m->count[base] == 0)
        return 0;
    double x = median(m->values[side], m->count[side]);
    double b = median(m->values[base], m->count[base]);
    if (strcmp(m->unit, "per_s") == 0)
        return b > 0 ? x / b : 0;
    return x > 0 ? b / x : 0;
}

static void print_ratio(double r, bool coarse)
{
    if (r <= 0)
        printf(" - |");
    else if (r >= 10)
        printf(" %.0fx |", r);
    else
        printf(coarse ? " %.1fx |" : " %.2fx |", r);
}

/* The table: each side's median, then the ratios (each runtime against
 * the first, each against Python, each against the references), then the
 * peak RSS of the runtimes and of Python. With one runtime and no
 * reference, the columns are those of every earlier table. */
static void print_table(const options *o, const context *cx, const results *all)
{
    bool active[SIDES] = {false};
    for (int r = 0; r < o->runtime_count; r++)
        active[r] = true;
    active[SIDE_PY] = true; /* a column of '-' without Python, as always */
    for (int s = 0; s < SCENARIOS; s++) {
        bool measured = false; /* by at least one runtime: not skipped */
        for (int r = 0; r < o->runtime_count; r++)
            measured |= o->runtimes[r].programs[s] != NULL;
        if (!selected(o, s) || !measured)
            continue;
        active[SIDE_BLOCKING] |= o->blocking[s] != NULL;
        active[SIDE_UVLOOP] |= cx->uvloop != NULL && scenarios[s].uvloop;
    }
    const char *first = cx->labels[0];
    int n = o->runtime_count;

    printf("\n| scenario | metric | unit |");
    for (int side = 0; side < SIDES; side++)
        if (active[side])
            printf(" %s median |", cx->labels[side]);
    for (int r = 1; r < n; r++)
        printf(" %s/%s |", first, cx->labels[r]);
    for (int r = 0; r < n; r++) {
        if (n == 1 && !active[SIDE_BLOCKING] && !active[SIDE_UVLOOP])
            printf(" Python/%s (a rate: %s/Python) |", first, first);
        else
            printf(" Python/%s |", cx->labels[r]);
    }
    for (int ref = SIDE_BLOCKING; ref <= SIDE_UVLOOP; ref++)
        for (int r = 0; active[ref] && r < n; r++)
            printf(" %s/%s |", cx->labels[ref], cx->labels[r]);
    for (int r = 0; r < n; r++)
        printf(" %s peak RSS |", cx->labels[r]);
    printf(" Python peak RSS | load |\n|---|---|---|");
    int columns = 0;
    for (int side = 0; side < SIDES; side++)
        columns += active[side];
    columns += (n - 1) + n + n * (active[SIDE_BLOCKING] + active[SIDE_UVLOOP]) + n + 2;
    for (int i = 0; i < columns; i++)
        printf("---:|");
    printf("\n");

    char a[32];
    for (int s = 0; s < SCENARIOS; s++) {
        if (!selected(o, s))
            continue;
        const results *res = &all[s];
        for (int i = 0; i < res->metric_count; i++) {
            const metric *m = &res->metrics[i];
            printf("| %s | %s | %s |", i == 0 ? scenarios[s].name : "", m->name, m->unit);
            for (int side = 0; side < SIDES; side++)
                if (active[side])
                    printf(" %s |", m->count[side] > 0
                                        ? format(a, sizeof a,
                                                 median(m->values[side], m->count[side]))
                                        : "-");
            for (int r = 1; r < n; r++)
                print_ratio(better(m, r, 0), false);
            for (int r = 0; r < n; r++)
                print_ratio(better(m, r, SIDE_PY), true);
            for (int ref = SIDE_BLOCKING; ref <= SIDE_UVLOOP; ref++)
                for (int r = 0; active[ref] && r < n; r++)
                    print_ratio(better(m, r, ref), false);
            for (int side = 0; side < n; side++)
                printf(" %s |", i == 0 && res->runs[side] > 0
                                    ? (snprintf(a, sizeof a, "%.1f MiB",
                                                res->maxrss[side] / 1048576.0),
                                       a)
                                    : "-");
            printf(" %s |", i == 0 && res->runs[SIDE_PY] > 0
                                ? (snprintf(a, sizeof a, "%.1f MiB",
                                            res->maxrss[SIDE_PY] / 1048576.0),
                                   a)
                                : "-");
            printf(" %s |\n", i == 0 && res->loads > 0
                                  ? (snprintf(a, sizeof a, "%.1f-%.1f", res->load_min,
                                              res->load_max),
                                     a)
                                  : "");
        }
    }
    if (n > 1 || active[SIDE_BLOCKING] || active[SIDE_UVLOOP])
        printf("\nA ratio A/B is how many times better B does than A: for a cost "
               "(ns, B, s) A's\nmedian over B's, for a rate (per_s) B's over A's. "
               "Above 1, B is faster.\n");
    printf("load: the 1-minute load average read before each run of the scenario, "
           "lowest-highest.\n");
}

/* ---- the targets ------------------------------------------------------------ */

static int label_index(const options *o, const char *label)
{
    for (int r = 0; r < o->runtime_count; r++)
        if (strcmp(o->runtimes[r].label, label) == 0)
            return r;
    return -1;
}

static const metric *get_metric(const results *res, const char *name)
{
    for (int i = 0; i < res->metric_count; i++)
        if (strcmp(res->metrics[i].name, name) == 0)
            return &res->metrics[i];
    return NULL;
}

/* "median [min-max]" of one side's runs, or "-" without any. */
static const char *cell(char *buf, size_t size, const metric *m, int side)
{
    if (m == NULL || m->count[side] == 0)
        return snprintf(buf, size, "-"), buf;
    double lo = m->values[side][0], hi = lo;
    for (int i = 1; i < m->count[side]; i++) {
        lo = m->values[side][i] < lo ? m->values[side][i] : lo;
        hi = m->values[side][i] > hi ? m->values[side][i] : hi;
    }
    char a[32], b[32], c[32];
    snprintf(buf, size, "%s [%s-%s]",
             format(a, sizeof a, median(m->values[side], m->count[side])),
             format(b, sizeof b, lo), format(c, sizeof c, hi));
    return buf;
}

static const char *ratio_cell(char *buf, size_t size, double r)
{
    if (r <= 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, r >= 10 ? "%.0fx" : "%.2fx", r);
    return buf;
}

/* The memory target is for a 32-byte frame; bench_memory's frame is the
 * coroutine header (56 bytes since chapter 06). What a task costs beyond
 * its frame is the same whatever the frame, so the figure judged is the
 * measured one less the frame's excess over 32 bytes (one block holds
 * both; rounding may add or save a few bytes). */
static double frame_adjusted(const results *res, int side, double bytes)
{
    const metric *frame = get_metric(res, "frame_bytes");
    if (frame == NULL || frame->count[side] == 0)
        return bytes;
    return bytes - (median(frame->values[side], frame->count[side]) - 32);
}

/* The table of issue 24's targets for the runtime labelled ch08 (nothing
 * if there is none): ch07's and ch08's medians with their ranges, their
 * ratio, CPython's, the target and whether ch08 meets it, and the load
 * average while the scenario ran. Markdown, to `out`. */
static void print_targets(FILE *out, const options *o, const context *cx,
                          const results *all)
{
    int t8 = label_index(o, target_label), t7 = label_index(o, base_label);
    if (t8 < 0)
        return;
    fprintf(out,
            "| target (issue 24) | %s | %s | %s/%s | %s | %s/%s | target | %s: met? | "
            "%s CPU/wall | load |\n"
            "|---|---:|---:|---:|---:|---:|---|---|---:|---|\n",
            base_label, target_label, base_label, target_label, cx->labels[SIDE_PY],
            cx->labels[SIDE_PY], target_label, target_label, target_label);
    char c7[96], c8[96], r7[32], py[96], rpy[32], goal[96], verdict[160], load[48];
    char a[32];
    for (int t = 0; t < TARGETS; t++) {
        const target *tg = &targets[t];
        int s;
        for (s = 0; s < SCENARIOS && strcmp(scenarios[s].name, tg->scenario) != 0; s++)
            ;
        if (s == SCENARIOS || !selected(o, s))
            continue;
        const results *res = &all[s];
        const metric *m = get_metric(res, tg->metric);
        bool have8 = m != NULL && m->count[t8] > 0;
        bool have7 = t7 >= 0 && m != NULL && m->count[t7] > 0;
        cell(c7, sizeof c7, have7 ? m : NULL, t7 >= 0 ? t7 : 0);
        cell(c8, sizeof c8, m, t8);
        ratio_cell(r7, sizeof r7, have7 && have8 ? better(m, t8, t7) : 0);
        cell(py, sizeof py, m, SIDE_PY);
        ratio_cell(rpy, sizeof rpy, have8 ? better(m, t8, SIDE_PY) : 0);
        double v8 = have8 ? median(m->values[t8], m->count[t8]) : 0;
        switch (tg->kind) {
        case AT_MOST:
            snprintf(goal, sizeof goal, "<= %s %s", format(a, sizeof a, tg->value),
                     m != NULL ? m->unit : "");
            if (strcmp(tg->metric, "bytes_per_pending_task") == 0 && have8) {
                double adj = frame_adjusted(res, t8, v8);
                snprintf(verdict, sizeof verdict,
                         "%s: %s B with a 32-byte frame (%.2fx the target)",
                         adj <= tg->value ? "**met**" : "missed",
                         format(a, sizeof a, adj), adj / tg->value);
            } else if (have8) {
                if (v8 <= tg->value)
                    snprintf(verdict, sizeof verdict, "**met** (%.2fx the target)",
                             v8 / tg->value);
                else
                    snprintf(
                        verdict, sizeof verdict, "missed by %s %s (%.2fx the target)",
                        format(a, sizeof a, v8 - tg->value), m->unit, v8 / tg->value);
            } else {
                snprintf(verdict, sizeof verdict, "not measured");
            }
            break;
        case OF_BLOCKING: {
            bool haveb = m != NULL && m->count[SIDE_BLOCKING] > 0;
            snprintf(
                goal, sizeof goal, ">= %.1fx the blocking C pair (%s here)", tg->value,
                haveb ? format(a, sizeof a,
                               median(m->values[SIDE_BLOCKING], m->count[SIDE_BLOCKING]))
                      : "not run");
            if (!have8 || !haveb) {
                snprintf(verdict, sizeof verdict, "not measured");
            } else {
                double r = better(m, t8, SIDE_BLOCKING);
                snprintf(verdict, sizeof verdict, "%s: %.2fx",
                         r >= tg->value ? "**met**" : "missed", r);
            }
            break;
        }
        case OF_BASE:
            snprintf(goal, sizeof goal, ">= %.1fx %s in the same run", tg->value,
                     base_label);
            if (!have8)
                snprintf(verdict, sizeof verdict, "not measured");
            else if (!have7)
                snprintf(verdict, sizeof verdict,
                         "needs %s in the same run (TAAL_BENCH_CHAPTERS=\"07 08\")",
                         base_label);
            else
                snprintf(verdict, sizeof verdict, "%s: %.2fx",
                         better(m, t8, t7) >= tg->value ? "**met**" : "missed",
                         better(m, t8, t7));
            break;
        }
        if (res->loads > 0)
            snprintf(load, sizeof load, "%.1f-%.1f", res->load_min, res->load_max);
        else
            snprintf(load, sizeof load, "-");
        char share[16] = "-";
        if (res->runs[t8] > 0)
            snprintf(share, sizeof share, "%.2f",
                     median(res->share[t8],
                            res->runs[t8] < MAX_REPS ? res->runs[t8] : MAX_REPS));
        fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", tg->what,
                c7, c8, r7, py, rpy, goal, verdict, share, load);
    }
}

/* What a run was: written above the targets' table in --markdown's file. */
typedef struct run_info {
    char machine[512]; /* CPUs, model, kernel */
    char python[160];  /* CPython's version, or why there is none */
    time_t started;    /* when the runner started */
    double seconds;    /* how long it ran */
    int nice;          /* its nice value */
} run_info;

/* Writes --markdown's file: one paragraph saying when, where and how the
 * run was made, and the targets' table. Returns false if it cannot. */
static bool write_markdown(const options *o, const context *cx, const results *all,
                           const run_info *info)
{
    if (label_index(o, target_label) < 0) {
        fprintf(stderr, "runner: --markdown: no runtime labelled %s, no table to write\n",
                target_label);
        return false;
    }
    FILE *f = fopen(o->markdown, "w");
    if (f == NULL) {
        fprintf(stderr, "runner: cannot write %s: %s\n", o->markdown, strerror(errno));
        return false;
    }
    struct tm tm;
    char date[64], sides[128] = "";
    gmtime_r(&info->started, &tm);
    strftime(date, sizeof date, "%Y-%m-%d, starting at %H:%M UTC", &tm);
    double lo = -1, hi = -1;
    for (int s = 0; s < SCENARIOS; s++) {
        if (!selected(o, s) || all[s].loads == 0)
            continue;
        lo = lo < 0 || all[s].load_min < lo ? all[s].load_min : lo;
        hi = all[s].load_max > hi ? all[s].load_max : hi;
    }
    for (int r = 0; r < o->runtime_count; r++)
        snprintf(sides + strlen(sides), sizeof sides - strlen(sides), "%s, ",
                 cx->labels[r]);
    snprintf(sides + strlen(sides), sizeof sides - strlen(sides), "%s",
             cx->python != NULL ? "CPython, then the blocking C pair for echo"
                                : "no Python");
    fprintf(f,
            "%sMeasured on %s%s%s, on %s; %s, build type %s; %s. %d run%s of each "
            "side per scenario, alternating (%s), medians and [lowest-highest]; the "
            "runner at nice %d, the 1-minute load average between %.1f and %.1f "
            "(each row's own in its last column); the run took %d min %02d s.\n\n",
            o->quick ? "(--quick: tiny sizes, the figures mean nothing.) " : "", date,
            o->note != NULL ? ", " : "", o->note != NULL ? o->note : "", info->machine,
            o->compiler != NULL ? o->compiler : "compiler unknown",
            o->build_type != NULL && o->build_type[0] ? o->build_type : "(none)",
            info->python, o->reps, o->reps == 1 ? "" : "s", sides, info->nice, lo, hi,
            (int)(info->seconds / 60), (int)info->seconds % 60);
    print_targets(f, o, cx, all);
    fprintf(f,
            "\nA ratio X/Y is how many times better Y does than X: for a cost "
            "(ns, B) X's median over Y's, for a rate (per second) Y's over X's; above "
            "1, Y is better. The Python side runs smaller sizes where the C side's "
            "would take it minutes (bench/runner.c); every figure is per task, "
            "switch, timer, round or second. CPU/wall is the median over %s's runs "
            "of the CPU time each used over its wall time, measured from outside: "
            "below 1 where it waited for a core that other work (or the virtual "
            "machine's host) held, or, by design, for its timers: the timers scenario "
            "sleeps up to 0.5 s; echo's counts its server process as well.\n",
            target_label);
    bool ok = !ferror(f);
    ok &= fclose(f) == 0;
    if (!ok)
        fprintf(stderr, "runner: cannot write %s\n", o->markdown);
    return ok;
}

/* Whether `python` can import uvloop; its version into buf. */
static bool probe_uvloop(const char *python, char *version, size_t size)
{
    char *argv[] = {(char *)python, "-c",
                    "import sys\n"
                    "try:\n"
                    "    import uvloop\n"
                    "except ImportError:\n"
                    "    sys.exit(1)\n" /* quietly: the runner says it */
                    "print(uvloop.__version__)",
                    NULL};
    run r;
    if (!run_program(argv, &r))
        return false;
    bool ok = r.status == 0 && r.out != NULL;
    if (ok) {
        r.out[strcspn(r.out, "\n")] = '\0';
        snprintf(version, size, "%s", r.out);
    }
    free(r.out);
    return ok;
}

int main(int argc, char **argv)
{
    options o;
    parse_options(argc, argv, &o);
    unsetenv("TAAL_CLOCK"); /* the real clock, always */
    setvbuf(stdout, NULL, _IOLBF, 0);

    context cx;
    memset(&cx, 0, sizeof cx);
    for (int r = 0; r < o.runtime_count; r++)
        snprintf(cx.labels[r], sizeof cx.labels[r], "%s", o.runtimes[r].label);
    snprintf(cx.labels[SIDE_PY], sizeof cx.labels[SIDE_PY], "Python");
    snprintf(cx.labels[SIDE_BLOCKING], sizeof cx.labels[SIDE_BLOCKING], "blocking C");
    snprintf(cx.labels[SIDE_UVLOOP], sizeof cx.labels[SIDE_UVLOOP], "uvloop");

    run_info info;
    memset(&info, 0, sizeof info);
    info.started = time(NULL);
    double started = now_s();
    info.nice = getpriority(PRIO_PROCESS, 0); /* -1 is a nice value too: no check */
    char model[256];
    cpu_model(model, sizeof model);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    struct utsname un;
    if (uname(&un) != 0)
        memset(&un, 0, sizeof un);
    snprintf(info.machine, sizeof info.machine, "%ld CPUs, %s, %s %s", cpus, model,
             un.sysname, un.release);
    snprintf(info.python, sizeof info.python, "no Python");
    printf("taal benchmarks%s\n",
           o.quick ? " (--quick: tiny sizes, figures mean nothing)" : "");
    printf("  machine:  %s\n", info.machine);
    printf("  load:     %.2f (1-minute average; each run's is read before it), nice %d\n",
           load_average(), info.nice);
    printf("  compiler: %s, build type %s\n", o.compiler ? o.compiler : "unknown",
           o.build_type && o.build_type[0] ? o.build_type : "(none)");
    if (o.build_type == NULL || strcmp(o.build_type, "Release") != 0)
        printf("  WARNING: not a Release build; use `cmake --workflow --preset bench`\n");
    printf("  runtimes:");
    for (int r = 0; r < o.runtime_count; r++)
        printf(" %s", o.runtimes[r].label);
    printf("%s\n",
           o.runtime_count > 1 ? " (side by side; ratios against the first)" : "");

    /* The Python side, if there is one. */
    char found[4096], exe[4096], version[128], uv_exe[4096], uv_version[128], uv[64];
    bool want_uvloop = false, want_blocking = false;
    for (int s = 0; s < SCENARIOS; s++) {
        want_uvloop |= selected(&o, s) && scenarios[s].uvloop;
        want_blocking |= selected(&o, s) && scenarios[s].blocking != NULL;
    }
    if (!o.c_only) {
        const char *candidate = o.python;
        if (candidate == NULL && find_on_path("python3", found, sizeof found))
            candidate = found;
        if (candidate != NULL &&
            probe_python(candidate, exe, sizeof exe, version, sizeof version))
            cx.python = exe;
        if (cx.python == NULL) {
            printf("  python:   python3 not found: running the C side only\n");
        } else if (o.scripts == NULL) {
            printf("  python:   no --scripts folder: running the C side only\n");
            cx.python = NULL;
        } else {
            printf("  python:   %s (%s), plain asyncio\n", version, cx.python);
            snprintf(info.python, sizeof info.python, "%s, plain asyncio", version);
        }
        /* uvloop: on --uvloop-python, or on the Python side's interpreter */
        const char *uvpy = o.uvloop_python != NULL ? o.uvloop_python : cx.python;
        if (!want_uvloop) {
        } else if (uvpy == NULL || o.scripts == NULL) {
            printf("  uvloop:   no interpreter: skipped\n");
        } else if (!probe_python(uvpy, uv_exe, sizeof uv_exe, uv_version,
                                 sizeof uv_version) ||
                   !probe_uvloop(uv_exe, uv, sizeof uv)) {
            printf("  uvloop:   not installed (%s -c 'import uvloop' failed): skipped\n",
                   uvpy);
        } else {
            cx.uvloop = uv_exe;
            printf("  uvloop:   %s on %s (%s), for echo\n", uv, uv_version, uv_exe);
        }
    } else {
        printf("  python:   skipped (--c-only)\n");
    }
    if (want_blocking) {
        for (int s = 0; s < SCENARIOS; s++)
            if (selected(&o, s) && scenarios[s].blocking != NULL)
                printf("  %-9s %s\n", "blocking:",
                       o.blocking[s] != NULL ? "a blocking C echo pair, one connection "
                                               "(the machine's limit), for echo"
                                             : "no --program bench_echo_blocking: "
                                               "skipped");
    }
    printf("  runs:     %d of each side per scenario, alternating; medians below\n",
           o.reps);
    printf("  sizes:\n");
    for (int s = 0; s < SCENARIOS; s++) {
        const scenario *sc = &scenarios[s];
        if (!selected(&o, s))
            continue;
        if (o.quick)
            printf("    %-12s both: %s\n", sc->name, sc->quick_args);
        else
            printf("    %-12s C: %-18s Python: %s\n", sc->name, sc->c_args, sc->py_args);
    }
    printf("\n");

    results *all = calloc(SCENARIOS, sizeof *all);
    if (all == NULL) {
        fprintf(stderr, "runner: out of memory\n");
        return 1;
    }
    bool ok = true;
    for (int s = 0; s < SCENARIOS; s++) {
        if (!selected(&o, s))
            continue;
        int have = 0;
        for (int r = 0; r < o.runtime_count; r++)
            have += o.runtimes[r].programs[s] != NULL;
        for (int r = 0; r < o.runtime_count; r++)
            if (o.runtimes[r].programs[s] == NULL)
                printf("%-12s %-10s skipped: no %s (the runtime lacks what it needs)\n",
                       scenarios[s].name, cx.labels[r], scenarios[s].program);
        if (have == 0)
            continue; /* Python alone compares with nothing */
        for (int rep = 0; rep < o.reps; rep++) {
            for (int r = 0; r < o.runtime_count; r++)
                if (o.runtimes[r].programs[s] != NULL)
                    ok &= run_side(&o, &cx, s, r, &all[s], rep);
            if (cx.python != NULL)
                ok &= run_side(&o, &cx, s, SIDE_PY, &all[s], rep);
            if (o.blocking[s] != NULL)
                ok &= run_side(&o, &cx, s, SIDE_BLOCKING, &all[s], rep);
            if (cx.uvloop != NULL && scenarios[s].uvloop)
                ok &= run_side(&o, &cx, s, SIDE_UVLOOP, &all[s], rep);
        }
    }
    print_table(&o, &cx, all);
    if (cx.python == NULL)
        printf("\n(C side only: no Python figures)\n");
    if (label_index(&o, target_label) >= 0) {
        printf("\nIssue 24's targets for %s: from this run\n\n", target_label);
        print_targets(stdout, &o, &cx, all);
    }
    info.seconds = now_s() - started;
    printf("\nThe run took %d min %02d s.\n", (int)(info.seconds / 60),
           (int)info.seconds % 60);
    if (o.markdown != NULL && !write_markdown(&o, &cx, all, &info))
        ok = false;
    else if (o.markdown != NULL)
        printf("The targets' table is in %s.\n", o.markdown);
    free(all);
    if (!ok)
        fprintf(stderr, "runner: some runs failed (see above)\n");
    return ok ? 0 : 1;
}
