#pragma once

// tpviz-cli's output: a computed scene as readable text or as one JSON document.

#include "scene.h"

#include <string>

namespace tp {

/// Readable text: the config, each group with its range, equation and partial, the concatenated (or
/// summed) output, the reference and the verification. Arrays with more than 1000 values show
/// their first and last 3 rows and columns, as numpy prints them. With summary: no arrays.
std::string textReport(const Scene& scene, bool summary = false);

/// One JSON document with the keys config, kernel, bias, x, groups (index, columns or rows as
/// [start, stop], partial; row mode adds running_sum), output, reference and verification
/// (max_abs_error, max_rel_error, allclose, worst, rtol, atol). Arrays are nested lists, row-major;
/// float32 values in the shortest form that reads back to the same bits. With summary: config,
/// groups without arrays, and verification.
std::string jsonReport(const Scene& scene, bool summary = false);

}  // namespace tp
