/*
** limitcheck.c -- does every test have a time limit?
**
**   limitcheck LISTING     (LISTING: what `ctest --show-only=json-v1` prints)
**
** A wrong answer that loops must fail the suite, not hang it, so every test
** needs a TIMEOUT greater than zero. This reads the listing, finds each test
** in its "tests" array and the TIMEOUT among the test's "properties", and
** fails, naming the tests without one. Exit status: 0 if every test has a
** limit, 1 if some do not, 2 if the listing cannot be read.
**
** It is a small recursive-descent JSON reader, in C rather than in CMake:
** CMake's string(JSON) parses the whole listing again for each test it
** looks at, which took 25 s for 700 tests; this takes a few milliseconds.
*/
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    const char *p;   /* the next character to read */
    const char *end; /* the end of the listing */
    bool bad;        /* not JSON: give up */
} reader;

/* What one test says: its name, and its time limit (0 if none). */
typedef struct test {
    char name[512];
    double limit;
} test;

static void skip_space(reader *r)
{
    while (r->p < r->end && strchr(" \t\r\n", *r->p) != NULL)
        r->p++;
}

static bool take(reader *r, char c)
{
    skip_space(r);
    if (r->p < r->end && *r->p == c) {
        r->p++;
        return true;
    }
    return false;
}

/* A string, copied into `out` (cut short if longer; escapes kept as the
 * character after the backslash, which is enough for names). */
static void read_string(reader *r, char *out, size_t size)
{
    size_t n = 0;
    if (!take(r, '"')) {
        r->bad = true;
        return;
    }
    while (r->p < r->end && *r->p != '"') {
        if (*r->p == '\\' && r->p + 1 < r->end)
            r->p++;
        if (n + 1 < size)
            out[n++] = *r->p;
        r->p++;
    }
    if (r->p >= r->end)
        r->bad = true;
    else
        r->p++; /* the closing quote */
    if (size > 0)
        out[n] = '\0';
}

static void skip_value(reader *r);

/* Calls `member(r, key, context)` for each member of an object, which must
 * read the member's value; or, with no callback, skips them all. */
static void read_object(reader *r, void (*member)(reader *, const char *, void *),
                        void *context)
{
    if (!take(r, '{')) {
        r->bad = true;
        return;
    }
    if (take(r, '}'))
        return;
    do {
        char key[64];
        read_string(r, key, sizeof key);
        if (r->bad || !take(r, ':')) {
            r->bad = true;
            return;
        }
        if (member != NULL)
            member(r, key, context);
        else
            skip_value(r);
    } while (!r->bad && take(r, ','));
    if (!r->bad && !take(r, '}'))
        r->bad = true;
}

/* Calls `element(r, context)` for each element of an array, which must
 * read it. */
static void read_array(reader *r, void (*element)(reader *, void *), void *context)
{
    if (!take(r, '[')) {
        r->bad = true;
        return;
    }
    if (take(r, ']'))
        return;
    do
        element(r, context);
    while (!r->bad && take(r, ','));
    if (!r->bad && !take(r, ']'))
        r->bad = true;
}

static void skip_element(reader *r, void *context)
{
    (void)context;
    skip_value(r);
}

static void skip_value(reader *r)
{
    skip_space(r);
    if (r->p >= r->end) {
        r->bad = true;
    } else if (*r->p == '{') {
        read_object(r, NULL, NULL);
    } else if (*r->p == '[') {
        read_array(r, skip_element, NULL);
    } else if (*r->p == '"') {
        char ignored[1];
        read_string(r, ignored, sizeof ignored);
    } else { /* a number, true, false or null */
        while (r->p < r->end && strchr(",]} \t\r\n", *r->p) == NULL)
            r->p++;
    }
}

/* ---- what the listing means ------------------------------------------------- */

/* One property: {"name": ..., "value": ...}; only TIMEOUT's value counts. */
typedef struct property {
    char name[64];
    double value;
} property;

static void property_member(reader *r, const char *key, void *context)
{
    property *prop = context;
    if (strcmp(key, "name") == 0) {
        read_string(r, prop->name, sizeof prop->name);
    } else if (strcmp(key, "value") == 0 && strcmp(prop->name, "TIMEOUT") == 0) {
        skip_space(r);
        char *after;
        prop->value = strtod(r->p, &after);
        if (after == r->p)
            r->bad = true;
        r->p = after;
    } else {
        skip_value(r); /* a value before its name is not TIMEOUT's in ctest's order */
    }
}

static void property_element(reader *r, void *context)
{
    property prop = {"", 0.0};
    read_object(r, property_member, &prop);
    if (strcmp(prop.name, "TIMEOUT") == 0)
        ((test *)context)->limit = prop.value;
}

static void test_member(reader *r, const char *key, void *context)
{
    test *t = context;
    if (strcmp(key, "name") == 0)
        read_string(r, t->name, sizeof t->name);
    else if (strcmp(key, "properties") == 0)
        read_array(r, property_element, t);
    else
        skip_value(r);
}

typedef struct tally {
    int tests;
    int missing;
} tally;

static void test_element(reader *r, void *context)
{
    tally *count = context;
    test t = {"", 0.0};
    read_object(r, test_member, &t);
    if (r->bad)
        return;
    count->tests++;
    if (!(t.limit > 0)) {
        if (count->missing++ == 0)
            fprintf(stderr, "tests without a time limit (TIMEOUT):\n");
        fprintf(stderr, "  %s\n", t.name);
    }
}

static void listing_member(reader *r, const char *key, void *context)
{
    if (strcmp(key, "tests") == 0)
        read_array(r, test_element, context);
    else
        skip_value(r);
}

static char *read_file(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return NULL;
    char *text = NULL;
    size_t used = 0, cap = 0, got;
    do {
        if (used == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            char *grown = realloc(text, cap);
            if (grown == NULL) {
                free(text);
                fclose(file);
                return NULL;
            }
            text = grown;
        }
        got = fread(text + used, 1, cap - used, file);
        used += got;
    } while (got > 0);
    fclose(file);
    *size = used;
    return text;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: limitcheck LISTING.json\n");
        return 2;
    }
    size_t size = 0;
    char *text = read_file(argv[1], &size);
    if (text == NULL) {
        fprintf(stderr, "limitcheck: cannot read %s\n", argv[1]);
        return 2;
    }
    reader r = {text, text + size, false};
    tally count = {0, 0};
    read_object(&r, listing_member, &count);
    free(text);
    if (r.bad) {
        fprintf(stderr, "limitcheck: %s is not a ctest JSON listing\n", argv[1]);
        return 2;
    }
    if (count.tests == 0) {
        fprintf(stderr, "limitcheck: no tests listed: nothing was checked\n");
        return 1;
    }
    if (count.missing > 0) {
        fprintf(stderr, "%d of %d tests have no time limit (TIMEOUT)\n", count.missing,
                count.tests);
        return 1;
    }
    printf("every one of %d tests has a time limit\n", count.tests);
    return 0;
}
