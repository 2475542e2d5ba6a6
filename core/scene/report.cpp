#include "scene/report.h"

#include "layer/float_format.h"
#include "layer/range_text.h"
#include "scene/backward_report.h"
#include "scene/costs_report.h"
#include "scene/layout_report.h"
#include "scene/mlp_report.h"
#include "scene/report_format.h"
#include "scene/timeline.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

namespace tp {
namespace {

std::string layerText(const LayerConfig& c, SceneSource source) {
    if (source == SceneSource::Brief)
        return "the worked example";
    if (source == SceneSource::Files)
        return "a layer from files (in_dim " + std::to_string(c.inDim) + ", features " +
               std::to_string(c.features) + ")";
    return "nnx.Linear(" + std::to_string(c.inDim) + ", " + std::to_string(c.features) +
           ", rngs=nnx.Rngs(" + std::to_string(c.seed) + "))";
}

}  // namespace

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

// The verdict in words, then the formula and the figures, one line each.
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

}  // namespace

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

namespace {

// The step after the groups, when there is one: row mode's bias, and each mistake's combination.
std::string closingText(const Scene& scene) {
    const ShardingPlan& plan = scene.result.plan;
    const Index batch = scene.config.batch;
    const std::string shape = shapeText(scene.result.output.rows(), scene.result.output.cols());
    switch (scene.mistake) {
        case Mistake::SumGroups:
            return "y = the groups' outputs added   " + shape;
        case Mistake::ConcatPartials:
            return "y = jnp.concatenate(partials, axis=-1)   " + shape +
                   (plan.tpSize > 1 ? ", the bias (" + std::to_string(plan.features) +
                                          ",) no longer fits and is left out"
                                    : std::string(" + bias"));
        case Mistake::BiasPerPartial:
            return "y = sum   " + shape + ", the bias already added " +
                   std::to_string(plan.tpSize) + " times";
        case Mistake::InitPerGroup:
            if (plan.mode == ParallelMode::Row)
                return "y = sum + own_bias   " + shape;
            break;
        case Mistake::None:
        case Mistake::RowThenColumn:  // the MLP block's
        case Mistake::GatherBetween:
        case Mistake::Bias2PerPartial:
        case Mistake::SliceX:
            break;
    }
    return plan.mode == ParallelMode::Row && scene.mistake != Mistake::InitPerGroup
               ? rowBiasEquation(plan, batch)
               : std::string();
}

std::string outputText(const Scene& scene) {
    const bool column = scene.config.mode == ParallelMode::Column;
    switch (scene.mistake) {
        case Mistake::None:
        case Mistake::RowThenColumn:  // the MLP block's
        case Mistake::GatherBetween:
        case Mistake::Bias2PerPartial:
            break;
        case Mistake::SumGroups:
            return "the groups' outputs added (the mistake)";
        case Mistake::ConcatPartials:
            return "the partial sums concatenated (the mistake)";
        case Mistake::BiasPerPartial:
            return "the partial sums, each with the bias, added (the mistake)";
        case Mistake::InitPerGroup:
            return "from each group's own nnx.Linear (the mistake)";
        case Mistake::SliceX:
            return "the partials of x's blocks concatenated (the mistake)";
    }
    return column ? "the partials concatenated in group order (never summed)"
                  : "the partial sums added, then the bias once";
}

Json configJson(const Scene& scene) {
    const LayerConfig& c = scene.config;
    return {{"batch", c.batch},
            {"in_dim", c.inDim},
            {"features", c.features},
            {"tp_size", c.tpSize},
            {"chunk", scene.result.plan.chunk},
            {"seed", c.seed},
            {"mode", std::string(toString(c.mode))},
            {"prng", std::string(toString(c.prng))},
            {"x64", c.x64},
            {"bias_init", toString(c.bias)},
            {"source", scene.source == SceneSource::Brief   ? "brief"
                       : scene.source == SceneSource::Files ? "files"
                                                            : "nnx"},
            {"mistake", std::string(toString(scene.mistake))},
            {"mistake_without_effect", jsonText(scene.mistakeWithoutEffect)}};
}

// The top-level object, one member at a time: small ones dumped from their values, arrays
// streamed, so that a big scene's report is never built whole.
class JsonMembers {
public:
    explicit JsonMembers(std::ostream& out) : m_out(out) {}
    ~JsonMembers() { m_out << "\n}\n"; }

    std::ostream& open(const std::string& name) {
        m_out << (m_first ? "{\n  " : ",\n  ") << Json(name).dump() << ": ";
        m_first = false;
        return m_out;
    }
    void add(const std::string& name, const Json& value) { open(name) << value.dump(); }

private:
    std::ostream& m_out;
    bool m_first = true;
};

}  // namespace

