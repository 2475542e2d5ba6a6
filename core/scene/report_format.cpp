#include "scene/report_format.h"

#include "layer/float_format.h"
#include "layer/layer_config.h"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <vector>

namespace tp {

// numpy-style summarised printing: past 1000 values, the first and last 3 of each axis.
void writeMatrix(std::ostringstream& out, const MatrixCRef& m, const std::string& indent) {
    constexpr Index kEdge = 3;
    const bool summarise = m.size() > 1000;
    auto shown = [&](Index n) {
        std::vector<Index> idx;
        for (Index i = 0; i < n; ++i)
            if (!summarise || n <= 2 * kEdge || i < kEdge || i >= n - kEdge)
                idx.push_back(i);
        return idx;
    };
    const auto rows = shown(m.rows());
    const auto cols = shown(m.cols());
    std::size_t width = 1;
    for (Index r : rows)
        for (Index c : cols)
            width = std::max(width, formatFloat(m(r, c)).size());
    for (std::size_t ri = 0; ri < rows.size(); ++ri) {
        if (ri > 0 && rows[ri] != rows[ri - 1] + 1)
            out << indent << "...\n";
        out << indent;
        for (std::size_t ci = 0; ci < cols.size(); ++ci) {
            if (ci > 0 && cols[ci] != cols[ci - 1] + 1)
                out << "  ...";
            const std::string v = formatFloat(m(rows[ri], cols[ci]));
            out << (ci > 0 ? "  " : "") << std::string(width - v.size(), ' ') << v;
        }
        out << '\n';
    }
}

namespace {

// A float32 in JSON: its shortest form, or null for NaN and infinities, which JSON cannot spell.
void writeJsonFloat(std::ostream& out, float value) {
    if (std::isfinite(value))
        out << formatFloat(value);
    else
        out << "null";
}

}  // namespace

void writeJsonMatrix(std::ostream& out, const MatrixCRef& m) {
    out << '[';
    for (Index r = 0; r < m.rows(); ++r) {
        out << (r ? ", [" : "[");
        for (Index c = 0; c < m.cols(); ++c) {
            if (c)
                out << ", ";
            writeJsonFloat(out, m(r, c));
        }
        out << ']';
    }
    out << ']';
}

void writeJsonVector(std::ostream& out, const RowVectorCRef& v) {
    out << '[';
    for (Index i = 0; i < v.size(); ++i) {
        if (i)
            out << ", ";
        writeJsonFloat(out, v(i));
    }
    out << ']';
}

std::string bytesText(std::int64_t bytes) {
    return bytes < 1024 ? std::to_string(bytes) + " bytes"
                        : std::to_string(bytes) + " bytes (" + formatBytes(bytes) + ")";
}

std::string threeDigits(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
    return buffer;
}

std::string ratioText(double ratio) {
    return std::isnan(ratio) ? std::string("nan") : threeDigits(ratio);
}

namespace {

std::string atText(Index row, Index col) {
    return "row " + std::to_string(row) + ", column " + std::to_string(col);
}

std::string allcloseText(const Verification& v) {
    return std::string("allclose ") + (v.allclose ? "yes" : "NO") + " (rtol " +
           formatDouble(v.tolerance.rtol) + ", atol " + formatDouble(v.tolerance.atol) + ")";
}

}  // namespace

std::string verificationText(const Verification& v) {
    const bool byAllclose = v.rule == CheckRule::Allclose;
    std::string text =
        std::string("verification: ") + (v.verdict == Verdict::Passed   ? "passed"
                                         : v.verdict == Verdict::Failed ? "FAILED"
                                                                        : "INCONCLUSIVE");
    if (!v.shapeMismatch.empty())
        return text + ": " + v.shapeMismatch + "; no element can be compared with the reference\n";
    if (v.nanElements > 0)
        text += ": " + std::to_string(v.nanElements) + " of " + std::to_string(v.elements) +
                " elements are NaN or infinite, and neither ever passes";
    else if (byAllclose)
        text += std::string(" by allclose (rtol ") + formatDouble(v.tolerance.rtol) + ", atol " +
                formatDouble(v.tolerance.atol) + ", given explicitly)";
    else if (v.verdict == Verdict::Passed && v.bitIdentical == v.elements)
        text += ": every element is bit-identical to the reference";
    else if (v.verdict == Verdict::Failed)
        text += ": " + std::to_string(v.overWorstCase) + " of " + std::to_string(v.elements) +
                " elements exceed the float32 rounding bound even in its worst case, the worst " +
                ratioText(v.maxErrorOverWorstCase) + " times it (" +
                atText(v.worstBoundRow, v.worstBoundCol) + "): more than rounding can explain";
    else if (v.overBound > 0)
        text += ": " + inconclusiveReason(v);
    else
        text += ": every element is within the float32 rounding bound; the largest error is " +
                ratioText(v.maxErrorOverBound) + " of its bound (" +
                atText(v.worstBoundRow, v.worstBoundCol) + ")" +
                (v.verdict == Verdict::Inconclusive
                     ? ", but " + inconclusiveReason(v)
                     : "; rounding alone may reach " + threeDigits(v.resolution) +
                           " here, the values' size is " + threeDigits(v.valueScale));
    text += '\n';
    if (v.inDim > 0) {
        text +=
            "  rounding bound: |y - ref| <= 2 * min(gamma~(K + 1), gamma(K + 1)) * (|x| @ "
            "|kernel| + |bias|), gamma~(n) = exp(" +
            formatDouble(kRoundingLambda) +
            " * sqrt(n) * u + n * u^2 / (1 - u)) - 1 (Higham and Mary's probabilistic bound: "
            "a correct split exceeds it with a chance below 1e-9), gamma(n) = n*u / (1 - n*u) "
            "(the worst case), u = 2^-24, K = in_dim = " +
            std::to_string(v.inDim) + "\n";
        if (byAllclose)
            text += "  largest error " + ratioText(v.maxErrorOverBound) +
                    " of its rounding bound (" + atText(v.worstBoundRow, v.worstBoundCol) + "), " +
                    std::to_string(v.overBound) + " elements over it\n";
        if (v.shapeMismatch.empty() && v.nanElements == 0 && v.bitIdentical < v.elements)
            text += "  worst case: the largest error is " + ratioText(v.maxErrorOverWorstCase) +
                    " of 2 * gamma(K + 1) * (|x| @ |kernel| + |bias|), " +
                    std::to_string(v.overWorstCase) +
                    " elements over it (beyond it no float32 computation of the layer can be)\n";
    }
    text += "  bit-identical: " + std::to_string(v.bitIdentical) + " of " +
            std::to_string(v.elements) + " elements; max ULP difference " +
            (v.nanElements > 0 ? std::string("nan") : std::to_string(v.maxUlp)) + "\n";
    text += "  max abs error " + threeDigits(v.maxAbsError) + ", max rel error " +
            threeDigits(v.maxRelError) + " (worst at " + atText(v.worstRow, v.worstCol) + "); " +
            allcloseText(v) + "\n";
    return text;
}

Json jsonText(const std::string& text) {
    return text.empty() ? Json(nullptr) : Json(text);
}

std::string padded(std::string text, std::size_t width) {
    if (text.size() < width)
        text.resize(width, ' ');
    return text;
}

Json jsonNumber(double value) {
    return std::isfinite(value) ? Json(value) : Json(nullptr);
}

std::string verdictLine(const std::string& what, const Verification& v) {
    std::string line = what + ": ";
    switch (v.verdict) {
        case Verdict::Passed:
            line += "passed";
            break;
        case Verdict::Failed:
            line += "FAILED";
            break;
        case Verdict::Inconclusive:
            line += "INCONCLUSIVE";
            break;
    }
    if (v.bitIdentical == v.elements && v.shapeMismatch.empty())
        return line + ", every element bit-identical to the reference";
    line += ", the largest error " + ratioText(v.maxErrorOverBound) + " of its rounding bound";
    if (v.verdict == Verdict::Inconclusive)
        line += ": " + inconclusiveReason(v);
    return line;
}

Json verificationJson(const Verification& v) {
    const bool compared = v.shapeMismatch.empty();
    return {{"verdict", std::string(toString(v.verdict))},
            {"passed", v.passed()},
            {"rule", std::string(toString(v.rule))},
            {"shape_mismatch", jsonText(v.shapeMismatch)},
            {"elements", v.elements},
            {"bit_identical", v.bitIdentical},
            {"nan_elements", v.nanElements},
            {"max_ulp", compared && v.nanElements == 0 ? Json(v.maxUlp) : Json(nullptr)},
            {"max_abs_error", jsonNumber(v.maxAbsError)},
            {"max_rel_error", jsonNumber(v.maxRelError)},
            {"worst", {v.worstRow, v.worstCol}},
            {"allclose", v.allclose},
            {"rtol", v.tolerance.rtol},
            {"atol", v.tolerance.atol},
            {"in_dim", v.inDim},
            {"over_bound", v.overBound},
            {"over_worst_case", v.overWorstCase},
            {"max_error_over_bound", jsonNumber(v.maxErrorOverBound)},
            {"worst_over_bound", {v.worstBoundRow, v.worstBoundCol}},
            {"max_error_over_worst_case", jsonNumber(v.maxErrorOverWorstCase)},
            {"resolution", jsonNumber(v.resolution)},
            {"value_scale", jsonNumber(v.valueScale)}};
}

}  // namespace tp
