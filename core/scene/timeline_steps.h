#pragma once

// The pieces both kinds of timeline are built from (timeline.cpp for one Linear, mlp_timeline.cpp
// for the MLP block): appending a step, numbering the captions, and the words of a ring step.

#include "scene/timeline.h"

#include <cstdint>
#include <string>

namespace tp {

/// Between an equation and its shapes: "y = x @ kernel + bias   (2x8 @ 8x12 + 12)".
inline constexpr auto kEquationGap = "   ";

/// Appends a step that leaves the state of the one before it (or the start's), as `phase`: what
/// one step does (its group, bias, ring step, collective and words) does not carry over.
TimelineStep& appendStep(Timeline& timeline, StepPhase phase);

/// "Step 2 of 3: " before every caption.
void numberCaptions(Timeline& timeline);

/// "reduce-scatter ring step 2 of 3 over 4 devices per data row".
std::string ringStepText(const RingStepInfo& info, std::int64_t devices, MeshAxis axis);

/// The equation line of a ring step over `devices` devices, named by `device` ("m" along
/// "model", "d" along "data"), e.g. "reduce-scatter 2/3: device m sends chunk (m - 2) mod 4 to
/// device (m + 1) mod 4, which adds it to its own"; for the AddBias step, `bias` names the bias
/// each device adds once to its reduced chunk.
std::string ringEquation(const RingStepInfo& info, std::int64_t devices, const std::string& device,
                         const std::string& bias = "bias");

}  // namespace tp
