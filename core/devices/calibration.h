#pragma once

// Fitting the cost model's alpha and beta to measured collectives.
//
// Each timing is one collective of kind k on V bytes over P devices, the median of repetitions.
// The model says t = steps * alpha + sent / beta with ringCost(k, P, V)'s steps and bytes sent per
// device, which is linear in (alpha, 1/beta). The fit minimises the relative errors,
// sum ((model - t) / t)^2, so that 8-byte and 64 MiB calls weigh alike (weighted least squares
// with weights 1/t^2, solved in closed form from the 2x2 normal equations). The worst residual is
// the largest |model / t - 1| over the timings the fit was made from.

#include "devices/mesh_costs.h"

#include <cstdint>
#include <span>
#include <string>

namespace tp {

/// One measured collective.
struct CollectiveTiming {
    CollectiveKind kind = CollectiveKind::AllReduce;
    std::int64_t devices = 2;  ///< P
    std::int64_t bytes = 0;    ///< V: the whole array (all-gather's result, a reduction's input)
    double seconds = 0;        ///< median of the repetitions
};

/// alpha and beta fitted to timings, and how well they fit.
struct CollectiveFit {
    double alphaSeconds = 0;       ///< per ring step
    double busBytesPerSecond = 0;  ///< beta
    double worstResidual = 0;      ///< max |model / measured - 1|
    std::int64_t worstBytes = 0;   ///< V of the timing with the worst residual
    bool valid = false;  ///< false with fewer than 2 timings, or when no positive fit exists
};

/// The fit of `timings` (any mix of kinds and device counts). A negative alpha, which noise can
/// give, is refitted as 0; when no positive 1/beta fits, the fit is not valid.
CollectiveFit fitCollectives(std::span<const CollectiveTiming> timings);

/// The model's time of one timing's collective under `fit`: steps * alpha + sent / beta.
double fittedSeconds(const CollectiveFit& fit, const CollectiveTiming& timing);

}  // namespace tp
