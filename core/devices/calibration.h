#pragma once

// Fitting the cost model's link figures to measured collectives.
//
// Each timing is one collective of kind k on V bytes over P devices, the median of repetitions.
// The model (devices/hardware.h) says
//   t = steps * alpha + steps * min(chunk, knee) / beta + steps * max(chunk - knee, 0) / beta_large
//       + reducing_steps * chunk / gamma
// with ringCost(k, P, V)'s steps and chunk. For a given knee this is linear in (alpha, 1/beta,
// 1/beta_large, 1/gamma). The fit minimises the relative errors, sum ((model - t) / t)^2, so that
// 8-byte and 64 MiB calls weigh alike (weighted least squares with weights 1/t^2), for no knee and
// for a knee at each chunk the timings have (at least kMinPastKnee timings past it), and keeps the
// knee only when it lowers that sum by more than a tenth (and the sum without it is more than
// rounding). A term whose coefficient comes out negative, which noise can give, is left out and
// the rest fitted again. gamma is fitted only when the timings mix reductions with all-gathers
// (else the sums cannot be told from the sending), and kept when it is below a million times beta.
// The worst residual is the largest |model / t - 1| over the timings the fit was made from.

#include "devices/hardware.h"
#include "devices/mesh_costs.h"

#include <cstdint>
#include <span>

namespace tp {

/// One measured collective.
struct CollectiveTiming {
    CollectiveKind kind = CollectiveKind::AllReduce;
    std::int64_t devices = 2;  ///< P
    std::int64_t bytes = 0;    ///< V: the whole array (all-gather's result, a reduction's input)
    double seconds = 0;        ///< median of the repetitions
};

/// The link figures fitted to timings, and how well they fit.
struct CollectiveFit {
    double alphaSeconds = 0;            ///< per ring step
    double busBytesPerSecond = 0;       ///< beta
    double kneeBytes = 0;               ///< 0: no knee
    double largeBusBytesPerSecond = 0;  ///< beta_large, past the knee; 0 without a knee
    double reduceBytesPerSecond = 0;    ///< gamma; 0 when not fitted
    double worstResidual = 0;           ///< max |model / measured - 1|
    std::int64_t worstBytes = 0;        ///< V of the timing with the worst residual
    bool valid = false;  ///< false with fewer than 2 timings, or when no positive beta fits
};

/// Timings past a knee the fit needs before it tries that knee.
inline constexpr int kMinPastKnee = 3;

/// The fit of `timings` (any mix of kinds and device counts).
CollectiveFit fitCollectives(std::span<const CollectiveTiming> timings);

/// `hardware` with the fit's link figures (alpha, beta, knee, beta_large, gamma) in place of its
/// own.
HardwarePreset withLink(HardwarePreset hardware, const CollectiveFit& fit);

/// The model's time of one timing's collective under `fit`.
double fittedSeconds(const CollectiveFit& fit, const CollectiveTiming& timing);

}  // namespace tp
