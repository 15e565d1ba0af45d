// A thin C interface to simdjson for reading seed-shaped files fast: an array of objects with
// teamName, qualifyingZone, imageName and wins. Anything else in the document (a syntax error,
// a trailing comma, a wrong type) makes it give up, and the caller reads the file the thorough
// way, which says exactly what and where the problem is.
#ifndef C_SEED_PARSER_H
#define C_SEED_PARSER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One entry's fields as UTF-8 byte spans, valid only during the callback that receives them.
typedef struct {
    const char *team_name;
    size_t team_name_length;
    const char *qualifying_zone;
    size_t qualifying_zone_length;
    /// NULL when the entry has no imageName or a null one.
    const char *image_name;
    size_t image_name_length;
    int64_t wins;
} seed_parser_entry;

/// The bytes a buffer needs beyond its document for the parser to read it in place.
size_t seed_parser_padding(void);

/// Hands each entry of the document in `bytes` to `entry`, in order. Returns 0 when the whole
/// document was a plain array of such entries and every callback returned 0; non-zero as soon
/// as anything else is found or a callback returns non-zero. When `capacity` (the buffer's
/// size) leaves `seed_parser_padding()` bytes after the document, it is read in place;
/// otherwise it is copied first.
int seed_parser_parse(const char *bytes, size_t length, size_t capacity, void *context,
                      int (*entry)(void *context, const seed_parser_entry *entry));

#ifdef __cplusplus
}
#endif

#endif
