/*
** taalint.c -- the taal side of the differential test: an interpreter of
** the difftest language (tests/difftest/README.md), linked with one
** chapter's library (05 or 07), that prints what run_py.py prints on
** CPython, line for line.
**
**   taalint PROGRAM...          run each program file
**   taalint --batch FILE        run every program of FILE ("=== name" lines
**                               separate them; "-" is stdin), each output
**                               under its own "=== name" line
**   taalint --fail-each ...     run each program once per allocation it
**                               makes, with that allocation failing: print
**                               one summary line per program instead
**   taalint --fail-at N ...     fail the N-th allocation of each run
**   taalint --no-python         say that no CPython was found; exit 77
**
** Every task runs the one coroutine run_body(), whose frame holds the
** task's program counter into the op array and a stack of the blocks it
** is in (timeout scopes, task groups, `with` a semaphore or lock). An op
** that fails jumps to the `end` of the innermost block, which closes it
** with that status, exactly as an exception leaves Python's `async with`.
** The loop runs on the virtual clock; after main ends, what is left is
** cancelled and run to its end in spawn order, as run_py.py does.
**
** Every allocation goes through a counting allocator (taal_set_allocator),
** so that each run can check that it freed everything it allocated, and
** so that --fail-at can make one allocation fail.
*/
#include "taal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAX_OPS = 512,    /* ops in one program */
    MAX_OBJECTS = 32, /* tasks, futures and primitives in one program */
    MAX_ARGS = 8,     /* names of one gather or wait */
    MAX_DEPTH = 4,    /* blocks open at once in one body */
    WORD = 32,        /* a name or a printed word, with its NUL */
    TEXT = 256,       /* one printed outcome */
    MAX_PROGRAM = 1 << 16
};

/* ---- the program ------------------------------------------------------------- */

typedef enum op_kind {
    OP_PRINT,
    OP_SLEEP,
    OP_FAIL,
    OP_RETURN,
    OP_SPAWN,
    OP_AWAIT,
    OP_CANCEL,
    OP_GATHER,
    OP_GATHER_EX, /* gather!: return_exceptions=True */
    OP_WAIT,
    OP_WAITFOR,
    OP_SHIELD,
    OP_TIMEOUT, /* blocks: */
    OP_TG,
    OP_WITH,
    OP_END,
    OP_SET,
    OP_CLEAR,
    OP_WAITEV,
    OP_PUT,
    OP_GET,
    OP_RESOLVE,
    OP_REJECT
} op_kind;

static const char *const op_names[] = {
    "print",   "sleep", "fail",    "return", "spawn",   "await",   "cancel", "gather",
    "gather!", "wait",  "waitfor", "shield", "timeout", "tg",      "with",   "end",
    "set",     "clear", "waitev",  "put",    "get",     "resolve", "reject"};

/* One line of a body. */
typedef struct op {
    uint8_t kind;       /* an op_kind */
    bool catch_;        /* `try` prefix: a failure is printed, not propagated */
    int line;           /* its line in the program, which it prints */
    double num;         /* sleep's delay, a timeout, wait's timeout (< 0: none) */
    int value;          /* return, fail, put, resolve, reject: the number */
    int mode;           /* wait: a taal_wait_mode */
    int target;         /* the object it names, or -1 */
    int args[MAX_ARGS]; /* gather and wait: the objects */
    int nargs;
    int match;       /* a block: the index of its end; an end: its block's */
    char text[WORD]; /* print: the word */
} op;

typedef enum obj_kind {
    OBJ_TASK,
    OBJ_FUTURE,
    OBJ_SEM,
    OBJ_LOCK,
    OBJ_EVENT,
    OBJ_QUEUE
} obj_kind;

/* A name of the program, and what it is while the program runs. */
typedef struct object {
    char name[WORD];
    uint8_t kind; /* an obj_kind */
    int arg;      /* sem: permits; queue: maxsize */
    int first;    /* a task: its body, ops[first .. last) */
    int last;
    /* While it runs. */
    taal_task *task;             /* spawned: the task (held by us unless in a group) */
    bool gone;                   /* its task group has ended: the task may be freed */
    const taal_taskgroup *group; /* the group it was created in, or NULL */
    bool made;                   /* a primitive: initialised, not destroyed */
    taal_future future;
    taal_semaphore sem;
    taal_lock lock;
    taal_event event;
    taal_queue queue;
} object;

typedef struct program {
    char name[TEXT];
    op ops[MAX_OPS];
    int nops;
    object objects[MAX_OBJECTS];
    int nobjects;
    int main; /* the object that is main */
} program;

/* ---- the allocator: counts, checks, and fails on demand --------------------- */

/* Each block carries its size in front, so that realloc and the leak
 * check know it; the header keeps the block aligned for anything. */
typedef union header {
    size_t size;
    max_align_t align;
} header;

static long allocations; /* allocations made in this run */
static long live;        /* blocks not freed */
static long fail_at;     /* the allocation to fail (1-based), 0: none */
static bool failed;      /* it was failed in this run */
static bool saw_nomem;   /* the run printed or reported TAAL_ENOMEM */

static bool should_fail(void)
{
    if (++allocations == fail_at) {
        failed = true;
        return true;
    }
    return false;
}

