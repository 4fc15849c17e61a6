/*
** runner.c -- runs every benchmark and its CPython twin, and prints the table.
**
** For each scenario it runs the C program and the Python script alternately,
** several times each, reads the figures they print ("metric value unit" per
** line, '#' for comments), and measures each run from outside with wait4():
** wall time, CPU time, peak resident set size. Then it prints one Markdown
** table: the median of every metric on each side and their ratio.
**
**   runner --program bench_spawn=PATH ... --scripts DIR [options]
**
** Options (--help lists them too):
**   --reps N          runs of each side per scenario (default 5)
**   --quick           tiny sizes: proves the machinery, measures nothing
**   --only NAME       one scenario
**   --c-only          skip the Python twins
**   --python PATH     the interpreter (default: python3 on the PATH)
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
} scenario;

static const scenario scenarios[] = {
    {"spawn", "bench_spawn", "spawn.py", "1000000 5", "200000 2", "1000 3"},
    {"switch", "bench_switch", "switch.py", "50000000 50000000", "300000 300000",
     "1000 1000"},
    {"timers", "bench_timers", "timers.py", "1000000 0.5", "100000 0.5", "200 0.02"},
    {"memory", "bench_memory", "memory.py", "1000000", "250000", "1000"},
    {"idle", "bench_idle", "idle.py", "10000 2", "10000 2", "100 0.02"},
    {"semaphore", "bench_semaphore", "semaphore.py", "10000000 100 4", "100000 100 4",
     "1000 10 4"},
    {"queue", "bench_queue", "queue.py", "20000000 64", "1000000 64", "1000 8"},
    {"priority", "bench_priority", "priority.py", "20000000 8", "300000 8", "1000 8"},
    {"timer_cancel", "bench_timer_cancel", "timer_cancel.py", "1000000 0.5", "200000 0.5",
     "200 0.02"},
    {"cancel", "bench_cancel", "cancel.py", "100000 7", "100000 3", "1000 2"},
    {"timeout", "bench_timeout", "timeout.py", "5000000", "200000", "1000"},
    {"agen", "bench_agen", "agen.py", "10000000", "1000000", "1000"},
    {"actx", "bench_actx", "actx.py", "10000000", "1000000", "1000"},
    {"echo", "bench_echo", "echo.py", "200000 100", "20000 100", "200 10"},
    /* not http.py: a script of that name would hide the `http` package */
    {"http", "bench_http", "http_keepalive.py", "100000", "20000", "160"},
};
enum { SCENARIOS = sizeof scenarios / sizeof scenarios[0] };

enum { SIDE_C, SIDE_PY, SIDES };
static const char *const side_names[SIDES] = {"C", "Python"};

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
} results;

/* ---- options ------------------------------------------------------------- */

typedef struct options {
    const char *programs[SCENARIOS]; /* path of each C program */
    const char *scripts;             /* folder of the Python twins */
    const char *python;              /* the interpreter, or NULL */
    const char *only;
    const char *build_type;
    const char *compiler;
    int reps;
    bool quick;
    bool c_only;
} options;

static const char help[] =
    "usage: runner --program NAME=PATH... --scripts DIR [options]\n"
    "  --program NAME=PATH  a benchmark program (bench_spawn, bench_switch, ...)\n"
    "  --scripts DIR        the folder of the Python twins (spawn.py, ...)\n"
    "  --reps N             runs of each side per scenario (default 5)\n"
    "  --quick              tiny sizes: proves the machinery, measures nothing\n"
    "  --only NAME          one scenario: spawn, switch, timers, memory, idle,\n"
    "                       semaphore, queue, priority, timer_cancel, cancel,\n"
    "                       timeout, agen, actx, echo or http\n"
    "  --c-only             skip the Python twins\n"
    "  --python PATH        the interpreter (default: python3 on the PATH)\n"
    "  --build-type T       the CMake build type, printed\n"
    "  --compiler TEXT      the compiler, printed\n";

