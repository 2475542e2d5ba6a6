#pragma once

// What one device holds and computes in the backward pass, in bytes of float32 and FLOPs.
//
// With Nd = N / D rows per device, P = tp_size:
//   column: dy Nd*F/P*4 (its columns; Nd*F*4 when the forward all-gathered the output, as each
//           device then holds all of dy and takes its columns), dx Nd*in_dim*4 (its partial sum,
//           then the all-reduced dx in its place), dkernel in_dim*F/P*4, dbias F/P*4;
//   row:    dy Nd*F*4 (all of it; after the all-gather when the output was sharded), dx
//           Nd*in_dim/P*4 (its own slice), dkernel in_dim/P*F*4, dbias F*4 (replicated: each
//           device sums all of dy's columns itself);
//   flops:  dkernel's and dx's products, 2*Nd*in_dim*F/P each, and dbias's sum, one add per
//           element of dy it sums (Nd*F/P in column mode, Nd*F in row mode).
// D > 1 changes none of these: the all-reduce over "data" leaves each block its size.

#include "devices/hardware.h"
#include "layer/layer_config.h"

#include <cstdint>

namespace tp {

struct BackwardHoldings {
    std::int64_t dyBytes = 0;
    std::int64_t dxBytes = 0;
    std::int64_t dkernelBytes = 0;
    std::int64_t dbiasBytes = 0;
    std::int64_t flops = 0;

    std::int64_t totalBytes() const { return dyBytes + dxBytes + dkernelBytes + dbiasBytes; }
};

/// The formulas above for a valid config.
BackwardHoldings backwardHoldings(const LayerConfig& config);

/// The backward pass's time on `hardware` (estimatePassTime): its FLOPs above, moving the
/// device's x and kernel block and its gradients' blocks once, and the collectives of
/// backwardCollectives one after the other.
TimeEstimate estimateBackwardTime(const LayerConfig& config, const HardwarePreset& hardware);

}  // namespace tp