static void *count_malloc(size_t size)
{
    if (should_fail())
        return NULL;
    header *h = malloc(sizeof(header) + size);
    if (h == NULL)
        return NULL;
    h->size = size;
    live++;
    return h + 1;
}

static void *count_realloc(void *ptr, size_t size)
{
    if (ptr == NULL)
        return count_malloc(size);
    if (should_fail())
        return NULL;
    header *h = realloc((header *)ptr - 1, sizeof(header) + size);
    if (h == NULL)
        return NULL;
    h->size = size;
    return h + 1;
}

static void count_free(void *ptr)
{
    if (ptr == NULL)
        return;
    live--;
    free((header *)ptr - 1);
}

static const taal_allocator counting = {count_malloc, count_realloc, count_free};

/* ---- the parser --------------------------------------------------------------- */

static int find(const program *p, const char *name)
{
    for (int i = 0; i < p->nobjects; i++)
        if (strcmp(p->objects[i].name, name) == 0)
            return i;
    return -1;
}

static int add_object(program *p, const char *name, obj_kind kind, int arg)
{
    if (p->nobjects == MAX_OBJECTS || strlen(name) >= WORD || find(p, name) >= 0)
        return -1;
    object *o = &p->objects[p->nobjects];
    memset(o, 0, sizeof *o);
    strcpy(o->name, name);
    o->kind = (uint8_t)kind;
    o->arg = arg;
    return p->nobjects++;
}

/* Splits @p line into at most @p max words in place; returns the count. */
static int split(char *line, char **words, int max)
{
    int n = 0;
    for (char *tok = strtok(line, " \t\r"); tok != NULL && n < max;
         tok = strtok(NULL, " \t\r"))
        words[n++] = tok;
    return n;
}

static const char *const decl_names[] = {"task", "future", "sem",
                                         "lock", "event",  "queue"};

/* Pass 1: every declared name, so that a body may name a later task. */
static int declare(program *p, char *text)
{
    bool in_body = false;
    int depth = 0;
    for (char *line = text; line != NULL;) {
        char *next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        char copy[TEXT], *w[4];
        snprintf(copy, sizeof copy, "%s", line);
        int n = split(copy, w, 4);
        line = next;
        if (n == 0 || w[0][0] == '#')
            continue;
        if (in_body) {
            int first = strcmp(w[0], "try") == 0 && n > 1;
            if (strcmp(w[first], "timeout") == 0 || strcmp(w[first], "tg") == 0 ||
                strcmp(w[first], "with") == 0)
                depth++;
            else if (strcmp(w[0], "end") == 0 && depth-- == 0)
                in_body = false;
            continue;
        }
        if (strcmp(w[0], "main") == 0) {
            if ((p->main = add_object(p, "main", OBJ_TASK, 0)) < 0)
                return -1;
            in_body = true;
            depth = 0;
            continue;
        }
        int kind = -1;
        for (int k = 0; k < (int)(sizeof decl_names / sizeof *decl_names); k++)
            if (strcmp(w[0], decl_names[k]) == 0)
                kind = k;
        if (kind < 0 || n < 2 ||
            add_object(p, w[1], (obj_kind)kind, n > 2 ? atoi(w[2]) : 0) < 0)
            return -1;
        if (kind == OBJ_TASK) {
            in_body = true;
            depth = 0;
        }
    }
    return p->main >= 0 ? 0 : -1;
}

static int parse_op(program *p, op *o, char **w, int n)
{
    int kind = -1;
    for (int k = 0; k < (int)(sizeof op_names / sizeof *op_names); k++)
        if (strcmp(w[0], op_names[k]) == 0)
            kind = k;
    if (kind < 0)
        return -1;
    o->kind = (uint8_t)kind;
    o->target = n > 1 ? find(p, w[1]) : -1;
    switch (kind) {
    case OP_PRINT: snprintf(o->text, sizeof o->text, "%s", n > 1 ? w[1] : ""); break;
    case OP_SLEEP:
    case OP_TIMEOUT:
        if (n < 2)
            return -1;
        o->num = atof(w[1]);
        break;
    case OP_FAIL:
    case OP_RETURN:
        if (n < 2)
            return -1;
        o->value = atoi(w[1]);
        break;
    case OP_PUT:
    case OP_RESOLVE:
    case OP_REJECT:
        if (n < 3)
            return -1;
        o->value = atoi(w[2]);
        break;
    case OP_WAITFOR:
        if (n < 3)
            return -1;
        o->num = atof(w[1]);
        o->target = find(p, w[2]);
        break;
    case OP_GATHER:
    case OP_GATHER_EX:
    case OP_WAIT: {
        int first = 1;
        if (kind == OP_WAIT) {
            if (n < 4)
                return -1;
            o->mode = strcmp(w[1], "first") == 0 ? TAAL_FIRST_COMPLETED
                      : strcmp(w[1], "exc") == 0 ? TAAL_FIRST_EXCEPTION
                                                 : TAAL_ALL_COMPLETED;
            o->num = strcmp(w[2], "none") == 0 ? TAAL_NO_TIMEOUT : atof(w[2]);
            first = 3;
        }
        for (int i = first; i < n && o->nargs < MAX_ARGS; i++)
            o->args[o->nargs++] = find(p, w[i]);
        if (o->nargs == 0)
            return -1;
        break;
    }
    default: break;
    }
    /* Names a primitive op needs must be of the right kind. */
    static const int needs[][2] = {{OP_WITH, -2},
                                   {OP_SET, OBJ_EVENT},
                                   {OP_CLEAR, OBJ_EVENT},
                                   {OP_WAITEV, OBJ_EVENT},
                                   {OP_PUT, OBJ_QUEUE},
                                   {OP_GET, OBJ_QUEUE},
                                   {OP_RESOLVE, OBJ_FUTURE},
                                   {OP_REJECT, OBJ_FUTURE}};
    for (size_t i = 0; i < sizeof needs / sizeof *needs; i++) {
        if (needs[i][0] != kind)
            continue;
        if (o->target < 0)
            return -1;
        int k = p->objects[o->target].kind;
        if (needs[i][1] == -2 ? k != OBJ_SEM && k != OBJ_LOCK : k != needs[i][1])
            return -1;
    }
    return 0;
}

