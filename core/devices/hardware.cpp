#include "devices/hardware.h"

#include "devices/duration_text.h"
#include "devices/this_machine.h"
#include "layer/layer_config.h"
#include "layer/product_kernel.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <iterator>
#include <vector>

namespace tp {
namespace {

// this-machine's own figures of each kind, from its file's kind objects.
std::map<CollectiveKind, LinkFigures> thisMachineOwnLinks() {
    std::map<CollectiveKind, LinkFigures> own;
    for (std::size_t k = 0; k < std::size(kLinkKinds); ++k)
        if (this_machine::kOwnLinks[k])
            own[kLinkKinds[k]] = *this_machine::kOwnLinks[k];
    return own;
}

// Sources of the figures (read 2026-12):
// - alpha: NCCL's tuning model (src/graph/tuning.cc, hwLat) charges each step of a ring with the
//   Simple protocol 3.4 us over NVLink and 5.7 us over PCI, on top of a base latency of 8.4 us a
//   call, which is left out here (it is one step's worth on 2 to 8 devices). "How to Scale Your
//   Model" (JAX team, TPU and collectives chapters) gives about 1 us per ICI hop.
// - beta: nccl-tests' bus bandwidth (doc/PERFORMANCE.md: busbw = algbw * 2(n-1)/n for an
//   all-reduce, (n-1)/n for all-gather and reduce-scatter), which is the chunk a ring step sends
//   over its time. 8x H100 SXM reach about 370 GB/s of NVLink 4's 450 GB/s one way (nccl-tests
//   issues #212 and #309); H200 nodes have the same NVLink 4 switch. PCIe 4.0 x16 is 31.5 GB/s one
//   way (16 GT/s * 16 lanes * 128/130), of which a ring reaches about three quarters. TPU ICI:
//   4.5e10 bytes/s one way per link (the scaling book's tables for v4 and v5e); a ring uses one
//   link each way, so beta is that figure.
// - achievable FLOP/s: the datasheet's dense peak for float32 matmuls as JAX runs them (TF32 on
//   GPUs: H100 and H200 SXM 494.7 TFLOP/s, A100 156 TFLOP/s; one bf16 pass on TPUs: v4 275, v5e
//   197 TFLOP/s), times 0.7, about what large matmuls reach in practice (the scaling book's
//   roofline chapter takes such a fraction; cuBLAS benchmarks land between 0.6 and 0.8).
// - memory bandwidth: the datasheets' HBM figures times 0.9, what a streaming kernel reaches: H100
//   SXM 3.35 TB/s, H200 4.8 TB/s, A100 PCIe 80 GB 1.94 TB/s, TPU v4 1.2 TB/s, v5e 819 GB/s.
// - launch overhead: a CUDA kernel launch is a few microseconds (4 us here); an XLA program on a
//   TPU starts its fused ops in about 1 us each (2 us here).
// - this-machine: what `tpviz-mpi --calibrate --output resources/hardware/this-machine.json` wrote
//   on this project's machine (2 ranks), read by CMake into devices/this_machine.h with the
//   kinds' own link figures the file gives.
const std::vector<HardwarePreset>& presets() {
    static const std::vector<HardwarePreset> all{
        {"h100-nvlink",
         "8x H100 SXM node over NVLink 4; TF32 tensor cores, HBM3",
         {3.4e-6, 370e9},
         0.7 * 494.7e12,
         0.9 * 3.35e12,
         4e-6},
        {"h200-nvlink",
         "8x H200 SXM node over NVLink 4; TF32 tensor cores, HBM3e",
         {3.4e-6, 370e9},
         0.7 * 494.7e12,
         0.9 * 4.8e12,
         4e-6},
        {"a100-pcie",
         "A100 PCIe 80 GB GPUs over PCIe 4.0 x16; TF32 tensor cores, HBM2e",
         {5.7e-6, 24e9},
         0.7 * 156e12,
         0.9 * 1.94e12,
         4e-6},
        {"tpu-v4",
         "TPU v4 chips on an ICI ring; bf16 MXU, HBM2",
         {1e-6, 45e9},
         0.7 * 275e12,
         0.9 * 1.2e12,
         2e-6},
        {"tpu-v5e",
         "TPU v5e chips on an ICI ring; bf16 MXU, HBM2e",
         {1e-6, 45e9},
         0.7 * 197e12,
         0.9 * 819e9,
         2e-6},
        {"this-machine", this_machine::kDescription, this_machine::kLink,
         this_machine::kAchievableFlops, this_machine::kMemoryBytesPerSecond,
         this_machine::kLaunchSeconds, thisMachineOwnLinks(), this_machine::kInOrderFlops},
    };
    return all;
}

std::string flopText(double flops) {
    const struct {
        double scale;
        const char* unit;
    } units[] = {{1e12, "TFLOP"}, {1e9, "GFLOP"}, {1e6, "MFLOP"}, {1e3, "kFLOP"}};
    char buffer[48];
    for (const auto& u : units)
        if (flops >= u.scale) {
            std::snprintf(buffer, sizeof buffer, "%.3g %s", flops / u.scale, u.unit);
            return buffer;
        }
    std::snprintf(buffer, sizeof buffer, "%.0f FLOP", flops);
    return buffer;
}

std::string figureText(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
    return buffer;
}

}  // namespace

std::span<const HardwarePreset> hardwarePresets() {
    return presets();
}

const HardwarePreset* findHardware(std::string_view name) {
    for (const HardwarePreset& preset : presets())
        if (preset.name == name)
            return &preset;
    return nullptr;
}

const HardwarePreset& defaultHardware() {
    return presets()[0];
}

std::string_view toString(Bound bound) {
    return bound == Bound::Compute ? "compute" : "communication";
}

std::int64_t reducingSteps(CollectiveKind kind, std::int64_t steps) {
    switch (kind) {
        case CollectiveKind::AllReduce:
            return steps / 2;
        case CollectiveKind::ReduceScatter:
            return steps;
        default:
            return 0;
    }
}

const LinkFigures& linkFor(const HardwarePreset& hardware, CollectiveKind kind) {
    const auto own = hardware.ownLinks.find(kind);
    return own != hardware.ownLinks.end() ? own->second : hardware.link;
}

CollectiveTime collectiveTime(const CollectiveCost& cost, const HardwarePreset& hardware) {
    const LinkFigures& link = linkFor(hardware, cost.kind);
    CollectiveTime t;
    t.kind = cost.kind;
    if (cost.ringSteps == 0)
        return t;
    t.steps = cost.ringSteps;
    t.chunkBytes = cost.bytesSentPerDevice / cost.ringSteps;
    const double steps = double(t.steps), chunk = double(cost.bytesSentPerDevice) / steps;
    if (link.eager(chunk)) {
        t.protocol = "eagerly";
        t.latencySeconds = steps * link.alphaSeconds;
        t.bandwidthSeconds = steps * chunk / link.eagerBusBytesPerSecond;
    } else {
        if (link.eagerBytes > 0)
            t.protocol = "by rendezvous";
        t.latencySeconds = steps * (link.alphaSeconds + link.rendezvousSeconds);
        const double knee = link.kneeBytes > 0 ? link.kneeBytes : chunk;
        t.bandwidthSeconds = steps * std::min(chunk, knee) / link.busBytesPerSecond;
        if (chunk > knee)
            t.bandwidthSeconds += steps * (chunk - knee) / link.largeBusBytesPerSecond;
    }
    if (link.reduceBytesPerSecond > 0)
        t.sumSeconds = double(reducingSteps(t.kind, t.steps)) * chunk / link.reduceBytesPerSecond;
    return t;
}

double ProductTime::seconds() const {
    return std::max(mathSeconds, memorySeconds) + launchSeconds;
}

double ProductTime::intensity() const {
    return bytesMoved > 0 ? double(flops) / double(bytesMoved) : 0;
}

double inOrderRate(const HardwarePreset& hardware) {
    return hardware.inOrderFlops > 0 ? hardware.inOrderFlops : hardware.achievableFlops;
}

ProductTime productTime(std::int64_t flops, std::int64_t inOrderFlops, std::int64_t bytesMoved,
                        const HardwarePreset& hardware) {
    assert(inOrderFlops >= 0 && inOrderFlops <= flops);
    ProductTime t;
    t.flops = flops;
    t.inOrderFlops = hardware.inOrderFlops > 0 ? inOrderFlops : 0;
    t.bytesMoved = bytesMoved;
    t.mathSeconds = double(flops - inOrderFlops) / hardware.achievableFlops +
                    double(inOrderFlops) / inOrderRate(hardware);
    t.memorySeconds = double(bytesMoved) / hardware.memoryBytesPerSecond;
    t.launchSeconds = flops > 0 ? hardware.launchSeconds : 0;
    const double rate = flops > 0 ? double(flops) / t.mathSeconds : hardware.achievableFlops;
    t.machineBalance = rate / hardware.memoryBytesPerSecond;
    return t;
}

std::string productWords(const ProductTime& p) {
    return "this product reads and writes " + formatBytes(p.bytesMoved) + " to do " +
           flopText(double(p.flops)) + ", " + figureText(p.intensity()) +
           " FLOPs per byte against the machine's balance of " + figureText(p.machineBalance) +
           ": " + (p.memoryBound() ? "memory-bound" : "compute-bound") +
           (p.inOrderFlops > 0 ? ", at the rate of products of at most " +
                                     std::to_string(products::kFewRows) + " rows, summed in order"
                               : std::string());
}

std::string linkWords(const LinkFigures& link) {
    const auto gbPerSecond = [](double rate) {
        char figure[32];
        std::snprintf(figure, sizeof figure, "%.4g GB/s", rate / 1e9);
        return std::string(figure);
    };
    std::string text = "alpha " + durationText(link.alphaSeconds) + " per ring step, beta " +
                       gbPerSecond(link.busBytesPerSecond);
    if (link.kneeBytes > 0)
        text += ", past a knee of " + formatBytes(std::int64_t(link.kneeBytes)) + " a step " +
                gbPerSecond(link.largeBusBytesPerSecond);
    if (link.reduceBytesPerSecond > 0)
        text += ", sums " + gbPerSecond(link.reduceBytesPerSecond);
    if (link.eagerBytes > 0)
        text += ", eagerly up to " + formatBytes(std::int64_t(link.eagerBytes)) + " a step " +
                gbPerSecond(link.eagerBusBytesPerSecond) + ", past it a handshake of " +
                durationText(link.rendezvousSeconds) + " a step";
    return text;
}

std::string collectiveWords(const CollectiveTime& c) {
    if (c.steps == 0)
        return "nothing sent";
    // Several collectives as one (kind None) have steps of different sizes: no one chunk.
    const std::string steps =
        std::to_string(c.steps) + (c.steps == 1 ? " step" : " steps") +
        (c.kind == CollectiveKind::None ? std::string() : " of " + formatBytes(c.chunkBytes));
    return steps + (c.protocol.empty() ? std::string() : ", " + std::string(c.protocol)) +
           ": latency " + durationText(c.latencySeconds) + " + bandwidth " +
           durationText(c.bandwidthSeconds) +
           (c.sumSeconds > 0 ? " + sums " + durationText(c.sumSeconds) : std::string()) + ", " +
           (c.bound() == std::string_view("sums") ? std::string("bound by the sums")
                                                  : std::string(c.bound()) + "-bound");
}

namespace {

TimeEstimate finish(TimeEstimate e) {
    e.computeSeconds = e.product.seconds();
    e.communicationSeconds = e.collective.seconds();
    e.totalSeconds = e.computeSeconds + e.communicationSeconds;
    e.bound = e.communicationSeconds > e.computeSeconds ? Bound::Communication : Bound::Compute;
    return e;
}

}  // namespace

TimeEstimate estimateTime(const MeshCosts& costs, const HardwarePreset& hardware) {
    TimeEstimate e;
    e.hardware = hardware.name;
    e.product = productTime(costs.perDevice.flops, costs.perDevice.inOrderFlops,
                            costs.perDevice.productBytes, hardware);
    e.collective = collectiveTime(costs.collective, hardware);
    if (e.collective.steps > 0)
        e.collectives.push_back(e.collective);
    return finish(std::move(e));
}

TimeEstimate estimatePassTime(std::int64_t flops, std::int64_t inOrderFlops,
                              std::int64_t bytesMoved, std::span<const CollectiveCost> collectives,
                              const HardwarePreset& hardware) {
    TimeEstimate e;
    e.hardware = hardware.name;
    e.product = productTime(flops, inOrderFlops, bytesMoved, hardware);
    for (const CollectiveCost& cost : collectives) {
        const CollectiveTime t = collectiveTime(cost, hardware);
        e.collective.kind = collectives.size() == 1 ? t.kind : CollectiveKind::None;
        if (t.steps > 0)  // one protocol named only when every collective went that way
            e.collective.protocol = e.collective.steps == 0 || e.collective.protocol == t.protocol
                                        ? t.protocol
                                        : std::string_view();
        e.collective.steps += t.steps;
        e.collective.chunkBytes = std::max(e.collective.chunkBytes, t.chunkBytes);
        e.collective.latencySeconds += t.latencySeconds;
        e.collective.bandwidthSeconds += t.bandwidthSeconds;
        e.collective.sumSeconds += t.sumSeconds;
        if (t.steps > 0)
            e.collectives.push_back(t);
    }
    return finish(std::move(e));
}

}  // namespace tp
