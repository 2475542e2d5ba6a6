#pragma once

// The sharding layout's part of tpviz-cli's --costs reports (devices/layout_costs.h): its
// collectives in the order they run, with their pass, axis, array, bytes and ring steps, and each
// array's bytes per device at rest and at its largest, as text and as JSON.

#include "devices/ring_collective.h"
#include "layer/layer_config.h"
#include "scene/report_format.h"

#include <sstream>
#include <vector>

namespace tp {

/// The text report's layout section for a valid one-Linear config; the backward's collectives
/// and gradients with `backward`. `runs` (SceneCosts::layoutRings): each collective's run on the
/// devices' buffers under its line; empty in the tensor layout.
void writeLayoutText(std::ostringstream& out, const LayerConfig& config, bool backward,
                     const std::vector<RingRun>& runs);

/// Adds the layout to the JSON report's "costs" object: "layout", "collectives" (each
/// {"name", "phase", "axis", "of", "bytes_sent_per_device", "ring_steps"}, in order) and, in
/// "per_device", each array's "NAME_bytes_at_rest" and "NAME_bytes_peak" and the totals
/// "bytes_at_rest" and "bytes_peak".
void addLayoutJson(Json& costs, const LayerConfig& config, bool backward,
                   const std::vector<RingRun>& runs);

}  // namespace tp