/* Pass 2: the bodies. Returns 0, or the line of the first error. */
static int parse(program *p, char *text)
{
    char *copy = malloc(strlen(text) + 1);
    if (copy == NULL)
        return -1;
    strcpy(copy, text);
    p->nops = p->nobjects = 0;
    p->main = -1;
    int bad = declare(p, copy) < 0 ? 1 : 0;
    free(copy);
    if (bad)
        return 1;

    object *body = NULL;
    int open[MAX_DEPTH + 1], depth = 0, number = 0;
    for (char *line = text; line != NULL;) {
        char *next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        number++;
        char *w[MAX_ARGS + 4];
        int n = split(line, w, MAX_ARGS + 4);
        line = next;
        if (n == 0 || w[0][0] == '#')
            continue;
        if (body == NULL) {
            if (strcmp(w[0], "main") == 0 || strcmp(w[0], "task") == 0) {
                int index = strcmp(w[0], "main") == 0 ? p->main
                            : n > 1                   ? find(p, w[1])
                                                      : -1;
                if (index < 0)
                    return number;
                body = &p->objects[index];
                body->first = p->nops;
                depth = 0;
            }
            continue;
        }
        if (p->nops == MAX_OPS)
            return number;
        op *o = &p->ops[p->nops];
        memset(o, 0, sizeof *o);
        o->line = number;
        if (strcmp(w[0], "end") == 0) {
            if (depth == 0) {
                body->last = p->nops;
                body = NULL;
                continue;
            }
            o->kind = OP_END;
            o->match = open[--depth];
            p->ops[o->match].match = p->nops++;
            continue;
        }
        int first = strcmp(w[0], "try") == 0 && n > 1;
        o->catch_ = first;
        if (parse_op(p, o, w + first, n - first) < 0)
            return number;
        if (o->kind == OP_TIMEOUT || o->kind == OP_TG || o->kind == OP_WITH) {
            if (depth == MAX_DEPTH)
                return number;
            open[depth++] = p->nops;
        }
        if (o->kind == OP_RETURN && depth > 0)
            return number;
        p->nops++;
    }
    return body == NULL ? 0 : number;
}

/* ---- running a program ------------------------------------------------------ */

static program prog;   /* the program running */
static taal_loop loop; /* its loop */
static FILE *out;      /* where it prints: stdout, or nowhere (--fail-each) */
static int spawn_order[MAX_OBJECTS];
static int spawned;

/* An open block of a body. */
typedef struct open_block {
    int op;               /* its op */
    taal_timeout scope;   /* timeout */
    taal_taskgroup group; /* tg */
} open_block;

/* The frame of every task: where it is in its body, and the blocks it is in. */
typedef struct runner {
    taal_coro co;
    int self;    /* its object */
    int pc;      /* the op to run next */
    int last;    /* the end of its body */
    int st;      /* the status of the op that ran */
    int err;     /* the status leaving the blocks (TAAL_OK: none) */
    void *value; /* its `return` value */
    int depth;   /* blocks open */
    open_block blocks[MAX_DEPTH];
    taal_future *made;              /* a gather, wait or shield to await */
    taal_future *futures[MAX_ARGS]; /* its futures */
    taal_timeout wait_for;          /* waitfor's scope */
    void *item;                     /* a queue get's item */
} runner;

#define OP (prog.ops[f->pc])
/* The object OP names: an await's argument must be made of frame fields,
 * as this is (rule 2 of taal.h), not of a local. */
#define TARGET (prog.objects[OP.target])

static double now(void)
{
    return taal_loop_time(&loop);
}

static void say(const runner *f, int line, const char *text)
{
    if (line > 0)
        fprintf(out, "%.2f %s %d: %s\n", now(), prog.objects[f->self].name, line, text);
    else
        fprintf(out, "%.2f %s end: %s\n", now(), prog.objects[f->self].name, text);
}

