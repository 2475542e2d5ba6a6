#pragma once

// Named hardware presets and a time estimate of one scene's layer on them, in the alpha-beta and
// roofline models that NCCL's tuner and "How to Scale Your Model" use.
//
// A ring collective of `steps` steps, each sending one chunk of `chunk_bytes` to the neighbour:
//   collective_s = steps * (alpha + chunk_bytes / beta) + reducing_steps * chunk_bytes / gamma
// alpha is the latency of one ring step (the message's start-up), beta the bus bandwidth a ring
// reaches (nccl-tests' busbw, below the link's line rate). For a ring of P devices on V bytes,
// chunk_bytes = V / P and steps = P-1 (all-gather, reduce-scatter) or 2(P-1) (all-reduce), so the
// bandwidth term is nccl-tests' busbw formula turned round: V * 2(P-1)/P / beta for an all-reduce.
// A preset may give a knee: a step's bytes past knee_bytes go at a second bus bandwidth
// beta_large, as when a message outgrows the caches or the library changes its protocol (the
// calibration finds the knee; the GPU and TPU presets have none). gamma is the rate a device sums
// a received chunk into its own (a reduction's steps: half of an all-reduce's, all of a
// reduce-scatter's); presets whose beta is nccl-tests' busbw leave it out, as busbw has the sums
// in. One product on one device:
//   product_s = max(flops / achievable_flops, bytes_moved / memory_bandwidth) + launch_overhead
// A preset calibrated on this program's core may give products of at most kFewRows rows their own
// rate, in_order_flops: the core sums those in order over k (layer/products.h), not by the blocked
// kernel achievable_flops measures, and in this-machine's calibration on an AMD EPYC they reached
// 57.5 GFLOP/s where the blocked kernel reached 91.9. Their flops / in_order_flops then stands for
// the math term. bytes_moved counts what the product must read and write once (its x, its kernel
// block, its bias, its output). It is memory-bound when flops / bytes_moved, the arithmetic
// intensity, is below the machine's balance achievable_flops / memory_bandwidth. The estimate adds
// product and collective: no overlap. alpha, beta, the knee and gamma are the preset's link
// figures; a collective kind may have its own (HardwarePreset::ownLinks), which its time then uses.
//
// A preset may give an eager limit, as an MPI library or NCCL has two protocols: a step whose
// chunk is at most eager_bytes goes eagerly, copied through a buffer the receiver already has
// (alpha, then chunk / beta_eager); a larger chunk goes by rendezvous, a handshake first
// (alpha + alpha_rendezvous, then chunk / beta with the knee). Open MPI's shared-memory transport
// switches at 4 KiB: on 2 ranks an 8 KiB all-reduce took 8.3 µs where a 2 KiB one took 1.9 µs and
// a 32 KiB one 12.5 µs, a step no single line follows.

#include "devices/mesh_costs.h"

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

namespace tp {

/// A link's figures in the model above: what one ring step costs. A constructor, not an
/// aggregate: a preset's figures in one brace list cannot slide into its link unbraced.
struct LinkFigures {
    LinkFigures() = default;
    constexpr LinkFigures(double alpha, double beta, double knee = 0, double large = 0,
                          double gamma = 0, double eager = 0, double eagerBeta = 0,
                          double rendezvous = 0)
        : alphaSeconds(alpha),
          busBytesPerSecond(beta),
          kneeBytes(knee),
          largeBusBytesPerSecond(large),
          reduceBytesPerSecond(gamma),
          eagerBytes(eager),
          eagerBusBytesPerSecond(eagerBeta),
          rendezvousSeconds(rendezvous) {}

    double alphaSeconds = 0;       ///< latency of one ring step, seconds
    double busBytesPerSecond = 0;  ///< beta: a ring's bus bandwidth, bytes/s
    double kneeBytes = 0;  ///< a step's bytes past this go at largeBusBytesPerSecond; 0: no knee
    double largeBusBytesPerSecond = 0;  ///< beta_large: the bus bandwidth past the knee, bytes/s
    double reduceBytesPerSecond = 0;    ///< gamma: bytes a device sums per second; 0: in beta
    double eagerBytes = 0;              ///< a step's chunk up to this goes eagerly; 0: one protocol
    double eagerBusBytesPerSecond = 0;  ///< beta_eager: the bus bandwidth of an eager step
    double rendezvousSeconds = 0;       ///< alpha_rendezvous: a step's handshake past the limit

