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
//
// Per kind (calibrateLinks): the figures are fitted to every timing as above, and each kind again
// on its own timings alone. A kind keeps its own figures in the preset when the shared figures
// miss it by more than kOwnLinkResidual (their worst residual on that kind's timings) and the
// kind's own fit has a worst residual below kOwnLinkGain times that: its own figures fit it
// clearly better, where noise would leave both fits about as far off. The kind the shared figures
// miss worst is taken first; the shared figures are then fitted again to the kinds left, and the
// rule asked again of those, until no kind meets it. So the preset's shared figures are the fit of
// the kinds that use them, and a kind that only looked off because a slower kind pulled the shared
// fit keeps them. Open MPI's reduce-scatter on shared memory is such a slower kind: it takes about
// twice its all-reduce's time (64 MiB: 61 ms against 31 ms), and figures shared with the
// all-reduce put it at a quarter to a third of its time. Twice as slow as the others on synthetic
// timings, the fit of all three misses it by 0.45 (the others pull the fit its way), hence a
// threshold of a quarter rather than a half; measured noise of a few percent is far below either.
// Timings of kinds that agree leave every kind on the shared figures.

#include "devices/hardware.h"
#include "devices/mesh_costs.h"

#include <cstdint>
#include <span>
#include <vector>

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
    LinkFigures link;  ///< alpha, beta, the knee and beta_large (0 without), gamma (0 unfitted)
    double worstResidual = 0;     ///< max |model / measured - 1|
    std::int64_t worstBytes = 0;  ///< V of the timing with the worst residual
    bool valid = false;  ///< false with fewer than 2 timings, or when no positive beta fits
};

/// Timings past a knee the fit needs before it tries that knee.
inline constexpr int kMinPastKnee = 3;

/// The fit of `timings` (any mix of kinds and device counts).
CollectiveFit fitCollectives(std::span<const CollectiveTiming> timings);

/// The model's time of one timing's collective over a link of `link`'s figures.
double fittedSeconds(const LinkFigures& link, const CollectiveTiming& timing);

/// The largest |fittedSeconds(link, t) / t - 1| over `timings` (those with a time), and its V.
struct Residual {
    double worst = 0;
    std::int64_t bytes = 0;
};
Residual worstResidual(const LinkFigures& link, std::span<const CollectiveTiming> timings);

/// The shared figures' worst residual on one kind above which the kind may keep its own figures.
inline constexpr double kOwnLinkResidual = 0.25;
/// The share of that residual the kind's own fit must stay below for the kind to keep it.
inline constexpr double kOwnLinkGain = 0.5;

/// One kind's side of the calibration.
struct KindFit {
    CollectiveKind kind = CollectiveKind::None;
    /// The shared figures' worst residual on this kind's timings: the figures it was kept against
    /// when `kept`, else the preset's shared figures (LinkCalibration::shared).
    Residual shared;
    CollectiveFit own;  ///< fitCollectives of this kind's timings alone
    bool kept = false;  ///< own.valid, shared.worst > kOwnLinkResidual and own.worstResidual <
                        ///< kOwnLinkGain * shared.worst: the preset carries `own`
};

/// The fits of every timing, of each kind and of the kinds without their own figures.
struct LinkCalibration {
    CollectiveFit all;           ///< fitCollectives of every timing
    CollectiveFit shared;        ///< of the timings of the kinds not kept (`all` when none or every
                                 ///< kind is kept): the preset's `link`
    std::vector<KindFit> kinds;  ///< the kinds the timings have, in kLinkKinds' order
};

/// The calibration of `timings`: the shared figures, and each kind's own fit and whether the
/// preset keeps it (the rule above).
LinkCalibration calibrateLinks(std::span<const CollectiveTiming> timings);

/// `hardware` with the calibration's figures: the shared fit's as its link, the kept kinds' fits as
/// their own, and no other kind's own.
HardwarePreset withLinks(HardwarePreset hardware, const LinkCalibration& calibration);

}  // namespace tp