/* How a status reads on both sides (run_py.py's describe()). */
static const char *describe(int st, char *buf, size_t size)
{
    static const struct {
        int status;
        const char *text;
    } names[] = {{TAAL_OK, "ok"},
                 {TAAL_ECANCELLED, "cancelled"},
                 {TAAL_ETIMEDOUT, "timeout"},
                 {TAAL_EGROUP, "group"},
                 {TAAL_ESTATE, "invalid"},
                 {TAAL_ENOMEM, "nomem"}};
    saw_nomem |= st == TAAL_ENOMEM;
    if (st <= TAAL_EUSER) {
        snprintf(buf, size, "error %d", TAAL_EUSER - st);
        return buf;
    }
    snprintf(buf, size, "taal %s", taal_strerror(st));
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].status == st)
            snprintf(buf, size, "%s", names[i].text);
    return buf;
}

/* "ok" or "ok 3": a result as Python prints it. */
static const char *value_text(const void *value, char *buf, size_t size)
{
    if (value == NULL)
        return "ok";
    snprintf(buf, size, "ok %d", (int)(intptr_t)value);
    return buf;
}

/* The future an await names: "nosuch" if it names none (yet), "gone" if it
 * was a task group's child and its group has ended. */
static taal_future *lookup(int index, const char **why)
{
    *why = "nosuch";
    if (index < 0)
        return NULL;
    object *o = &prog.objects[index];
    if (o->kind == OBJ_FUTURE)
        return &o->future;
    if (o->kind != OBJ_TASK || o->task == NULL)
        return NULL;
    if (o->gone) {
        *why = "gone";
        return NULL;
    }
    return taal_task_future(o->task);
}

/* Every future of a gather or wait into f->futures; NULL and why if one
 * is missing. */
static const char *lookup_all(runner *f)
{
    const char *why = NULL;
    for (int i = 0; i < OP.nargs; i++)
        if ((f->futures[i] = lookup(OP.args[i], &why)) == NULL)
            return why;
    return NULL;
}

/* The name the wait op gave @p future (its futures are f->futures). */
static const char *argument_name(const runner *f, const taal_future *future)
{
    for (int i = 0; i < OP.nargs; i++)
        if (f->futures[i] == future)
            return prog.objects[OP.args[i]].name;
    return "?";
}

/* The innermost task group the body is in, or NULL. */
static taal_taskgroup *innermost_group(runner *f)
{
    for (int d = f->depth - 1; d >= 0; d--)
        if (prog.ops[f->blocks[d].op].kind == OP_TG)
            return &f->blocks[d].group;
    return NULL;
}

static int run_body(taal_coro *self);

/* A task group has ended: its children are its to free, not ours to name. */
static void end_group(const taal_taskgroup *group)
{
    for (int i = 0; i < prog.nobjects; i++)
        if (prog.objects[i].group == group && prog.objects[i].task != NULL)
            prog.objects[i].gone = true;
}

static int spawn(runner *f, const char **text)
{
    object *o = OP.target >= 0 ? &prog.objects[OP.target] : NULL;
    *text = "invalid";
    if (o == NULL || o->kind != OBJ_TASK || o->task != NULL || OP.target == prog.main)
        return TAAL_OK;
    runner frame = {.self = OP.target, .pc = o->first, .last = o->last};
    taal_taskgroup *group = innermost_group(f);
    int st;
    if (group != NULL)
        st = taal_taskgroup_create_task(group, run_body, &frame, sizeof frame, o->name,
                                        &o->task);
    else
        st = taal_task_create(&loop, run_body, &frame, sizeof frame, o->name, &o->task);
    if (st == TAAL_ESTATE)
        return TAAL_OK; /* the group is finished or shutting down */
    if (st != TAAL_OK) {
        o->task = NULL;
        *text = NULL;
        return st;
    }
    o->group = group;
    spawn_order[spawned++] = OP.target;
    *text = "ok";
    return TAAL_OK;
}

/* The results of the gather f->made: "ok [3, None, error 2]". */
static void gather_text(runner *f, char *buf, size_t size)
{
    void **results = NULL;
    taal_future_result(f->made, (void **)&results);
    size_t used = (size_t)snprintf(buf, size, "ok [");
    for (size_t i = 0; i < taal_gather_count(f->made) && used < size; i++) {
        char one[TEXT];
        int st = taal_gather_status(f->made, i);
        const char *text =
            st != TAAL_OK ? describe(st, one, sizeof one)
            : results[i] == NULL
                ? "None"
                : (snprintf(one, sizeof one, "%d", (int)(intptr_t)results[i]), one);
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", text);
    }
    if (used < size)
        snprintf(buf + used, size - used, "]");
}

/* The sets of the wait f->made: "done A,B pending C", in argument order. */
static void wait_text(runner *f, char *buf, size_t size)
{
    taal_wait_sets *sets = NULL;
    taal_future_result(f->made, (void **)&sets);
    size_t used = (size_t)snprintf(buf, size, "done ");
    for (int pass = 0; pass < 2; pass++) {
        size_t count = pass ? sets->pending_count : sets->done_count;
        taal_future **list = pass ? sets->pending : sets->done;
        if (pass)
            used += (size_t)snprintf(buf + used, size - used, " pending ");
        if (count == 0)
            used += (size_t)snprintf(buf + used, size - used, "-");
        for (size_t i = 0; i < count && used < size; i++)
            used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? "," : "",
                                     argument_name(f, list[i]));
    }
}

