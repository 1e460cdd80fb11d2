/* Fuzz target: the tree reader (tpTreeRecord_Read, which streams from a file: the input is
 * written to a scratch file first). Every input must be refused with a message naming the file,
 * or accepted; the format has no slack, so an accepted file written again gives the same bytes.
 * A random mutation almost never keeps the trailing checksum right, so each input is also tried
 * resealed (its last 8 bytes replaced by the checksum of the rest): that reaches the checks after
 * the checksum (names, parents, positions). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "tp/base.h"
#include "tp/plan.h"

static void fuzz_tree(const uint8_t *data, size_t size)
{
    char in[1024], out[1024], err[1024] = "";
    strcpy(in, tpFuzz_Path("in.tree"));
    strcpy(out, tpFuzz_Path("out.tree"));
    tpFuzz_WriteFile(in, data, size);
    tpTreeRecord rec;
    if (!tpTreeRecord_Read(&rec, in, err, sizeof err)) {
        if (strncmp(err, in, strlen(in)) != 0 || strlen(err) < strlen(in) + 3) {
            tpFuzz_Fail("refusal without a proper message: \"%s\"", err);
        }
        return;
    }
    if (!tpTreeRecord_Write(&rec, out, err, sizeof err)) {
        tpFuzz_Fail("the reader accepted a tree the writer refuses: %s", err);
    }
    size_t len;
    char *back = tpFuzz_ReadFile(out, &len);
    if (len != size || memcmp(back, data, size) != 0) {
        tpFuzz_Fail("a tree read and written again changed (%zu -> %zu bytes)", size, len);
    }
    free(back);
    tpTreeRecord_Free(&rec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_tree(data, size);
    if (size >= 8) {
        uint8_t *sealed = malloc(size);
        memcpy(sealed, data, size);
        uint64_t sum = tpHash_Fnv1a64(data, size - 8);
        for (int i = 0; i < 8; ++i) {
            sealed[size - 8 + i] = (uint8_t)(sum >> (8 * i));
        }
        fuzz_tree(sealed, size);
        free(sealed);
    }
    return 0;
}
