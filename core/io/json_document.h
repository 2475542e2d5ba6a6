#pragma once

// A JSON document as tpviz reads its files (scene files, hardware files, safetensors headers):
// nlohmann's parser, refusing a key given twice in one object, which JSON allows and nlohmann
// settles silently by keeping the last (a scene with two "batch" keys took the second).

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace tp {

/// The document, or why not, for the caller to word: `invalid`, nlohmann's reason the text is not
/// JSON (parse errors, and numbers beyond a double), escaped; or `repeatedKey`, the first key
/// given twice in one object, quoted and escaped ('batch'). The document is null then.
struct JsonDocumentRead {
    nlohmann::json document;
    std::string invalid;
    std::string repeatedKey;
    bool ok() const { return invalid.empty() && repeatedKey.empty(); }
};

/// Parses `text`, whose nesting the caller bounded first (jsonNestingProblem, io/file_text.h).
JsonDocumentRead parseJsonDocument(std::string_view text);

}  // namespace tp
