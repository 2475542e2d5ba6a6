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
// for a knee at each chunk the timings have (at least kMinPastKnee timings past it). A term whose
// coefficient comes out negative, which noise can give, is left out and the rest fitted again.
// Then the same again with an eager limit at each chunk the timings have (at least kMinPastKnee
// timings each side): steps up to it are alpha + chunk / beta_eager, larger ones add
// alpha_rendezvous (both linear too), their knee above the limit. A limit must be a step up: a
// handshake of at least alpha, and beta_eager no faster than beta. A knee and a limit are kept
// when they are worth their figures by the Bayesian information criterion: with n timings,
// n ln(sum / n) drops by more than ln(n) a figure they add (two for a knee, three for a limit),
// and the sum without them is more than rounding. A rule of a tenth off the sum, as the knee had
// alone, let 10% of alternating noise buy a limit and a knee (beta 21% off). gamma is fitted only
// when the timings mix reductions with all-gathers (else the sums cannot be told from the
// sending), and kept when it is below a million times beta. The worst residual is the largest
// |model / t - 1| over the timings the fit was made from.
//
// Per kind (calibrateLinks): the figures are fitted to every timing as above, and each kind again
// on its own timings alone. Each fit is judged on a kind's timings by the root mean square of
// their relative residuals (rms), what the fit minimises: a kind keeps its own figures in the
// preset when the shared figures' rms on it is above kOwnLinkResidual and its own fit's rms is
// below kOwnLinkGain times that, i.e. its own figures fit it clearly better, where noise leaves
// both fits about as far off. The kind with the largest shared rms among those that qualify is
// taken first; the shared figures are then fitted again to the kinds left, and the rule asked again
// of those, until no kind meets it. So the preset's shared figures are the fit of the kinds that
// use them, and a kind that only looked off because a slower kind pulled the shared fit keeps them.
//
// Open MPI's reduce-scatter on shared memory is such a slower kind: with glibc's default
// allocation it took about twice its all-reduce's time (64 MiB: 61 ms against 31 ms). Why the rms
// and not the worst residual: a few timings off any line (noise, a cache's edge) set every fit's
// worst residual, whichever figures it has. Without the eager limit, over seven sweeps the
// reduce-scatter's own rms was 0.51 to 0.67 of the shared one's, the all-reduce's 0.75 or more,
// the all-gather's 0.86 or more, hence a share of two thirds. With the limit every fit is closer
// (the shared figures' rms on a kind 0.20 to 0.26, each kind's own 0.09 to 0.16, on ranks that
// keep their pages; see app/mpi/rank_memory.h), hence a floor of 0.15, below which the shared
// figures already fit a kind about as well as the timings' noise allows.
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

/// How far a model is from timings (those with a time), by the relative residual
/// r = model / t - 1 of each.
struct Residual {
    double worst = 0;        ///< the largest |r|
    std::int64_t bytes = 0;  ///< V of the timing with the largest |r|
    double rms = 0;          ///< sqrt(mean r^2): what the fit minimises, per timing
};
/// The link figures fitted to timings, and how well they fit.
struct CollectiveFit {
    LinkFigures link;    ///< alpha, beta, the knee, gamma and the eager limit (0 where not fitted)
    Residual residual;   ///< of the model with `link` on the timings it was fitted to
    bool valid = false;  ///< false with fewer than 2 timings, or when no positive beta fits
};

/// Timings past a knee the fit needs before it tries that knee.
inline constexpr int kMinPastKnee = 3;

/// The fit of `timings` (any mix of kinds and device counts).
CollectiveFit fitCollectives(std::span<const CollectiveTiming> timings);

/// The model's time of one timing's collective over a link of `link`'s figures.
double fittedSeconds(const LinkFigures& link, const CollectiveTiming& timing);

/// The residuals of the model with `link` on `timings`.
Residual residuals(const LinkFigures& link, std::span<const CollectiveTiming> timings);

/// The shared figures' rms on one kind above which the kind may keep its own figures.
inline constexpr double kOwnLinkResidual = 0.15;
/// The share of that rms the kind's own fit's rms must stay below for the kind to keep it.
inline constexpr double kOwnLinkGain = 2.0 / 3;

/// One kind's side of the calibration.
struct KindFit {
    CollectiveKind kind = CollectiveKind::None;
    /// The shared figures' residuals on this kind's timings: the figures it was kept against when
    /// `kept`, else the preset's shared figures (LinkCalibration::shared).
    Residual shared;
    CollectiveFit own;  ///< fitCollectives of this kind's timings alone
    bool kept = false;  ///< own.valid, shared.rms > kOwnLinkResidual and own.residual.rms <
                        ///< kOwnLinkGain * shared.rms: the preset carries `own`
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
