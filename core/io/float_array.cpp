#include "io/float_array.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace tp {

int byteSize(StoredFloat type) {
    switch (type) {
        case StoredFloat::Float16:
        case StoredFloat::BFloat16:
            return 2;
        case StoredFloat::Float32:
            return 4;
        case StoredFloat::Float64:
            return 8;
    }
    return 0;
}

std::string_view toString(StoredFloat type) {
    switch (type) {
        case StoredFloat::Float16:
            return "float16";
        case StoredFloat::BFloat16:
            return "bfloat16";
        case StoredFloat::Float32:
            return "float32";
        case StoredFloat::Float64:
            return "float64";
    }
    return "";
}

float float16ToFloat32(std::uint16_t bits) {
    const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1fu;
    const std::uint32_t mantissa = bits & 0x3ffu;
    if (exponent == 0) {
        // Zero or subnormal: mantissa * 2^-24, exact in float32.
        const float magnitude = std::ldexp(float(mantissa), -24);
        return sign ? -magnitude : magnitude;
    }
    if (exponent == 0x1f)  // infinity or NaN, payload kept
        return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    // Rebias the exponent from 15 to 127.
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

float bfloat16ToFloat32(std::uint16_t bits) {
    return std::bit_cast<float>(std::uint32_t(bits) << 16);
}

namespace {

template <typename Unsigned>
Unsigned loadUnsigned(const unsigned char* bytes, bool bigEndian) {
    Unsigned value = 0;
    for (std::size_t i = 0; i < sizeof(Unsigned); ++i) {
        const std::size_t shift = bigEndian ? (sizeof(Unsigned) - 1 - i) : i;
        value |= Unsigned(bytes[i]) << (8 * shift);
    }
    return value;
}

}  // namespace

std::int64_t decodeFloats(const unsigned char* bytes, std::int64_t count, StoredFloat type,
                          bool bigEndian, float* out) {
    const int size = byteSize(type);
    if (type == StoredFloat::Float32 && !bigEndian && std::endian::native == std::endian::little) {
        std::memcpy(out, bytes, std::size_t(count) * 4);
        return 0;
    }
    std::int64_t overflowed = 0;
    for (std::int64_t i = 0; i < count; ++i) {
        const unsigned char* at = bytes + i * size;
        switch (type) {
            case StoredFloat::Float16:
                out[i] = float16ToFloat32(loadUnsigned<std::uint16_t>(at, bigEndian));
                break;
            case StoredFloat::BFloat16:
                out[i] = bfloat16ToFloat32(loadUnsigned<std::uint16_t>(at, bigEndian));
                break;
            case StoredFloat::Float32:
                out[i] = std::bit_cast<float>(loadUnsigned<std::uint32_t>(at, bigEndian));
                break;
            case StoredFloat::Float64: {
                const double value =
                    std::bit_cast<double>(loadUnsigned<std::uint64_t>(at, bigEndian));
                out[i] = float(value);
                overflowed += std::isfinite(value) && std::isinf(out[i]);
                break;
            }
        }
    }
    return overflowed;
}

std::string conversionNotice(StoredFloat type, std::int64_t overflowed) {
    switch (type) {
        case StoredFloat::Float32:
            return "";
        case StoredFloat::Float64:
            return "converted from float64 to float32 (rounded to the nearest float32)" +
                   (overflowed == 0
                        ? std::string()
                        : "; " + std::to_string(overflowed) +
                              (overflowed == 1 ? " of its values is" : " of its values are") +
                              " beyond float32's range and became infinite");
        case StoredFloat::Float16:
        case StoredFloat::BFloat16:
            return "converted from " + std::string(toString(type)) + " to float32 (exactly)";
    }
    return "";
}

std::optional<std::int64_t> elementCount(const std::vector<std::int64_t>& shape) {
    for (const std::int64_t dim : shape)
        if (dim < 0)
            return std::nullopt;
    // A zero dimension makes the product 0, however large the other dimensions are.
    for (const std::int64_t dim : shape)
        if (dim == 0)
            return 0;
    std::int64_t count = 1;
    for (const std::int64_t dim : shape) {
        if (count > std::numeric_limits<std::int64_t>::max() / dim)
            return std::nullopt;
        count *= dim;
    }
    return count;
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace tp
