/*
** trace.c -- read a trace: JSON text in, checked events out.
**
** Two layers in one pass over the text. The lower one is a JSON reader:
** recursive descent, one function per kind of value, each one bounded
** (nesting depth, string length, number length), so that no input can
** exhaust the stack or the memory. The upper one knows what a taal trace
** says. It reads each event object into a `raw_event`, checks its fields
** against the table of event names (`rules`, below), and follows every
** task through its life:
**
**            create         step B           step E, then=yield
**   unborn ---------> ready --------> running -------------------> ready
**                       ^                |  then=park     -> waiting
**                       |     wake       |  then=sleep    -> sleeping
**                       +-- waiting,  <--+  then=done     -> done
**                           sleeping
**
** An event that does not fit (a step that ends before it began, a wake for
** a task that is not waiting) makes the whole trace invalid, with a message
** that names its line: a picture of an impossible trace would only mislead,
** and the message is what the author of the trace writer needs.
**
** The text is read in place. Only what the drawing needs is kept: one
** small `trace_event` per event, and the strings, in the trace's pool.
*/
#include "timeline.h"

#include <math.h> /* isfinite(), a macro: nothing to link */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- what the reader holds while it reads -------------------------------- */

/* The life of a task, as far as the trace has told it (see the top). */
typedef enum task_state { UNBORN, READY, RUNNING, WAITING, SLEEPING, DONE } task_state;

static const char *const state_words[] = {"not created yet", "ready",    "running",
                                          "waiting",         "sleeping", "done"};

/* The type of a JSON value, as far as the checks care. */
typedef enum field_type { ABSENT, STRING, NUMBER, OTHER } field_type;

static const char *const type_words[] = {"absent", "a string", "a number",
                                         "an object, array, boolean or null"};

/* One field of an event or of its args: its type, its value, its place. */
typedef struct field {
    field_type type;
    size_t at; /* byte offset of the value, for messages */
    double num;
    char str[TRACE_MAX_STRING + 1];
} field;

/* The fields of an event that the checks read; any other key is skipped. */
enum { F_NAME, F_PH, F_PID, F_TID, F_TS, F_DUR, F_S, FIELD_COUNT };
static const char *const field_keys[FIELD_COUNT] = {"name", "ph",  "pid", "tid",
                                                    "ts",   "dur", "s"};

/* The keys of args that some event reads. Which event reads which is in
 * the take_...() functions; the others are ignored, whatever their type. */
enum {
    ARG_NAME,
    ARG_BY,
    ARG_THEN,
    ARG_ON,
    ARG_ON_TID,
    ARG_UNTIL,
    ARG_STATUS,
    ARG_WHY,
    ARG_SECONDS,
    ARG_DEADLINE,
    ARG_COUNT
};
static const char *const arg_keys[ARG_COUNT] = {"name",    "by",      "then",   "on",
                                                "on_tid",  "until",   "status", "why",
                                                "seconds", "deadline"};

/* One event object as read, before it is checked. */
typedef struct raw_event {
    size_t at; /* byte offset of its '{' */
    field f[FIELD_COUNT];
    field arg[ARG_COUNT];
} raw_event;

/* What the reader knows about one tid: its row (once it has an event that
 * is drawn) and its latest thread_name. */
typedef struct tid_entry {
    long tid;    /* -1 marks a free slot */
    int row;     /* -1: no row yet */
    size_t name; /* in the pool; 0 if no thread_name came yet */
} tid_entry;

/* An open-addressing hash table of tids. Its size is a power of two and
 * it is kept at most half full, so that a lookup ends after a few probes;
 * it starts small and doubles as tids come. */
enum { MAP_FIRST_SIZE = 64 };

/* Where the reader is, for the message about a truncated trace. */
typedef enum phase { BEFORE_EVENTS, IN_EVENTS, AFTER_EVENTS } phase;

typedef struct reader {
    const char *text;
    size_t len, pos;
    int depth; /* objects and arrays open around pos */
    trace *t;
    trace_error *err;
    trace_status status; /* TRACE_OK until the first error or the early end */
    phase phase;
    size_t taken;   /* complete event objects read so far */
    raw_event *raw; /* the event being read (one, reused) */
    tid_entry *map;
    size_t map_size;                     /* slots in map */
    int entries;                         /* used slots in map */
    unsigned char state[TRACE_MAX_ROWS]; /* the task_state of each row */
    int running;                         /* the row of the running task, or -1 */
    double last_ts;                      /* of the latest event, in µs */
} reader;

/* ---- errors ---------------------------------------------------------------- */

/*
** Records an error at byte `at`, unless one is recorded already (the first
** one is what went wrong; later ones are its echoes), and returns false so
** that a caller can write `return fail(...)`.
*/
static bool fail(reader *r, size_t at, const char *format, ...)
{
    if (r->status != TRACE_OK)
        return false;
    r->status = TRACE_ERROR;
    r->err->offset = at;
    va_list args;
    va_start(args, format);
    vsnprintf(r->err->message, sizeof r->err->message, format, args);
    va_end(args);
    return false;
}

/* The text ended where more had to come: the trace is truncated. The
 * message is written at the end, when the reader knows how much it read. */
static bool ended(reader *r)
{
    if (r->status == TRACE_OK) {
        r->status = TRACE_TRUNCATED;
        r->err->offset = r->len;
    }
    return false;
}

