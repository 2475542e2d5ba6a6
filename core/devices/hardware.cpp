#include "devices/hardware.h"

#include <array>

namespace tp {
namespace {

// Sources of the figures (public datasheets, read 2026-11):
// - h100-nvlink: NVIDIA H100 SXM5 datasheet, TF32 Tensor Core 989 TFLOP/s "with sparsity", so
//   494.7e12 dense (XLA runs float32 matmuls on GPUs in TF32 at JAX's default precision); NVLink 4
//   900 GB/s per GPU in both directions together, so 450e9 one way.
// - a100-pcie: NVIDIA A100 PCIe datasheet, TF32 Tensor Core 156 TFLOP/s dense; PCIe 4.0 x16 is
//   16 GT/s * 16 lanes * 128/130 encoding = 31.5e9 bytes/s one way.
// - tpu-v4: Google Cloud TPU v4 documentation, 275 TFLOP/s bf16 per chip (JAX's default precision
//   runs a float32 matmul on TPU as one bf16 pass); one ICI link one way 45e9 bytes/s, as given in
//   "How to Scale Your Model" (JAX team, TPU chapter).
// - tpu-v5e: Google Cloud TPU v5e documentation, 197 TFLOP/s bf16 per chip; ICI 400 GB/s per chip
//   in both directions over 4 ports, so 50e9 one way on one link.
// - this-machine: measured here once (a 2-core AMD EPYC virtual machine, shared): the best of 7
//   Eigen float32 products of two 1024 x 1024 matrices, compiled as tpviz_core is (-O3
//   -march=native, OpenMP), gave 1.84e10 FLOP/s; the best of 10 copies of a 64 MiB buffer
//   (std::memcpy) gave 1.07e10 bytes/s, which stands for the link between two devices that are
//   processes on one host. Figures from a busy machine are lower than from an idle one.
constexpr std::array<HardwarePreset, 5> kPresets{{
    {"h100-nvlink",
     "8x H100 SXM node over NVLink 4; TF32 tensor cores, one direction of a GPU's NVLink", 494.7e12,
     450e9},
    {"a100-pcie", "A100 PCIe GPUs over PCIe 4.0 x16; TF32 tensor cores, one direction of the slot",
     156e12, 31.5e9},
    {"tpu-v4", "TPU v4 chips on an ICI ring; bf16 MXU peak, one ICI link in one direction", 275e12,
     45e9},
    {"tpu-v5e", "TPU v5e chips on an ICI ring; bf16 MXU peak, one ICI link in one direction",
     197e12, 50e9},
    {"this-machine",
     "this machine, measured once: Eigen float32 product, and a memory copy as the link", 1.84e10,
     1.07e10},
}};

}  // namespace

std::span<const HardwarePreset> hardwarePresets() {
    return kPresets;
}

const HardwarePreset* findHardware(std::string_view name) {
    for (const HardwarePreset& preset : kPresets)
        if (preset.name == name)
            return &preset;
    return nullptr;
}

const HardwarePreset& defaultHardware() {
    return kPresets[0];
}

std::string_view toString(Bound bound) {
    return bound == Bound::Compute ? "compute" : "communication";
}

TimeEstimate estimateTime(const MeshCosts& costs, const HardwarePreset& hardware) {
    return estimateTime(costs.perDevice.flops, costs.collective.bytesSentPerDevice, hardware);
}

TimeEstimate estimateTime(std::int64_t flopsPerDevice, std::int64_t bytesSent,
                          const HardwarePreset& hardware) {
    TimeEstimate e;
    e.hardware = hardware.name;
    const double flops = double(flopsPerDevice);
    const double sent = double(bytesSent);
    e.computeSeconds = flops / hardware.peakFlops;
    e.communicationSeconds = sent / hardware.linkBytesPerSecond;
    e.totalSeconds = e.computeSeconds + e.communicationSeconds;
    if (sent > 0)
        e.flopsPerLinkByte = flops / sent;
    e.machineBalance = hardware.peakFlops / hardware.linkBytesPerSecond;
    e.bound = e.communicationSeconds > e.computeSeconds ? Bound::Communication : Bound::Compute;
    return e;
}

}  // namespace tp