/* A task group's errors, for the line of its end: "group [error 2, cancelled]". */
static void group_text(const taal_taskgroup *group, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "group [");
    for (size_t i = 0; i < taal_taskgroup_error_count(group) && used < size; i++) {
        char one[TEXT];
        int st = taal_taskgroup_error(group, i, NULL);
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
                                 describe(st, one, sizeof one));
    }
    if (used < size)
        snprintf(buf + used, size - used, "]");
}

/* An op failed with f->st and does not catch it: leave by the end of the
 * innermost block, or end the body. */
static void propagate(runner *f)
{
    f->err = f->st;
    f->pc = f->depth > 0 ? prog.ops[f->blocks[f->depth - 1].op].match : f->last;
}

/* An op ended with f->st; @p text (NULL: the status) is what it prints. */
static void finish(runner *f, const char *text)
{
    char buf[TEXT];
    say(f, OP.line, text != NULL ? text : describe(f->st, buf, sizeof buf));
    if (f->st < 0 && !OP.catch_)
        propagate(f);
    else
        f->pc++;
}

/* The block OP could not be entered (f->st says why): that prints on the
 * line of its end, as Python's `async with` prints its outcome there, and
 * propagates unless the block has a `try`. */
static void block_failed(runner *f)
{
    bool catch_ = OP.catch_;
    char buf[TEXT];
    f->pc = OP.match;
    say(f, OP.line, describe(f->st, buf, sizeof buf));
    if (f->st < 0 && !catch_)
        propagate(f);
    else
        f->pc++;
}

/* The ops that do not await. */
static void run_plain(runner *f)
{
    object *o = OP.target >= 0 ? &prog.objects[OP.target] : NULL;
    const char *why = NULL;
    taal_future *fut;
    f->st = TAAL_OK;
    switch (OP.kind) {
    case OP_PRINT: finish(f, OP.text); return;
    case OP_FAIL:
        f->st = TAAL_EUSER - OP.value;
        finish(f, NULL);
        return;
    case OP_SPAWN:
        f->st = spawn(f, &why);
        finish(f, why);
        return;
    case OP_CANCEL:
        fut = lookup(OP.target, &why);
        finish(f, fut == NULL ? why : taal_future_cancel(fut) ? "True" : "False");
        return;
    case OP_SET:
    case OP_CLEAR:
        f->st =
            OP.kind == OP_SET ? taal_event_set(&o->event) : taal_event_clear(&o->event);
        finish(f, NULL);
        return;
    case OP_RESOLVE:
    case OP_REJECT:
        f->st = OP.kind == OP_RESOLVE
                    ? taal_future_set_result(&o->future, (void *)(intptr_t)OP.value)
                    : taal_future_set_error(&o->future, TAAL_EUSER - OP.value);
        /* Python prints "invalid" (InvalidStateError caught), and goes on. */
        if (f->st == TAAL_ESTATE) {
            f->st = TAAL_OK;
            finish(f, "invalid");
        } else {
            finish(f, NULL);
        }
        return;
    default: break;
    }
}

/* The outcome of an await of a future with a result (await, waitfor,
 * shield): "ok 3", or the status. */
static void finish_value(runner *f, taal_future *future)
{
    char buf[TEXT];
    void *value = NULL;
    if (f->st == TAAL_OK)
        taal_future_result(future, &value);
    finish(f, f->st == TAAL_OK ? value_text(value, buf, sizeof buf) : NULL);
}

/* Opens the block OP: TAAL_OK, or why it could not be opened. */
static int open_block_op(runner *f)
{
    open_block *b = &f->blocks[f->depth];
    memset(b, 0, sizeof *b);
    b->op = f->pc;
    int st = OP.kind == OP_TIMEOUT ? taal_timeout_open(&b->scope, OP.num)
             : OP.kind == OP_TG    ? taal_taskgroup_init(&b->group)
                                   : TAAL_OK;
    if (st == TAAL_OK)
        f->depth++;
    return st;
}

/* Ends the body: its end line, and its status. */
static int end_body(runner *f)
{
    char buf[TEXT];
    f->co.value = f->err == TAAL_OK ? f->value : NULL; /* TAAL_RETURN_VALUE */
    say(f, 0,
        f->err != TAAL_OK ? describe(f->err, buf, sizeof buf)
                          : value_text(f->value, buf, sizeof buf));
    return f->err;
}

/* The coroutine of every task. No `switch` may hold an await (rule 3 of
 * taal.h), so the ops that await are an if-chain; every await macro is on
 * its own line (rule 4), and reads only frame fields (rule 2). */
