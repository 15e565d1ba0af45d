// A thin C interface to RapidJSON's streaming (SAX) reader for seed-shaped files: an array of
// objects, handed over one entry at a time with the values of the keys the caller names, so
// that a file of any size is read in a small, fixed amount of memory. The caller checks each
// value against its field's rules. Anything else in the document (a syntax error, a trailing
// comma, a value of a named key that is neither text, a whole number nor null, a key given
// twice) makes it give up, and the caller reads the file the thorough way, which says exactly
// what and where the problem is. Keys the caller does not name are skipped, whatever they hold.
#ifndef C_SEED_PARSER_H
#define C_SEED_PARSER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The entry has no such key.
#define SEED_PARSER_ABSENT 0
/// The key's value is null.
#define SEED_PARSER_NULL 1
/// The key's value is text: `text` and `length`.
#define SEED_PARSER_TEXT 2
/// The key's value is a whole number that fits in 64 bits: `number`.
#define SEED_PARSER_NUMBER 3

/// The value of one named key in one entry; text is UTF-8, valid only during the callback.
typedef struct {
    int kind;
    const char *text;
    size_t length;
    int64_t number;
} seed_parser_value;

/// One entry: a value for each key named, in the order named.
typedef struct {
    const seed_parser_value *values;
    /// How many bytes of the document have been read so far (for progress).
    size_t bytes_read;
} seed_parser_entry;

/// Receives each entry in order; returns 0 to go on, anything else to stop.
typedef int (*seed_parser_callback)(void *context, const seed_parser_entry *entry);

/// The whole document was a plain array of objects and every callback returned 0.
#define SEED_PARSER_READ 0
/// Something else was found (or the file could not be opened): read it the thorough way.
#define SEED_PARSER_GAVE_UP 1
/// A callback returned non-zero.
#define SEED_PARSER_STOPPED 2

/// Reads the file at `path` through a small buffer, with the values of the `key_count` keys
/// at `keys`.
int seed_parser_read_file(
    const char *path, const char *const *keys, size_t key_count, void *context, seed_parser_callback entry);

/// Reads the `length` bytes at `bytes`, as `seed_parser_read_file`.
int seed_parser_read_bytes(
    const char *bytes, size_t length, const char *const *keys, size_t key_count, void *context,
    seed_parser_callback entry);

#ifdef __cplusplus
}
#endif

#endif
