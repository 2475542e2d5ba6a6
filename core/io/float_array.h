#pragma once

// A float32 array read from a file (1-D or 2-D), and the float types array files store.

#include "layer/eigen_types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tp {

/// An array read from a file, held as float32.
struct FloatArray {
    std::vector<std::int64_t> shape;  ///< as the file states it: (n,) or (rows, cols)
    Matrix values;                    ///< (rows, cols) for 2-D; (1, n) for 1-D
    std::string notice;  ///< what was done to the stored values (conversion, transpose); or empty
};

/// The outcome of reading one array: the array, or one sentence naming the file and the reason.
struct FloatArrayRead {
    std::optional<FloatArray> array;
    std::string error;
};

/// The float types tpviz reads from files. Every one converts to float32: float16 and bfloat16
/// exactly, float64 rounded to the nearest float32.
enum class StoredFloat { Float16, BFloat16, Float32, Float64 };

/// Bytes per value: 2, 2, 4, 8.
int byteSize(StoredFloat type);

/// "float16", "bfloat16", "float32", "float64".
std::string_view toString(StoredFloat type);

/// The float32 value of an IEEE binary16 bit pattern (exact: every float16 is a float32).
float float16ToFloat32(std::uint16_t bits);

/// The float32 value of a bfloat16 bit pattern: the pattern as the upper half of a float32.
float bfloat16ToFloat32(std::uint16_t bits);

/// Decodes `count` values of `type` stored at `bytes` (little-endian unless `bigEndian`) into
/// `out[0..count)` as float32. Returns how many finite values became infinite: float64 values
/// beyond float32's range (the other types have none).
std::int64_t decodeFloats(const unsigned char* bytes, std::int64_t count, StoredFloat type,
                          bool bigEndian, float* out);

/// "" for float32 stored as float32; otherwise e.g. "converted from float64 to float32 (rounded to
/// the nearest float32)", and where `overflowed` values were beyond float32's range, "; 3 of its
/// values are beyond float32's range and became infinite".
std::string conversionNotice(StoredFloat type, std::int64_t overflowed = 0);

/// Number of elements of a shape: the product of its dimensions (1 for ()). nullopt when a
/// dimension is negative or the product exceeds INT64_MAX.
std::optional<std::int64_t> elementCount(const std::vector<std::int64_t>& shape);

/// Python's spelling of a shape: "(5,)", "(3, 4)", "()".
std::string shapeText(const std::vector<std::int64_t>& shape);

}  // namespace tp
