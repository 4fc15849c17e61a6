/*
** slab.c -- memory: the allocator every allocation goes through (which a
** test may swap, taal_set_allocator()), and chapter 08's slab that task
** blocks are cut from (task.c takes and gives back blocks; the loop's
** close frees the chunks). Until chapter 08 both were in loop.c; alone
** here, they call nothing of the rest of the runtime.
**
** Task blocks come from a per-loop slab. A block of size class k
** (16 * (k + 1) bytes, the header and the frame rounded up to 16) is cut
** from a chunk of the same class: one allocation of about 16 KiB holds
** dozens of blocks side by side, with no allocator's header between them
** (glibc puts 8 bytes before every malloc() block and rounds it to 16).
** A finished task's block goes on its class's free list, threaded through
** the free blocks themselves, for the next task of the same size: a warm
** spawn is a pointer pop, with no malloc() and no free(). Chunks are freed
** when the loop closes, and a chunk that still holds a task the program
** kept (taal_loop_close() in taal.h) when the last of those is released.
** Blocks larger than the largest class come from the allocator, one each.
**
** A block on a free list is not freed memory as far as C is concerned, so
** AddressSanitizer and valgrind would no longer catch a use of a task after
** it was freed. We tell them: the block is "poisoned" (ASan) or marked
** inaccessible (valgrind) while it is on the list, and a stray read of it
** fails exactly as a read of freed memory would. Chapter 08: the valgrind
** requests cost about 25 instructions a spawn even where valgrind is not
** running, so the optimised builds (Release, MinSizeRel) leave them out;
** the Debug build, which the valgrind preset uses, keeps them
** (CMakeLists.txt). AddressSanitizer's poisoning is in every ASan build.
*/
#include "internal.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* ---- memory ------------------------------------------------------------- */

static taal_allocator allocator = {malloc, realloc, free};

int taal_set_allocator(const taal_allocator *replacement)
{
    if (replacement == NULL) {
        allocator = (taal_allocator){malloc, realloc, free};
        return TAAL_OK;
    }
    if (!replacement->malloc || !replacement->realloc || !replacement->free)
        return TAAL_EINVAL;
    allocator = *replacement;
    return TAAL_OK;
}

void *taal__alloc(size_t size)
{
    return allocator.malloc(size);
}

void *taal__realloc(void *ptr, size_t size)
{
    return allocator.realloc(ptr, size);
}

void taal__free(void *ptr)
{
    if (ptr != NULL)
        allocator.free(ptr);
}

/* ---- the slab of task blocks ---------------------------------------------- */

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TAAL_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TAAL_ASAN 1
#endif

#if defined(TAAL_ASAN)
#include <sanitizer/asan_interface.h>
#endif
#if defined(TAAL_HAVE_VALGRIND)
#include <valgrind/memcheck.h>
#endif

static void block_forbid(void *block, size_t size)
{
#if defined(TAAL_ASAN)
    ASAN_POISON_MEMORY_REGION(block, size);
#endif
#if defined(TAAL_HAVE_VALGRIND)
    VALGRIND_MAKE_MEM_NOACCESS(block, size);
#endif
    (void)block;
    (void)size;
}

/* The block may be used again: its first word, the free list's link, is
 * readable; the rest is as good as fresh from malloc(). */
static void block_allow(void *block, size_t size)
{
#if defined(TAAL_ASAN)
    ASAN_UNPOISON_MEMORY_REGION(block, size);
#endif
#if defined(TAAL_HAVE_VALGRIND)
    VALGRIND_MAKE_MEM_UNDEFINED(block, size);
    VALGRIND_MAKE_MEM_DEFINED(block, sizeof(void *));
#endif
    (void)block;
    (void)size;
}

/* A chunk of the slab: this header, then `count` blocks, `size` bytes apart. */
typedef struct slab_chunk {
    struct slab_chunk *next; /* the loop's chunks, newest first */
    uint32_t size;           /* from one block to the next */
    uint32_t count;          /* how many blocks it holds */
    uint32_t held;           /* after the close: blocks the program still holds */
} slab_chunk;

enum { SLAB_CHUNK_BYTES = 16384 - 16 }; /* with malloc's header, 16 KiB */

#define CHUNK_HEADER_SIZE \
    ((sizeof(slab_chunk) + TAAL__MAX_ALIGN - 1) / TAAL__MAX_ALIGN * TAAL__MAX_ALIGN)

static size_t round16(size_t size)
{
    return (size + 15) & ~(size_t)15;
}

static char *chunk_blocks(slab_chunk *chunk)
{
    return (char *)chunk + CHUNK_HEADER_SIZE;
}

