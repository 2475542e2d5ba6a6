#pragma once

// The --costs part of tpviz-cli's reports: each device's bytes and FLOPs on the mesh, the output
// collective and its run on the devices' buffers, and the time estimate, as text and as JSON.

#include "devices/backward_costs.h"
#include "scene/report_format.h"
#include "scene/scene.h"

#include <sstream>

namespace tp {

/// The text report's devices section for a scene of config `c`; with `backward`, each device's
/// backward holdings and FLOPs too.
void writeCostsText(std::ostringstream& out, const LayerConfig& c, const SceneCosts& costs,
                    const BackwardHoldings* backward = nullptr);

/// The JSON report's "costs" object: mesh, devices, output_layout, per_device, collective and
/// estimate; with `backward`, last, "backward_per_device" (dy_bytes, dx_bytes,
/// dkernel_bytes, dbias_bytes, flops).
Json costsJson(const SceneCosts& costs, const BackwardHoldings* backward = nullptr);

}  // namespace tp
