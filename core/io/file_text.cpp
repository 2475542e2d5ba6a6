#include "io/file_text.h"

#include "layer/layer_config.h"

#include <cstdint>
#include <cstdio>
#include <new>

namespace tp {
namespace {

// The length of the UTF-8 sequence starting text[at], and its code point; 0 when the bytes there
// are not well-formed UTF-8 (overlong forms, surrogates and values past U+10FFFF included).
std::size_t utf8Sequence(std::string_view text, std::size_t at, std::uint32_t& codePoint) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(at);
    std::size_t length = 0;
    std::uint32_t least = 0;
    if (lead < 0x80) {
        codePoint = lead;
        return 1;
    } else if ((lead & 0xe0) == 0xc0) {
        length = 2, codePoint = lead & 0x1f, least = 0x80;
    } else if ((lead & 0xf0) == 0xe0) {
        length = 3, codePoint = lead & 0x0f, least = 0x800;
    } else if ((lead & 0xf8) == 0xf0) {
        length = 4, codePoint = lead & 0x07, least = 0x10000;
    } else {
        return 0;
    }
    if (at + length > text.size())
        return 0;
    for (std::size_t i = 1; i < length; ++i) {
        if ((byte(at + i) & 0xc0) != 0x80)
            return 0;
        codePoint = codePoint << 6 | (byte(at + i) & 0x3f);
    }
    if (codePoint < least || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff))
        return 0;
    return length;
}

}  // namespace

std::string printableText(std::string_view text, std::size_t maxBytes) {
    std::string out;
    std::size_t at = 0;
    while (at < text.size() && at < maxBytes) {
        std::uint32_t codePoint = 0;
        const std::size_t length = utf8Sequence(text, at, codePoint);
        char escaped[8];
        if (length == 0) {
            std::snprintf(escaped, sizeof escaped, "\\x%02x", unsigned(std::uint8_t(text[at])));
            out += escaped;
            at += 1;
            continue;
        }
        if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint <= 0x9f)) {
            std::snprintf(escaped, sizeof escaped, "\\u%04x", unsigned(codePoint));
            out += escaped;
        } else if (codePoint == '\\') {
            out += "\\\\";
        } else {
            out.append(text.substr(at, length));
        }
        at += length;
    }
    if (at < text.size())
        out += "... (" + std::to_string(text.size() - at) + " more bytes)";
    return out;
}

std::string printablePath(std::string_view path) {
    return printableText(path, 4096);
}

std::string quotedText(std::string_view text) {
    return "'" + printableText(text) + "'";
}

std::string listedNames(const std::vector<std::string>& names, bool quoted) {
    if (names.empty())
        return "none";
    std::string list;
    for (std::size_t i = 0; i < names.size() && i < kMaxListedNames; ++i)
        list += (i == 0 ? "" : ", ") + (quoted ? quotedText(names[i]) : printableText(names[i]));
    if (names.size() > kMaxListedNames)
        list += " and " + std::to_string(names.size() - kMaxListedNames) + " more";
    return list;
}

std::string jsonNestingProblem(std::string_view text) {
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;  // the escaped character cannot end the string
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth)
                return "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels (at byte " +
                       std::to_string(i) + ")";
        } else if (c == ']' || c == '}') {
            --depth;  // a stray closer is the parser's to refuse
        }
    }
    return "";
}

std::int64_t jsonDocumentBytes(std::string_view text) {
    std::int64_t values = 1;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == ',' || c == ':' || c == '[' || c == '{') {
            ++values;
        }
    }
    return values * kJsonBytesPerValue + std::int64_t(text.size());
}

std::string jsonMemoryProblem(std::string_view text) {
    const std::int64_t bytes = jsonDocumentBytes(text);
    try {
        void* room = ::operator new(std::size_t(bytes));
        static_cast<volatile char*>(room)[0] = 0;  // the allocation must happen
        ::operator delete(room);
    } catch (const std::bad_alloc&) {
        return "needs about " + formatBytes(bytes) +
               " in memory to be read, more than can be allocated";
    }
    return "";
}

}  // namespace tp
