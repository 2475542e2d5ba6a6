#pragma once

// The sharding layout's part of tpviz-cli's --costs reports (devices/layout_costs.h): its
// collectives in the order they run, with their pass, axis, array, bytes and ring steps, and each
// array's bytes per device at rest and at its largest, as text and as JSON.

#include "layer/layer_config.h"
#include "scene/report_format.h"

#include <sstream>

namespace tp {

/// The text report's layout section for a valid one-Linear config; the backward's collectives
/// and gradients with `backward`.
void writeLayoutText(std::ostringstream& out, const LayerConfig& config, bool backward);

/// Adds the layout to the JSON report's "costs" object: "layout", "collectives" (each
/// {"name", "phase", "axis", "of", "bytes_sent_per_device", "ring_steps"}, in order) and, in
/// "per_device", each array's "NAME_bytes_at_rest" and "NAME_bytes_peak" and the totals
/// "bytes_at_rest" and "bytes_peak".
void addLayoutJson(Json& costs, const LayerConfig& config, bool backward);

}  // namespace tp
