#include "scene/backward_report.h"

#include "layer/range_text.h"
#include "scene/costs_report.h"
#include "scene/report_format.h"

#include <ostream>

namespace tp {
namespace {

// What each group computes, in the brief's slices.
std::string groupEquation(const ShardGroup& g, ParallelMode mode) {
    if (mode == ParallelMode::Column) {
        const IndexRange cols = g.kernelCols;
        const std::string dyCols = columnSlice("dy", cols);
        return columnSlice("dkernel", cols) + " = x^T @ " + dyCols + ", " +
               vectorSlice("dbias", cols) + " = " + dyCols + ".sum(0), dx_" +
               std::to_string(g.index) + " = " + dyCols + " @ " + columnSlice("kernel", cols) +
               "^T";
    }
    const IndexRange rows = g.kernelRows;
    return rowSlice("dkernel", rows) + " = " + columnSlice("x", rows) + "^T @ dy, " +
           columnSlice("dx", rows) + " = dy @ " + rowSlice("kernel", rows) + "^T";
}

// "dx (K = features = 12)": what each check's rounding bound sums over.
std::string kText(const char* name, const Verification& v, const char* kName) {
    return std::string(name) + " (K = " + kName + " = " + std::to_string(v.inDim) + ")";
}

}  // namespace

std::vector<std::string> backwardVerdictLines(const BackwardVerification& v) {
    return {verdictLine(kText("dx", v.dx, "features"), v.dx),
            verdictLine(kText("dkernel", v.dkernel, "batch"), v.dkernel),
            verdictLine(kText("dbias", v.dbias, "batch"), v.dbias)};
}

void writeBackwardText(std::ostringstream& out, const Scene& scene, const SceneBackward& backward,
                       bool summary) {
    const LayerConfig& c = scene.config;
    const bool column = c.mode == ParallelMode::Column;
    const BackwardResult& r = backward.result;
    out << "\nbackward: dy " << shapeTuple(c.batch, c.features)
        << " = jax.random.normal(rngs.params(), (batch, features)), the key after x's (count 3); "
           "jax.vjp of the layer gives dx = dy @ kernel^T, dkernel = x^T @ dy, dbias = dy.sum(0)\n";
    if (!summary)
        writeMatrix(out, backward.dy, "  ");
    for (const ShardGroup& g : r.plan.groups) {
        out << "  group " << g.index << ": " << (column ? "columns " : "rows ")
            << rangeLabel(g.owned) << "   " << groupEquation(g, c.mode) << '\n';
        if (summary)
            continue;
        out << "    dkernel block:\n";
        writeMatrix(out, r.dkernelBlock(g), "      ");
        if (column) {
            out << "    dbias block:\n";
            writeMatrix(out, r.dbiasBlock(g), "      ");
            out << "    dx_" << g.index << ", a partial sum of all of dx:\n";
            writeMatrix(out, r.dxPartials[std::size_t(g.index)], "      ");
        } else {
            out << "    dx block:\n";
            writeMatrix(out, r.dxBlock(g), "      ");
        }
    }
    if (column)
        out << "  then dx = the groups' dx partials added (each covers all of dx: an all-reduce "
               "over \"model\", the conjugate of the forward's copy)\n";
    else
        out << "  then dbias = dy.sum(0), once (every device holds all of dy); dx is the groups' "
               "blocks side by side, nothing summed\n";
    if (c.dataSize > 1)
        out << "  dkernel and dbias: each data row of the mesh sums its own batch rows ("
            << c.batch / c.dataSize << " of " << c.batch << "), then the " << c.dataSize
            << " data rows add theirs (an all-reduce over \"data\")\n";
    if (!summary) {
        out << "  dx " << shapeTuple(c.batch, c.inDim) << ":\n";
        writeMatrix(out, r.gradients.dx, "    ");
        out << "  dkernel " << shapeTuple(c.inDim, c.features) << ":\n";
        writeMatrix(out, r.gradients.dkernel, "    ");
        out << "  dbias " << shapeTuple(c.features) << ":\n";
        writeMatrix(out, r.gradients.dbias, "    ");
    }
    if (backward.collectives.empty())
        out << "backward collectives: none\n";
    else
        out << "backward collectives, in the order they run:\n";
    for (std::size_t i = 0; i < backward.collectives.size(); ++i) {
        const BackwardCollective& collective = backward.collectives[i];
        out << "  " << describe(collective) << "\n";
        if (i < backward.rings.size())
            out << ringRunText(backward.rings[i],
                               collective.of == "dy" ? "dy" : "the split pass's " + collective.of,
                               "    ");
    }
    out << "backward verification, each gradient against jax.vjp's with the rounding bound of its "
           "own product:\n";
    for (const std::string& line : backwardVerdictLines(backward.verification))
        out << "  " << line << '\n';
}

void writeBackwardJson(std::ostream& out, const Scene& scene, const SceneBackward& backward,
                       bool summary) {
    const bool column = scene.config.mode == ParallelMode::Column;
    const BackwardResult& r = backward.result;
    const Gradients& g = r.gradients;
    out << '{';
    const char* separator = "\n    ";
    auto key = [&](const char* name) -> std::ostream& {
        out << separator << '"' << name << "\": ";
        separator = ",\n    ";
        return out;
    };
    if (!summary) {
        writeJsonMatrix(key("dy"), backward.dy);
        writeJsonMatrix(key("dx"), g.dx);
        writeJsonMatrix(key("dkernel"), g.dkernel);
        writeJsonVector(key("dbias"), g.dbias);
    }
    std::ostream& groups = key("groups");
    groups << '[';
    for (const ShardGroup& group : r.plan.groups) {
        groups << (group.index ? ",\n      " : "\n      ") << "{\"index\": " << group.index
               << ", \"" << (column ? "columns" : "rows") << "\": [" << group.owned.start << ", "
               << group.owned.stop << "]";
        if (!summary) {
            groups << ", \"dkernel\": ";
            writeJsonMatrix(groups, r.dkernelBlock(group));
            groups << ", \"dbias\": ";
            writeJsonVector(groups, r.dbiasBlock(group));
            if (column) {
                groups << ", \"dx_partial\": ";
                writeJsonMatrix(groups, r.dxPartials[std::size_t(group.index)]);
            } else {
                groups << ", \"dx_block\": ";
                writeJsonMatrix(groups, r.dxBlock(group));
            }
        }
        groups << '}';
    }
    groups << "\n    ]";
    Json collectives = Json::array();
    for (const BackwardCollective& c : backward.collectives)
        collectives.push_back({{"name", std::string(toString(c.cost.kind))},
                               {"axis", std::string(toString(c.axis))},
                               {"of", c.of},
                               {"bytes_sent_per_device", c.cost.bytesSentPerDevice},
                               {"ring_steps", c.cost.ringSteps}});
    key("collectives") << collectives.dump();
    if (!summary) {
        std::ostream& reference = key("reference");
        reference << "{\"dx\": ";
        writeJsonMatrix(reference, backward.reference.dx);
        reference << ", \"dkernel\": ";
        writeJsonMatrix(reference, backward.reference.dkernel);
        reference << ", \"dbias\": ";
        writeJsonVector(reference, backward.reference.dbias);
        reference << '}';
    }
    const BackwardVerification& v = backward.verification;
    const Json verification = {{"dx", verificationJson(v.dx)},
                               {"dkernel", verificationJson(v.dkernel)},
                               {"dbias", verificationJson(v.dbias)},
                               {"passed", v.passed()}};
    key("verification") << verification.dump();
    out << "\n  }";
}

}  // namespace tp
