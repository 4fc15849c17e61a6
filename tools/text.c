/*
** text.c -- strings for display: their width, made safe, cut to fit.
**
** Task names are UTF-8 ("नमस्ते" is a fine name), and both pictures need to
** know how wide a name is: the ASCII one to pad its label column, the SVG
** one to make room for it. A terminal shows most characters one column
** wide, combining marks (such as the Devanagari virama and vowel signs) on
** top of the character before them, and East Asian characters two columns
** wide. The tables below hold the common ranges of the last two kinds;
** they are an approximation of Unicode's tables (what wcwidth() reads),
** kept small on purpose, and they make the output the same on every
** machine, which wcwidth() and the locale would not.
*/
#include "timeline.h"

#include <stdint.h>
#include <string.h>

typedef struct range {
    uint32_t first, last;
} range;

/* Characters that take no column of their own: combining marks, the
 * zero-width space and joiners, variation selectors. */
static const range zero_width[] = {
    {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A},
    {0x064B, 0x065F}, {0x0670, 0x0670}, {0x0900, 0x0902}, {0x093A, 0x093A},
    {0x093C, 0x093C}, {0x0941, 0x0948}, {0x094D, 0x094D}, {0x0951, 0x0957},
    {0x0962, 0x0963}, {0x200B, 0x200F}, {0x20D0, 0x20FF}, {0xFE00, 0xFE0F},
    {0xFE20, 0xFE2F}, {0xFEFF, 0xFEFF},
};

/* Characters that take two columns: CJK, Hangul, full-width forms, emoji. */
static const range double_width[] = {
    {0x1100, 0x115F},   {0x2E80, 0x303E},   {0x3041, 0x33FF}, {0x3400, 0x4DBF},
    {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},   {0xAC00, 0xD7A3}, {0xF900, 0xFAFF},
    {0xFE30, 0xFE4F},   {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6}, {0x1F300, 0x1F64F},
    {0x1F900, 0x1F9FF}, {0x20000, 0x3FFFD},
};

static bool in_ranges(const range *ranges, size_t n, uint32_t cp)
{
    for (size_t i = 0; i < n; i++)
        if (cp >= ranges[i].first && cp <= ranges[i].last)
            return true;
    return false;
}

/*
** Decodes the UTF-8 character at `s` (which is not at its NUL): returns its
** length in bytes, with the code point in *cp, or 1 with *cp = UINT32_MAX
** if the bytes are not valid UTF-8 (a --title can be anything).
*/
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
    size_t n;
    uint32_t least;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if ((s[0] & 0xE0) == 0xC0)
        n = 2, *cp = s[0] & 0x1Fu, least = 0x80;
    else if ((s[0] & 0xF0) == 0xE0)
        n = 3, *cp = s[0] & 0x0Fu, least = 0x800;
    else if ((s[0] & 0xF8) == 0xF0)
        n = 4, *cp = s[0] & 0x07u, least = 0x10000;
    else
        n = 0, least = 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) { /* also stops at the NUL */
            n = 0;
            break;
        }
        *cp = *cp << 6 | (s[i] & 0x3Fu);
    }
    if (n == 0 || *cp < least || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF)) {
        *cp = UINT32_MAX;
        return 1;
    }
    return n;
}

/* The columns a character takes, or -1 if it must be replaced: control
 * characters, broken UTF-8, and the two non-characters XML forbids. */
static int char_width(uint32_t cp)
{
    if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || cp == 0xFFFE || cp == 0xFFFF ||
        cp == UINT32_MAX)
        return -1;
    if (cp < 0x300) /* Latin: the common case, and in no table */
        return 1;
    if (in_ranges(zero_width, sizeof zero_width / sizeof zero_width[0], cp))
        return 0;
    if (in_ranges(double_width, sizeof double_width / sizeof double_width[0], cp))
        return 2;
    return 1;
}

int text_width(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    int cols = 0;
    while (*p != '\0') {
        uint32_t cp;
        p += utf8_decode(p, &cp);
        int w = char_width(cp);
        cols += w < 0 ? 1 : w;
    }
    return cols;
}

/*
** Copies `s` into `out`, character by character, while the columns fit.
** When the whole string does not fit, room is kept for the ellipsis. A
** combining mark goes with the character before it, since it takes no
** column; `out` running out of bytes cuts the string too.
*/
int text_fit(const char *s, int max_cols, const char *ellipsis, char *out, size_t size)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = 0, tail = strlen(ellipsis);
    int tail_cols = text_width(ellipsis);
    int room = text_width(s) <= max_cols ? max_cols : max_cols - tail_cols;
    int cols = 0;
    if (size == 0)
        return 0;
    while (*p != '\0') {
        uint32_t cp;
        size_t len = utf8_decode(p, &cp);
        int w = char_width(cp);
        const char *bytes = w < 0 ? "?" : (const char *)p;
        size_t blen = w < 0 ? 1 : len;
        w = w < 0 ? 1 : w;
        if (cols + w > room || n + blen + tail >= size)
            break;
        memcpy(out + n, bytes, blen);
        n += blen;
        cols += w;
        p += len;
    }
    if (*p != '\0' && cols + tail_cols <= max_cols && n + tail < size) {
        memcpy(out + n, ellipsis, tail);
        n += tail;
        cols += tail_cols;
    }
    out[n] = '\0';
    return cols;
}

/* Seconds with up to six decimals (one µs), without trailing zeros. */
void format_seconds(double us, char *buf, size_t size)
{
    snprintf(buf, size, "%.6f", us / 1e6);
    char *point = strchr(buf, '.');
    if (point == NULL)
        return;
    char *end = point + strlen(point);
    while (end > point + 1 && end[-1] == '0')
        end--;
    if (end == point + 1)
        end = point;
    *end = '\0';
}