static int run_body(taal_coro *self)
{
    runner *f = (runner *)self;
    char buf[TEXT];
    const char *why = NULL;
    object *o = NULL;
    TAAL_BEGIN(f);
    while (f->pc < f->last) {
        if (OP.kind == OP_RETURN) {
            f->value = (void *)(intptr_t)OP.value;
            break;
        } else if (OP.kind == OP_SLEEP) {
            TAAL_SLEEP_STATUS(f->st, OP.num);
            finish(f, NULL);
        } else if (OP.kind == OP_AWAIT || OP.kind == OP_SHIELD) {
            f->made = NULL;
            f->futures[0] = lookup(OP.target, &why);
            f->st = TAAL_OK;
            if (f->futures[0] == NULL) {
                finish(f, why);
                continue;
            }
            if (OP.kind == OP_SHIELD)
                f->st = taal_shield(&loop, f->futures[0], &f->made);
            if (f->st == TAAL_OK)
                TAAL_AWAIT_FUTURE_STATUS(f->st,
                                         f->made != NULL ? f->made : f->futures[0]);
            finish_value(f, f->made != NULL ? f->made : f->futures[0]);
            taal_future_release(f->made);
        } else if (OP.kind == OP_WAITFOR) {
            f->futures[0] = lookup(OP.target, &why);
            if (f->futures[0] == NULL) {
                f->st = TAAL_OK;
                finish(f, why);
                continue;
            }
            TAAL_WAIT_FOR_STATUS(f->st, &f->wait_for, f->futures[0], OP.num);
            finish_value(f, f->futures[0]);
        } else if (OP.kind == OP_GATHER || OP.kind == OP_GATHER_EX ||
                   OP.kind == OP_WAIT) {
            f->made = NULL;
            f->st = TAAL_OK;
            why = lookup_all(f);
            if (why != NULL) {
                finish(f, why);
                continue;
            }
            if (OP.kind == OP_WAIT)
                f->st = taal_wait(&loop, (size_t)OP.nargs, f->futures,
                                  (taal_wait_mode)OP.mode, OP.num, &f->made);
            else
                f->st = taal_gather_ex(
                    &loop, (size_t)OP.nargs, f->futures,
                    OP.kind == OP_GATHER_EX ? TAAL_RETURN_EXCEPTIONS : 0, &f->made);
            if (f->st == TAAL_OK)
                TAAL_AWAIT_FUTURE_STATUS(f->st, f->made);
            if (f->st == TAAL_OK && OP.kind == OP_WAIT)
                wait_text(f, buf, sizeof buf);
            else if (f->st == TAAL_OK)
                gather_text(f, buf, sizeof buf);
            finish(f, f->st == TAAL_OK ? buf : NULL);
            taal_future_release(f->made);
        } else if (OP.kind == OP_TIMEOUT || OP.kind == OP_TG) {
            f->st = open_block_op(f);
            if (f->st == TAAL_OK)
                f->pc++;
            else
                block_failed(f);
        } else if (OP.kind == OP_WITH) {
            if (TARGET.kind == OBJ_SEM)
                TAAL_ACQUIRE_STATUS(f->st, &TARGET.sem);
            else
                TAAL_LOCK_STATUS(f->st, &TARGET.lock);
            if (f->st == TAAL_OK)
                f->st = open_block_op(f);
            if (f->st == TAAL_OK) {
                say(f, OP.line, "acquired");
                f->pc++;
            } else {
                block_failed(f);
            }
        } else if (OP.kind == OP_END) {
            /* Leave the innermost block with f->err (TAAL_OK: none). */
            f->st = f->err;
            f->err = TAAL_OK;
            if (prog.ops[OP.match].kind == OP_TIMEOUT) {
                f->st = taal_timeout_close(&f->blocks[f->depth - 1].scope, f->st);
            } else if (prog.ops[OP.match].kind == OP_WITH) {
                o = &prog.objects[prog.ops[OP.match].target];
                if (o->kind == OBJ_SEM)
                    taal_semaphore_release(&o->sem);
                else
                    taal_lock_release(&o->lock);
            } else {
                TAAL_TASKGROUP_JOIN_STATUS(f->st, &f->blocks[f->depth - 1].group);
                end_group(&f->blocks[f->depth - 1].group);
            }
            f->depth--;
            /* A group's own end lists its errors; other blocks pass the
             * group error on as it is. */
            if (prog.ops[OP.match].kind == OP_TG && f->st == TAAL_EGROUP)
                group_text(&f->blocks[f->depth].group, buf, sizeof buf);
            else
                describe(f->st, buf, sizeof buf);
            if (prog.ops[OP.match].kind == OP_TG)
                taal_taskgroup_destroy(&f->blocks[f->depth].group);
            say(f, OP.line, buf);
            if (f->st < 0 && !prog.ops[OP.match].catch_)
                propagate(f);
            else
                f->pc++;
        } else if (OP.kind == OP_WAITEV) {
            TAAL_EVENT_WAIT_STATUS(f->st, &TARGET.event);
            finish(f, NULL);
        } else if (OP.kind == OP_PUT) {
            TAAL_QUEUE_PUT_STATUS(f->st, &TARGET.queue, (void *)(intptr_t)OP.value);
            finish(f, NULL);
        } else if (OP.kind == OP_GET) {
            TAAL_QUEUE_GET_STATUS(f->st, &TARGET.queue, f->item);
            finish(f, f->st == TAAL_OK ? value_text(f->item, buf, sizeof buf) : NULL);
        } else {
            run_plain(f);
        }
    }
    return end_body(f);
    TAAL_END();
}

/* ---- one run of a program ---------------------------------------------------- */

static long reports;

