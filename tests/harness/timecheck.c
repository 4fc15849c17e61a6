/*
** timecheck.c -- does a program take the real time it should, and no CPU?
**
**   timecheck [--wall-min S] [--wall-max S] [--cpu-max S] -- PROGRAM [ARGS...]
**
** Runs PROGRAM on the real clock (TAAL_CLOCK unset), its output discarded,
** and measures the wall time it took and the CPU time it used (user plus
** system). Fails if either is outside the bounds given, or if the program
** fails. The bounds are generous on purpose: this proves that sleeping
** really sleeps, in the kernel, not how fast the machine is.
*/
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* wait4 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(const struct timeval *tv)
{
    return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    double wall_min = 0, wall_max = 1e9, cpu_max = 1e9;
    int i = 1;
    for (; i + 1 < argc && strcmp(argv[i], "--") != 0; i += 2) {
        double value = atof(argv[i + 1]);
        if (strcmp(argv[i], "--wall-min") == 0)
            wall_min = value;
        else if (strcmp(argv[i], "--wall-max") == 0)
            wall_max = value;
        else if (strcmp(argv[i], "--cpu-max") == 0)
            cpu_max = value;
        else
            break;
    }
    if (i >= argc || strcmp(argv[i], "--") != 0 || i + 1 >= argc) {
        fprintf(stderr, "usage: timecheck [--wall-min S] [--wall-max S] [--cpu-max S] "
                        "-- PROGRAM [ARGS...]\n");
        return 2;
    }
    char **program = argv + i + 1;

    double start = now();
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, STDOUT_FILENO);
        unsetenv("TAAL_CLOCK");
        execvp(program[0], program);
        perror(program[0]);
        _exit(127);
    }
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    int status = 0;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) {
        perror("wait4");
        return 2;
    }
    double wall = now() - start;
    double cpu = seconds(&usage.ru_utime) + seconds(&usage.ru_stime);

    printf("%s: wall %.3f s (allowed %.3f to %.3f), cpu %.3f s (allowed up to %.3f)\n",
           program[0], wall, wall_min, wall_max, cpu, cpu_max);
    int failed = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("FAIL: the program did not exit with status 0\n");
        failed = 1;
    }
    if (wall < wall_min || wall > wall_max) {
        printf("FAIL: wall time out of bounds\n");
        failed = 1;
    }
    if (cpu > cpu_max) {
        printf("FAIL: cpu time over the limit\n");
        failed = 1;
    }
    return failed;
}
