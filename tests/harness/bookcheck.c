/*
** bookcheck.c -- the rendered book is clean.
**
** Reads the HTML that Doxygen made of the book and fails on what a reader
** would see broken:
**
**   - raw Markdown or Doxygen in the text: a link that did not render
**     ("]("), a command ("@section", "@subsection", "@ref", "@page",
**     "\ref", an "autotoc_md" label), a visible "-->" (a comment that
**     lost its opening), bold that did not render ("**": Doxygen 1.9
**     leaves a bold that starts with a code span or a quote as it is, so
**     the page writes <b>...</b> there), or a table row that did not
**     render ("|---", a table without the blank line before it);
**   - markup that Doxygen escaped instead of rendering ("&lt;tt&gt;",
**     "&lt;a href", "&lt;em&gt;"): a lone double quote, or a code span in a
**     heading, which Doxygen 1.9 always escapes;
**   - a heading with an unbalanced double quote, or an H1 that appears twice
**     on one page (an editorial note rendered as a section);
**   - an internal link (href or src) to a page or file that is not there
**     (a picture, a diff, a seed), or to an anchor that the page does not
**     have;
**   - a chapter page (md_docs_NN_*.html) without a link whose text starts
**     "Previous" to the chapter before it, or "Next" to the chapter after.
**
** Code (<div class="fragment">, <pre>, <code>, <tt>), scripts and real HTML
** comments are not text: what they hold is shown as written.
**
** Usage:
**   bookcheck DIR [SUBDIR...]
**
**   DIR     the book's html folder; every *.html in it is checked
**   SUBDIR  folders under DIR whose *.html are checked too (the API
**           reference of each chapter)
**
** Prints one line per problem ("FILE:LINE: what"), then "N pages, N
** problems". Exits 0 if there were none, 1 if there were, 2 for a usage
** error or a file that cannot be read.
*/
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *name; /* relative to DIR, e.g. "md_docs_02_custom_loop.html" */
    char *html; /* the file as read */
    char *text; /* the same, with code, scripts, comments and tags blanked */
    size_t len;
    char *anchor_text;    /* a copy of html, each anchor's closing quote a NUL */
    const char **anchors; /* every id="..." and name="..." value in it, sorted */
    size_t anchor_count;
} page;

/* strstr() and strchr() without the C library: under AddressSanitizer
 * (the sanitize preset, strict_string_checks) each library call checks the
 * whole rest of the page, so walking a page match by match became
 * quadratic, 0.3 s turned 2 minutes. These look only as far as they go. */
static char *find(const char *s, const char *needle)
{
    for (; *s != '\0'; s++) {
        size_t i = 0;
        while (needle[i] != '\0' && s[i] == needle[i])
            i++;
        if (needle[i] == '\0')
            return (char *)s;
    }
    return NULL;
}

static char *find_char(const char *s, int c)
{
    for (; *s != '\0'; s++)
        if (*s == (char)c)
            return (char *)s;
    return NULL;
}

static page *pages;
static size_t npages, cap;
static unsigned long problems;

static void fail(const page *p, size_t at, const char *fmt, const char *arg)
{
    size_t line = 1;
    for (size_t i = 0; i < at && i < p->len; i++)
        line += p->html[i] == '\n';
    printf("%s:%zu: ", p->name, line);
    printf(fmt, arg);
    putchar('\n');
    problems++;
}

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
    *len = size;
    return buf;
}

/* Blank (to spaces, keeping newlines) every region from `open` to the end
 * of `close`; a region that is not closed runs to the end of the page. */
static void blank(char *text, const char *open, const char *close)
{
    char *at = text;
    while ((at = find(at, open)) != NULL) {
        char *end = find(at + strlen(open), close);
        end = end ? end + strlen(close) : at + strlen(at);
        for (char *c = at; c < end; c++)
            if (*c != '\n')
                *c = ' ';
        at = end;
    }
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(((const page *)a)->name, ((const page *)b)->name);
}

