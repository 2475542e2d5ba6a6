#pragma once

// NumPy's .npy format (format versions 1.0, 2.0 and 3.0), as numpy.lib.format documents it:
//   magic "\x93NUMPY", major and minor version bytes, the header length (uint16 LE in 1.0, uint32
//   LE in 2.0 and 3.0), then a Python dict literal {'descr': ..., 'fortran_order': ...,
//   'shape': (...), } padded with spaces and ended by '\n', then the raw array data.

#include "io/float_array.h"
#include "layer/eigen_types.h"

#include <cstdint>
#include <string>

namespace tp {

/// Data that is converted (float64, float16, big-endian) or stored in Fortran order is read and
/// placed this many elements at a time, so that reading holds the array once and a buffer.
inline constexpr std::int64_t kNpyReadChunkElements = std::int64_t(1) << 20;

class StagedFile;

/// Reads a 1-D or 2-D float array from an .npy file in one pass: float32 as is, float64 and
/// float16 converted to float32 (with a notice), little- or big-endian, C or Fortran order (the
/// result is always row-major). The header's shape times the item size must equal the bytes that
/// follow the header exactly, and the float32 result must fit in `maxBytes`. Every problem is one
/// sentence naming the file: missing file, bad magic, a header length past the file's end or
/// over numpy's 10,000 bytes, bad header, wrong dtype, unsupported dimensions, truncated or extra
/// data, over the memory budget.
FloatArrayRead readNpy(const std::string& path, std::int64_t maxBytes);

/// Writes values as a format 1.0 .npy file, dtype '<f4', C order, the header padded so that the
/// data starts at a multiple of 64 bytes. Shape (rows, cols), or (cols,) when `asVector` (then
/// values must have one row). Returns "" on success or a sentence naming the file and the reason.
/// The file is written through a StagedFile (a temporary renamed over `path`), never in part.
std::string writeNpy(const std::string& path, const MatrixCRef& values, bool asVector = false);

/// The same bytes written to `file`'s temporary only, for a caller that puts several files in
/// place together (StagedFile::commit).
std::string writeNpy(StagedFile& file, const MatrixCRef& values, bool asVector = false);

/// The bytes writeNpy writes, for callers that keep them in memory.
std::string npyBytes(const MatrixCRef& values, bool asVector = false);

}  // namespace tp