/* Out of memory overrides everything: the reader cannot go on. */
static bool out_of_memory(reader *r)
{
    r->status = TRACE_ERROR;
    r->err->offset = r->pos;
    snprintf(r->err->message, sizeof r->err->message, "out of memory");
    return false;
}

/* Names the byte at `pos` for a message: 'x', or byte 0xHH if it is not
 * printable ASCII. */
static const char *found(const reader *r, size_t pos, char *buf, size_t size)
{
    unsigned char c = (unsigned char)r->text[pos];
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, size, "'%c'", c);
    else
        snprintf(buf, size, "byte 0x%02X", c);
    return buf;
}

/* A string from the trace, made safe and short for a message. */
static const char *shown(const char *s, char *buf, size_t size)
{
    text_fit(s, 32, "...", buf, size);
    return buf;
}

/* Turns a byte offset into a line and a column (in UTF-8 characters). */
static void locate(const char *text, size_t offset, trace_error *err)
{
    err->line = 1;
    err->column = 1;
    for (size_t i = 0; i < offset; i++) {
        if (text[i] == '\n') {
            err->line++;
            err->column = 1;
        } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
            err->column++; /* count lead bytes, not continuation bytes */
        }
    }
}

/* ---- JSON: white space, strings ------------------------------------------ */

static void skip_space(reader *r)
{
    while (r->pos < r->len) {
        char c = r->text[r->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        r->pos++;
    }
}

/* Skips white space and returns the next byte, or -1 (the trace is
 * truncated) if the text ends first. */
static int next_byte(reader *r)
{
    skip_space(r);
    if (r->pos >= r->len) {
        ended(r);
        return -1;
    }
    return (unsigned char)r->text[r->pos];
}

/* Writes code point `cp` as UTF-8 into `out`; returns its length. */
static size_t utf8_encode(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/*
** Reads one raw UTF-8 character of a string into `bytes`. JSON text is
** UTF-8, and the names end up in an XML file, so a broken sequence (a stray
** continuation byte, an overlong form, a surrogate) is an error here rather
** than garbage later.
*/
static bool read_utf8(reader *r, char *bytes, size_t *len)
{
    const unsigned char *s = (const unsigned char *)r->text + r->pos;
    size_t left = r->len - r->pos, n;
    uint32_t cp, least;
    if (s[0] < 0x80) {
        n = 1, cp = s[0], least = 0;
    } else if ((s[0] & 0xE0) == 0xC0) {
        n = 2, cp = s[0] & 0x1Fu, least = 0x80;
    } else if ((s[0] & 0xF0) == 0xE0) {
        n = 3, cp = s[0] & 0x0Fu, least = 0x800;
    } else if ((s[0] & 0xF8) == 0xF0) {
        n = 4, cp = s[0] & 0x07u, least = 0x10000;
    } else {
        return fail(r, r->pos, "invalid UTF-8 in a string (byte 0x%02X)", s[0]);
    }
    for (size_t i = 1; i < n; i++) {
        if (i >= left)
            return ended(r);
        if ((s[i] & 0xC0) != 0x80)
            return fail(r, r->pos, "invalid UTF-8 in a string (byte 0x%02X)", s[i]);
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return fail(r, r->pos, "invalid UTF-8 in a string (byte 0x%02X)", s[0]);
    memcpy(bytes, s, n);
    *len = n;
    r->pos += n;
    return true;
}

/* Reads the four hex digits of a \u escape. */
static bool read_hex4(reader *r, uint32_t *cp)
{
    *cp = 0;
    for (int i = 0; i < 4; i++, r->pos++) {
        if (r->pos >= r->len)
            return ended(r);
        char c = r->text[r->pos];
        int digit = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
        if (digit < 0)
            return fail(r, r->pos, "\\u must be followed by four hex digits");
        *cp = *cp << 4 | (uint32_t)digit;
    }
    return true;
}

/*
** Reads a \u escape (r->pos is at its 'u') into a code point. Characters
** beyond U+FFFF come as two escapes, a surrogate pair; half a pair is an
** error, and so is U+0000, which no name can hold.
*/
static bool read_unicode_escape(reader *r, size_t at, uint32_t *cp)
{
    r->pos++;
    if (!read_hex4(r, cp))
        return false;
    if (*cp >= 0xDC00 && *cp <= 0xDFFF)
        return fail(r, at, "a lone surrogate (\\u%04X) in a string", (unsigned)*cp);
    if (*cp >= 0xD800 && *cp <= 0xDBFF) {
        if (r->len - r->pos < 2)
            return ended(r);
        if (r->text[r->pos] != '\\' || r->text[r->pos + 1] != 'u')
            return fail(r, at, "a lone surrogate (\\u%04X) in a string", (unsigned)*cp);
        uint32_t low;
        r->pos += 2;
        if (!read_hex4(r, &low))
            return false;
        if (low < 0xDC00 || low > 0xDFFF)
            return fail(r, at, "a lone surrogate (\\u%04X) in a string", (unsigned)*cp);
        *cp = 0x10000 + ((*cp - 0xD800) << 10) + (low - 0xDC00);
    }
    if (*cp == 0)
        return fail(r, at, "a NUL character (\\u0000) in a string");
    return true;
}

/* Reads one escape sequence (r->pos is at its backslash) into `bytes`. */
static bool read_escape(reader *r, char *bytes, size_t *len)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    size_t at = r->pos++;
    if (r->pos >= r->len)
        return ended(r);
    char c = r->text[r->pos];
    const char *simple = c != '\0' ? strchr(from, c) : NULL;
    if (simple != NULL) {
        bytes[0] = to[simple - from];
        *len = 1;
        r->pos++;
        return true;
    }
    if (c != 'u') {
        char what[16];
        return fail(r, at, "an unknown escape (\\ then %s) in a string",
                    found(r, r->pos, what, sizeof what));
    }
    uint32_t cp;
    if (!read_unicode_escape(r, at, &cp))
        return false;
    *len = utf8_encode(cp, bytes);
    return true;
}

/*
** Reads the string at r->pos (its opening quote) into `out`, which has room
** for `cap` bytes with the NUL; with `out` NULL it only checks the string,
** however long. A string longer than the room is an error: TRACE_MAX_STRING
** is the limit the README promises.
*/
static bool read_string(reader *r, char *out, size_t cap)
{
    size_t start = r->pos++, n = 0;
    for (;;) {
        if (r->pos >= r->len)
            return ended(r);
        unsigned char c = (unsigned char)r->text[r->pos];
        if (c == '"')
            break;
        char bytes[4];
        size_t len = 0;
        if (c == '\\') {
            if (!read_escape(r, bytes, &len))
                return false;
        } else if (c < 0x20) {
            return fail(r, r->pos, "a control character (byte 0x%02X) in a string", c);
        } else if (!read_utf8(r, bytes, &len)) {
            return false;
        }
        if (out != NULL) {
            if (n + len >= cap)
                return fail(r, start, "a string longer than %d bytes", TRACE_MAX_STRING);
            memcpy(out + n, bytes, len);
        }
        n += len;
    }
    r->pos++; /* the closing quote */
    if (out != NULL)
        out[n] = '\0';
    return true;
}

/* ---- JSON: numbers and literals -------------------------------------------- */

/* Skips a run of digits from `p`; returns where it stopped. */
static size_t skip_digits(const reader *r, size_t p)
{
    while (p < r->len && r->text[p] >= '0' && r->text[p] <= '9')
        p++;
    return p;
}

/*
** Checks that a number's digits come where they must, stepping `*p` past
** them: `p` is where digits start. A number that reaches the end of the
** text is incomplete (in a trace, a number is always followed by something).
*/
static bool need_digits(reader *r, size_t *p, const char *after)
{
    size_t q = skip_digits(r, *p);
    if (q == r->len)
        return ended(r);
    if (q == *p) {
        char what[16];
        return fail(r, *p, "a number needs a digit after %s, not %s", after,
                    found(r, *p, what, sizeof what));
    }
    *p = q;
    return true;
}

/*
** Reads a JSON number, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, with
** strtod() once the grammar is checked (strtod alone would take "0x10",
** "inf" and "1e"). A number too large for a double is an error, not a
** silent infinity.
*/
static bool read_number(reader *r, double *value)
{
    size_t start = r->pos, p = start;
    if (r->text[p] == '-')
        p++;
    size_t whole = p; /* where the integer part starts */
    if (!need_digits(r, &p, "'-'"))
        return false;
    if (r->text[whole] == '0' && p - whole > 1)
        return fail(r, start, "a number with a leading zero");
    if (r->text[p] == '.') {
        p++;
        if (!need_digits(r, &p, "'.'"))
            return false;
    }
    if (r->text[p] == 'e' || r->text[p] == 'E') {
        p++;
        if (p < r->len && (r->text[p] == '+' || r->text[p] == '-'))
            p++;
        if (!need_digits(r, &p, "the exponent"))
            return false;
    }
    if (p - start > TRACE_MAX_NUMBER)
        return fail(r, start, "a number longer than %d characters", TRACE_MAX_NUMBER);
    char digits[TRACE_MAX_NUMBER + 1];
    memcpy(digits, r->text + start, p - start);
    digits[p - start] = '\0';
    *value = strtod(digits, NULL);
    if (!isfinite(*value))
        return fail(r, start, "a number too large (%s)", digits);
    r->pos = p;
    return true;
}

/* Reads true, false or null. */
static bool read_literal(reader *r)
{
    static const char *const words[] = {"true", "false", "null"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i]), left = r->len - r->pos;
        if (memcmp(r->text + r->pos, words[i], n < left ? n : left) != 0)
            continue;
        if (left < n)
            return ended(r);
        r->pos += n;
        return true;
    }
    char what[16];
    return fail(r, r->pos, "expected a JSON value, got %s",
                found(r, r->pos, what, sizeof what));
}