static int load_dir(const char *root, const char *sub)
{
    char path[8192];
    snprintf(path, sizeof path, "%s%s%s", root, sub ? "/" : "", sub ? sub : "");
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "bookcheck: cannot open %s\n", path);
        return -1;
    }
    struct dirent *e;
    int status = 0;
    while (status == 0 && (e = readdir(d)) != NULL) {
        if (!has_suffix(e->d_name, ".html"))
            continue;
        if (npages == cap) {
            size_t more = cap ? cap * 2 : 256;
            page *grown = realloc(pages, more * sizeof *pages);
            if (!grown) {
                status = -1;
                break;
            }
            pages = grown;
            cap = more;
        }
        page *p = &pages[npages];
        *p = (page){0};
        char name[2048];
        snprintf(name, sizeof name, "%s%s%s", sub ? sub : "", sub ? "/" : "", e->d_name);
        if (snprintf(path, sizeof path, "%s/%s", root, name) >= (int)sizeof path)
            continue;
        p->name = strdup(name);
        p->html = read_all(path, &p->len);
        p->text = p->html ? strdup(p->html) : NULL;
        if (!p->name || !p->html || !p->text) {
            fprintf(stderr, "bookcheck: cannot read %s\n", path);
            free(p->name);
            free(p->html);
            free(p->text);
            status = -1;
            break;
        }
        npages++;
    }
    closedir(d);
    return status;
}

static page *find_page(const char *name)
{
    for (size_t i = 0; i < npages; i++)
        if (strcmp(pages[i].name, name) == 0)
            return &pages[i];
    return NULL;
}

/* Blank what is not text: code, scripts, comments, tags. */
static void prepare(page *p)
{
    blank(p->text, "<script", "</script>");
    blank(p->text, "<div class=\"fragment\">", "</div><!-- fragment -->");
    blank(p->text, "<pre", "</pre>");
    blank(p->text, "<code", "</code>");
    blank(p->text, "<tt>", "</tt>");
    blank(p->text, "<!--", "-->");
    /* The tags themselves, so that only text is left. */
    for (char *c = p->text; *c; c++) {
        if (*c != '<')
            continue;
        char *end = find_char(c, '>');
        if (!end)
            break;
        for (; c < end; c++)
            if (*c != '\n')
                *c = ' ';
        *c = ' ';
    }
}

/* Is offset `off` of `html` inside a heading (<h1> to <h6>)? */
static bool in_heading(const char *html, size_t off)
{
    for (size_t i = off; i-- > 0;) {
        if (html[i] != '<')
            continue;
        const char *t = html + i + 1;
        bool closing = *t == '/';
        if (closing)
            t++;
        if ((*t == 'h' || *t == 'H') && t[1] >= '1' && t[1] <= '6')
            return !closing;
    }
    return false;
}

static void check_text(const page *p)
{
    static const char *const raw[] = {
        "](",     "@section",   "@subsection", "@ref ",  "@page ",
        "\\ref ", "autotoc_md", "-->",         "--&gt;",
    };
    for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++) {
        const char *at = p->text;
        while ((at = find(at, raw[i])) != NULL) {
            fail(p, (size_t)(at - p->text), "raw markup in the text: '%s'", raw[i]);
            at += strlen(raw[i]);
        }
    }
    /* Markdown that did not render, on the pages made from Markdown (the
     * API reference shows C, where `taal_future **` is a type). */
    static const struct {
        const char *raw, *why;
    } markdown[] = {
        {"**", "a bold that starts with a code span or a quote: write <b>...</b>"},
        {"|---", "a table without a blank line before it?"},
        {"| ---", "a table without a blank line before it?"},
    };
    bool from_markdown =
        strncmp(p->name, "md_", 3) == 0 || strcmp(p->name, "index.html") == 0;
    for (size_t i = 0; from_markdown && i < sizeof markdown / sizeof markdown[0]; i++) {
        const char *at = p->text;
        while ((at = find(at, markdown[i].raw)) != NULL) {
            char what[128];
            snprintf(what, sizeof what, "'%s' (%s)", markdown[i].raw, markdown[i].why);
            fail(p, (size_t)(at - p->text), "raw markup in the text: %s", what);
            at += strlen(markdown[i].raw);
        }
    }
    /* Markup Doxygen escaped instead of rendering: what a lone double quote
     * does to the paragraphs after it (it starts a verbatim run that ends at
     * the next double quote, however far), and gives no warning for; and
     * what Doxygen 1.9 does to a code span in a heading, always. */
    static const char *const escaped[] = {"&lt;tt&gt;", "&lt;a href", "&lt;em&gt;",
                                          "&lt;strong&gt;"};
    for (size_t i = 0; i < sizeof escaped / sizeof escaped[0]; i++) {
        const char *at = p->text;
        while ((at = find(at, escaped[i])) != NULL) {
            size_t off = (size_t)(at - p->text);
            fail(p, off,
                 in_heading(p->html, off)
                     ? "escaped markup in a heading (a code span: leave its backticks "
                       "out): '%s'"
                     : "escaped markup in the text (a lone '\"' before it?): '%s'",
                 escaped[i]);
            at += strlen(escaped[i]);
        }
    }
}

