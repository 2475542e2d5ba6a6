#pragma once

// The --costs part of tpviz-cli's reports: each device's bytes and FLOPs on the mesh, the output
// collective and its run on the devices' buffers, and the time estimate, as text and as JSON.

#include "devices/backward_costs.h"
#include "scene/report_format.h"
#include "scene/scene.h"

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace tp {

/// What bounds the estimate: "communication" when the collective takes longer than the product,
/// else the product's own bound, "memory" or "compute".
std::string_view boundWord(const TimeEstimate& estimate);

/// The estimate's collectives in lines: "all-reduce: 6 steps of 64 bytes: latency .. + bandwidth
/// .., latency-bound" for each; where there are several, headed by their sum ("collectives: 9
/// steps: ..."). None when nothing is sent.
std::vector<std::string> collectiveLines(const TimeEstimate& estimate);

/// An estimate in three lines or more: "<what> on <hardware>: compute .. + communication .. = ..",
/// its product's terms (math, memory, launch) with its intensity in words, and its collectives'
/// terms (latency, bandwidth), by collectiveLines.
std::string estimateText(const TimeEstimate& estimate, std::string_view what);

/// An estimate as JSON: hardware, compute_s, communication_s, total_s, bound (boundWord), and
/// "product" (flops, bytes_moved, math_s, memory_s, launch_s, intensity_flops_per_byte,
/// machine_balance_flops_per_byte, bound "compute" or "memory") and "collective" (steps,
/// chunk_bytes, latency_s, bandwidth_s, bound "latency", "bandwidth" or "none").
Json estimateJson(const TimeEstimate& estimate);

/// A collective's run on the devices' buffers in one line (two when its step buffers were not
/// kept), each starting with `indent`: "run on the devices' buffers: 24 of 24 elements
/// bit-identical to <against> (all, as a gather only moves values)", or the ring's verdict against
/// the rounding bound; a run not simulated says why.
std::string ringRunText(const RingRun& ring, std::string_view against, std::string_view indent);

/// The text report's devices section for a scene of config `c`; with `backward`, each device's
/// backward holdings and FLOPs too.
void writeCostsText(std::ostringstream& out, const LayerConfig& c, const SceneCosts& costs,
                    const BackwardHoldings* backward = nullptr);

/// The JSON report's "costs" object: mesh, devices, output_layout, per_device, collective and
/// estimate; with `backward`, "backward_per_device" (dy_bytes, dx_bytes, dkernel_bytes,
/// dbias_bytes, flops) and "backward_estimate" last.
Json costsJson(const SceneCosts& costs, const BackwardHoldings* backward = nullptr);

}  // namespace tp