/* ---- JSON: objects and arrays ------------------------------------------------ */

/* Steps into the object or array whose bracket is at r->pos. */
static bool enter(reader *r)
{
    if (++r->depth > TRACE_MAX_DEPTH)
        return fail(r, r->pos, "JSON nested deeper than %d levels", TRACE_MAX_DEPTH);
    r->pos++;
    return true;
}

/*
** Steps to the next member of the object being read, `count` members in:
** returns 1 with its key in `key` (NULL: check the key only) and the ':'
** read, 0 after the closing '}', or -1 on an error.
*/
static int next_member(reader *r, size_t count, char *key, size_t cap)
{
    char what[16];
    int c = next_byte(r);
    if (c == '}') {
        r->pos++;
        r->depth--;
        return 0;
    }
    if (c >= 0 && count > 0) {
        if (c != ',') {
            fail(r, r->pos, "expected ',' or '}' after a member, got %s",
                 found(r, r->pos, what, sizeof what));
            return -1;
        }
        r->pos++;
        c = next_byte(r);
    }
    if (c < 0)
        return -1;
    if (c != '"') {
        fail(r, r->pos, "expected a key in double quotes, got %s",
             found(r, r->pos, what, sizeof what));
        return -1;
    }
    if (!read_string(r, key, cap) || (c = next_byte(r)) < 0)
        return -1;
    if (c != ':') {
        fail(r, r->pos, "expected ':' after a key, got %s",
             found(r, r->pos, what, sizeof what));
        return -1;
    }
    r->pos++;
    return 1;
}