/* Reports (an error never retrieved, a task pending at close, the
 * deadlock's explanation) are counted, not compared: asyncio makes its own
 * at garbage collection, at times no program can predict. */
static void on_report(void *ctx, const taal_report *report)
{
    (void)ctx;
    reports++;
    if (report->status == TAAL_ENOMEM)
        saw_nomem = true;
}

/* Makes the program's futures and primitives on the loop. */
static int make_objects(void)
{
    for (int i = 0; i < prog.nobjects; i++) {
        object *o = &prog.objects[i];
        int st = TAAL_OK;
        o->task = NULL;
        o->gone = false;
        o->group = NULL;
        o->made = false;
        if (o->kind == OBJ_FUTURE)
            st = taal_future_init(&o->future, &loop);
        else if (o->kind == OBJ_SEM)
            st = taal_semaphore_init(&o->sem, &loop, o->arg, o->name);
        else if (o->kind == OBJ_LOCK)
            st = taal_lock_init(&o->lock, &loop, o->name);
        else if (o->kind == OBJ_EVENT)
            st = taal_event_init(&o->event, &loop, o->name);
        else if (o->kind == OBJ_QUEUE)
            st = taal_queue_init(&o->queue, &loop, (size_t)o->arg, o->name);
        if (st != TAAL_OK)
            return st;
        o->made = o->kind != OBJ_TASK && o->kind != OBJ_FUTURE;
    }
    return TAAL_OK;
}

/* Forgets the primitives: a queue's ring goes back to the allocator. One
 * that tasks still wait on (a deadlock the shutdown could not end) is
 * busy until the loop has closed, and is asked again then. */
static void destroy_objects(void)
{
    for (int i = 0; i < prog.nobjects; i++) {
        object *o = &prog.objects[i];
        int st = TAAL_OK;
        if (!o->made)
            continue;
        if (o->kind == OBJ_SEM)
            st = taal_semaphore_destroy(&o->sem);
        else if (o->kind == OBJ_LOCK)
            st = taal_lock_destroy(&o->lock);
        else if (o->kind == OBJ_EVENT)
            st = taal_event_destroy(&o->event);
        else if (o->kind == OBJ_QUEUE)
            st = taal_queue_destroy(&o->queue);
        o->made = st != TAAL_OK;
    }
}

/* asyncio.run()'s ending, in spawn order: cancel every task not done, and
 * run until they all are. */
static void shut_down(void)
{
    taal_future *left[MAX_OBJECTS];
    object *whose[MAX_OBJECTS];
    size_t count = 0;
    for (int i = 0; i < spawned; i++) {
        object *o = &prog.objects[spawn_order[i]];
        if (!o->gone && !taal_future_done(taal_task_future(o->task))) {
            whose[count] = o;
            left[count++] = taal_task_future(o->task);
        }
    }
    if (count == 0)
        return;
    fprintf(out, "shutdown\n");
    for (size_t i = 0; i < count; i++)
        taal_future_cancel(left[i]);
    taal_future *all = NULL;
    char buf[TEXT];
    int st = taal_gather_ex(&loop, count, left, TAAL_RETURN_EXCEPTIONS, &all);
    if (st == TAAL_OK) {
        st = taal_run_until_complete(&loop, all);
    } else {
        /* No memory for the gather: still run each to its end, one after
         * the other, which allocates nothing, as asyncio.run() would have
         * them end. Nothing holds them here: a group that ends while an
         * earlier one runs frees its children, so ask `gone` first. */
        fprintf(out, "shutdown: %s\n", describe(st, buf, sizeof buf));
        for (size_t i = 0; i < count && st != TAAL_EDEADLOCK; i++)
            if (!whose[i]->gone && !taal_future_done(left[i]))
                st = taal_run_until_complete(&loop, left[i]);
    }
    if (st == TAAL_EDEADLOCK)
        fprintf(out, "deadlock\n");
    taal_future_release(all);
}

/* Runs the parsed program once; returns the blocks it left allocated. */
static long run_once(void)
{
    allocations = live = 0;
    failed = saw_nomem = false;
    spawned = 0;
    taal_loop_options options = {
        .clock = TAAL_CLOCK_VIRTUAL, .report = on_report, .trace = "", .debug = TAAL_OFF};
    char buf[TEXT];
    int st = taal_loop_init(&loop, &options);
    if (st == TAAL_OK)
        st = make_objects();
    object *main_task = &prog.objects[prog.main];
    if (st == TAAL_OK) {
        runner frame = {
            .self = prog.main, .pc = main_task->first, .last = main_task->last};
        st = taal_task_create(&loop, run_body, &frame, sizeof frame, "main",
                              &main_task->task);
    }
    if (st == TAAL_OK) {
        spawn_order[spawned++] = prog.main;
        st = taal_run_until_complete(&loop, taal_task_future(main_task->task));
        if (st == TAAL_EDEADLOCK)
            fprintf(out, "deadlock\n");
        else if (st == TAAL_ENOMEM)
            saw_nomem = true;
        shut_down();
    } else {
        fprintf(out, "setup: %s\n", describe(st, buf, sizeof buf));
    }
    /* Let go of every task we hold, then close: what is still pending is
     * reported and freed by the close. */
    for (int i = 0; i < spawned; i++) {
        object *o = &prog.objects[spawn_order[i]];
        if (o->group == NULL) /* a group's children are the group's */
            taal_task_release(o->task);
    }
    destroy_objects();
    fflush(out); /* what it printed stays, should the close crash */
    taal_loop_close(&loop);
    destroy_objects();
    return live;
}

