#include "CSeedParser.h"

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/filereadstream.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

namespace {

/// Follows RapidJSON's events for `[ {entry}, … ]`, collecting one entry's values of the named
/// keys at a time. Returning false from an event stops the reader; `stopped_by_callback` tells
/// a callback's stop from a give-up.
template <typename Stream>
class EntryHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, EntryHandler<Stream>> {
  public:
    EntryHandler(
        const Stream &stream, const char *const *keys, size_t key_count, void *context, seed_parser_callback callback)
        : stream_(stream), keys_(keys, keys + key_count), texts_(key_count), values_(key_count), context_(context),
          callback_(callback) {}

    bool stopped_by_callback = false;

    bool StartArray() {
        if (depth_ == 0) return ++depth_, true;
        return enter_unknown_value();
    }
    bool EndArray(rapidjson::SizeType) {
        if (depth_ == 1) return --depth_, true;
        return leave_unknown_value();
    }
    bool StartObject() {
        if (depth_ == 1) {
            depth_ = 2;
            for (auto &value : values_) value.kind = SEED_PARSER_ABSENT;
            field_ = other;
            return true;
        }
        return enter_unknown_value();
    }
    bool Key(const char *text, rapidjson::SizeType length, bool) {
        if (depth_ > 2) return true;
        std::string_view key(text, length);
        field_ = other;
        for (size_t index = 0; index < keys_.size(); ++index) {
            if (keys_[index] == key) {
                field_ = index;
                break;
            }
        }
        return true;
    }
    bool EndObject(rapidjson::SizeType) {
        if (depth_ > 2) return leave_unknown_value();
        depth_ = 1;
        for (size_t index = 0; index < values_.size(); ++index) {
            if (values_[index].kind == SEED_PARSER_TEXT) {
                values_[index].text = texts_[index].data();
                values_[index].length = texts_[index].size();
            }
        }
        seed_parser_entry entry{values_.data(), stream_.Tell()};
        if (callback_(context_, &entry) != 0) {
            stopped_by_callback = true;
            return false;
        }
        return true;
    }

    bool String(const char *text, rapidjson::SizeType length, bool) {
        if (depth_ != 2) return depth_ > 2;
        if (field_ == other) return true;
        if (!take(SEED_PARSER_TEXT)) return false;
        texts_[field_].assign(text, length);
        return true;
    }
    bool Null() {
        if (depth_ != 2) return depth_ > 2;
        return field_ == other || take(SEED_PARSER_NULL);
    }
    bool Int(int value) { return whole_number(value); }
    bool Int64(int64_t value) { return whole_number(value); }
    bool Uint(unsigned value) { return whole_number(value); }
    bool Uint64(uint64_t value) { return value <= INT64_MAX ? whole_number(int64_t(value)) : other_value(); }
    // Fractions, booleans and the rest are only right under a key the entry ignores.
    bool Default() { return other_value(); }

  private:
    static constexpr size_t other = SIZE_MAX;

    /// Records that the current key holds a value of `kind`; false when it already held one.
    bool take(int kind) {
        if (values_[field_].kind != SEED_PARSER_ABSENT) return false;
        values_[field_].kind = kind;
        return true;
    }
    bool whole_number(int64_t value) {
        if (depth_ != 2) return depth_ > 2;
        if (field_ == other) return true;
        if (!take(SEED_PARSER_NUMBER)) return false;
        values_[field_].number = value;
        return true;
    }
    bool other_value() { return depth_ > 2 || (depth_ == 2 && field_ == other); }
    // Objects and arrays under keys the entry ignores are skipped whole.
    bool enter_unknown_value() {
        if (depth_ < 2 || (depth_ == 2 && field_ != other)) return false;
        return ++depth_, true;
    }
    bool leave_unknown_value() { return --depth_, true; }

    const Stream &stream_;
    std::vector<std::string_view> keys_;
    std::vector<std::string> texts_;
    std::vector<seed_parser_value> values_;
    void *context_;
    seed_parser_callback callback_;
    int depth_ = 0;
    size_t field_ = other;
};

/// Reads the whole stream (iteratively: deep nesting cannot exhaust the stack).
template <typename Stream>
int read(Stream &stream, const char *const *keys, size_t key_count, void *context, seed_parser_callback callback) {
    constexpr unsigned flags = rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;
    EntryHandler<Stream> handler(stream, keys, key_count, context, callback);
    rapidjson::Reader reader;
    reader.Parse<flags>(stream, handler);
    if (handler.stopped_by_callback) return SEED_PARSER_STOPPED;
    return reader.HasParseError() ? SEED_PARSER_GAVE_UP : SEED_PARSER_READ;
}

}  // namespace

extern "C" int seed_parser_read_file(
    const char *path, const char *const *keys, size_t key_count, void *context, seed_parser_callback entry) {
    FILE *file = std::fopen(path, "rb");
    if (file == nullptr) return SEED_PARSER_GAVE_UP;
    static thread_local char buffer[1 << 16];
    rapidjson::FileReadStream stream(file, buffer, sizeof buffer);
    int status = read(stream, keys, key_count, context, entry);
    std::fclose(file);
    return status;
}

extern "C" int seed_parser_read_bytes(
    const char *bytes, size_t length, const char *const *keys, size_t key_count, void *context,
    seed_parser_callback entry) {
    rapidjson::MemoryStream stream(bytes, length);
    return read(stream, keys, key_count, context, entry);
}