/* The same for an array: returns 1 with r->pos at the next element, 0
 * after the closing ']', or -1 on an error. */
static int next_element(reader *r, size_t count)
{
    char what[16];
    int c = next_byte(r);
    if (c == ']') {
        r->pos++;
        r->depth--;
        return 0;
    }
    if (c >= 0 && count > 0) {
        if (c != ',') {
            fail(r, r->pos, "expected ',' or ']' after an element, got %s",
                 found(r, r->pos, what, sizeof what));
            return -1;
        }
        r->pos++;
        c = next_byte(r);
    }
    return c < 0 ? -1 : 1;
}

static bool skip_value(reader *r);

static bool skip_object(reader *r)
{
    if (!enter(r))
        return false;
    for (size_t n = 0;; n++) {
        int more = next_member(r, n, NULL, 0);
        if (more <= 0)
            return more == 0;
        if (!skip_value(r))
            return false;
    }
}

static bool skip_array(reader *r)
{
    if (!enter(r))
        return false;
    for (size_t n = 0;; n++) {
        int more = next_element(r, n);
        if (more <= 0)
            return more == 0;
        if (!skip_value(r))
            return false;
    }
}

/* Checks and skips any JSON value: what the trace may hold but the
 * drawing does not need. Recursion is bounded by TRACE_MAX_DEPTH. */
static bool skip_value(reader *r)
{
    double number;
    int c = next_byte(r);
    if (c < 0)
        return false;
    if (c == '{')
        return skip_object(r);
    if (c == '[')
        return skip_array(r);
    if (c == '"')
        return read_string(r, NULL, 0);
    if (c == '-' || (c >= '0' && c <= '9'))
        return read_number(r, &number);
    return read_literal(r);
}

/* Reads a value into a field: a string or a number is kept; anything else
 * is checked and skipped, and its type is enough for a message. */
static bool read_field(reader *r, field *f)
{
    int c = next_byte(r);
    if (c < 0)
        return false;
    f->at = r->pos;
    if (c == '"') {
        f->type = STRING;
        return read_string(r, f->str, sizeof f->str);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        f->type = NUMBER;
        return read_number(r, &f->num);
    }
    f->type = OTHER;
    return skip_value(r);
}

/* The index of `key` in `keys`, or -1. */
static int find_key(const char *const *keys, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(keys[i], key) == 0)
            return i;
    return -1;
}

/* ---- the trace's memory: pool, rows, events ------------------------------- */

/* Appends `s` to the string pool; *offset says where (0 for ""). */
static bool pool_add(reader *r, const char *s, size_t *offset)
{
    trace *t = r->t;
    size_t n = strlen(s) + 1;
    if (n == 1) {
        *offset = 0;
        return true;
    }
    if (t->pool_len + n > t->pool_cap) {
        size_t cap = t->pool_cap * 2;
        while (t->pool_len + n > cap)
            cap *= 2;
        char *pool = realloc(t->pool, cap);
        if (pool == NULL)
            return out_of_memory(r);
        t->pool = pool;
        t->pool_cap = cap;
    }
    memcpy(t->pool + t->pool_len, s, n);
    *offset = t->pool_len;
    t->pool_len += n;
    return true;
}

/* The slot of `tid` in `map` (of `size` slots): its entry, or the free
 * slot where it would go. */
static tid_entry *find_slot(tid_entry *map, size_t size, long tid)
{
    size_t mask = size - 1;
    size_t i = ((size_t)tid * 2654435761u) & mask; /* Knuth's multiplicative hash */
    while (map[i].tid != -1 && map[i].tid != tid)
        i = (i + 1) & mask;
    return &map[i];
}

static tid_entry *slot_of(reader *r, long tid)
{
    return find_slot(r->map, r->map_size, tid);
}

/* Makes a map of `size` free slots, and moves the entries of the old one
 * (if any) into it. */
static bool resize_map(reader *r, size_t size)
{
    tid_entry *map = malloc(size * sizeof *map);
    if (map == NULL)
        return out_of_memory(r);
    for (size_t i = 0; i < size; i++)
        map[i].tid = -1;
    for (size_t i = 0; i < r->map_size; i++)
        if (r->map[i].tid != -1)
            *find_slot(map, size, r->map[i].tid) = r->map[i];
    free(r->map);
    r->map = map;
    r->map_size = size;
    return true;
}

/* The entry of `tid`, added if it is new; NULL (and an error) when the
 * trace has more tids than TRACE_MAX_ROWS. */
static tid_entry *entry_of(reader *r, long tid, size_t at)
{
    tid_entry *e = slot_of(r, tid);
    if (e->tid != -1)
        return e;
    if (r->entries == TRACE_MAX_ROWS) {
        fail(r, at, "more than %d tids in one trace", TRACE_MAX_ROWS);
        return NULL;
    }
    if (2 * ((size_t)r->entries + 1) > r->map_size) {
        if (!resize_map(r, 2 * r->map_size))
            return NULL;
        e = slot_of(r, tid);
    }
    *e = (tid_entry){tid, -1, 0};
    r->entries++;
    return e;
}

