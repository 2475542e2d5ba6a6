#include "io/json_document.h"

#include "io/file_text.h"

#include <set>
#include <vector>

namespace tp {

JsonDocumentRead parseJsonDocument(std::string_view text) {
    using json = nlohmann::json;
    std::vector<std::set<std::string>> objects;  // the keys seen in each object being read
    std::string repeated;
    const json::parser_callback_t watch = [&](int, json::parse_event_t event, json& parsed) {
        if (event == json::parse_event_t::object_start) {
            objects.emplace_back();
        } else if (event == json::parse_event_t::object_end) {
            objects.pop_back();
        } else if (event == json::parse_event_t::key && !objects.empty() &&
                   !objects.back().insert(parsed.get<std::string>()).second && repeated.empty()) {
            repeated = parsed.get<std::string>();
        }
        return true;
    };
    JsonDocumentRead read;
    try {
        read.document = json::parse(text, watch);
    } catch (const json::exception& error) {
        read.invalid = printableText(error.what());
        return read;
    }
    if (!repeated.empty()) {
        read.document = json();
        read.repeatedKey = quotedText(repeated);
    }
    return read;
}

}  // namespace tp
