#include "scene/layout_report.h"

#include "devices/layout_costs.h"
#include "layer/range_text.h"

namespace tp {

void writeLayoutText(std::ostringstream& out, const LayerConfig& c, bool backward) {
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
    for (const LayoutCollective& step : program)
        out << "  " << toString(step.phase) << ": " << toString(step.cost.kind) << " of " << step.of
            << " over \"" << toString(step.axis) << "\", "
            << bytesText(step.cost.bytesSentPerDevice) << " sent per device in "
            << countText(step.cost.ringSteps, "ring step") << '\n';
    out << "  bytes sent per device: forward " << bytesText(bytesSent(program, PassPhase::Forward));
    if (backward)
        out << ", backward " << bytesText(bytesSent(program, PassPhase::Backward));
    out << '\n';
    if (c.layout != ShardingLayout::Tensor)
        out << "  the devices above hold their arrays as the product uses them, and the run on "
               "their buffers is the tensor layout's; this layout's collectives are counted here, "
               "not run\n";
}

void addLayoutJson(Json& costs, const LayerConfig& c, bool backward) {
    const LayoutMemory memory = layoutMemory(c, backward);
    costs["layout"] = std::string(toString(c.layout));
    Json collectives = Json::array();
    for (const LayoutCollective& step : layoutCollectives(c, backward))
        collectives.push_back({{"name", std::string(toString(step.cost.kind))},
                               {"phase", std::string(toString(step.phase))},
                               {"axis", std::string(toString(step.axis))},
                               {"of", step.of},
                               {"bytes_sent_per_device", step.cost.bytesSentPerDevice},
                               {"ring_steps", step.cost.ringSteps}});
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