/* The row of `tid`, added (in state UNBORN) the first time a drawn event
 * names it; -1 on an error. */
static int row_of(reader *r, long tid, size_t at)
{
    trace *t = r->t;
    tid_entry *e = entry_of(r, tid, at);
    if (e == NULL)
        return -1;
    if (e->row >= 0)
        return e->row;
    if (t->row_count == t->row_cap) {
        int cap = t->row_cap ? 2 * t->row_cap : 16;
        trace_row *rows = realloc(t->rows, (size_t)cap * sizeof *rows);
        if (rows == NULL) {
            out_of_memory(r);
            return -1;
        }
        t->rows = rows;
        t->row_cap = cap;
    }
    e->row = t->row_count++;
    t->rows[e->row] = (trace_row){tid, 0};
    r->state[e->row] = UNBORN;
    return e->row;
}

static bool push_event(reader *r, const trace_event *ev, size_t at)
{
    trace *t = r->t;
    if (t->count == TRACE_MAX_EVENTS)
        return fail(r, at, "more than %d events to draw", TRACE_MAX_EVENTS);
    if (t->count == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        trace_event *events = realloc(t->events, cap * sizeof *events);
        if (events == NULL)
            return out_of_memory(r);
        t->events = events;
        t->cap = cap;
    }
    t->events[t->count++] = *ev;
    return true;
}

/* ---- checking fields ------------------------------------------------------ */

/*
** Checks that field `f`, called `what` in messages, has `type`; if it is
** absent, that it was not `required`. Each message points at the value, or
** at the event for a missing field.
*/
static bool want(reader *r, const raw_event *e, const field *f, field_type type,
                 bool required, const char *what)
{
    const field *name = &e->f[F_NAME];
    char buf[48];
    if (f->type == ABSENT && required && name->type == STRING && f != name)
        return fail(r, e->at, "the \"%s\" event has no %s",
                    shown(name->str, buf, sizeof buf), what);
    if (f->type == ABSENT)
        return !required || fail(r, e->at, "the event has no %s", what);
    if (f->type != type)
        return fail(r, f->at, "%s must be %s, not %s", what, type_words[type],
                    type_words[f->type]);
    return true;
}

/* A tid (or a field naming one): a whole number from 0 to TRACE_MAX_TID. */
static bool want_tid(reader *r, const raw_event *e, const field *f, bool required,
                     const char *what, long *tid)
{
    *tid = 0;
    if (!want(r, e, f, NUMBER, required, what))
        return false;
    if (f->type == ABSENT)
        return true;
    if (!(f->num >= 0 && f->num <= TRACE_MAX_TID) || f->num != (double)(long)f->num)
        return fail(r, f->at, "%s must be a whole number from 0 to %d", what,
                    TRACE_MAX_TID);
    *tid = (long)f->num;
    return true;
}

/* A time in µs (or a duration): a number from 0 to TRACE_MAX_TS. */
static bool want_time(reader *r, const raw_event *e, const field *f, bool required,
                      const char *what, double *us)
{
    *us = 0;
    if (!want(r, e, f, NUMBER, required, what))
        return false;
    if (f->type != ABSENT && !(f->num >= 0 && f->num <= TRACE_MAX_TS))
        return fail(r, f->at, "%s must be from 0 to 1e15 (µs)", what);
    if (f->type != ABSENT)
        *us = f->num;
    return true;
}

/* args.by: the row of the task that did it, or -1 for the loop (tid 0, or
 * no args.by). The doer must be a task the trace has already shown. */
static bool want_doer(reader *r, const raw_event *e, int *row)
{
    long tid;
    *row = -1;
    if (!want_tid(r, e, &e->arg[ARG_BY], false, "args.by", &tid))
        return false;
    if (tid == 0)
        return true;
    tid_entry *entry = slot_of(r, tid);
    if (entry->tid == -1 || entry->row < 0)
        return fail(r, e->arg[ARG_BY].at, "args.by is task %ld, which has no events yet",
                    tid);
    *row = entry->row;
    return true;
}

/* An event found task `tid` in the wrong state for what it says. */
static bool wrong_state(reader *r, const raw_event *e, long tid, int row,
                        const char *doing)
{
    return fail(r, e->at, "task %ld %s, but it is %s", tid, doing,
                state_words[r->state[row]]);
}

/* The part of every drawn event that comes straight from the raw one. */
static trace_event new_event(trace_kind kind, int row, const raw_event *e)
{
    return (trace_event){.kind = kind, .row = row, .by = -1, .ts = e->f[F_TS].num};
}

/* ---- the events, one function per name ------------------------------------ */

static bool take_thread_name(reader *r, raw_event *e, long tid)
{
    const field *name = &e->arg[ARG_NAME];
    if (!want(r, e, name, STRING, true, "args.name"))
        return false;
    tid_entry *entry = entry_of(r, tid, e->at);
    return entry != NULL && pool_add(r, name->str, &entry->name);
}

static bool take_create(reader *r, raw_event *e, long tid)
{
    int row = row_of(r, tid, e->at);
    if (row < 0)
        return false;
    if (r->state[row] != UNBORN)
        return fail(r, e->at, "task %ld is created twice", tid);
    trace_event ev = new_event(EV_CREATE, row, e);
    if (!want_doer(r, e, &ev.by))
        return false;
    r->state[row] = READY;
    return push_event(r, &ev, e->at);
}