    /// Whether a step of `chunkBytes` goes eagerly (false without an eager limit).
    constexpr bool eager(double chunkBytes) const {
        return eagerBytes > 0 && chunkBytes <= eagerBytes;
    }

    bool operator==(const LinkFigures&) const = default;
};

/// The collectives a preset may give their own link figures, in the order the preset file, the
/// calibration and --hardware list take them.
inline constexpr CollectiveKind kLinkKinds[] = {
    CollectiveKind::AllReduce, CollectiveKind::AllGather, CollectiveKind::ReduceScatter};

struct HardwarePreset {
    std::string name;                 ///< as --hardware takes it, e.g. "h100-nvlink"
    std::string description;          ///< one line: the device, the link and what the figures are
    LinkFigures link;                 ///< the link's figures, for every collective without its own
    double achievableFlops = 0;       ///< float32 matmul FLOP/s one device reaches
    double memoryBytesPerSecond = 0;  ///< bytes/s one device reads and writes its memory
    double launchSeconds = 0;         ///< fixed cost of starting one product, seconds
    /// A collective kind's own link figures, in place of `link` for that kind: where one library
    /// runs a kind by a slower route than the ring (Open MPI's reduce-scatter on shared memory
    /// takes twice its all-reduce's time), calibration fits that kind apart
    /// (devices/calibration.h). Empty on the GPU and TPU presets.
    std::map<CollectiveKind, LinkFigures> ownLinks = {};
    /// FLOP/s of this program's products of at most kFewRows rows, summed in order; 0: they run at
    /// achievableFlops (the GPU and TPU presets, whose products have one route).
    double inOrderFlops = 0;

    bool operator==(const HardwarePreset&) const = default;
};

/// The link figures a collective of `kind` runs at on `hardware`: the kind's own when the preset
/// has them, else the shared `link`.
const LinkFigures& linkFor(const HardwarePreset& hardware, CollectiveKind kind);

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

/// One ring collective's time: steps * (alpha + chunkBytes / beta) + the sums.
struct CollectiveTime {
    CollectiveKind kind = CollectiveKind::None;
    std::int64_t steps = 0;
    std::int64_t chunkBytes = 0;  ///< bytes each step sends: bytes sent per device / steps
    double latencySeconds = 0;    ///< steps * alpha
    double bandwidthSeconds = 0;  ///< steps * chunkBytes / beta (beta_large past the knee)
    double sumSeconds = 0;        ///< reducing steps * chunkBytes / gamma; 0 without gamma
    /// How the steps went on a link with an eager limit: "eagerly" or "by rendezvous"; empty
    /// without one, or when a pass's collectives went both ways.
    std::string_view protocol;

    double seconds() const { return latencySeconds + bandwidthSeconds + sumSeconds; }
    bool latencyBound() const { return bound() == std::string_view("latency"); }
    /// The largest term: "latency", "bandwidth" or "sums".
    std::string_view bound() const {
        if (sumSeconds > bandwidthSeconds && sumSeconds > latencySeconds)
            return "sums";
        return latencySeconds > bandwidthSeconds ? "latency" : "bandwidth";
    }
};

/// The steps of a ring collective of `steps` steps that sum a received chunk into their own: half
/// of an all-reduce's (its reduce-scatter), all of a reduce-scatter's, none of an all-gather's.
std::int64_t reducingSteps(CollectiveKind kind, std::int64_t steps);

/// The time of `cost` on `hardware`; zero when nothing is sent.
CollectiveTime collectiveTime(const CollectiveCost& cost, const HardwarePreset& hardware);

/// One product's time: max(math, memory) + launch.
struct ProductTime {
    std::int64_t flops = 0;
    /// Of those, the ones summed in order (at most kFewRows rows) at the preset's own rate for
    /// them; 0 on a preset without one, where every FLOP runs at achievable_flops.
    std::int64_t inOrderFlops = 0;
    std::int64_t bytesMoved = 0;  ///< what the product reads and writes
    /// flops / achievable_flops, the in-order ones at in_order_flops where the preset has it
    double mathSeconds = 0;
    double memorySeconds = 0;  ///< bytesMoved / memory_bandwidth
    double launchSeconds = 0;  ///< the preset's launch overhead; 0 when there is no product
    /// the FLOP/s the math term ran at (flops / mathSeconds) over memory_bandwidth, FLOPs per byte
    double machineBalance = 0;

