#include "scene/costs_report.h"

#include "devices/duration_text.h"
#include "layer/float_format.h"
#include "layer/range_text.h"
#include "scene/report_format.h"

#include <ostream>
#include <sstream>

namespace tp {
std::string_view boundWord(const TimeEstimate& e) {
    if (e.bound == Bound::Communication)
        return "communication";
    return e.product.memoryBound() ? "memory" : "compute";
}

std::vector<std::string> collectiveLines(const TimeEstimate& e) {
    std::vector<std::string> lines;
    if (e.collectives.size() > 1)
        lines.push_back("collectives: " + collectiveWords(e.collective));
    for (const CollectiveTime& c : e.collectives)
        lines.push_back(std::string(toString(c.kind)) + ": " + collectiveWords(c));
    return lines;
}

std::string estimateText(const TimeEstimate& e, std::string_view what) {
    std::ostringstream out;
    out << what << " on " << e.hardware << ": compute " << durationText(e.computeSeconds)
        << " + communication " << durationText(e.communicationSeconds) << " = "
        << durationText(e.totalSeconds) << " (no overlap), " << boundWord(e) << "-bound\n";
    const ProductTime& p = e.product;
    out << "  product: max(math " << durationText(p.mathSeconds) << ", memory "
        << durationText(p.memorySeconds) << ") + launch " << durationText(p.launchSeconds) << " = "
        << durationText(p.seconds()) << "; " << productWords(p) << '\n';
    const std::vector<std::string> lines = collectiveLines(e);
    if (lines.empty())
        out << "  collectives: nothing sent\n";
    for (std::size_t i = 0; i < lines.size(); ++i)
        out << (i == 0 ? "  " : "    ") << lines[i] << '\n';
    return out.str();
}

Json estimateJson(const TimeEstimate& e) {
    const ProductTime& p = e.product;
    const CollectiveTime& c = e.collective;
    return {{"hardware", e.hardware},
            {"compute_s", jsonNumber(e.computeSeconds)},
            {"communication_s", jsonNumber(e.communicationSeconds)},
            {"total_s", jsonNumber(e.totalSeconds)},
            {"bound", std::string(boundWord(e))},
            {"product",
             {{"flops", p.flops},
              {"in_order_flops", p.inOrderFlops},
              {"bytes_moved", p.bytesMoved},
              {"math_s", jsonNumber(p.mathSeconds)},
              {"memory_s", jsonNumber(p.memorySeconds)},
              {"launch_s", jsonNumber(p.launchSeconds)},
              {"intensity_flops_per_byte", jsonNumber(p.intensity())},
              {"machine_balance_flops_per_byte", jsonNumber(p.machineBalance)},
              {"bound", p.memoryBound() ? "memory" : "compute"}}},
            {"collective",
             {{"steps", c.steps},
              {"chunk_bytes", c.chunkBytes},
              {"latency_s", jsonNumber(c.latencySeconds)},
              {"bandwidth_s", jsonNumber(c.bandwidthSeconds)},
              {"sums_s", jsonNumber(c.sumSeconds)},
              {"bound", c.steps == 0 ? "none" : std::string(c.bound())}}}};
}

std::string ringRunText(const RingRun& ring, std::string_view against, std::string_view indent) {
    std::ostringstream out;
    if (!ring.simulated)
        return std::string(indent) + ring.note + '\n';
    const CollectiveCheck& check = ring.check;
    out << indent << "run on the devices' buffers: " << check.bitIdentical << " of "
        << check.elements << " elements bit-identical to " << against;
    if (check.exactRequired)
        out << (check.passed() ? " (all, as a gather only moves values)"
                               : " (a gather only moves values: MISMATCH)");
    else if (check.bitIdentical == check.elements)
        out << " (the ring adds in another order, here to the same bits)";
    else
        out << " (the ring adds in another order); "
            << (check.verdict == Verdict::Failed ? "FAILED: beyond" : "every element within")
            << " the float32 rounding bound, the largest error "
            << ratioText(check.verification.maxErrorOverBound) << " of its bound";
    if (check.verdict == Verdict::Inconclusive)
        out << "; INCONCLUSIVE: " << inconclusiveReason(check.verification);
    out << '\n';
    if (!ring.stepBuffersKept)
        out << indent << ring.note << '\n';
    return out.str();
}

void writeCostsText(std::ostringstream& out, const LayerConfig& c, const SceneCosts& costs,
                    const BackwardHoldings* backward) {
    const MeshCosts& mesh = costs.mesh;
    const DeviceHoldings& h = mesh.perDevice;
    const PartitionSpecs specs = partitionSpecs(c);
    out << "\ndevices: mesh data " << mesh.data << " x model " << mesh.model << " = "
        << mesh.devices << " devices; device (d, m) holds batch rows block d ("
        << countText(mesh.rowsPerDevice, "row") << ") and model shard m; output "
        << toString(mesh.layout) << '\n';
    const std::pair<const char*, std::pair<std::int64_t, std::string>> rows[] = {
        {"kernel", {h.kernelBytes, specs.kernel}},
        {"bias", {h.biasBytes, specs.bias}},
        {"x", {h.xBytes, specs.x}},
        {"partial", {h.partialBytes, specs.partial.empty() ? "-" : specs.partial + ", unreduced"}},
        {"output", {h.outputBytes, specs.output}},
    };
    for (const auto& [name, row] : rows)
        out << "  " << padded(name, 9) << padded(bytesText(row.first), 30) << row.second << '\n';
    out << "  " << padded("total", 9) << padded(bytesText(totalBytes(h)), 30)
        << "per device; the unsharded layer: " << bytesText(mesh.unshardedBytes) << '\n'
        << "  " << padded("flops", 9) << padded(std::to_string(h.flops), 30)
        << "per device, 2 * rows * in_dim * features / tp_size\n";
    if (backward) {
        const bool column = c.mode == ParallelMode::Column;
        const bool dyWhole = !column || c.outputLayout() == OutputLayout::Replicated;
        const std::pair<const char*, std::pair<std::int64_t, const char*>> gradients[] = {
            {"dy", {backward->dyBytes, dyWhole ? "all of it" : "its columns"}},
            {"dx",
             {backward->dxBytes, column ? "its partial sum of the whole dx, then the all-reduced dx"
                                        : "its own slice"}},
            {"dkernel", {backward->dkernelBytes, "its block"}},
            {"dbias", {backward->dbiasBytes, column ? "its columns" : "all of it, summed once"}},
        };
        out << "backward, per device:\n";
        for (const auto& [name, row] : gradients)
            out << "  " << padded(name, 9) << padded(bytesText(row.first), 30) << row.second
                << '\n';
        out << "  " << padded("total", 9) << padded(bytesText(backward->totalBytes()), 30)
            << "per device\n"
            << "  " << padded("flops", 9) << padded(std::to_string(backward->flops), 30)
            << "per device, dkernel's and dx's products (2 * rows * in_dim * features / tp_size "
               "each) and dbias's sum\n";
    }

    const CollectiveCost& k = mesh.collective;
    if (k.kind == CollectiveKind::None) {
        out << "collective: none, the output stays where it was computed\n";
    } else {
        out << "collective: " << toString(k.kind) << " over the model axis, a ring of "
            << mesh.model << ": " << bytesText(k.bytesSentPerDevice) << " sent per device in "
            << countText(k.ringSteps, "step") << '\n';
        out << ringRunText(costs.ring, "the single-process output", "  ");
    }

    out << estimateText(costs.estimate, "estimate");
    if (backward)
        out << estimateText(costs.backwardEstimate, "backward estimate");
}

Json costsJson(const SceneCosts& costs, const BackwardHoldings* backward) {
    const MeshCosts& mesh = costs.mesh;
    const DeviceHoldings& h = mesh.perDevice;
    const CollectiveCost& k = mesh.collective;
    Json json = {{"mesh", {{"data", mesh.data}, {"model", mesh.model}}},
                 {"devices", mesh.devices},
                 {"output_layout", std::string(toString(mesh.layout))},
                 {"per_device",
                  {{"kernel_bytes", h.kernelBytes},
                   {"bias_bytes", h.biasBytes},
                   {"x_bytes", h.xBytes},
                   {"partial_bytes", h.partialBytes},
                   {"output_bytes", h.outputBytes},
                   {"flops", h.flops}}},
                 {"collective",
                  {{"name", std::string(toString(k.kind))},
                   {"axis", "model"},
                   {"bytes_sent_per_device", k.bytesSentPerDevice},
                   {"ring_steps", k.ringSteps}}},
                 {"estimate", estimateJson(costs.estimate)}};
    if (backward)
        json["backward_per_device"] = {{"dy_bytes", backward->dyBytes},
                                       {"dx_bytes", backward->dxBytes},
                                       {"dkernel_bytes", backward->dkernelBytes},
                                       {"dbias_bytes", backward->dbiasBytes},
                                       {"flops", backward->flops}};
    if (backward)
        json["backward_estimate"] = estimateJson(costs.backwardEstimate);
    return json;
}

}  // namespace tp
