/*
** fuzz_replay.c -- runs the fuzz target on the files named on the command
** line, without libFuzzer.
**
** libFuzzer needs clang; this needs only a C compiler. It lets every build
** (gcc or clang, plain, sanitized or under valgrind) replay the seed corpus
** and every input the fuzzer ever found, as an ordinary test: the target
** calls abort() when the parser breaks a promise, and that fails the test.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
** Reads the whole file at `path` into a buffer of exactly its size (so that
** a sanitizer sees a read past its end); NULL if it cannot. The caller
** frees it.
*/
static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *bigger = realloc(buf, cap *= 2);
            if (bigger == NULL)
                free(buf);
            buf = bigger;
        }
    }
    int failed = ferror(f);
    fclose(f);
    if (buf == NULL || failed) {
        free(buf);
        return NULL;
    }
    /* Shrink to the exact size; a zero-byte file still gets a valid pointer. */
    uint8_t *exact = malloc(n > 0 ? n : 1);
    if (exact != NULL)
        memcpy(exact, buf, n);
    free(buf);
    *size = n;
    return exact;
}

int main(int argc, char **argv)
{
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        size_t size = 0;
        uint8_t *data = read_file(argv[i], &size);
        if (data == NULL) {
            fprintf(stderr, "fuzz_replay: cannot read %s\n", argv[i]);
            failed++;
            continue;
        }
        LLVMFuzzerTestOneInput(data, size); /* aborts on a broken promise */
        free(data);
    }
    printf("%d passed, %d failed\n", argc - 1 - failed, failed);
    return failed ? 1 : 0;
}
