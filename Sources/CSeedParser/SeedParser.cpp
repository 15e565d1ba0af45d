#include "CSeedParser.h"

#include <cstdio>
#include <string>

#include <rapidjson/filereadstream.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

namespace {

/// Follows RapidJSON's events for `[ {entry}, … ]`, collecting one entry at a time. Returning
/// false from an event stops the reader; `stopped_by_callback` tells a callback's stop from a
/// give-up.
template <typename Stream>
class EntryHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, EntryHandler<Stream>> {
  public:
    EntryHandler(const Stream &stream, void *context, seed_parser_callback callback)
        : stream_(stream), context_(context), callback_(callback) {}

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
            has_name_ = has_zone_ = has_wins_ = has_image_ = image_is_null_ = false;
            field_ = Field::none;
            return true;
        }
        return enter_unknown_value();
    }
    bool Key(const char *text, rapidjson::SizeType length, bool) {
        if (depth_ > 2) return true;
        std::string_view key(text, length);
        field_ = key == "teamName" ? Field::name
            : key == "qualifyingZone" ? Field::zone
            : key == "imageName" ? Field::image
            : key == "wins" ? Field::wins
            : Field::other;
        return true;
    }
    bool EndObject(rapidjson::SizeType) {
        if (depth_ > 2) return leave_unknown_value();
        depth_ = 1;
        if (!has_name_ || !has_zone_ || !has_wins_) return false;
        seed_parser_entry entry{};
        entry.team_name = name_.data();
        entry.team_name_length = name_.size();
        entry.qualifying_zone = zone_.data();
        entry.qualifying_zone_length = zone_.size();
        if (has_image_ && !image_is_null_) {
            entry.image_name = image_.data();
            entry.image_name_length = image_.size();
        }
        entry.wins = wins_;
        entry.bytes_read = stream_.Tell();
        if (callback_(context_, &entry) != 0) {
            stopped_by_callback = true;
            return false;
        }
        return true;
    }

    bool String(const char *text, rapidjson::SizeType length, bool) {
        if (depth_ != 2) return depth_ > 2;
        switch (field_) {
        case Field::name: return take(has_name_, name_, text, length);
        case Field::zone: return take(has_zone_, zone_, text, length);
        case Field::image:
            if (has_image_) return false;
            has_image_ = true;
            image_.assign(text, length);
            return true;
        case Field::other: return true;
        default: return false;
        }
    }
    bool Null() {
        if (depth_ != 2) return depth_ > 2;
        if (field_ == Field::image && !has_image_) return has_image_ = image_is_null_ = true;
        return field_ == Field::other;
    }
    bool Int(int value) { return whole_number(value); }
    bool Int64(int64_t value) { return whole_number(value); }
    bool Uint(unsigned value) { return whole_number(value); }
    bool Uint64(uint64_t value) { return value <= INT64_MAX ? whole_number(int64_t(value)) : other_value(); }
    // Fractions, booleans and the rest are only right under a key the entry ignores.
    bool Default() { return other_value(); }

  private:
    enum class Field { none, name, zone, image, wins, other };

    bool take(bool &seen, std::string &into, const char *text, rapidjson::SizeType length) {
        if (seen) return false;
        seen = true;
        into.assign(text, length);
        return true;
    }
    bool whole_number(int64_t value) {
        if (depth_ != 2) return depth_ > 2;
        if (field_ == Field::other) return true;
        if (field_ != Field::wins || has_wins_) return false;
        has_wins_ = true;
        wins_ = value;
        return true;
    }
    bool other_value() { return depth_ > 2 || (depth_ == 2 && field_ == Field::other); }
    // Objects and arrays under keys the entry ignores are skipped whole.
    bool enter_unknown_value() {
        if (depth_ < 2 || (depth_ == 2 && field_ != Field::other)) return false;
        return ++depth_, true;
    }
    bool leave_unknown_value() { return --depth_, true; }

    const Stream &stream_;
    void *context_;
    seed_parser_callback callback_;
    int depth_ = 0;
    Field field_ = Field::none;
    bool has_name_ = false, has_zone_ = false, has_wins_ = false, has_image_ = false, image_is_null_ = false;
    std::string name_, zone_, image_;
    int64_t wins_ = 0;
};

/// Reads the whole stream (iteratively: deep nesting cannot exhaust the stack).
template <typename Stream> int read(Stream &stream, void *context, seed_parser_callback callback) {
    constexpr unsigned flags = rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;
    EntryHandler<Stream> handler(stream, context, callback);
    rapidjson::Reader reader;
    reader.Parse<flags>(stream, handler);
    if (handler.stopped_by_callback) return SEED_PARSER_STOPPED;
    return reader.HasParseError() ? SEED_PARSER_GAVE_UP : SEED_PARSER_READ;
}

}  // namespace

extern "C" int seed_parser_read_file(const char *path, void *context, seed_parser_callback entry) {
    FILE *file = std::fopen(path, "rb");
    if (file == nullptr) return SEED_PARSER_GAVE_UP;
    static thread_local char buffer[1 << 16];
    rapidjson::FileReadStream stream(file, buffer, sizeof buffer);
    int status = read(stream, context, entry);
    std::fclose(file);
    return status;
}

extern "C" int seed_parser_read_bytes(const char *bytes, size_t length, void *context, seed_parser_callback entry) {
    rapidjson::MemoryStream stream(bytes, length);
    return read(stream, context, entry);
}