/* Under AddressSanitizer, a poisoned gap of 16 bytes follows every block
 * of a chunk, as malloc()'s red zones did: a frame overrun into the next
 * task's block is still reported. (Under valgrind, an overrun into a free
 * neighbour is; into a live one no longer is.) */
#if defined(TAAL_ASAN)
#define SLAB_GAP 16
#else
#define SLAB_GAP 0
#endif

/* The free list of class k is empty: a new chunk of blocks of `size`
 * bytes. Its first block is returned, the others go on the free list,
 * lowest address first. NULL if the allocation fails. */
TAAL__COLD static void *chunk_new(taal_loop *loop, size_t k, size_t size)
{
    size_t stride = size + SLAB_GAP;
    size_t count = (SLAB_CHUNK_BYTES - CHUNK_HEADER_SIZE) / stride;
    slab_chunk *chunk = taal__alloc(CHUNK_HEADER_SIZE + count * stride);
    if (chunk == NULL)
        return NULL;
    chunk->size = (uint32_t)stride;
    chunk->count = (uint32_t)count;
    chunk->held = 0;
    chunk->next = loop->chunks;
    loop->chunks = chunk;
    char *blocks = chunk_blocks(chunk);
    for (size_t i = count - 1; i > 0; i--) {
        void *block = blocks + i * stride;
        *(void **)block = loop->free_blocks[k];
        loop->free_blocks[k] = block;
        block_forbid(block, stride);
    }
    if (SLAB_GAP > 0)
        block_forbid(blocks + size, SLAB_GAP);
    return blocks;
}

void *taal__block_get(taal_loop *loop, size_t size)
{
    size = round16(size);
    size_t k = size / 16 - 1;
    if (k >= TAAL_POOL_CLASSES)
        return taal__alloc(size);
    void *block = loop->free_blocks[k];
    if (block == NULL)
        return chunk_new(loop, k, size);
    block_allow(block, size);
    loop->free_blocks[k] = *(void **)block;
    return block;
}

void taal__block_put(taal_loop *loop, void *block, size_t size)
{
    size = round16(size);
    size_t k = size / 16 - 1;
    if (k >= TAAL_POOL_CLASSES) {
        taal__free(block);
        return;
    }
    *(void **)block = loop->free_blocks[k];
    loop->free_blocks[k] = block;
    block_forbid(block, size);
}

/* The chunk holding the slab block `block`: a walk over the chunks, done
 * only when the loop closes, for the blocks it keeps. The chunk found
 * moves to the front, since the next kept block is most likely in the
 * same one: a program that holds many tasks does not make the close walk
 * every chunk for each. (The addresses are compared as integers: C does
 * not order pointers into different objects.) */
static slab_chunk *chunk_of(taal_loop *loop, const void *block)
{
    uintptr_t at = (uintptr_t)block;
    slab_chunk *before = NULL;
    for (slab_chunk *c = loop->chunks; c != NULL; before = c, c = c->next) {
        uintptr_t first = (uintptr_t)chunk_blocks(c);
        if (at >= first && at - first < (uintptr_t)c->count * c->size) {
            if (before != NULL) {
                before->next = c->next;
                c->next = loop->chunks;
                loop->chunks = c;
            }
            return c;
        }
    }
    return NULL;
}

static void chunk_free(slab_chunk *chunk)
{
    block_allow(chunk, CHUNK_HEADER_SIZE + (size_t)chunk->count * chunk->size);
    taal__free(chunk);
}

/* The loop closes and the program keeps the task in `block` (see
 * taal_loop_close()): its chunk stays until the task is released. Returns
 * the chunk, which taal__block_put_orphan() needs then; NULL for a block
 * of the allocator's own. */
void *taal__block_keep(taal_loop *loop, void *block, size_t size)
{
    if (round16(size) / 16 - 1 >= TAAL_POOL_CLASSES)
        return NULL;
    slab_chunk *chunk = chunk_of(loop, block);
    if (chunk != NULL)
        chunk->held++;
    return chunk;
}

/* A block kept at the close is released: the chunk goes with the last. */
void taal__block_put_orphan(void *chunk, void *block)
{
    if (chunk == NULL) {
        taal__free(block);
        return;
    }
    slab_chunk *c = chunk;
    if (--c->held == 0)
        chunk_free(c);
}

/* The close, last: every chunk that holds no kept block is freed. */
void taal__slab_close(taal_loop *loop)
{
    for (size_t k = 0; k < TAAL_POOL_CLASSES; k++)
        loop->free_blocks[k] = NULL;
    slab_chunk *next;
    for (slab_chunk *c = loop->chunks; c != NULL; c = next) {
        next = c->next;
        if (c->held == 0)
            chunk_free(c);
    }
    loop->chunks = NULL;
}