/* The text of the element that starts at `open` (a tag) and ends at
 * `close`, tags left out, in `out`. */
static void inner_text(const char *open, const char *close, char *out, size_t size)
{
    const char *c = find_char(open, '>');
    size_t n = 0;
    bool in_tag = false;
    const char *end = c ? find(c, close) : NULL;
    if (!c || !end) {
        out[0] = '\0';
        return;
    }
    for (c++; c < end && n + 1 < size; c++) {
        if (*c == '<')
            in_tag = true;
        else if (*c == '>')
            in_tag = false;
        else if (!in_tag && (*c != '\n' || n > 0))
            out[n++] = *c;
    }
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
        n--;
    out[n] = '\0';
}

static void check_headings(const page *p)
{
    char seen[64][256];
    size_t nseen = 0;
    for (int level = 1; level <= 6; level++) {
        char open[8], close[8];
        snprintf(open, sizeof open, "<h%d", level);
        snprintf(close, sizeof close, "</h%d>", level);
        const char *at = p->html;
        while ((at = find(at, open)) != NULL) {
            char title[256];
            inner_text(at, close, title, sizeof title);
            size_t quotes = 0;
            for (const char *c = title; *c; c++)
                quotes += *c == '"';
            if (quotes % 2)
                fail(p, (size_t)(at - p->html), "heading with an unbalanced quote: %s",
                     title);
            if (level == 1) {
                for (size_t i = 0; i < nseen; i++)
                    if (strcmp(seen[i], title) == 0)
                        fail(p, (size_t)(at - p->html), "a second H1 '%s' on the page",
                             title);
                if (nseen < 64)
                    strcpy(seen[nseen++], title);
            }
            at += strlen(open);
        }
    }
}

/* Does `target` have an element with id or name `anchor`? A binary search
 * of the page's anchors, gathered once (index_anchors): a page links to its
 * own anchors by the hundred, and a scan of the page for each link made the
 * check quadratic. */
