#include "scene/layout_report.h"

#include "devices/duration_text.h"
#include "devices/layout_costs.h"
#include "layer/range_text.h"
#include "scene/costs_report.h"

namespace tp {
namespace {

// A pass's estimated time, "12.3 µs", or "-" for a pass not estimated.
std::string summaryTime(const TimeEstimate& estimate, bool estimated) {
    return estimated ? durationText(estimate.totalSeconds) : "-";
}

void writeComparisonText(std::ostringstream& out, const LayerConfig& c, bool backward,
                         const HardwarePreset& hardware) {
    out << "  the three layouts of this config, per device, on " << hardware.name << ":\n    "
        << padded("layout", 10) << padded("at rest", 14) << padded("at its peak", 14)
        << padded("sent forward", 14) << padded("sent backward", 15) << padded("forward", 11)
        << "backward\n";
    for (const LayoutSummary& s : compareLayouts(c, backward, hardware)) {
        out << "    " << padded(std::string(toString(s.layout)), 10);
        if (!s.refusal.empty()) {
            out << "refused: " << s.refusal << '\n';
            continue;
        }
        out << padded(formatBytes(s.bytesAtRest), 14) << padded(formatBytes(s.bytesPeak), 14)
            << padded(formatBytes(s.forwardSent), 14)
            << padded(backward ? formatBytes(s.backwardSent) : "-", 15)
            << padded(summaryTime(s.forward, true), 11) << summaryTime(s.backward, backward)
            << '\n';
    }
}

}  // namespace

void writeLayoutText(std::ostringstream& out, const LayerConfig& c, bool backward,
                     const SceneCosts& costs) {
    const auto program = layoutCollectives(c, backward);
    const LayoutMemory memory = layoutMemory(c, backward);
    const std::vector<RingRun>& runs = costs.layoutRings;
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
            << countText(step.cost.ringSteps, "ring step") << ", "
            << durationText(collectiveTime(step.cost, costs.hardware).seconds()) << " on "
            << costs.hardware.name << '\n';
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
    writeComparisonText(out, c, backward, costs.hardware);
}

void addLayoutJson(Json& json, const LayerConfig& c, bool backward, const SceneCosts& costs) {
    const LayoutMemory memory = layoutMemory(c, backward);
    json["layout"] = std::string(toString(c.layout));
    Json collectives = Json::array();
    const auto program = layoutCollectives(c, backward);
    for (std::size_t i = 0; i < program.size(); ++i) {
        const LayoutCollective& step = program[i];
        Json entry = {{"name", std::string(toString(step.cost.kind))},
                      {"phase", std::string(toString(step.phase))},
                      {"axis", std::string(toString(step.axis))},
                      {"of", step.of},
                      {"bytes_sent_per_device", step.cost.bytesSentPerDevice},
                      {"ring_steps", step.cost.ringSteps},
                      {"time_s", jsonNumber(collectiveTime(step.cost, costs.hardware).seconds())}};
        if (i < costs.layoutRings.size()) {
            const RingRun& run = costs.layoutRings[i];
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
    json["collectives"] = collectives;
    Json& perDevice = json["per_device"];
    for (const ArrayMemory& array : memory.arrays) {
        perDevice[array.name + "_bytes_at_rest"] = array.atRest;
        perDevice[array.name + "_bytes_peak"] = array.peak;
    }
    perDevice["bytes_at_rest"] = memory.atRest;
    perDevice["bytes_peak"] = memory.peak;
    Json layouts = Json::array();
    for (const LayoutSummary& s : compareLayouts(c, backward, costs.hardware)) {
        Json entry = {{"layout", std::string(toString(s.layout))}};
        if (!s.refusal.empty()) {
            entry["refusal"] = s.refusal;
        } else {
            entry["bytes_at_rest"] = s.bytesAtRest;
            entry["bytes_peak"] = s.bytesPeak;
            entry["forward_bytes_sent"] = s.forwardSent;
            entry["forward_s"] = jsonNumber(s.forward.totalSeconds);
            if (backward) {
                entry["backward_bytes_sent"] = s.backwardSent;
                entry["backward_s"] = jsonNumber(s.backward.totalSeconds);
            }
        }
        layouts.push_back(entry);
    }
    json["layouts"] = layouts;
}

}  // namespace tp
