#include "scene/timeline_steps.h"

namespace tp {

TimelineStep& appendStep(Timeline& timeline, StepPhase phase) {
    TimelineStep next = timeline.steps.empty() ? TimelineStep{} : timeline.steps.back();
    next.step = timeline.size();
    next.phase = phase;
    next.currentGroup = -1;
    next.biasAdded.clear();
    next.ringStep = -1;
    next.ring = {};
    next.collective = {};
    next.caption.clear();
    next.equation.clear();
    timeline.steps.push_back(std::move(next));
    return timeline.steps.back();
}

void numberCaptions(Timeline& timeline) {
    for (TimelineStep& s : timeline.steps)
        s.caption = "Step " + std::to_string(s.step) + " of " +
                    std::to_string(timeline.lastStep()) + ": " + s.caption;
}

std::string ringStepText(const RingStepInfo& info, std::int64_t devices, MeshAxis axis) {
    return std::string(info.phase == RingPhase::ReduceScatter ? "reduce-scatter" : "all-gather") +
           " ring step " + std::to_string(info.indexInPhase + 1) + " of " +
           std::to_string(info.phaseSteps) + " over " + std::to_string(devices) + " devices per " +
           (axis == MeshAxis::Model ? "data row" : "model column");
}

std::string ringEquation(const RingStepInfo& info, std::int64_t devices, const std::string& device,
                         const std::string& bias) {
    if (info.phase == RingPhase::AddBias)
        return "device m adds " + bias + "[chunk m] once to its reduced chunk m";
    const std::string p = std::to_string(devices);
    const int back =
        info.phase == RingPhase::ReduceScatter ? info.indexInPhase + 1 : info.indexInPhase;
    const std::string chunk =
        back == 0 ? "chunk " + device
                  : "chunk (" + device + " - " + std::to_string(back) + ") mod " + p;
    const std::string verb =
        info.phase == RingPhase::ReduceScatter ? ", which adds it to its own" : "";
    return std::string(info.phase == RingPhase::ReduceScatter ? "reduce-scatter " : "all-gather ") +
           std::to_string(info.indexInPhase + 1) + "/" + std::to_string(info.phaseSteps) +
           ": device " + device + " sends " + chunk + " to device (" + device + " + 1) mod " + p +
           verb;
}

}  // namespace tp
