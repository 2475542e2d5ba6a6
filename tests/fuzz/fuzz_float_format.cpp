// Fuzzes the text forms of float32 values (float_format.h) with every bit pattern libFuzzer finds.
//
// Input: bytes 0-3 are the float32's bit pattern (in memory order, little-endian here); byte 4,
// when present, chooses formatFloatShort's digits, 1 to 128 (past the 105 significant digits of the
// longest exact float32, 2^-149, so every precision that changes the text is reached). Shorter
// inputs are ignored.
//
// The contracts checked, as float_format.h states them:
//   - formatFloat prints "nan" for every NaN, "inf" and "-inf" for the infinities, and for a finite
//     value the shortest decimal that reads back to the same float32: std::from_chars and strtof
//     both read the whole text back to the same bits, and no shorter text (fewer characters, in
//     the fixed or the scientific style, correctly rounded) reads back to that float32.
//   - formatFloatShort(value, digits) prints a finite value with `digits` significant digits: the
//     text reads back to the value rounded to `digits` significant digits (as printf's %.*e rounds
//     it). Its header promises nothing about non-finite values or signs (it prints -0 as "-0"), so
//     for those only the absence of crashes and sanitizer reports is checked.
//   - floatBitsHex prints the bit pattern as 8 lower-case hex digits.

#include "layer/float_format.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

void require(bool holds, const char* what, float value, const std::string& text) {
    if (holds)
        return;
    std::fprintf(stderr, "fuzz_float_format: %s\n  value bits %s, text '%s'\n", what,
                 tp::floatBitsHex(value).c_str(), text.c_str());
    std::abort();
}

// The significant digits of a decimal text such as "-1.25e-07" or "0.0031" or "1200": the digits of
// its mantissa without leading zeros and without trailing zeros.
int significantDigits(std::string_view text) {
    text = text.substr(0, text.find_first_of("eE"));
    std::string digits;
    for (char c : text)
        if (c >= '0' && c <= '9')
            digits += c;
    const auto first = digits.find_first_not_of('0');
    if (first == std::string::npos)
        return 0;
    const auto last = digits.find_last_not_of('0');
    return int(last - first + 1);
}

// `value` correctly rounded to `digits` significant digits, in %e form.
std::string roundedScientific(double value, int digits) {
    std::vector<char> buffer(std::size_t(digits) + 32);
    std::snprintf(buffer.data(), buffer.size(), "%.*e", digits - 1, value);
    return buffer.data();
}

// `value` correctly rounded to `decimals` digits after the point, in %f form.
std::string roundedFixed(double value, int decimals) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

// formatFloat gave `text`; a `candidate` with fewer characters must not read back to `value`.
void requireNotShorter(float value, const std::string& text, const std::string& candidate) {
    if (candidate.size() >= text.size())
        return;
    require(tp::bitsOfFloat(std::strtof(candidate.c_str(), nullptr)) != tp::bitsOfFloat(value),
            ("formatFloat is not the shortest: " + candidate + " reads back too").c_str(), value,
            text);
}

void checkFormatFloat(float value) {
    const std::string text = tp::formatFloat(value);
    if (std::isnan(value)) {
        require(text == "nan", "formatFloat(NaN) is not \"nan\"", value, text);
    } else if (std::isinf(value)) {
        require(text == (value > 0 ? "inf" : "-inf"), "formatFloat(inf) is not \"inf\" / \"-inf\"",
                value, text);
    }

    float fromChars = 0.0f;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), fromChars);
    require(ec == std::errc() && end == text.data() + text.size(),
            "std::from_chars does not read the whole text of formatFloat", value, text);
    char* strtofEnd = nullptr;
    const float fromStrtof = std::strtof(text.c_str(), &strtofEnd);
    require(strtofEnd == text.c_str() + text.size(),
            "strtof does not read the whole text of formatFloat", value, text);
    if (std::isnan(value)) {
        require(std::isnan(fromChars) && std::isnan(fromStrtof), "NaN does not read back as NaN",
                value, text);
        return;
    }
    require(tp::bitsOfFloat(fromChars) == tp::bitsOfFloat(value),
            "std::from_chars reads formatFloat's text back to other bits", value, text);
    require(tp::bitsOfFloat(fromStrtof) == tp::bitsOfFloat(value),
            "strtof reads formatFloat's text back to other bits", value, text);
    if (std::isinf(value))
        return;

    // Shortest in characters, as std::to_chars chooses between the fixed and the scientific
    // style: no shorter text in either style, correctly rounded, reads back to the same float32.
    // (Large integers print in full, e.g. "-73688912", being shorter than "-7.368891e+07".)
    const int digitsGiven = significantDigits(text);
    for (int digits = 1; digits < digitsGiven; ++digits)
        requireNotShorter(value, text, roundedScientific(value, digits));
    if (text.find('.') != std::string::npos && text.find('e') == std::string::npos) {
        const int decimals = int(text.size() - text.find('.') - 1);
        for (int fewer = 0; fewer < decimals; ++fewer)
            requireNotShorter(value, text, roundedFixed(value, fewer));
    }
}

void checkFormatFloatShort(float value, int digits) {
    const std::string text = tp::formatFloatShort(value, digits);
    require(!text.empty(), "formatFloatShort printed nothing", value, text);
    if (!std::isfinite(value))
        return;
    require(significantDigits(text) <= digits,
            ("formatFloatShort printed more than " + std::to_string(digits) + " digits").c_str(),
            value, text);
    char* end = nullptr;
    const double back = std::strtod(text.c_str(), &end);
    require(end == text.c_str() + text.size(), "formatFloatShort's text is not one number", value,
            text);
    const std::string rounded = roundedScientific(value, digits);
    require(back == std::strtod(rounded.c_str(), nullptr),
            ("formatFloatShort(value, " + std::to_string(digits) +
             ") is not the value rounded to " + std::to_string(digits) + " digits, " + rounded)
                .c_str(),
            value, text);
}

void checkBitsHex(float value) {
    const std::string text = tp::floatBitsHex(value);
    require(text.size() == 8 && text.find_first_not_of("0123456789abcdef") == std::string::npos,
            "floatBitsHex is not 8 lower-case hex digits", value, text);
    require(std::strtoul(text.c_str(), nullptr, 16) == tp::bitsOfFloat(value),
            "floatBitsHex does not spell the bit pattern", value, text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 4)
        return 0;
    std::uint32_t bits = 0;
    std::memcpy(&bits, data, 4);
    const float value = tp::floatFromBits(bits);
    require(tp::bitsOfFloat(value) == bits, "floatFromBits / bitsOfFloat lose bits", value, "");

    checkFormatFloat(value);
    checkBitsHex(value);
    checkFormatFloatShort(value, 3);
    if (size >= 5)
        checkFormatFloatShort(value, 1 + data[4] % 128);
    return 0;
}
