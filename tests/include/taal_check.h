/*
** taal_check.h -- the test helpers every chapter's unit tests use.
**
** One header, no framework. A test file defines tests with TEST(name),
** lists them in a table, and hands the table to taal_check_main():
**
**     TEST(adds) { CHECK_EQ(1 + 1, 2); }
**     static const taal_test tests[] = { TEST_ENTRY(adds) };
**     int main(int argc, char **argv)
**     { return taal_check_main(argc, argv, tests, TAAL_COUNT(tests)); }
**
** Run with no arguments, the program runs every test; with names, only
** those (CTest runs each test by name, so each shows up on its own). A
** TEST missing from the table is an unused static function: the compiler
** says so.
**
** A failed check prints the expression and both values with file and line,
** then ends the current test (the rest of it would only report the same
** failure again). The allocation counters at the bottom let a test make the
** n-th allocation fail and check that nothing is left allocated.
*/
#ifndef TAAL_CHECK_H
#define TAAL_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Setting and removing an environment variable the portable way. setenv
 * and unsetenv are POSIX (a test file that uses them defines
 * _POSIX_C_SOURCE before any #include); Windows has _putenv_s instead,
 * where an empty value removes the variable. */
#ifdef _WIN32
#define TAAL_SETENV(name, value) _putenv_s(name, value)
#define TAAL_UNSETENV(name) _putenv_s(name, "")
#else
#define TAAL_SETENV(name, value) setenv(name, value, 1)
#define TAAL_UNSETENV(name) unsetenv(name)
#endif

typedef struct taal_test {
    const char *name;
    void (*fn)(void);
} taal_test;

#define TEST(name) static void name(void)
#define TEST_ENTRY(name) \
    {                    \
#name, name      \
    }
#define TAAL_COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* Failures of the test that is running; reset before each test. */
static int taal_check_failures;

static inline void taal_check_report(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
    taal_check_failures++;
}

/** Fails the test unless @p cond is true. */
#define CHECK(cond)                                       \
    do {                                                  \
        if (!(cond)) {                                    \
            taal_check_report(__FILE__, __LINE__, #cond); \
            return;                                       \
        }                                                 \
    } while (0)

/** A named constant of the runtime under test, for CHECK_EQ's messages. */
typedef struct taal_check_name {
    const char *name; /**< the constant's name, e.g. "TAAL_ENOTIMPL" */
    long long value;  /**< its value */
    int group;        /**< the enum it belongs to: names of one group go together */
} taal_check_name;

#ifdef TAAL_CHECK_NAMES
/* A lab handout's build generates the list of taal.h's enumerators (see
 * labs/handout/CMakeLists.txt), so that a failed CHECK_EQ names its values. */
#include TAAL_CHECK_NAMES
#else
/** The named constants CHECK_EQ knows: none, outside a lab handout. */
static inline const taal_check_name *taal_check_names(size_t *count)
{
    *count = 0;
    return NULL;
}
#endif

/* The group of the first known name that the text of an expression holds
 * as a whole word, or -1. */
static inline int taal_check_group_in(const char *text)
{
    size_t count;
    const taal_check_name *names = taal_check_names(&count);
    for (size_t i = 0; i < count; i++) {
        size_t length = strlen(names[i].name);
        for (const char *at = strstr(text, names[i].name); at != NULL;
             at = strstr(at + 1, names[i].name)) {
            char before = at == text ? ' ' : at[-1], after = at[length];
            if (!(before == '_' || (before >= 'A' && before <= 'Z') ||
                  (before >= 'a' && before <= 'z') || (before >= '0' && before <= '9')) &&
                !(after == '_' || (after >= 'A' && after <= 'Z') ||
                  (after >= 'a' && after <= 'z') || (after >= '0' && after <= '9')))
                return names[i].group;
        }
    }
    return -1;
}

/* Prints @p value, with its name if it has one in @p group: "TAAL_EUSER
 * (-1000)". */
static inline void taal_check_print_value(long long value, int group)
{
    size_t count;
    const taal_check_name *names = taal_check_names(&count);
    for (size_t i = 0; group >= 0 && i < count; i++)
        if (names[i].group == group && names[i].value == value) {
            fprintf(stderr, "%s (%lld)", names[i].name, value);
            return;
        }
    fprintf(stderr, "%lld", value);
}

/* CHECK_EQ's message: the two expressions, and their values, named after
 * the enum a constant in either expression belongs to. Without one, only a
 * lab stub's TAAL_ENOTIMPL names the values as status codes: a plain -1 may
 * mean anything. */
static inline void taal_check_report_eq(const char *file, int line, const char *a_text,
                                        const char *b_text, long long a, long long b)
{
    int group = taal_check_group_in(b_text);
    if (group < 0)
        group = taal_check_group_in(a_text);
    if (group < 0) {
        size_t count;
        const taal_check_name *names = taal_check_names(&count);
        for (size_t i = 0; i < count; i++)
            if (strcmp(names[i].name, "TAAL_ENOTIMPL") == 0 &&
                (a == names[i].value || b == names[i].value))
                group = names[i].group;
    }
    fprintf(stderr, "%s:%d: check failed: %s == %s (", file, line, a_text, b_text);
    taal_check_print_value(a, group);
    fprintf(stderr, " != ");
    taal_check_print_value(b, group);
    fprintf(stderr, ")\n");
    taal_check_failures++;
}

/** Fails the test unless the integers @p a and @p b are equal; prints both,
 *  by name where they are constants of taal.h (in a lab handout). */
#define CHECK_EQ(a, b)                                                          \
    do {                                                                        \
        long long taal__a = (long long)(a), taal__b = (long long)(b);           \
        if (taal__a != taal__b) {                                               \
            taal_check_report_eq(__FILE__, __LINE__, #a, #b, taal__a, taal__b); \
            return;                                                             \
        }                                                                       \
    } while (0)

/** Fails the test unless the strings @p a and @p b are equal; prints both. */
#define CHECK_STR(a, b)                                                           \
    do {                                                                          \
        const char *taal__a = (a), *taal__b = (b);                                \
        if (taal__a == NULL || taal__b == NULL || strcmp(taal__a, taal__b)) {     \
            fprintf(stderr, "%s:%d: check failed: %s == %s (\"%s\" != \"%s\")\n", \
                    __FILE__, __LINE__, #a, #b, taal__a ? taal__a : "(null)",     \
                    taal__b ? taal__b : "(null)");                                \
            taal_check_failures++;                                                \
            return;                                                               \
        }                                                                         \
    } while (0)

/** Runs the tests named in argv, or all of them; returns the exit status. */
static inline int taal_check_main(int argc, char **argv, const taal_test *tests,
                                  size_t count)
{
    int failed = 0, ran = 0;
    for (size_t i = 0; i < count; i++) {
        bool wanted = argc < 2;
        for (int a = 1; a < argc && !wanted; a++)
            wanted = strcmp(argv[a], tests[i].name) == 0;
        if (!wanted)
            continue;
        taal_check_failures = 0;
        tests[i].fn();
        ran++;
        printf("%s %s\n", taal_check_failures ? "FAIL" : "ok  ", tests[i].name);
        failed += taal_check_failures != 0;
    }
    /* Every name asked for must exist: a typo must not pass as "ran nothing". */
    for (int a = 1; a < argc; a++) {
        bool found = false;
        for (size_t i = 0; i < count && !found; i++)
            found = strcmp(argv[a], tests[i].name) == 0;
        if (!found) {
            fprintf(stderr, "no test named '%s'\n", argv[a]);
            return 2;
        }
    }
    printf("%d passed, %d failed\n", ran - failed, failed);
    return failed ? 1 : 0;
}

/*
** Allocation counting and failure injection. A chapter with a swappable
** allocator routes it through taal_check_malloc/realloc/free; a test sets
** fail_at to n to make the n-th allocation from then on return NULL.
*/
typedef struct taal_check_alloc_stats {
    long allocs;   /* successful allocations so far */
    long frees;    /* frees of non-NULL pointers so far */
    long fail_at;  /* 0 = never fail; n = the n-th allocation attempt fails */
    long attempts; /* allocation attempts since fail_at was set */
} taal_check_alloc_stats;

static taal_check_alloc_stats taal_check_alloc;

/** Starts counting afresh; @p fail_at as in taal_check_alloc_stats. */
static inline void taal_check_alloc_reset(long fail_at)
{
    taal_check_alloc = (taal_check_alloc_stats){0, 0, fail_at, 0};
}

/** Allocations not yet freed. */
static inline long taal_check_alloc_live(void)
{
    return taal_check_alloc.allocs - taal_check_alloc.frees;
}

static inline bool taal_check_alloc_should_fail(void)
{
    taal_check_alloc.attempts++;
    return taal_check_alloc.fail_at != 0 &&
           taal_check_alloc.attempts == taal_check_alloc.fail_at;
}

static inline void *taal_check_malloc(size_t size)
{
    if (taal_check_alloc_should_fail())
        return NULL;
    void *p = malloc(size);
    if (p != NULL)
        taal_check_alloc.allocs++;
    return p;
}

static inline void *taal_check_realloc(void *p, size_t size)
{
    if (taal_check_alloc_should_fail())
        return NULL;
    void *q = realloc(p, size);
    if (q != NULL && p == NULL)
        taal_check_alloc.allocs++;
    return q;
}

static inline void taal_check_free(void *p)
{
    if (p != NULL)
        taal_check_alloc.frees++;
    free(p);
}

#endif /* TAAL_CHECK_H */
