/*
** robust.c -- the timeline must survive any input.
**
** Usage: robust [--mutate] TRACE.json...
**
** For each good trace, reads every prefix of it (a trace cut short by a
** crash, at every byte), and with --mutate every copy of it with one byte
** changed to each of a few troublemakers (quotes, brackets, a backslash, a
** NUL, a byte that is never UTF-8). Whatever the reader says of each, it
** must say it without crashing, and whatever it accepts must draw, as SVG
** and as ASCII. Each copy sits in a buffer of exactly its length, so that
** AddressSanitizer or valgrind (the sanitize and valgrind presets) catch a
** read past the end; they also catch every leak.
**
** Two things are also checked, not only survived: a prefix that stops
** before the closing '}' is never accepted as a whole trace, and the
** reader's status agrees with what it gives (a truncated or refused trace
** always has a message).
**
** This runs in-process, linked with the timeline's stages, because a
** process per copy would take minutes under valgrind.
*/
#include "../timeline.h"

#include <stdlib.h>
#include <string.h>

static const char troublemakers[] = {'"', '{', ']', '\\', '\0', (char)0xFF, '9', ','};

typedef struct tally {
    long copies, drawn, truncated, refused, failures;
} tally;

/* Reads a file whole; NULL if it cannot. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long size;
    if (f != NULL && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)size + 1)) != NULL) {
        *len = fread(text, 1, (size_t)size, f);
        if (*len != (size_t)size) {
            free(text);
            text = NULL;
        }
    }
    if (f != NULL)
        fclose(f);
    return text;
}

/* What a trace holds, to see that two are the same without comparing. */
typedef struct shape {
    trace_status status;
    size_t events, pool;
    int rows;
} shape;

/*
** Reads `len` bytes as a trace and draws what it accepts into `sink`,
** unless it is the same as the trace read before (`last`): prefixes that
** end inside one event all read as the same trace, and drawing it once is
** enough. Returns the reader's status, and counts a failure if the status
** and the result disagree.
*/
static trace_status try_one(const char *bytes, size_t len, FILE *sink, shape *last,
                            tally *n)
{
    char *copy = malloc(len ? len : 1); /* exactly its length: no NUL to lean on */
    trace t;
    trace_error err;
    if (copy == NULL) {
        n->failures++;
        return TRACE_ERROR;
    }
    memcpy(copy, bytes, len);
    trace_status status = trace_read(copy, len, &t, &err);
    n->copies++;
    if (status != TRACE_OK && (err.message[0] == '\0' || err.line == 0)) {
        fprintf(stderr, "a refusal without a message, at %zu bytes\n", len);
        n->failures++;
    }
    if (status == TRACE_TRUNCATED)
        n->truncated++;
    if (status == TRACE_ERROR)
        n->refused++;
    shape now = {status, t.count, t.pool_len, t.row_count};
    bool same = last != NULL && now.status == last->status &&
                now.events == last->events && now.pool == last->pool &&
                now.rows == last->rows;
    if (last != NULL)
        *last = now;
    if (status != TRACE_ERROR && !same) {
        draw_options o = {"robust", 72};
        rewind(sink);
        if (svg_draw(sink, &t, &o) != 0 || ascii_draw(sink, &t, &o) != 0)
            n->failures++;
        n->drawn++;
    }
    trace_free(&t);
    free(copy);
    return status;
}

/* Every prefix: only those that reach the final '}' may be whole. */
static void prefixes(const char *text, size_t len, FILE *sink, tally *n)
{
    shape last = {TRACE_ERROR, 0, 0, -1};
    size_t whole = len;
    while (whole > 0 && text[whole - 1] != '}')
        whole--; /* the length up to and with the closing brace */
    for (size_t k = 0; k <= len; k++) {
        trace_status status = try_one(text, k, sink, &last, n);
        if (k < whole && status == TRACE_OK) {
            fprintf(stderr, "the prefix of %zu bytes was read as a whole trace\n", k);
            n->failures++;
        }
    }
}

/* Every byte changed to each troublemaker in turn. */
static void mutations(const char *text, size_t len, FILE *sink, tally *n)
{
    char *copy = malloc(len ? len : 1);
    if (copy == NULL) {
        n->failures++;
        return;
    }
    memcpy(copy, text, len);
    for (size_t i = 0; i < len; i++) {
        for (size_t j = 0; j < sizeof troublemakers; j++) {
            copy[i] = troublemakers[j];
            try_one(copy, len, sink, NULL, n);
        }
        copy[i] = text[i];
    }
    free(copy);
}

int main(int argc, char **argv)
{
    bool mutate = argc > 1 && strcmp(argv[1], "--mutate") == 0;
    FILE *sink = tmpfile();
    int failed = sink == NULL;
    for (int i = 1 + mutate; i < argc && sink != NULL; i++) {
        size_t len;
        char *text = slurp(argv[i], &len);
        tally n = {0};
        if (text == NULL) {
            fprintf(stderr, "robust: cannot read %s\n", argv[i]);
            failed = 1;
            continue;
        }
        prefixes(text, len, sink, &n);
        if (mutate)
            mutations(text, len, sink, &n);
        printf("%s: %ld copies: %ld drawn (%ld of them truncated), %ld refused, %ld "
               "failures\n",
               argv[i], n.copies, n.drawn, n.truncated, n.refused, n.failures);
        failed |= n.failures != 0;
        free(text);
    }
    if (sink != NULL)
        fclose(sink);
    return failed;
}
