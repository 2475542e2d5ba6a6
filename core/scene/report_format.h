#pragma once

// The pieces of tpviz-cli's reports that more than one part of a report writes: arrays as text
// and as JSON, figures, and a check's verdict as a JSON object.

#include "layer/eigen_types.h"
#include "layer/verification.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <string>

namespace tp {

/// A JSON value whose objects keep their keys in the order they were added.
using Json = nlohmann::ordered_json;

/// numpy-style summarised printing of a matrix, one row a line after `indent`: past 1000 values,
/// the first and last 3 rows and columns.
void writeMatrix(std::ostringstream& out, const MatrixCRef& m, const std::string& indent);

/// A matrix as nested JSON lists, row-major, each float32 in its shortest form (null when not
/// finite); a vector as one list.
void writeJsonMatrix(std::ostream& out, const MatrixCRef& m);
void writeJsonVector(std::ostream& out, const RowVectorCRef& v);

/// A figure with 3 significant digits ("%.3g"); a ratio the same, or "nan".
std::string threeDigits(double value);
std::string ratioText(double ratio);

/// "512 bytes", or past a KiB "3072 bytes (3.0 KiB)".
std::string bytesText(std::int64_t bytes);

/// `text` filled with spaces to `width` characters (left as it is when longer): a table's cell.
std::string padded(std::string text, std::size_t width);

/// A figure in JSON: the number, or null for NaN and infinities.
Json jsonNumber(double value);

/// A check in words: the verdict, then the rule and the figures, one line each.
std::string verificationText(const Verification& v);

/// A text in JSON, null when it is empty.
Json jsonText(const std::string& text);

/// One check in a line: "dx (K = features = 12): passed, the largest error 0.01 of its rounding
/// bound", FAILED or INCONCLUSIVE with the reason, or "every element bit-identical ...".
std::string verdictLine(const std::string& what, const Verification& v);

/// A check as the JSON report's "verification" object: verdict, passed, rule and every figure.
Json verificationJson(const Verification& v);

}  // namespace tp