/* step B: a ready task is resumed, and only one task runs at a time. */
static bool begin_step(reader *r, raw_event *e, long tid, int row)
{
    if (r->state[row] != READY)
        return wrong_state(r, e, tid, row, "begins a step");
    if (r->running >= 0)
        return fail(r, e->at, "task %ld begins a step while task %ld is running", tid,
                    r->t->rows[r->running].tid);
    r->state[row] = RUNNING;
    r->running = row;
    trace_event ev = new_event(EV_BEGIN, row, e);
    return push_event(r, &ev, e->at);
}

/* Reads what a step's E says comes next into `ev`, with the args that go
 * with it; returns the task's next state, or UNBORN on an error. */
static task_state read_then(reader *r, raw_event *e, trace_event *ev)
{
    static const char *const thens[] = {"yield", "park", "sleep", "done"};
    static const task_state next[] = {READY, WAITING, SLEEPING, DONE};
    const field *then = &e->arg[ARG_THEN];
    char buf[48];
    long on_tid;
    if (!want(r, e, then, STRING, true, "args.then"))
        return UNBORN;
    int i = find_key(thens, 4, then->str);
    if (i < 0) {
        fail(r, then->at, "args.then is \"%s\"; it must be yield, park, sleep or done",
             shown(then->str, buf, sizeof buf));
        return UNBORN;
    }
    ev->then = (trace_then)i;
    bool ok = want(r, e, &e->arg[ARG_ON], STRING, false, "args.on") &&
              want_tid(r, e, &e->arg[ARG_ON_TID], false, "args.on_tid", &on_tid) &&
              want_time(r, e, &e->arg[ARG_UNTIL], false, "args.until", &ev->value) &&
              want(r, e, &e->arg[ARG_STATUS], STRING, false, "args.status");
    const field *text = ev->then == THEN_PARK   ? &e->arg[ARG_ON]
                        : ev->then == THEN_DONE ? &e->arg[ARG_STATUS]
                                                : NULL;
    if (ok && text != NULL && text->type == STRING)
        ok = pool_add(r, text->str, &ev->text);
    if (ev->then != THEN_SLEEP)
        ev->value = 0;
    return ok ? next[i] : UNBORN;
}

/* step E: the running task returns to the loop, and says why. */
static bool end_step(reader *r, raw_event *e, long tid, int row)
{
    if (r->state[row] != RUNNING)
        return wrong_state(r, e, tid, row, "ends a step");
    trace_event ev = new_event(EV_END, row, e);
    task_state next = read_then(r, e, &ev);
    if (next == UNBORN)
        return false;
    r->state[row] = (unsigned char)next;
    r->running = -1;
    return push_event(r, &ev, e->at);
}

static bool take_step(reader *r, raw_event *e, long tid)
{
    int row = row_of(r, tid, e->at);
    if (row < 0)
        return false;
    if (e->f[F_PH].str[0] == 'B')
        return begin_step(r, e, tid, row);
    return end_step(r, e, tid, row);
}

static bool take_wake(reader *r, raw_event *e, long tid)
{
    int row = row_of(r, tid, e->at);
    if (row < 0)
        return false;
    if (r->state[row] != WAITING && r->state[row] != SLEEPING)
        return wrong_state(r, e, tid, row, "is woken");
    trace_event ev = new_event(EV_WAKE, row, e);
    const field *why = &e->arg[ARG_WHY];
    if (!want_doer(r, e, &ev.by) || !want(r, e, why, STRING, false, "args.why"))
        return false;
    if (why->type == STRING && !pool_add(r, why->str, &ev.text))
        return false;
    r->state[row] = READY;
    return push_event(r, &ev, e->at);
}

static bool take_callback(reader *r, raw_event *e, long tid)
{
    int row = row_of(r, tid, e->at);
    trace_event ev = new_event(EV_CALLBACK, row, e);
    return row >= 0 && want_time(r, e, &e->f[F_DUR], true, "\"dur\"", &ev.dur) &&
           push_event(r, &ev, e->at);
}

static bool take_timer(reader *r, raw_event *e, long tid)
{
    int row = row_of(r, tid, e->at);
    trace_event ev = new_event(EV_TIMER, row, e);
    const char *what = e->f[F_NAME].str + strlen("timer.");
    return row >= 0 &&
           want_time(r, e, &e->arg[ARG_DEADLINE], false, "args.deadline", &ev.value) &&
           pool_add(r, what, &ev.text) && push_event(r, &ev, e->at);
}

static bool take_slow(reader *r, raw_event *e, long tid)
{
    int row = row_of(r, tid, e->at);
    if (row < 0)
        return false;
    if (r->state[row] == UNBORN)
        return wrong_state(r, e, tid, row, "has a slow step");
    trace_event ev = new_event(EV_SLOW, row, e);
    const field *seconds = &e->arg[ARG_SECONDS];
    if (!want(r, e, seconds, NUMBER, false, "args.seconds"))
        return false;
    if (seconds->type == NUMBER && !(seconds->num >= 0 && seconds->num <= 1e9))
        return fail(r, seconds->at, "args.seconds must be from 0 to 1e9");
    ev.value = seconds->type == NUMBER ? seconds->num : 0;
    return push_event(r, &ev, e->at);
}

/* Which tids an event name may have. */
typedef enum tid_rule { ANY_TID, LOOP_TID, TASK_TID } tid_rule;

/* The event names a trace may hold, with the ph each must have and where
 * it happens; tools/README.md has the same table, for the writer. */
