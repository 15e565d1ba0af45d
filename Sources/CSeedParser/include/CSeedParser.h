// A thin C interface to RapidJSON's streaming (SAX) reader for seed-shaped files: an array of
// objects with teamName, qualifyingZone, imageName and wins, handed over one entry at a time
// so that a file of any size is read in a small, fixed amount of memory. Anything else in the
// document (a syntax error, a trailing comma, a wrong type) makes it give up, and the caller
// reads the file the thorough way, which says exactly what and where the problem is.
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
    /// How many bytes of the document have been read so far (for progress).
    size_t bytes_read;
} seed_parser_entry;

/// Receives each entry in order; returns 0 to go on, anything else to stop.
typedef int (*seed_parser_callback)(void *context, const seed_parser_entry *entry);

/// The whole document was a plain array of such entries and every callback returned 0.
#define SEED_PARSER_READ 0
/// Something else was found (or the file could not be opened): read it the thorough way.
#define SEED_PARSER_GAVE_UP 1
/// A callback returned non-zero.
#define SEED_PARSER_STOPPED 2

/// Reads the file at `path` through a small buffer.
int seed_parser_read_file(const char *path, void *context, seed_parser_callback entry);

/// Reads the `length` bytes at `bytes`.
int seed_parser_read_bytes(const char *bytes, size_t length, void *context, seed_parser_callback entry);

#ifdef __cplusplus
}
#endif

#endif