static void usage(void)
{
    fprintf(stderr, "usage: runner --program NAME=PATH... --scripts DIR [--reps N] "
                    "[--quick] [--only NAME] [--c-only] [--python PATH] "
                    "[--build-type T] [--compiler TEXT]\n");
    exit(2);
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
        } else if (value == NULL) {
            usage();
        } else if (strcmp(arg, "--program") == 0) {
            const char *eq = strchr(value, '=');
            int s;
            for (s = 0; s < SCENARIOS; s++) {
                size_t len = strlen(scenarios[s].program);
                if (eq != NULL && (size_t)(eq - value) == len &&
                    strncmp(value, scenarios[s].program, len) == 0)
                    break;
            }
            if (s == SCENARIOS) {
                fprintf(stderr, "runner: unknown program '%s'\n", value);
                usage();
            }
            o->programs[s] = eq + 1;
            i++;
        } else if (strcmp(arg, "--scripts") == 0) {
            o->scripts = value;
            i++;
        } else if (strcmp(arg, "--python") == 0) {
            o->python = value;
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

/* ---- main ------------------------------------------------------------------------ */

static bool run_side(const options *o, int s, int side, const char *python, results *res,
                     int rep)
{
    const scenario *sc = &scenarios[s];
    char args[256], script[4096];
    snprintf(args, sizeof args, "%s",
             o->quick         ? sc->quick_args
             : side == SIDE_C ? sc->c_args
                              : sc->py_args);
    char *argv[MAX_ARGS];
    int argc = 0;
    if (side == SIDE_C) {
        argv[argc++] = (char *)o->programs[s];
    } else {
        snprintf(script, sizeof script, "%s/%s", o->scripts, sc->script);
        argv[argc++] = (char *)python;
        argv[argc++] = script;
    }
    split_args(args, argv, argc);

    printf("%-12s %-6s %d/%d:", sc->name, side_names[side], rep + 1, o->reps);
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
    if (ok) {
        res->runs[side]++;
        if (r.maxrss > res->maxrss[side])
            res->maxrss[side] = r.maxrss;
    }
    return ok;
}

static void print_table(const options *o, const results *all)
{
    char a[32], b[32], c[32], d[32], e[32];
    printf("\n| scenario | metric | unit | C median | Python median "
           "| Python/C (a rate: C/Python) | C peak RSS | Python peak RSS |\n");
    printf("|---|---|---|---:|---:|---:|---:|---:|\n");
    for (int s = 0; s < SCENARIOS; s++) {
        if (o->only != NULL && strcmp(o->only, scenarios[s].name) != 0)
            continue;
        const results *res = &all[s];
        for (int i = 0; i < res->metric_count; i++) {
            const metric *m = &res->metrics[i];
            bool has_c = m->count[SIDE_C] > 0, has_py = m->count[SIDE_PY] > 0;
            double mc = has_c ? median(m->values[SIDE_C], m->count[SIDE_C]) : 0;
            double mp = has_py ? median(m->values[SIDE_PY], m->count[SIDE_PY]) : 0;
            /* How many times better the C side is: for a cost (ns, bytes,
               seconds) Python's over C's, for a rate (per_s) C's over
               Python's. */
            bool rate = strcmp(m->unit, "per_s") == 0;
            double better = rate ? (mp > 0 ? mc / mp : 0) : (mc > 0 ? mp / mc : 0);
            snprintf(c, sizeof c, "-");
            if (has_c && has_py && better > 0)
                snprintf(c, sizeof c, better >= 10 ? "%.0fx" : "%.1fx", better);
            snprintf(d, sizeof d, "-");
            snprintf(e, sizeof e, "-");
            if (i == 0 && res->runs[SIDE_C] > 0)
                snprintf(d, sizeof d, "%.1f MiB", res->maxrss[SIDE_C] / 1048576.0);
            if (i == 0 && res->runs[SIDE_PY] > 0)
                snprintf(e, sizeof e, "%.1f MiB", res->maxrss[SIDE_PY] / 1048576.0);
            printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n",
                   i == 0 ? scenarios[s].name : "", m->name, m->unit,
                   has_c ? format(a, sizeof a, mc) : "-",
                   has_py ? format(b, sizeof b, mp) : "-", c, d, e);
        }
    }
}

int main(int argc, char **argv)
{
    options o;
    parse_options(argc, argv, &o);
    unsetenv("TAAL_CLOCK"); /* the real clock, always */
    setvbuf(stdout, NULL, _IOLBF, 0);

    char model[256];
    cpu_model(model, sizeof model);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    printf("taal benchmarks%s\n",
           o.quick ? " (--quick: tiny sizes, figures mean nothing)" : "");
    printf("  machine:  %ld CPUs, %s\n", cpus, model);
    printf("  compiler: %s, build type %s\n", o.compiler ? o.compiler : "unknown",
           o.build_type && o.build_type[0] ? o.build_type : "(none)");
    if (o.build_type == NULL || strcmp(o.build_type, "Release") != 0)
        printf("  WARNING: not a Release build; use `cmake --workflow --preset bench`\n");

    /* The Python side, if there is one. */
    char found[4096], exe[4096], version[128];
    const char *python = NULL;
    if (!o.c_only) {
        const char *candidate = o.python;
        if (candidate == NULL && find_on_path("python3", found, sizeof found))
            candidate = found;
        if (candidate != NULL &&
            probe_python(candidate, exe, sizeof exe, version, sizeof version))
            python = exe;
        if (python == NULL) {
            printf("  python:   python3 not found: running the C side only\n");
        } else if (o.scripts == NULL) {
            printf("  python:   no --scripts folder: running the C side only\n");
            python = NULL;
        } else {
            printf("  python:   %s (%s), plain asyncio\n", version, python);
        }
    } else {
        printf("  python:   skipped (--c-only)\n");
    }
    printf("  runs:     %d of each side per scenario, alternating; medians below\n",
           o.reps);
    printf("  sizes:\n");
    for (int s = 0; s < SCENARIOS; s++) {
        const scenario *sc = &scenarios[s];
        if (o.only != NULL && strcmp(o.only, sc->name) != 0)
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
        if (o.only != NULL && strcmp(o.only, scenarios[s].name) != 0)
            continue;
        if (o.programs[s] == NULL) {
            fprintf(stderr, "runner: no --program %s=PATH\n", scenarios[s].program);
            ok = false;
            continue;
        }
        for (int rep = 0; rep < o.reps; rep++) {
            ok &= run_side(&o, s, SIDE_C, python, &all[s], rep);
            if (python != NULL)
                ok &= run_side(&o, s, SIDE_PY, python, &all[s], rep);
        }
    }
    print_table(&o, all);
    if (python == NULL)
        printf("\n(C side only: no Python figures)\n");
    free(all);
    if (!ok)
        fprintf(stderr, "runner: some runs failed (see above)\n");
    return ok ? 0 : 1;
}
