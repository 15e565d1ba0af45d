#include "CSeedParser.h"

#include <simdjson.h>
#include <string_view>

namespace {

/// Reads one entry object into `out`; false for anything the thorough reader must judge.
bool read_entry(simdjson::ondemand::object object, seed_parser_entry &out) {
    bool has_name = false, has_zone = false, has_wins = false, has_image = false;
    out.image_name = nullptr;
    out.image_name_length = 0;
    for (auto field : object) {
        std::string_view key;
        if (field.unescaped_key().get(key)) return false;
        auto value = field.value();
        if (key == "teamName" || key == "qualifyingZone") {
            bool &seen = key == "teamName" ? has_name : has_zone;
            std::string_view text;
            if (seen || value.get_string().get(text)) return false;
            seen = true;
            if (key == "teamName") {
                out.team_name = text.data();
                out.team_name_length = text.size();
            } else {
                out.qualifying_zone = text.data();
                out.qualifying_zone_length = text.size();
            }
        } else if (key == "imageName") {
            if (has_image) return false;
            has_image = true;
            bool is_null = false;
            if (value.is_null().get(is_null)) return false;
            if (!is_null) {
                std::string_view text;
                if (value.get_string().get(text)) return false;
                out.image_name = text.data();
                out.image_name_length = text.size();
            }
        } else if (key == "wins") {
            if (has_wins || value.get_int64().get(out.wins)) return false;
            has_wins = true;
        }
        // Other keys are ignored, as the thorough reader ignores them.
    }
    return has_name && has_zone && has_wins;
}

}  // namespace

extern "C" size_t seed_parser_padding(void) { return simdjson::SIMDJSON_PADDING; }

extern "C" int seed_parser_parse(const char *bytes, size_t length, size_t capacity, void *context,
                                 int (*entry)(void *context, const seed_parser_entry *entry)) {
    simdjson::ondemand::parser parser;
    simdjson::padded_string copy;
    simdjson::padded_string_view view(bytes, length, capacity);
    if (capacity < length + simdjson::SIMDJSON_PADDING) {
        copy = simdjson::padded_string(bytes, length);
        view = copy;
    }
    simdjson::ondemand::document document;
    if (parser.iterate(view).get(document)) return 1;
    simdjson::ondemand::array array;
    if (document.get_array().get(array)) return 1;
    for (auto element : array) {
        simdjson::ondemand::object object;
        if (element.get_object().get(object)) return 1;
        seed_parser_entry out{};
        if (!read_entry(object, out)) return 1;
        if (entry(context, &out) != 0) return 1;
    }
    // Nothing may follow the array: past its end there is no location left.
    const char *after = nullptr;
    return document.current_location().get(after) ? 0 : 1;
}
