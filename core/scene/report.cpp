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
        writeLayoutText(out, c, backward != nullptr, *costs);
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
    Matrix sum;  // the running sum after the group written, one addition per group
    for (const ShardGroup& g : scene.result.plan.groups) {
        const IndexRange r = column ? g.kernelCols : g.kernelRows;
        groups << (g.index ? ",\n    " : "\n    ") << "{\"index\": " << g.index << ", \""
               << (column ? "columns" : "rows") << "\": [" << r.start << ", " << r.stop << "]";
        if (!summary) {
            groups << ", \"partial\": ";
            writeJsonMatrix(groups, scene.result.partials[std::size_t(g.index)]);
            if (scene.result.partialsAdded) {
                sum = nextRunningSum(scene.result, sum, g.index);
                groups << ", \"running_sum\": ";
                writeJsonMatrix(groups, sum);
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
        addLayoutJson(costsObject, scene.config, backward != nullptr, *costs);
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
