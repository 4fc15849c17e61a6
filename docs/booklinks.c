/*
** booklinks.c -- a tutorial's names link to its own chapter's reference.
**
** The book's pages and the seven API references are separate Doxygen runs
** (docs/CMakeLists.txt says why), so Doxygen cannot link `taal_send` in
** chapter 01's page to chapter 01's taal_send. This does it afterwards:
** it reads the tag file of a chapter's run (the names it documented, and
** where) and, in the chapter's page, turns every inline code span that is
** exactly one of those names, or the name followed by "()", into a link.
**
** Usage:
**   booklinks TAGFILE PREFIX PAGE.html
**
**   TAGFILE  the chapter's Doxygen tag file (GENERATE_TAGFILE)
**   PREFIX   the folder of its reference, relative to the page
**            ("api/01_awaitable")
**   PAGE     the chapter's page, rewritten in place
**
** Linked: structs and unions (their page), and the functions, macros,
** typedefs, enums and enum values of the headers (their anchor). Not
** linked: struct fields, whose names ("point", "status") are too common to
** mean the field. Prints "PAGE: N names linked". Exits 0, or 1 if a file
** cannot be read or written, or is not what it should be.
*/
#define _POSIX_C_SOURCE 200809L

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *name;
    char *target; /* "file.html" or "file.html#anchor" */
} entry;

static entry *entries;
static size_t nentries, cap;

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t size = 0, room = 65536;
    char *buf = malloc(room + 1);
    size_t n;
    while (buf && (n = fread(buf + size, 1, room - size, f)) > 0) {
        size += n;
        if (size == room) {
            char *more = realloc(buf, room * 2 + 1);
            if (!more) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = more;
            room *= 2;
        }
    }
    bool bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        return NULL;
    }
    buf[size] = '\0';
    if (len)
        *len = size;
    return buf;
}

/* The text of <tag>...</tag> on the line at `line`, or NULL. */
static char *element(const char *line, const char *tag)
{
    char open[32], close[32];
    snprintf(open, sizeof open, "<%s>", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    const char *at = strstr(line, open);
    const char *eol = strchr(line, '\n');
    if (!at || (eol && at > eol))
        return NULL;
    at += strlen(open);
    const char *end = strstr(at, close);
    if (!end || (eol && end > eol))
        return NULL;
    size_t n = (size_t)(end - at);
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, at, n);
        s[n] = '\0';
    }
    return s;
}

static entry *find(const char *name, size_t len)
{
    for (size_t i = 0; i < nentries; i++)
        if (strlen(entries[i].name) == len && strncmp(entries[i].name, name, len) == 0)
            return &entries[i];
    return NULL;
}

/* Adds name -> file[#anchor]; a struct's own page wins over a typedef's
 * anchor of the same name. Takes the strings; false if out of memory. */
static bool add(char *name, const char *file, const char *anchor, bool wins)
{
    size_t n = strlen(file) + (anchor ? strlen(anchor) + 1 : 0) + 1;
    char *target = malloc(n);
    if (!target) {
        free(name);
        return false;
    }
    snprintf(target, n, "%s%s%s", file, anchor ? "#" : "", anchor ? anchor : "");
    entry *old = find(name, strlen(name));
    if (old) {
        if (wins) {
            free(old->target);
            old->target = target;
        } else {
            free(target);
        }
        free(name);
        return true;
    }
    if (nentries == cap) {
        size_t more = cap ? cap * 2 : 256;
        entry *grown = realloc(entries, more * sizeof *entries);
        if (!grown) {
            free(name);
            free(target);
            return false;
        }
        entries = grown;
        cap = more;
    }
    entries[nentries].name = name;
    entries[nentries].target = target;
    nentries++;
    return true;
}