std::string textReport(const Scene& scene, bool summary, const SceneCosts* costs,
                       const SceneBackward* backward) {
    const LayerConfig& c = scene.config;
    const ShardingPlan& plan = scene.result.plan;
    const bool column = c.mode == ParallelMode::Column;
    const bool mistaken = scene.mistake != Mistake::None;
    std::ostringstream out;
    out << toString(c.mode) << "-parallel split of " << layerText(c, scene.source) << ", batch "
        << c.batch << ", tp_size " << c.tpSize << ", chunk = " << (column ? "features" : "in_dim")
        << " / tp_size = " << plan.chunk << '\n';
    if (scene.source == SceneSource::Nnx)
        out << "prng " << toString(c.prng) << ", x64 " << (c.x64 ? "on" : "off") << ", bias "
            << toString(c.bias) << '\n';
    if (mistaken) {
        out << "MISTAKE " << toString(scene.mistake) << ": " << mistakeDescription(scene.mistake)
            << '\n';
        if (!scene.mistakeWithoutEffect.empty())
            out << "  " << scene.mistakeWithoutEffect << '\n';
        if (scene.biasShowingMistake)
            out << "  to see it, try --bias " << toString(*scene.biasShowingMistake) << '\n';
    }

    if (!summary) {
        out << "\nx " << shapeTuple(c.batch, c.inDim) << ", the full input:\n";
        writeMatrix(out, scene.params.x, "  ");
        out << "\nkernel " << shapeTuple(c.inDim, c.features) << ":\n";
        writeMatrix(out, scene.params.kernel, "  ");
        out << "\nbias " << shapeTuple(c.features) << ":\n";
        writeMatrix(out, scene.params.bias, "  ");
    }

    out << "\ngroups:\n";
    for (const ShardGroup& g : plan.groups) {
        out << "  group " << g.index << ": " << (column ? "columns " : "rows ")
            << rangeLabel(g.owned) << "   "
            << mistakeStepEquation(scene.mistake, plan, g.index, c.batch) << '\n';
        if (summary)
            continue;
        const Matrix& partial = scene.result.partials[std::size_t(g.index)];
        out << "    partial " << (column ? "" : "sum ")
            << shapeTuple(partial.rows(), partial.cols()) << ":\n";
        writeMatrix(out, partial, "      ");
    }
    const std::string closing = closingText(scene);
    if (!closing.empty())
        out << "  then " << closing << '\n';

    if (!summary) {
        const Matrix& y = scene.result.output;
        out << "\noutput " << shapeTuple(y.rows(), y.cols()) << ", " << outputText(scene) << ":\n";
        writeMatrix(out, scene.result.output, "  ");
        out << "\nreference x @ kernel + bias:\n";
        writeMatrix(out, scene.reference, "  ");
    }
    out << '\n' << verificationText(scene.verification);
    if (backward)
        writeBackwardText(out, scene, *backward, summary);
    if (costs) {
        const BackwardHoldings holdings = backwardHoldings(c);
        writeCostsText(out, c, *costs, backward ? &holdings : nullptr);
        writeLayoutText(out, c, backward != nullptr, costs->layoutRings);
    }
    return out.str();
}

void writeJsonReport(std::ostream& out, const Scene& scene, bool summary, const SceneCosts* costs,
                     const Json& more, const SceneBackward* backward) {
    assert(more.is_null() || more.is_object());
    const bool column = scene.config.mode == ParallelMode::Column;
    JsonMembers doc(out);
    doc.add("config", configJson(scene));
    if (!summary) {
        writeJsonMatrix(doc.open("kernel"), scene.params.kernel);
        writeJsonVector(doc.open("bias"), scene.params.bias);
        writeJsonMatrix(doc.open("x"), scene.params.x);
    }
    std::ostream& groups = doc.open("groups");
    groups << '[';
    for (const ShardGroup& g : scene.result.plan.groups) {
        const IndexRange r = column ? g.kernelCols : g.kernelRows;
        groups << (g.index ? ",\n    " : "\n    ") << "{\"index\": " << g.index << ", \""
               << (column ? "columns" : "rows") << "\": [" << r.start << ", " << r.stop << "]";
        if (!summary) {
            groups << ", \"partial\": ";
            writeJsonMatrix(groups, scene.result.partials[std::size_t(g.index)]);
            if (!scene.result.runningSums.empty()) {
                groups << ", \"running_sum\": ";
                writeJsonMatrix(groups, scene.result.runningSums[std::size_t(g.index)]);
            }
        }
        groups << '}';
    }
    groups << "\n  ]";
    if (!summary) {
        writeJsonMatrix(doc.open("output"), scene.result.output);
        writeJsonMatrix(doc.open("reference"), scene.reference);
    }
    doc.add("verification", verificationJson(scene.verification));
    if (backward)
        writeBackwardJson(doc.open("backward"), scene, *backward, summary);
    if (costs) {
        const BackwardHoldings holdings = backwardHoldings(scene.config);
        Json costsObject = costsJson(*costs, backward ? &holdings : nullptr);
        addLayoutJson(costsObject, scene.config, backward != nullptr, costs->layoutRings);
        doc.add("costs", costsObject);
    }
    if (more.is_object())
        for (const auto& [name, value] : more.items())
            doc.add(name, value);
}

std::string jsonReport(const Scene& scene, bool summary, const SceneCosts* costs) {
    std::ostringstream out;
    if (scene.mlp) {  // the block's own document, as tpviz-cli --block mlp --json prints it
        writeMlpJsonReport(out, scene, summary, costs != nullptr);
        return out.str();
    }
    writeJsonReport(out, scene, summary, costs, {}, scene.backward.get());
    return out.str();
}

}  // namespace tp