static const struct rule {
    const char *name;
    const char *ph;      /* the ph values it may have */
    const char *ph_text; /* the same, for a message */
    tid_rule tids;
    bool (*take)(reader *r, raw_event *e, long tid);
} rules[] = {
    {"thread_name", "M", "\"M\"", ANY_TID, take_thread_name},
    {"create", "i", "\"i\"", TASK_TID, take_create},
    {"step", "BE", "\"B\" or \"E\"", TASK_TID, take_step},
    {"wake", "i", "\"i\"", TASK_TID, take_wake},
    {"callback", "X", "\"X\"", LOOP_TID, take_callback},
    {"timer.arm", "i", "\"i\"", LOOP_TID, take_timer},
    {"timer.fire", "i", "\"i\"", LOOP_TID, take_timer},
    {"timer.stop", "i", "\"i\"", LOOP_TID, take_timer},
    {"slow_step", "i", "\"i\"", TASK_TID, take_slow},
};

/* The fields every event has: name, ph, tid, and ts unless it is
 * metadata; events must come in the order of their ts. */
static bool check_common(reader *r, raw_event *e, long *tid)
{
    const field *f = e->f;
    char buf[48];
    double ts, dur;
    if (!want(r, e, &f[F_NAME], STRING, true, "\"name\"") ||
        !want(r, e, &f[F_PH], STRING, true, "\"ph\"") ||
        !want(r, e, &f[F_PID], NUMBER, false, "\"pid\"") ||
        !want(r, e, &f[F_S], STRING, false, "\"s\"") ||
        !want_tid(r, e, &f[F_TID], true, "\"tid\"", tid))
        return false;
    const char *ph = f[F_PH].str;
    if (strlen(ph) != 1 || strchr("MBEiX", ph[0]) == NULL)
        return fail(r, f[F_PH].at, "unknown ph \"%s\" (a trace has M, B, E, i and X)",
                    shown(ph, buf, sizeof buf));
    if (ph[0] == 'M')
        return true;
    if (!want_time(r, e, &f[F_TS], true, "\"ts\"", &ts) ||
        !want_time(r, e, &f[F_DUR], false, "\"dur\"", &dur))
        return false;
    /* An X event is written when it ends, after the events inside it, so
     * only its end has to keep the order. */
    double when = ph[0] == 'X' ? ts + dur : ts;
    if (when < r->last_ts)
        return fail(r, f[F_TS].at, "\"ts\" goes back in time: %.3f µs after %.3f µs",
                    when, r->last_ts);
    r->last_ts = when;
    return true;
}

/* Checks the event just read, and adds it to the trace if it is drawn. */
static bool take_event(reader *r, raw_event *e)
{
    long tid;
    if (!check_common(r, e, &tid))
        return false;
    const struct rule *rule = NULL;
    for (size_t i = 0; rule == NULL && i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].name, e->f[F_NAME].str) == 0)
            rule = &rules[i];
    if (rule == NULL)
        return true; /* a name for later: leave it out */
    if (strchr(rule->ph, e->f[F_PH].str[0]) == NULL)
        return fail(r, e->f[F_PH].at, "a \"%s\" event must have ph %s", rule->name,
                    rule->ph_text);
    if (rule->tids == LOOP_TID && tid != 0)
        return fail(r, e->f[F_TID].at, "a \"%s\" event is on the loop: its tid must be 0",
                    rule->name);
    if (rule->tids == TASK_TID && tid == 0)
        return fail(r, e->f[F_TID].at,
                    "a \"%s\" event is about a task: its tid must be 1 or more (0 is the "
                    "loop)",
                    rule->name);
    return rule->take(r, e, tid);
}

/* ---- the trace's structure ---------------------------------------------- */

/* Reads the args object of an event, keeping the keys some event reads. */
static bool read_args(reader *r, raw_event *e)
{
    char key[TRACE_MAX_STRING + 1];
    int c = next_byte(r);
    if (c < 0)
        return false;
    if (c != '{')
        return fail(r, r->pos, "\"args\" must be an object");
    if (!enter(r))
        return false;
    for (size_t n = 0;; n++) {
        int more = next_member(r, n, key, sizeof key);
        if (more <= 0)
            return more == 0;
        int i = find_key(arg_keys, ARG_COUNT, key);
        if (!(i < 0 ? skip_value(r) : read_field(r, &e->arg[i])))
            return false;
    }
}

/* Reads one event object (r->pos is at its '{'), then checks it. Keys may
 * come in any order; a key that comes twice keeps its last value. */
static bool read_event(reader *r)
{
    raw_event *e = r->raw;
    char key[TRACE_MAX_STRING + 1];
    for (int i = 0; i < FIELD_COUNT; i++)
        e->f[i].type = ABSENT;
    for (int i = 0; i < ARG_COUNT; i++)
        e->arg[i].type = ABSENT;
    e->at = r->pos;
    if (!enter(r))
        return false;
    for (size_t n = 0;; n++) {
        int more = next_member(r, n, key, sizeof key);
        if (more < 0)
            return false;
        if (more == 0)
            break;
        int i = find_key(field_keys, FIELD_COUNT, key);
        bool ok = strcmp(key, "args") == 0 ? read_args(r, e)
                  : i >= 0                 ? read_field(r, &e->f[i])
                                           : skip_value(r);
        if (!ok)
            return false;
    }
    r->taken++;
    return take_event(r, e);
}