static int compare_anchor(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool has_anchor(const page *target, const char *anchor)
{
    return target->anchor_count > 0 &&
           bsearch(&anchor, target->anchors, target->anchor_count,
                   sizeof *target->anchors, compare_anchor) != NULL;
}

/* Gathers the page's anchors: each attribute's value ends at its quote,
 * which is overwritten in a copy of the page. False when out of memory. */
static bool index_anchors(page *p)
{
    static const char *const attrs[] = {"id=\"", "name=\""};
    size_t count = 0, cap = 0;
    char *copy = strdup(p->html);
    if (copy == NULL)
        return false;
    for (size_t i = 0; i < 2; i++) {
        size_t alen = strlen(attrs[i]);
        for (char *at = find(p->html, attrs[i]); at != NULL; at = find(at, attrs[i])) {
            at += alen;
            char *end = find_char(at, '"');
            if (end == NULL)
                break;
            if (count == cap) {
                cap = cap ? 2 * cap : 64;
                const char **grown = realloc(p->anchors, cap * sizeof *grown);
                if (grown == NULL) {
                    free(copy);
                    return false; /* p->anchors is freed with the page */
                }
                p->anchors = grown;
            }
            copy[end - p->html] = '\0';
            p->anchors[count++] = copy + (at - p->html);
        }
    }
    qsort(p->anchors, count, sizeof *p->anchors, compare_anchor);
    p->anchor_text = copy;
    p->anchor_count = count;
    return true;
}

static void check_links(const page *p, const char *root)
{
    static const char *const attrs[] = {" href=\"", " src=\""};
    char dir[4096];
    const char *slash = strrchr(p->name, '/');
    size_t dlen = slash ? (size_t)(slash - p->name + 1) : 0;
    memcpy(dir, p->name, dlen);
    dir[dlen] = '\0';
    for (size_t i = 0; i < 2; i++) {
        const char *at = p->html;
        while ((at = find(at, attrs[i])) != NULL) {
            at += strlen(attrs[i]);
            const char *end = find_char(at, '"');
            if (!end)
                break;
            size_t n = (size_t)(end - at);
            char link[4096];
            if (n >= sizeof link)
                continue;
            memcpy(link, at, n);
            link[n] = '\0';
            at = end;
            /* Inside a script, or another site, or not a page. */
            if (find(link, "://") || strncmp(link, "mailto:", 7) == 0 ||
                strncmp(link, "javascript:", 11) == 0 || link[0] == '\0')
                continue;
            char *hash = find_char(link, '#');
            char *anchor = hash ? hash + 1 : NULL;
            if (hash)
                *hash = '\0';
            char target[8192];
            if (link[0] == '\0') {
                snprintf(target, sizeof target, "%s", p->name);
            } else {
                /* Resolve "../" against the page's folder. */
                char base[4096];
                snprintf(base, sizeof base, "%s", dir);
                const char *rest = link;
                while (strncmp(rest, "../", 3) == 0) {
                    size_t b = strlen(base);
                    if (b > 0)
                        base[--b] = '\0';
                    char *up = strrchr(base, '/');
                    if (up)
                        up[1] = '\0';
                    else
                        base[0] = '\0';
                    rest += 3;
                }
                snprintf(target, sizeof target, "%s%s", base, rest);
            }
            if (!has_suffix(target, ".html")) {
                /* A picture, a diff, a seed: it must be there. */
                char path[8192];
                FILE *f = NULL;
                if (snprintf(path, sizeof path, "%s/%s", root, target) < (int)sizeof path)
                    f = fopen(path, "rb");
                if (f)
                    fclose(f);
                else
                    fail(p, (size_t)(at - p->html),
                         "a link to a file that is not there: %s", target);
                continue;
            }
            const page *t = find_page(target);
            if (!t) {
                fail(p, (size_t)(at - p->html), "a link to a page that is not there: %s",
                     target);
                continue;
            }
            if (anchor && anchor[0] && !has_anchor(t, anchor))
                fail(p, (size_t)(at - p->html),
                     "a link to an anchor that is not there: %s", anchor);
        }
    }
}

/* Some <a> of `p` goes to `target` and its text starts with `word`. */
static bool links_to(const page *p, const char *word, const char *target)
{
    const char *at = p->html;
    while ((at = find(at, "<a ")) != NULL) {
        const char *tag_end = find_char(at, '>');
        if (!tag_end)
            break;
        const char *href = find(at, "href=\"");
        if (href && href < tag_end && strncmp(href + 6, target, strlen(target)) == 0 &&
            (href[6 + strlen(target)] == '"' || href[6 + strlen(target)] == '#')) {
            char text[256];
            inner_text(at, "</a>", text, sizeof text);
            if (strncmp(text, word, strlen(word)) == 0)
                return true;
        }
        at = tag_end;
    }
    return false;
}

static bool is_chapter(const page *p)
{
    const char *n = p->name;
    return strncmp(n, "md_docs_", 8) == 0 && n[8] >= '0' && n[8] <= '9' && n[9] >= '0' &&
           n[9] <= '9' && n[10] == '_';
}

static void check_navigation(void)
{
    const page *chapters[100];
    size_t n = 0;
    for (size_t i = 0; i < npages && n < 100; i++)
        if (is_chapter(&pages[i]))
            chapters[n++] = &pages[i];
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && !links_to(chapters[i], "Previous", chapters[i - 1]->name))
            fail(chapters[i], 0, "no \"Previous\" link to %s", chapters[i - 1]->name);
        if (i + 1 < n && !links_to(chapters[i], "Next", chapters[i + 1]->name))
            fail(chapters[i], 0, "no \"Next\" link to %s", chapters[i + 1]->name);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bookcheck DIR [SUBDIR...]\n");
        return 2;
    }
    int status = load_dir(argv[1], NULL);
    for (int i = 2; status == 0 && i < argc; i++)
        status = load_dir(argv[1], argv[i]);
    if (status == 0 && npages == 0) {
        fprintf(stderr, "bookcheck: no pages in %s\n", argv[1]);
        status = -1;
    }
    if (status == 0) {
        qsort(pages, npages, sizeof *pages, compare_names);
        for (size_t i = 0; i < npages && status == 0; i++) {
            prepare(&pages[i]);
            if (!index_anchors(&pages[i])) {
                fprintf(stderr, "bookcheck: out of memory\n");
                status = -1;
            }
        }
    }
    if (status == 0) {
        for (size_t i = 0; i < npages; i++) {
            check_text(&pages[i]);
            check_headings(&pages[i]);
            check_links(&pages[i], argv[1]);
        }
        check_navigation();
        printf("%zu pages, %lu problems\n", npages, problems);
    }
    for (size_t i = 0; i < npages; i++) {
        free(pages[i].anchor_text);
        free((void *)pages[i].anchors);
        free(pages[i].name);
        free(pages[i].html);
        free(pages[i].text);
    }
    free(pages);
    if (status != 0)
        return 2;
    return problems ? 1 : 0;
}
