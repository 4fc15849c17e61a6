/*
** timeline.c -- draw a taal trace as a timeline: SVG, ASCII, or both.
**
** Usage:
**   timeline [--svg OUT.svg] [--ascii] [--width N] [--title T] TRACE.json
**
**   --svg OUT   write the SVG picture to OUT
**   --ascii     print the ASCII picture too (it is printed anyway without --svg)
**   --width N   the ASCII picture's width in columns, 20 to 1000 (default 72)
**   --title T   the title of both (default: TRACE's file name)
**   TRACE       the trace file, or - for standard input
**
** Exit status: 0 when the trace was drawn; 1 when it could not be read or
** is not a valid trace (one line on stderr says where and why, as
** FILE:LINE:COLUMN: message), or is truncated (the same line; what it holds
** is still drawn, see tools/README.md); 2 for a usage error.
*/
#include "timeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_DRAWN = 0, EXIT_BAD_TRACE = 1, EXIT_USAGE = 2 };
enum { DEFAULT_WIDTH = 72, MIN_WIDTH = 20, MAX_WIDTH = 1000 };

static const char usage[] =
    "usage: timeline [--svg OUT.svg] [--ascii] [--width N] [--title T] TRACE.json\n";

typedef struct options {
    const char *trace_path; /* "-" for standard input */
    const char *svg_path;   /* NULL: no SVG */
    const char *title;      /* NULL: the trace's file name */
    bool ascii;
    int width;
} options;

/* ---- the command line ------------------------------------------------------ */

/* Reads --width's value: a whole number in range, and nothing else. */
static bool parse_width(const char *s, int *width)
{
    char *end;
    errno = 0;
    long n = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || n < MIN_WIDTH || n > MAX_WIDTH)
        return false;
    *width = (int)n;
    return true;
}

static int usage_error(const char *format, const char *what)
{
    fputs("timeline: ", stderr);
    fprintf(stderr, format, what);
    fputc('\n', stderr);
    fputs(usage, stderr);
    return -1;
}

/*
** Fills `o` from the arguments. Returns 0 to go on, 1 when --help was
** asked for (and answered), -1 after a usage error (reported).
*/
static int parse_args(int argc, char **argv, options *o)
{
    *o = (options){.width = DEFAULT_WIDTH};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            return 1;
        } else if (strcmp(arg, "--ascii") == 0) {
            o->ascii = true;
        } else if (strcmp(arg, "--svg") == 0 || strcmp(arg, "--title") == 0 ||
                   strcmp(arg, "--width") == 0) {
            if (!has_value)
                return usage_error("%s needs a value", arg);
            const char *value = argv[++i];
            if (arg[2] == 's')
                o->svg_path = value;
            else if (arg[2] == 't')
                o->title = value;
            else if (!parse_width(value, &o->width))
                return usage_error(
                    "--width must be a whole number from 20 to 1000, not '%s'", value);
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return usage_error("unknown option '%s'", arg);
        } else if (o->trace_path != NULL) {
            return usage_error("one trace at a time ('%s' is one too many)", arg);
        } else {
            o->trace_path = arg;
        }
    }
    if (o->trace_path == NULL)
        return usage_error("%s", "which trace? (give a TRACE.json file)");
    o->ascii = o->ascii || o->svg_path == NULL;
    return 0;
}

/* ---- reading the file ----------------------------------------------------- */

/*
** Reads the whole of `f` into a new buffer, at most TRACE_MAX_BYTES. On
** failure, says why in `why` and returns NULL. The buffer doubles as it
** fills, but never beyond one byte over the limit: that byte is enough to
** know the file is too large.
*/
static char *read_all(FILE *f, size_t *len, char *why, size_t size)
{
    const size_t limit = TRACE_MAX_BYTES;
    size_t cap = 0;
    char *text = NULL;
    *len = 0;
    for (;;) {
        if (*len == cap) {
            size_t grown = cap ? 2 * cap : 1 << 16;
            grown = grown < limit + 1 ? grown : limit + 1;
            char *bigger = realloc(text, grown);
            if (bigger == NULL) {
                snprintf(why, size, "out of memory");
                break;
            }
            text = bigger;
            cap = grown;
        }
        size_t got = fread(text + *len, 1, cap - *len, f);
        *len += got;
        if (*len > limit) {
            snprintf(why, size, "the file is larger than %zu MiB", limit >> 20);
            break;
        }
        if (got == 0 && ferror(f)) {
            snprintf(why, size, "%s", strerror(errno));
            break;
        }
        if (got == 0)
            return text;
    }
    free(text);
    return NULL;
}

static char *read_trace_file(const char *path, size_t *len)
{
    char why[128] = "";
    bool stdin_path = strcmp(path, "-") == 0;
    FILE *f = stdin_path ? stdin : fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "timeline: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    char *text = read_all(f, len, why, sizeof why);
    if (!stdin_path)
        fclose(f);
    if (text == NULL)
        fprintf(stderr, "timeline: cannot read %s: %s\n", path, why);
    return text;
}

/* ---- drawing ----------------------------------------------------------------- */

/* The name to show for a path: its last component. */
static const char *base_name(const char *path)
{
    if (strcmp(path, "-") == 0)
        return "<stdin>";
    const char *slash = strrchr(path, '/');
    return slash != NULL && slash[1] != '\0' ? slash + 1 : path;
}

static bool write_svg(const trace *t, const options *o, const draw_options *d)
{
    FILE *out = fopen(o->svg_path, "wb");
    if (out == NULL) {
        fprintf(stderr, "timeline: cannot write %s: %s\n", o->svg_path, strerror(errno));
        return false;
    }
    int rc = svg_draw(out, t, d);
    bool failed = ferror(out) != 0;
    if (fclose(out) != 0 || failed || rc != 0) {
        fprintf(stderr, "timeline: cannot write %s: %s\n", o->svg_path,
                rc != 0 ? "out of memory" : "write error");
        return false;
    }
    return true;
}

static bool draw(const trace *t, const options *o)
{
    draw_options d = {o->title ? o->title : base_name(o->trace_path), o->width};
    if (o->svg_path != NULL && !write_svg(t, o, &d))
        return false;
    if (o->ascii) {
        int rc = ascii_draw(stdout, t, &d);
        if (rc != 0 || fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "timeline: cannot write the ASCII picture: %s\n",
                    rc != 0 ? "out of memory" : "write error");
            return false;
        }
    }
    return true;
}

int main(int argc, char **argv)
{
    options o;
    int args = parse_args(argc, argv, &o);
    if (args != 0)
        return args > 0 ? EXIT_DRAWN : EXIT_USAGE;
    size_t len;
    char *text = read_trace_file(o.trace_path, &len);
    if (text == NULL)
        return EXIT_BAD_TRACE;
    trace t;
    trace_error err;
    trace_status status = trace_read(text, len, &t, &err);
    free(text);
    if (status != TRACE_OK)
        fprintf(stderr, "timeline: %s:%lu:%lu: %s\n", o.trace_path, err.line, err.column,
                err.message);
    bool drawable = status == TRACE_OK || (status == TRACE_TRUNCATED && t.count > 0);
    bool drawn = drawable && draw(&t, &o);
    trace_free(&t);
    return drawn && status == TRACE_OK ? EXIT_DRAWN : EXIT_BAD_TRACE;
}