static bool read_tags(const char *text)
{
    char kind[32] = "";
    bool in_member = false, named = false;
    char *cname = NULL, *mname = NULL, *mfile = NULL, *manchor = NULL;
    bool ok = true;
    for (const char *line = text; ok && line && *line;) {
        const char *k = strstr(line, "<compound kind=\"");
        const char *eol = strchr(line, '\n');
        if (k && (!eol || k < eol)) {
            k += strlen("<compound kind=\"");
            size_t n = strcspn(k, "\"");
            if (n >= sizeof kind)
                n = sizeof kind - 1;
            memcpy(kind, k, n);
            kind[n] = '\0';
            named = false;
        } else if (strstr(line, "<member ") && (!eol || strstr(line, "<member ") < eol)) {
            in_member = true;
        } else if (in_member) {
            char *s;
            if ((s = element(line, "name")) != NULL) {
                free(mname);
                mname = s;
            } else if ((s = element(line, "anchorfile")) != NULL) {
                free(mfile);
                mfile = s;
            } else if ((s = element(line, "anchor")) != NULL) {
                free(manchor);
                manchor = s;
            } else if (strstr(line, "</member>") &&
                       (!eol || strstr(line, "</member>") < eol)) {
                in_member = false;
                if (strcmp(kind, "file") == 0 && mname && mfile && manchor) {
                    ok = add(mname, mfile, manchor, false);
                    mname = NULL;
                }
                free(mname);
                free(mfile);
                free(manchor);
                mname = mfile = manchor = NULL;
            }
        } else if (!named &&
                   (strcmp(kind, "struct") == 0 || strcmp(kind, "union") == 0)) {
            char *s;
            if ((s = element(line, "name")) != NULL) {
                free(cname);
                cname = s;
            } else if ((s = element(line, "filename")) != NULL) {
                if (cname) {
                    ok = add(cname, s, NULL, true);
                    cname = NULL;
                }
                free(s);
                named = true;
            }
        }
        line = eol ? eol + 1 : NULL;
    }
    free(cname);
    free(mname);
    free(mfile);
    free(manchor);
    return ok;
}

static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: booklinks TAGFILE PREFIX PAGE.html\n");
        return 1;
    }
    int status = 1;
    char *tags = read_all(argv[1], NULL);
    size_t len = 0;
    char *page = read_all(argv[3], &len);
    FILE *out = NULL;
    char tmp[4096];
    if (strlen(argv[3]) + 5 > sizeof tmp) {
        fprintf(stderr, "booklinks: %s: the path is too long\n", argv[3]);
        goto done;
    }
    if (!tags || !page) {
        fprintf(stderr, "booklinks: cannot read %s\n", tags ? argv[3] : argv[1]);
        goto done;
    }
    if (!strstr(tags, "<tagfile") || !read_tags(tags)) {
        fprintf(stderr, "booklinks: %s is not a Doxygen tag file, or memory ran out\n",
                argv[1]);
        goto done;
    }
    /* Written beside the page, then renamed over it: a failed write leaves
     * the page as it was. */
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[3]);
    out = fopen(tmp, "wb");
    if (!out) {
        fprintf(stderr, "booklinks: cannot write %s\n", tmp);
        goto done;
    }
    static const char open[] = "<code>";
    unsigned long linked = 0;
    const char *at = page;
    const char *code;
    while ((code = strstr(at, open)) != NULL) {
        const char *name = code + strlen(open);
        size_t n = 0;
        while (is_name_char(name[n]))
            n++;
        const char *after = name + n;
        if (strncmp(after, "()", 2) == 0)
            after += 2;
        entry *e = n > 0 && strncmp(after, "</code>", 7) == 0 ? find(name, n) : NULL;
        fwrite(at, 1, (size_t)(name - at), out);
        if (e) {
            fprintf(out, "<a class=\"el\" href=\"%s/%s\">%.*s</a>", argv[2], e->target,
                    (int)n, name);
            linked++;
            at = name + n;
        } else {
            at = name;
        }
    }
    fputs(at, out);
    bool bad = ferror(out);
    if (fclose(out) != 0 || bad || rename(tmp, argv[3]) != 0) {
        fprintf(stderr, "booklinks: cannot write %s\n", argv[3]);
        remove(tmp);
        goto done;
    }
    printf("%s: %lu names linked\n", argv[3], linked);
    status = 0;
done:
    for (size_t i = 0; i < nentries; i++) {
        free(entries[i].name);
        free(entries[i].target);
    }
    free(entries);
    free(tags);
    free(page);
    return status;
}