/* ---- batches and the failing allocator -------------------------------------- */

static bool fail_each;
static int failures; /* programs that went wrong (leaks, unseen failures) */

static void run_program(const char *name, char *text)
{
    fprintf(stdout, "=== %s\n", name);
    fflush(stdout); /* if this program crashes, the driver knows which */
    snprintf(prog.name, sizeof prog.name, "%s", name);
    int bad = parse(&prog, text);
    if (bad != 0) {
        fprintf(stdout, "parse error on line %d\n", bad);
        failures++;
        fflush(stdout);
        return;
    }
    if (!fail_each) {
        out = stdout;
        long leaked = run_once();
        if (leaked != 0) {
            fprintf(stdout, "leak: %ld blocks\n", leaked);
            failures++;
        }
        fflush(stdout);
        return;
    }
    /* Once as it is, to count its allocations; then once per allocation
     * with that one failing. Each run must free all it allocated, and say
     * that it ran out of memory (an op's "nomem", or a report). */
    FILE *null = fopen("/dev/null", "w");
    out = null != NULL ? null : stdout;
    fail_at = 0;
    run_once();
    long total = allocations, leaks = 0, unseen = 0;
    for (long n = 1; n <= total; n++) {
        fail_at = n;
        if (run_once() != 0) {
            leaks++;
            fprintf(stdout, "leak when allocation %ld fails\n", n);
        }
        if (failed && !saw_nomem) {
            unseen++;
            fprintf(stdout, "unseen when allocation %ld fails\n", n);
        }
    }
    fail_at = 0;
    if (null != NULL)
        fclose(null);
    out = stdout;
    fprintf(stdout, "alloc: %ld runs, %ld leaked, %ld unseen\n", total, leaks, unseen);
    failures += leaks != 0 || unseen != 0;
    fflush(stdout);
}

static char *read_all(FILE *in)
{
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    while (text != NULL) {
        size_t got = fread(text + len, 1, cap - len - 1, in);
        len += got;
        if (got == 0)
            break;
        if (len + 1 == cap) {
            char *grown = realloc(text, cap * 2);
            if (grown == NULL) {
                free(text);
                return NULL;
            }
            text = grown;
            cap *= 2;
        }
    }
    if (text != NULL)
        text[len] = '\0';
    return text;
}

/* Runs every program of a batch: "=== name" lines start each one. */
static void run_batch(char *text)
{
    char *name = NULL, *body = NULL;
    for (char *line = text; line != NULL && *line != '\0';) {
        char *next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        if (strncmp(line, "=== ", 4) == 0) {
            if (name != NULL) {
                line[-1] = '\0'; /* ends the previous body */
                run_program(name, body);
            }
            name = line + 4;
            body = next != NULL ? next : line + strlen(line);
        } else if (next != NULL) {
            next[-1] = '\n'; /* keep the body's lines together */
        }
        line = next;
    }
    if (name != NULL)
        run_program(name, body);
}

int main(int argc, char **argv)
{
    static const char usage[] =
        "usage: taalint [--fail-each | --fail-at N] (--batch FILE | PROGRAM...)\n";
    /* What the CTest runs when CMake found no CPython 3.12+ to compare
     * with: 77, which the test reports as skipped (SKIP_RETURN_CODE). */
    if (argc == 2 && strcmp(argv[1], "--no-python") == 0) {
        puts("difftest: no CPython 3.12 or later found (set TAAL_PYTHON): skipped");
        return 77;
    }
    taal_set_allocator(&counting);
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (strcmp(argv[i], "--fail-each") == 0) {
            fail_each = true;
        } else if (strcmp(argv[i], "--fail-at") == 0 && i + 1 < argc) {
            fail_at = atol(argv[++i]);
        } else if (strcmp(argv[i], "--batch") == 0 && i + 1 < argc) {
            const char *path = argv[++i];
            FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
            char *text = in != NULL ? read_all(in) : NULL;
            if (in != NULL && in != stdin)
                fclose(in);
            if (text == NULL) {
                fprintf(stderr, "taalint: cannot read %s\n", path);
                return 2;
            }
            run_batch(text);
            free(text);
        } else {
            fputs(usage, stderr);
            return 2;
        }
    }
    for (; i < argc; i++) {
        FILE *in = fopen(argv[i], "r");
        char *text = in != NULL ? read_all(in) : NULL;
        if (in != NULL)
            fclose(in);
        if (text == NULL) {
            fprintf(stderr, "taalint: cannot read %s\n", argv[i]);
            return 2;
        }
        run_program(argv[i], text);
        free(text);
    }
    /* Every program ran: what went wrong in one (a leak, a parse error,
     * a failing allocation not handled) is in the output. Any other exit
     * status comes from outside: a sanitizer, a signal. */
    if (failures != 0)
        fprintf(stderr, "taalint: %d programs went wrong (see the output)\n", failures);
    return 0;
}
