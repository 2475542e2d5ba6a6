#pragma once

// A hardware preset as a JSON file: what `--hardware FILE.json` reads and what calibration
// writes. One object with the preset's figures, each in the unit its key names:
//   {"name": "this-machine", "description": "...", "alpha_s": 3.6e-05,
//    "beta_bytes_per_s": 1.07e10, "achievable_flops_per_s": 1.84e10,
//    "memory_bytes_per_s": 1.07e10, "launch_s": 1e-06}
// Those fields are required; the times and rates are positive numbers (launch_s may be 0).
// Optional, 0 or absent when the preset has none: "knee_bytes" with "beta_large_bytes_per_s" (the
// bus bandwidth of a ring step's bytes past the knee; both or neither) and "reduce_bytes_per_s"
// (the rate a device sums a reduction's chunks), as calibration writes them; "eager_bytes" with
// "beta_eager_bytes_per_s" (both or neither) and "rendezvous_s" (only with them): the eager limit
// of a step's chunk, the bus bandwidth up to it and the handshake past it, the knee above it.
// Optional too, an object per collective kind, "all_reduce", "all_gather" or "reduce_scatter",
// with that kind's own link figures (HardwarePreset::ownLinks) under the same keys and checks as
// the top level's link figures, e.g. "reduce_scatter": {"alpha_s": 2e-06,
// "beta_bytes_per_s": 2.6e+09}.

#include "devices/hardware.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tp {

/// A preset read from JSON, or every problem with it in words.
struct HardwareFileRead {
    std::optional<HardwarePreset> preset;
    std::vector<std::string> problems;  ///< empty when `preset` is set
};

/// Reads a preset from JSON text; `source` names it in the problems ("hw.json").
HardwareFileRead parseHardwareJson(std::string_view text, std::string_view source);

/// Reads the preset in the file at `path`; a file that cannot be read is one problem.
HardwareFileRead readHardwareFile(const std::string& path);

/// The preset as the JSON text parseHardwareJson reads, indented, ending in a newline.
std::string hardwareJson(const HardwarePreset& preset);

}  // namespace tp
