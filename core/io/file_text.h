#pragma once

// What a file says, made safe to put in a message: its text escaped and cut to a readable length,
// long lists cut to their first entries, and JSON nesting bounded before a document is built.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tp {

/// The longest piece of a file's text a message quotes, in bytes; the rest is counted.
inline constexpr std::size_t kMaxQuotedBytes = 200;

/// `text` as a message may show it: control characters (U+0000 to U+001F, U+007F to U+009F) as
/// \u001b, a backslash as \\, bytes that are not UTF-8 as \xff; cut after `maxBytes` with
/// "... (N more bytes)". A terminal shown the result never obeys an escape sequence from a file.
std::string printableText(std::string_view text, std::size_t maxBytes = kMaxQuotedBytes);

/// A file's path as a message names it: printableText, cut only past 4096 bytes (PATH_MAX).
std::string printablePath(std::string_view path);

/// printableText in single quotes: 'fc.weight'.
std::string quotedText(std::string_view text);

/// The most entries of a list a message names; the rest are counted.
inline constexpr std::size_t kMaxListedNames = 10;

/// The names joined by ", ", each printableText (in quotes when `quoted`), the first
/// kMaxListedNames only, then " and N more"; "none" when there are none.
std::string listedNames(const std::vector<std::string>& names, bool quoted = false);

/// How deep a JSON document tpviz reads may nest: a scene file is 2 levels deep, a safetensors
/// header 3.
inline constexpr int kMaxJsonDepth = 64;

/// "" when the JSON text's arrays and objects nest at most kMaxJsonDepth deep (brackets inside
/// strings do not count), else "nested deeper than 64 levels (at byte N)". Checked before the
/// text is parsed, so that no reader, printer or copy of the document recurses past that depth.
std::string jsonNestingProblem(std::string_view text);

/// What the document of a JSON text takes in memory, at most, estimated from the text: its
/// values and keys (one per ',', ':', '[' and '{' outside strings, and one more) of
/// kJsonBytesPerValue each (an array element takes 16 bytes and room to grow, an object member a
/// map node of about 96 bytes), and its text once more for its strings. nlohmann::json frees a
/// document with an allocation of its own, so a document that runs out of memory while it is built
/// ends the program: the room is asked for first.
inline constexpr std::int64_t kJsonBytesPerValue = 64;
std::int64_t jsonDocumentBytes(std::string_view text);

/// "" when jsonDocumentBytes(text) can be allocated now (it is, and freed at once), else "needs
/// about 1.2 GiB in memory to be read, more than can be allocated".
std::string jsonMemoryProblem(std::string_view text);

}  // namespace tp
