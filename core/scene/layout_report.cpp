#include "scene/layout_report.h"

#include "devices/layout_costs.h"
#include "layer/range_text.h"
#include "scene/costs_report.h"

namespace tp {

void writeLayoutText(std::ostringstream& out, const LayerConfig& c, bool backward,
                     const std::vector<RingRun>& runs) {
    const auto program = layoutCollectives(c, backward);
    const LayoutMemory memory = layoutMemory(c, backward);
    out << "layout " << toString(c.layout) << ": " << bytesText(memory.atRest)
        << " per device at rest (kernel, bias and x), " << bytesText(memory.peak)
        << " at its peak\n";
    for (const ArrayMemory& array : memory.arrays)
        out << "  " << array.name << ": " << bytesText(array.atRest) << " at rest, "
            << bytesText(array.peak) << " at its largest\n";
    if (program.empty())
        out << "  no collective\n";
    for (std::size_t i = 0; i < program.size(); ++i) {
        const LayoutCollective& step = program[i];
        out << "  " << toString(step.phase) << ": " << toString(step.cost.kind) << " of " << step.of
            << " over \"" << toString(step.axis) << "\", "
            << bytesText(step.cost.bytesSentPerDevice) << " sent per device in "
            << countText(step.cost.ringSteps, "ring step") << '\n';
        if (i < runs.size()) {
            const bool gather = step.cost.kind == CollectiveKind::AllGather;
            out << ringRunText(runs[i], gather ? step.of : "the split pass's " + step.of, "    ");
        }
    }
    out << "  bytes sent per device: forward " << bytesText(bytesSent(program, PassPhase::Forward));
    if (backward)
        out << ", backward " << bytesText(bytesSent(program, PassPhase::Backward));
    out << '\n';
    if (c.layout != ShardingLayout::Tensor)
        out << "  the devices table above holds the arrays as the product uses them\n";
}

void addLayoutJson(Json& costs, const LayerConfig& c, bool backward,
                   const std::vector<RingRun>& runs) {
    const LayoutMemory memory = layoutMemory(c, backward);
    costs["layout"] = std::string(toString(c.layout));
    Json collectives = Json::array();
    const auto program = layoutCollectives(c, backward);
    for (std::size_t i = 0; i < program.size(); ++i) {
        const LayoutCollective& step = program[i];
        Json entry = {{"name", std::string(toString(step.cost.kind))},
                      {"phase", std::string(toString(step.phase))},
                      {"axis", std::string(toString(step.axis))},
                      {"of", step.of},
                      {"bytes_sent_per_device", step.cost.bytesSentPerDevice},
                      {"ring_steps", step.cost.ringSteps}};
        if (i < runs.size()) {
            const RingRun& run = runs[i];
            entry["run"] = run.simulated
                               ? Json{{"verdict", std::string(toString(run.check.verdict))},
                                      {"bit_identical", run.check.bitIdentical},
                                      {"elements", run.check.elements},
                                      {"max_error_over_bound",
                                       jsonNumber(run.check.verification.maxErrorOverBound)}}
                               : Json{{"note", run.note}};
        }
        collectives.push_back(entry);
    }
    costs["collectives"] = collectives;
    Json& perDevice = costs["per_device"];
    for (const ArrayMemory& array : memory.arrays) {
        perDevice[array.name + "_bytes_at_rest"] = array.atRest;
        perDevice[array.name + "_bytes_peak"] = array.peak;
    }
    perDevice["bytes_at_rest"] = memory.atRest;
    perDevice["bytes_peak"] = memory.peak;
}

}  // namespace tp
