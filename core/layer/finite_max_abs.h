#pragma once

// The largest |element| of a matrix when every element is finite: the colour scale a picture of
// the kernel is drawn with, found without drawing it.

#include "layer/eigen_types.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>

namespace tp {

/// max |m(r, c)| over every element (0 when m is empty) when every element is finite, else
/// nothing (a NaN or an infinity anywhere). One pass over m, shared by the threads when m is
/// large; -0 and +0 both count as 0.
std::optional<float> finiteMaxAbs(const MatrixCRef& m);

/// The bits of +inf: the bits of |v| (the sign cleared) are at most this for every value but NaN,
/// and exactly this for an infinity.
inline constexpr std::int32_t kInfinityBits = 0x7F800000;

/// For a pass that reads the elements anyway: max(largestBits, the bits of |v| for each of the
/// n floats at run). The bits of |v| (the sign cleared) order as the values |v| do, and every NaN
/// or infinity lies at or above those of +inf, so the largest bits give both the largest |element|
/// and whether every element is finite (finiteMaxAbsFromBits). Signed integers (the sign bit is
/// clear), so that the compiler vectorises the maximum on every x86-64 CPU: SSE2 compares signed
/// 32-bit lanes, not unsigned ones. Start from 0.
inline std::int32_t maxAbsBits(const float* run, Index n, std::int32_t largestBits) {
    for (Index i = 0; i < n; ++i)
        largestBits = std::max(largestBits, std::bit_cast<std::int32_t>(run[i]) & 0x7FFFFFFF);
    return largestBits;
}

/// The largest |element| that maxAbsBits found when every element was finite, else nothing.
inline std::optional<float> finiteMaxAbsFromBits(std::int32_t largestBits) {
    return largestBits < kInfinityBits ? std::optional(std::bit_cast<float>(largestBits))
                                       : std::nullopt;
}

}  // namespace tp
