#pragma once

// The safetensors format, as its specification (huggingface/safetensors README) describes it:
//   8 bytes: N, the header length, uint64 little-endian
//   N bytes: a JSON object { "TENSOR_NAME": {"dtype": "F32", "shape": [rows, cols],
//            "data_offsets": [begin, end]}, ..., "__metadata__": {"key": "value"} } (optional
//            metadata, strings only), starting with '{' and possibly padded with spaces
//   the rest: the byte buffer; offsets are relative to its start, tensors are little-endian and
//            C order, and together they cover the buffer exactly (no holes, no overlaps).

#include "io/float_array.h"
#include "layer/eigen_types.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tp {

/// One tensor a safetensors header describes.
struct SafetensorsTensor {
    std::string name;
    std::string dtype;                ///< as spelled in the file: "F32", "BF16", "I64", ...
    std::vector<std::int64_t> shape;  ///< any number of dimensions
    std::int64_t begin = 0;           ///< data_offsets, relative to the byte buffer
    std::int64_t end = 0;
};

/// A safetensors file's header, checked against the file's length.
struct SafetensorsIndex {
    std::vector<SafetensorsTensor> tensors;  ///< in the order of their data
    std::map<std::string, std::string> metadata;
    std::int64_t bufferStart = 0;  ///< 8 + N

    const SafetensorsTensor* find(const std::string& name) const;
    /// The names of the 2-D tensors, the ones a layer's kernel can come from, in data order.
    std::vector<std::string> twoDimensionalNames() const;
};

struct SafetensorsIndexRead {
    std::optional<SafetensorsIndex> index;
    std::string error;  ///< one sentence naming the file and the reason
};

/// Reads and checks a safetensors header: the length against the file's size and 100 MB, the JSON
/// (nested at most kMaxJsonDepth deep), every entry's keys and types, known dtypes, offsets in
/// range, matching dtype size * shape, covering the buffer without overlap.
SafetensorsIndexRead readSafetensorsIndex(const std::string& path);

/// Reads the tensor `name` (1-D or 2-D; F32 as is; F64, F16 and BF16 converted to float32 with a
/// notice) from a safetensors file. With `transpose`, a 2-D tensor (rows, cols) is returned as
/// (cols, rows): PyTorch stores a Linear layer's weight as (out, in), tpviz's kernel is (in, out).
/// Refuses a result over `maxBytes`.
FloatArrayRead readSafetensor(const std::string& path, const std::string& name, bool transpose,
                              std::int64_t maxBytes);

/// A tensor to write: values as float32, with its shape ((cols,) for a one-row vector).
struct NamedArray {
    std::string name;
    std::vector<std::int64_t> shape;
    Matrix values;
};

/// Writes the arrays as F32 tensors in the given order, with optional metadata, the header padded
/// with spaces to a multiple of 8 bytes. Returns "" or a sentence naming the file and the reason.
std::string writeSafetensors(const std::string& path, const std::vector<NamedArray>& arrays,
                             const std::map<std::string, std::string>& metadata = {});

}  // namespace tp
