#pragma once

// The sharding layout's part of tpviz-cli's --costs reports (devices/layout_costs.h): its
// collectives in the order they run, with their pass, axis, array, bytes, ring steps and time on
// the preset, each array's bytes per device at rest and at its largest, and the three layouts of
// the config side by side (compareLayouts), as text and as JSON.

#include "layer/layer_config.h"
#include "scene/report_format.h"
#include "scene/scene.h"

#include <sstream>

namespace tp {

/// The text report's layout section for a valid one-Linear config; the backward's collectives
/// and gradients with `backward`. Each collective's run on the devices' buffers
/// (SceneCosts::layoutRings, none in the tensor layout) under its line.
void writeLayoutText(std::ostringstream& out, const LayerConfig& config, bool backward,
                     const SceneCosts& costs);

/// Adds the layout to `json`, the JSON report's "costs" object: "layout", "collectives" (each
/// {"name", "phase", "axis", "of", "bytes_sent_per_device", "ring_steps", "time_s"}, in order),
/// in "per_device" each array's "NAME_bytes_at_rest" and "NAME_bytes_peak" and the totals
/// "bytes_at_rest" and "bytes_peak", and "layouts": the three side by side, each {"layout",
/// "refusal"} or {"layout", "bytes_at_rest", "bytes_peak", "forward_bytes_sent", "forward_s"}
/// on the preset, with the backward also "backward_bytes_sent" and "backward_s".
void addLayoutJson(Json& json, const LayerConfig& config, bool backward, const SceneCosts& costs);

}  // namespace tp