    double seconds() const;
    bool memoryBound() const { return memorySeconds > mathSeconds; }
    /// flops / bytesMoved, FLOPs per byte; 0 when nothing is moved.
    double intensity() const;
};

/// The time of a product of `flops`, `inOrderFlops` of them summed in order, that reads and writes
/// `bytesMoved` on `hardware`.
ProductTime productTime(std::int64_t flops, std::int64_t inOrderFlops, std::int64_t bytesMoved,
                        const HardwarePreset& hardware);

/// The FLOP/s `hardware` runs products summed in order at: its in_order_flops, or its
/// achievable_flops where it has none.
double inOrderRate(const HardwarePreset& hardware);

/// The product in words a learner reads: "this product reads and writes 128 MiB to do 0.54
/// GFLOP, 4.00 FLOPs per byte against the machine's balance of 153: memory-bound", with ", at the
/// rate of products of at most 8 rows, summed in order" when its FLOPs ran at that rate.
std::string productWords(const ProductTime& product);

/// A link's figures in words, as --hardware list and the calibration print them: "alpha 315 ns
/// per ring step, beta 5.801 GB/s, past a knee of 4.0 MiB a step 1.988 GB/s, sums 6.217 GB/s"
/// (the knee and the sums when it has them), and with an eager limit "..., eagerly up to
/// 2.0 KiB a step 1.455 GB/s, past it a handshake of 2.40 µs a step".
std::string linkWords(const LinkFigures& link);

/// The collective in words: "2 steps of 2.00 MiB: latency 72.0 µs + bandwidth 8.00 ms,
/// bandwidth-bound" (with "+ sums 1.20 ms" when the preset has gamma, "bound by the sums" when
/// they are the largest term, and "2 steps of 2.00 KiB, eagerly: ..." on a link with an eager
/// limit); several collectives as one (kind None) "9 steps: ...", their steps not of one size;
/// "nothing sent" when there are no steps.
std::string collectiveWords(const CollectiveTime& collective);

struct TimeEstimate {
    std::string hardware;  ///< the preset's name
    ProductTime product;
    /// The pass's collectives as one: their steps and terms summed (kind None when there are
    /// several, chunkBytes then the largest chunk).
    CollectiveTime collective;
    /// Each collective that sends something, in the order the pass runs them.
    std::vector<CollectiveTime> collectives;
    double computeSeconds = 0;        ///< product.seconds()
    double communicationSeconds = 0;  ///< collective.seconds()
    double totalSeconds = 0;          ///< compute + communication
    Bound bound = Bound::Compute;
};

/// The estimate of `costs` on `hardware`: its product (perDevice.flops, inOrderFlops and
/// productBytes) and its output collective.
TimeEstimate estimateTime(const MeshCosts& costs, const HardwarePreset& hardware);

/// A pass's estimate: its products as one of `flops` (`inOrderFlops` of them summed in order: a
/// forward's of at most kFewRows rows; a backward's products have a factor transposed and none)
/// moving `bytesMoved` (the backward's dkernel,
/// dx and dbias; the MLP block's two layers and its GeLU), and its collectives one after the
/// other; their steps and latency and bandwidth terms are summed into `collective` (kind None
/// when there are several, chunkBytes the largest chunk).
TimeEstimate estimatePassTime(std::int64_t flops, std::int64_t inOrderFlops,
                              std::int64_t bytesMoved, std::span<const CollectiveCost> collectives,
                              const HardwarePreset& hardware);

}  // namespace tp
