#include "layer/float_format.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace tp {

std::string formatFloat(float value) {
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

std::string formatDouble(double value) {
    if (std::isnan(value))
        return "nan";  // NaN's sign carries no meaning; to_chars would print "-nan" for some
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

std::string formatFloatShort(float value, int digits) {
    char buffer[48];
    const int length = std::snprintf(buffer, sizeof buffer, "%.*g", digits, double(value));
    if (length < int(sizeof buffer))
        return buffer;
    // Many digits outgrow the buffer (2^-149 alone has 105 significant digits): print again, sized.
    std::string text(std::size_t(length), '\0');
    std::snprintf(text.data(), text.size() + 1, "%.*g", digits, double(value));
    return text;
}

std::string floatBitsHex(float value) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%08x", bitsOfFloat(value));
    return buffer;
}

float floatFromBits(std::uint32_t bits) {
    return std::bit_cast<float>(bits);
}

std::uint32_t bitsOfFloat(float value) {
    return std::bit_cast<std::uint32_t>(value);
}

}  // namespace tp
