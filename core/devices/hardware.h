#pragma once

// Named hardware presets and a first-order time estimate of one scene's layer on them.
//
// time = compute + communication, no overlap:
//   compute_s       = flops per device / peak FLOP/s of one device
//   communication_s = bytes each device sends in the ring collective / link bandwidth per device
// A ring sends to one neighbour at a time, so the bandwidth is one link in one direction. Latency
// per ring step and memory traffic are left out: this is the bandwidth-bound floor.

#include "devices/mesh_costs.h"

#include <optional>
#include <span>
#include <string_view>

namespace tp {

struct HardwarePreset {
    std::string_view name;          ///< as --hardware takes it, e.g. "h100-nvlink"
    std::string_view description;   ///< one line: the device, the link and what the figures are
    double peakFlops = 0;           ///< float32 matmul FLOP/s of one device
    double linkBytesPerSecond = 0;  ///< one link, one direction, of one device
};

/// Every preset, in the order --hardware list prints them.
std::span<const HardwarePreset> hardwarePresets();

/// The preset called `name`, or nullptr.
const HardwarePreset* findHardware(std::string_view name);

/// The preset --costs uses when --hardware is not given.
const HardwarePreset& defaultHardware();

/// Which term of the estimate is larger.
enum class Bound { Compute, Communication };

/// "compute" / "communication".
std::string_view toString(Bound bound);

struct TimeEstimate {
    std::string_view hardware;  ///< the preset's name
    double computeSeconds = 0;
    double communicationSeconds = 0;
    double totalSeconds = 0;  ///< compute + communication
    /// Arithmetic intensity against the link: flops per byte sent, flops / bytes_sent_per_device;
    /// nullopt when nothing is sent. Communication dominates when it is below machineBalance.
    std::optional<double> flopsPerLinkByte;
    double machineBalance = 0;  ///< peakFlops / linkBytesPerSecond, FLOPs per byte
    Bound bound = Bound::Compute;
};

/// The estimate of `costs` on `hardware` (formulas above).
TimeEstimate estimateTime(const MeshCosts& costs, const HardwarePreset& hardware);

/// The same for a device that computes `flops` and sends `bytesSent` in its collectives (the MLP
/// block's, block/mlp_costs.h).
TimeEstimate estimateTime(std::int64_t flops, std::int64_t bytesSent,
                          const HardwarePreset& hardware);

}  // namespace tp
