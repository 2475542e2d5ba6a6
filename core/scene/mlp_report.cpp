#include "scene/mlp_report.h"

#include "layer/range_text.h"
#include "scene/mlp_scene.h"

#include <cassert>
#include <ostream>
#include <sstream>

namespace tp {
namespace {

constexpr auto kActivation =
    "gelu, tanh form (jax.nn.gelu's default approximate=True, which nnx.gelu is)";

// A JSON object written member by member: small members dumped, arrays streamed.
class Members {
public:
    Members(std::ostream& out, std::string indent) : m_out(out), m_indent(std::move(indent)) {
        m_out << '{';
    }
    ~Members() { m_out << '\n' << m_indent.substr(2) << '}'; }
    std::ostream& open(const std::string& name) {
        m_out << (m_first ? "\n" : ",\n") << m_indent << Json(name).dump() << ": ";
        m_first = false;
        return m_out;
    }
    void add(const std::string& name, const Json& value) { open(name) << value.dump(); }
    void matrix(const std::string& name, const MatrixCRef& m) { writeJsonMatrix(open(name), m); }
    void vector(const std::string& name, const RowVectorCRef& v) { writeJsonVector(open(name), v); }
    std::string inner() const { return m_indent + "  "; }

private:
    std::ostream& m_out;
    std::string m_indent;
    bool m_first = true;
};

Json configJson(const Scene& scene) {
    const LayerConfig& c = scene.config;
    return {
        {"batch", c.batch},
        {"in_dim", c.inDim},
        {"hidden", c.hidden},
        {"features", c.features},
        {"tp_size", c.tpSize},
        {"seed", c.seed},
        {"prng", std::string(toString(c.prng))},
        {"x64", c.x64},
        {"bias_init", toString(c.bias)},
        {"block", std::string(toString(c.block))},
        {"mistake", std::string(toString(scene.mistake))},
        {"mistake_without_effect",
         scene.mistakeWithoutEffect.empty() ? Json(nullptr) : Json(scene.mistakeWithoutEffect)}};
}

Json collectiveJson(const MlpCollective& c) {
    return {{"name", std::string(toString(c.cost.kind))},
            {"phase", c.backward ? "backward" : "forward"},
            {"axis", std::string(toString(c.axis))},
            {"of", c.of},
            {"bytes_sent_per_device", c.cost.bytesSentPerDevice},
            {"ring_steps", c.cost.ringSteps}};
}

Json costsJson(const MlpCosts& k) {
    const MlpHoldings& h = k.perDevice;
    const MlpBackwardHoldings& b = k.backward;
    return {{"devices", k.devices},
            {"per_device",
             {{"kernel1_bytes", h.kernel1Bytes},
              {"bias1_bytes", h.bias1Bytes},
              {"kernel2_bytes", h.kernel2Bytes},
              {"bias2_bytes", h.bias2Bytes},
              {"x_bytes", h.xBytes},
              {"hidden_bytes", h.hiddenBytes},
              {"partial_bytes", h.partialBytes},
              {"output_bytes", h.outputBytes},
              {"total_bytes", h.total()},
              {"flops", h.flops}}},
            {"backward_per_device",
             {{"dy_bytes", b.dyBytes},
              {"da_bytes", b.daBytes},
              {"dh_bytes", b.dhBytes},
              {"dkernel1_bytes", b.dkernel1Bytes},
              {"dbias1_bytes", b.dbias1Bytes},
              {"dkernel2_bytes", b.dkernel2Bytes},
              {"dbias2_bytes", b.dbias2Bytes},
              {"dx_bytes", b.dxBytes},
              {"total_bytes", b.total()},
              {"flops", b.flops}}},
            {"unsharded_bytes", k.unshardedBytes}};
}

// What device g computes, in the block's slices.
std::string deviceEquation(const MlpScene& s, const ShardGroup& g1, const ShardGroup& g2) {
    switch (s.mistake) {
        case Mistake::RowThenColumn:
            return "h_" + std::to_string(g1.index) + " = " + columnSlice("x", g1.kernelRows) +
                   " @ " + rowSlice("kernel1", g1.kernelRows) + (g1.index == 0 ? " + bias1" : "") +
                   ", gelu(h_" + std::to_string(g1.index) +
                   ") all-reduced (MISTAKE: the GeLU of a partial sum), " +
                   columnSlice("y", g2.kernelCols) + " = a @ " +
                   columnSlice("kernel2", g2.kernelCols) + " + " +
                   vectorSlice("bias2", g2.kernelCols);
        case Mistake::GatherBetween:
            return columnSlice("h", g1.kernelCols) + " = x @ " +
                   columnSlice("kernel1", g1.kernelCols) + " + " +
                   vectorSlice("bias1", g1.kernelCols) +
                   ", a = gelu(h) all-gathered (MISTAKE: not needed), " +
                   columnSlice("y", g2.kernelCols) + " = a @ " +
                   columnSlice("kernel2", g2.kernelCols) + " + " +
                   vectorSlice("bias2", g2.kernelCols) + ", y all-gathered";
        default:
            break;
    }
    const IndexRange s1 = g1.kernelCols;
    return columnSlice("h", s1) + " = x @ " + columnSlice("kernel1", s1) + " + " +
           vectorSlice("bias1", s1) + ", " + columnSlice("a", s1) + " = gelu(" +
           columnSlice("h", s1) + "), partial_" + std::to_string(g1.index) + " = " +
           columnSlice("a", s1) + " @ " + rowSlice("kernel2", s1) +
           (s.mistake == Mistake::Bias2PerPartial ? " + bias2 (MISTAKE: on every device)" : "");
}

Json forwardVerificationJson(const MlpVerification& v) {
    return {{"verdict", std::string(toString(v.verdict()))},
            {"passed", v.passed()},
            {"h", verificationJson(v.h)},
            {"a", verificationJson(v.a)},
            {"output", verificationJson(v.output)}};
}

Json backwardVerificationJson(const MlpBackwardVerification& v) {
    return {{"passed", v.passed()},
            {"dx", verificationJson(v.dx)},
            {"dkernel1", verificationJson(v.dkernel1)},
            {"dbias1", verificationJson(v.dbias1)},
            {"dkernel2", verificationJson(v.dkernel2)},
            {"dbias2", verificationJson(v.dbias2)}};
}

void writeGradients(Members& m, const MlpGradients& g) {
    m.matrix("dx", g.dx);
    m.matrix("dkernel1", g.dkernel1);
    m.vector("dbias1", g.dbias1);
    m.matrix("dkernel2", g.dkernel2);
    m.vector("dbias2", g.dbias2);
}

// The document's members, closed when `doc` goes out of scope.
void writeDocument(std::ostream& out, const Scene& scene, bool summary, bool costs,
                   const Json& more) {
    const MlpScene& s = *scene.mlp;
    Members doc(out, "  ");
    doc.add("config", configJson(scene));
    {
        Members block(doc.open("block"), doc.inner());
        block.add("kind", "mlp");
        block.add("hidden", scene.config.hidden);
        block.add("activation", kActivation);
        if (!summary) {
            {
                Members l1(block.open("linear1"), block.inner());
                l1.matrix("kernel", s.params.kernel1);
                l1.vector("bias", s.params.bias1);
            }
            {
                Members l2(block.open("linear2"), block.inner());
                l2.matrix("kernel", s.params.kernel2);
                l2.vector("bias", s.params.bias2);
            }
            block.matrix("x", s.params.x);
        }
        std::ostream& groups = block.open("groups");
        groups << '[';
        for (const ShardGroup& g : s.split.plan.linear1.groups) {
            const IndexRange r = g.owned;
            groups << (g.index ? ", " : "") << "{\"index\": " << g.index << ", \"hidden\": ["
                   << r.start << ", " << r.stop << "]";
            if (!summary && !s.split.partials.empty()) {
                groups << ", \"partial\": ";
                writeJsonMatrix(groups, s.split.partials[std::size_t(g.index)]);
            }
            groups << '}';
        }
        groups << ']';
        if (!summary) {
            block.matrix("h", s.split.h);
            block.matrix("a", s.split.a);
            block.matrix("output", s.split.output);
            Members ref(block.open("reference"), block.inner());
            ref.matrix("h", s.reference.h);
            ref.matrix("a", s.reference.a);
            ref.matrix("output", s.reference.output);
        }
        block.add("verification", forwardVerificationJson(s.verification));
        Json collectives = Json::array();
        for (const MlpCollective& c : s.costs.collectives)
            collectives.push_back(collectiveJson(c));
        block.add("collectives", collectives);
    }
    if (s.backward) {
        Members b(doc.open("backward"), doc.inner());
        if (!summary) {
            b.matrix("dy", s.backward->dy);
            writeGradients(b, s.backward->split.gradients);
            std::ostream& groups = b.open("groups");
            groups << '[';
            for (std::size_t g = 0; g < s.backward->split.dxPartials.size(); ++g) {
                groups << (g ? ", " : "") << "{\"index\": " << g << ", \"dx_partial\": ";
                writeJsonMatrix(groups, s.backward->split.dxPartials[g]);
                groups << '}';
            }
            groups << ']';
            Members ref(b.open("reference"), b.inner());
            writeGradients(ref, s.backward->reference);
        }
        b.add("verification", backwardVerificationJson(s.backward->verification));
    }
    if (costs)
        doc.add("costs", costsJson(s.costs));
    if (more.is_object())
        for (const auto& [name, value] : more.items())
            doc.add(name, value);
}

}  // namespace

void writeMlpJsonReport(std::ostream& out, const Scene& scene, bool summary, bool costs,
                        const Json& more) {
    assert(scene.mlp);
    assert(more.is_null() || more.is_object());
    writeDocument(out, scene, summary, costs, more);
    out << '\n';  // after the document's closing brace
}

std::string mlpTextReport(const Scene& scene, bool summary, bool costs) {
    assert(scene.mlp);
    const MlpScene& s = *scene.mlp;
    const LayerConfig& c = scene.config;
    std::ostringstream out;
    out << "Megatron MLP block: linear1 = nnx.Linear(" << c.inDim << ", " << c.hidden
        << "), GeLU, linear2 = nnx.Linear(" << c.hidden << ", " << c.features
        << ") from one nnx.Rngs(" << c.seed << "), batch " << c.batch << ", tp_size " << c.tpSize
        << ", " << c.hidden / c.tpSize << " hidden features a device\n"
        << "prng " << toString(c.prng) << ", x64 " << (c.x64 ? "on" : "off") << ", bias "
        << toString(c.bias) << "; " << kActivation << '\n';
    if (s.mistake != Mistake::None) {
        out << "MISTAKE " << toString(s.mistake) << ": " << mistakeDescription(s.mistake) << '\n';
        if (!s.mistakeWithoutEffect.empty())
            out << "  " << s.mistakeWithoutEffect << '\n';
    }
    if (!summary) {
        out << "\nx " << shapeTuple(c.batch, c.inDim) << ":\n";
        writeMatrix(out, s.params.x, "  ");
        out << "\nlinear1 kernel " << shapeTuple(c.inDim, c.hidden) << ":\n";
        writeMatrix(out, s.params.kernel1, "  ");
        out << "\nlinear2 kernel " << shapeTuple(c.hidden, c.features) << ":\n";
        writeMatrix(out, s.params.kernel2, "  ");
    }
    out << "\ndevices:\n";
    for (std::size_t g = 0; g < s.split.plan.linear1.groups.size(); ++g)
        out << "  device " << g << ": "
            << deviceEquation(s, s.split.plan.linear1.groups[g], s.split.plan.linear2.groups[g])
            << '\n';
    for (const MlpCollective& col : s.costs.collectives)
        out << "  " << (col.backward ? "backward: " : "then: ") << toString(col.cost.kind) << " of "
            << col.of << " over \"" << toString(col.axis) << "\": " << col.cost.bytesSentPerDevice
            << " bytes sent per device in " << countText(col.cost.ringSteps, "ring step") << '\n';
    if (!summary) {
        out << "\noutput " << shapeTuple(c.batch, c.features) << ":\n";
        writeMatrix(out, s.split.output, "  ");
        out << "\nreference linear2(gelu(linear1(x))):\n";
        writeMatrix(out, s.reference.output, "  ");
    }
    out << "\nverification: " << toString(s.verification.verdict()) << '\n'
        << "  " << verdictLine("h (K = in_dim = " + std::to_string(c.inDim) + ")", s.verification.h)
        << "\n  " << verdictLine("a = gelu(h)", s.verification.a) << "\n  "
        << verdictLine("output (K = hidden = " + std::to_string(c.hidden) + ")",
                       s.verification.output)
        << '\n'
        << "  the bound carries each stage's rounding into the next: linear1's, through the GeLU "
           "(slope at most 1.13, its own rounding 6u|h| each time), into linear2's\n";
    if (s.backward) {
        const MlpBackwardVerification& v = s.backward->verification;
        out << "\nbackward: dy drawn after x (count 5); dx summed over the devices (the "
               "all-reduce, "
               "Megatron's f)\n"
            << "  " << verdictLine("dx", v.dx) << "\n  " << verdictLine("dkernel1", v.dkernel1)
            << "\n  " << verdictLine("dbias1", v.dbias1) << "\n  "
            << verdictLine("dkernel2", v.dkernel2) << "\n  " << verdictLine("dbias2", v.dbias2)
            << '\n';
    }
    if (costs) {
        const MlpHoldings& h = s.costs.perDevice;
        out << "\ncosts per device: kernel1 " << formatBytes(h.kernel1Bytes) << ", kernel2 "
            << formatBytes(h.kernel2Bytes) << ", x " << formatBytes(h.xBytes) << ", h and a "
            << formatBytes(h.hiddenBytes) << ", partial " << formatBytes(h.partialBytes)
            << ", output " << formatBytes(h.outputBytes) << ": " << formatBytes(h.total())
            << " against " << formatBytes(s.costs.unshardedBytes) << " unsharded; " << h.flops
            << " FLOPs forward\n";
    }
    return out.str();
}

}  // namespace tp