/* Reads the traceEvents array: every element an event object. */
static bool read_events(reader *r)
{
    char what[16];
    int c = next_byte(r);
    if (c < 0)
        return false;
    if (c != '[')
        return fail(r, r->pos, "\"traceEvents\" must be an array, got %s",
                    found(r, r->pos, what, sizeof what));
    if (!enter(r))
        return false;
    r->phase = IN_EVENTS;
    for (size_t n = 0;; n++) {
        int more = next_element(r, n);
        if (more == 0)
            r->phase = AFTER_EVENTS;
        if (more <= 0)
            return more == 0;
        if (r->text[r->pos] != '{')
            return fail(r, r->pos, "an event must be a JSON object, got %s",
                        found(r, r->pos, what, sizeof what));
        if (!read_event(r))
            return false;
    }
}

/* Reads the whole text: one object with a traceEvents array, its other
 * keys ignored, and nothing after it but white space. */
static bool read_trace(reader *r)
{
    char key[TRACE_MAX_STRING + 1], what[16];
    bool seen = false;
    if (r->len >= 3 && memcmp(r->text, "\xEF\xBB\xBF", 3) == 0)
        r->pos = 3; /* a byte order mark: allowed, and meaningless in UTF-8 */
    skip_space(r);
    if (r->pos >= r->len)
        return fail(r, r->pos, "empty trace: the file holds no JSON");
    if (r->text[r->pos] != '{')
        return fail(r, r->pos, "a trace is a JSON object: expected '{', got %s",
                    found(r, r->pos, what, sizeof what));
    size_t start = r->pos;
    if (!enter(r))
        return false;
    for (size_t n = 0;; n++) {
        int more = next_member(r, n, key, sizeof key);
        if (more < 0)
            return false;
        if (more == 0)
            break;
        if (strcmp(key, "traceEvents") != 0) {
            if (!skip_value(r))
                return false;
            continue;
        }
        if (seen)
            return fail(r, r->pos, "a second \"traceEvents\" array");
        seen = true;
        if (!read_events(r))
            return false;
    }
    skip_space(r);
    if (r->pos < r->len)
        return fail(r, r->pos, "%s after the end of the trace",
                    found(r, r->pos, what, sizeof what));
    return seen || fail(r, start, "the trace has no \"traceEvents\" array");
}

/* ---- after reading ---------------------------------------------------------- */

/* Gives every row its display name: its latest thread_name, or a default. */
static bool name_rows(reader *r)
{
    trace *t = r->t;
    for (int i = 0; i < t->row_count; i++) {
        tid_entry *e = slot_of(r, t->rows[i].tid);
        char fallback[32];
        if (e->name != 0) {
            t->rows[i].name = e->name;
            continue;
        }
        if (t->rows[i].tid == 0)
            snprintf(fallback, sizeof fallback, "loop");
        else
            snprintf(fallback, sizeof fallback, "task %ld", t->rows[i].tid);
        if (!pool_add(r, fallback, &t->rows[i].name))
            return false;
    }
    return true;
}

/* Moves the loop's row, if there is one, to the top: the loop is the
 * stage every task plays on. Rows after it keep their order. */
static void loop_first(trace *t)
{
    int k = 0;
    while (k < t->row_count && t->rows[k].tid != 0)
        k++;
    if (k == 0 || k == t->row_count)
        return;
    trace_row loop = t->rows[k];
    memmove(t->rows + 1, t->rows, (size_t)k * sizeof *t->rows);
    t->rows[0] = loop;
    for (size_t i = 0; i < t->count; i++) {
        int *rows[2] = {&t->events[i].row, &t->events[i].by};
        for (int j = 0; j < 2; j++)
            if (*rows[j] >= 0 && *rows[j] <= k)
                *rows[j] = *rows[j] == k ? 0 : *rows[j] + 1;
    }
}

static void describe_truncation(reader *r)
{
    char *m = r->err->message;
    size_t size = sizeof r->err->message;
    if (r->phase == BEFORE_EVENTS)
        snprintf(m, size,
                 "truncated trace: the file ends before its \"traceEvents\" array");
    else if (r->phase == IN_EVENTS)
        snprintf(m, size,
                 "truncated trace: the file ends inside the \"traceEvents\" array, "
                 "after %zu complete events",
                 r->taken);
    else
        snprintf(m, size,
                 "truncated trace: the file ends after the \"traceEvents\" array, "
                 "before its closing '}'");
}

trace_status trace_read(const char *text, size_t len, trace *t, trace_error *err)
{
    *t = (trace){0};
    *err = (trace_error){0};
    reader r = {.text = text, .len = len, .t = t, .err = err, .running = -1};
    r.raw = malloc(sizeof *r.raw);
    t->pool = malloc(256);
    if (r.raw == NULL || t->pool == NULL || !resize_map(&r, MAP_FIRST_SIZE)) {
        out_of_memory(&r);
    } else {
        t->pool[0] = '\0'; /* offset 0 is the empty string */
        t->pool_len = 1;
        t->pool_cap = 256;
        read_trace(&r);
        if (r.status != TRACE_ERROR && name_rows(&r))
            loop_first(t);
    }
    free(r.raw);
    free(r.map);
    t->truncated = r.status == TRACE_TRUNCATED;
    if (r.status == TRACE_TRUNCATED)
        describe_truncation(&r);
    if (r.status != TRACE_OK)
        locate(text, err->offset, err);
    return r.status;
}

void trace_free(trace *t)
{
    free(t->events);
    free(t->rows);
    free(t->pool);
    *t = (trace){0};
}

const char *trace_string(const trace *t, size_t offset)
{
    return t->pool != NULL && offset < t->pool_len ? t->pool + offset : "";
}
