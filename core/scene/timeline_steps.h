#pragma once

// The pieces both kinds of timeline are built from (timeline.cpp for one Linear, mlp_timeline.cpp
// for the MLP block): appending a step, numbering the captions, and the words of a ring step; and
// one Linear's mesh-program steps (mesh_steps.cpp), which its mesh program (timeline.cpp) and the
// layouts' programs (layout_timeline.cpp) are built from.

#include "scene/timeline.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tp {

/// Between an equation and its shapes: "y = x @ kernel + bias   (2x8 @ 8x12 + 12)".
inline constexpr auto kEquationGap = "   ";

/// A count or size in a step's words ("4", "12").
inline std::string str(std::int64_t n) {
    return std::to_string(n);
}

/// Whether the config splits the kernel's columns (else its rows).
inline bool isColumn(const LayerConfig& config) {
    return config.mode == ParallelMode::Column;
}

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

// One Linear's mesh program (mesh_steps.cpp; layerEquation and appendClosingStep timeline.cpp's) --

/// The bias columns group `group`'s step adds, as `mistake` computes it: in column mode its slice
/// (of its own bias with init-per-group); in row mode none, but bias-per-partial's whole bias.
std::vector<IndexRange> groupBias(const ShardingPlan& plan, Mistake mistake, int group);

/// "y = x @ kernel + bias   (2x8 @ 8x12 + 12)": the whole layer.
std::string layerEquation(const LayerConfig& config);

/// A ring step of the output collective in words, or the bias step's.
std::string ringCaption(const LayerConfig& config, const RingStepInfo& info);

/// Row mode's closing step (the bias added once), the last of the loop and of a mesh program
/// without a collective.
void appendClosingStep(Timeline& timeline, const LayerConfig& config, Mistake mistake);

/// Every device computing its part at once (AllCompute); `last` when nothing follows it.
void appendAllCompute(Timeline& timeline, const LayerConfig& config, Mistake mistake, bool last);

/// The output collective's collectiveStepCount(config) steps (row mode's bias step among them),
/// each with StepCollective::layoutIndex `layoutIndex`; the sequence layout's chunks are batch
/// rows, and each device adds the whole bias to its rows.
void appendOutputCollective(Timeline& program, const LayerConfig& config, int layoutIndex = -1);

/// How dy arrives on the devices, as the output is laid out: a caption and its equation.
std::string dyArrivalCaption(const LayerConfig& config);
std::string dyArrivalEquation(const LayerConfig& config);

/// Every device computing its gradients at once (AllGradients).
void appendAllGradients(Timeline& program, const LayerConfig& config);

/// What a collective is, as a caption begins: "all-reduce of dx over "model" (Megatron's f)".
std::string collectiveTitle(const StepCollective& collective);

/// The ring steps of one collective of `cost` on array `of` over `axis`: its index in
/// backwardCollectives (-1 when the tensor layout has no such collective) and in
/// layoutCollectives (-1 in the tensor layout). The last step marks dx, dkernel or dbias whole.
void appendCollectiveRing(Timeline& program, const LayerConfig& config, MeshAxis axis,
                          const std::string& of, const CollectiveCost& cost, int backwardIndex,
                          int layoutIndex = -1);

}  // namespace tp
