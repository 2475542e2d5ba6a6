#pragma once

// How tpviz writes a range, a slice, a shape and a count: one spelling for the app, the CLI and the
// reports.

#include "layer/eigen_types.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tp {

/// "4:8": the range [start, stop) as a Python slice.
std::string sliceText(IndexRange range);

/// "[4:8)": the range as a half-open interval, as group boundaries and the text report label it.
std::string rangeLabel(IndexRange range);

/// "2x8": a (rows, cols) shape as the equation line writes it.
std::string shapeText(Index rows, Index cols);

/// "(2, 8)": a (rows, cols) shape as numpy prints it.
std::string shapeTuple(Index rows, Index cols);

/// "(12,)": a 1-D shape of n elements as numpy prints it.
std::string shapeTuple(Index n);

/// "kernel[:, 4:8]": columns `range` of the 2-D array `name`.
std::string columnSlice(std::string_view name, IndexRange range);

/// "kernel[4:8, :]": rows `range` of the 2-D array `name`.
std::string rowSlice(std::string_view name, IndexRange range);

/// "bias[4:8]": elements `range` of the 1-D array `name`.
std::string vectorSlice(std::string_view name, IndexRange range);

/// "1 ring step", "3 ring steps": n and the noun, which takes an "s" unless n is 1.
std::string countText(std::int64_t n, std::string_view noun);

}  // namespace tp
