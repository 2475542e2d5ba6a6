#include "devices/calibration.h"

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <vector>

namespace tp {
namespace {

// The model's four terms, each a coefficient times a regressor: alpha * steps,
// (1/beta) * bytes before the knee, (1/beta_large) * bytes past it, (1/gamma) * bytes summed.
constexpr int kTerms = 4;
enum Term { Steps, Before, Past, Summed };
using Regressors = std::array<double, kTerms>;

Regressors regressors(const CollectiveTiming& t, double knee) {
    const CollectiveCost cost = ringCost(t.kind, t.devices, t.bytes);
    const double steps = double(cost.ringSteps);
    const double chunk = steps > 0 ? double(cost.bytesSentPerDevice) / steps : 0;
    const double before = knee > 0 ? std::min(chunk, knee) : chunk;
    return {steps, steps * before, steps * (chunk - before),
            double(reducingSteps(t.kind, cost.ringSteps)) * chunk};
}

struct Candidate {
    std::array<double, kTerms> coefficients{};
    double squares = 0;  // sum of squared relative errors
    bool valid = false;
};

// Weighted least squares over the terms in `use`; a term fitted negative is dropped and the rest
// fitted again.
Candidate solve(std::span<const CollectiveTiming> timings, double knee,
                std::array<bool, kTerms> use) {
    std::vector<const CollectiveTiming*> measured;
    for (const CollectiveTiming& t : timings)
        if (t.seconds > 0)
            measured.push_back(&t);
    for (;;) {
        std::vector<int> columns;
        for (int term = 0; term < kTerms; ++term)
            if (use[std::size_t(term)])
                columns.push_back(term);
        Candidate c;
        if (columns.empty() || measured.size() < columns.size())
            return c;
        // Each row divided by its time: the fit of the relative errors.
        Eigen::MatrixXd a(Eigen::Index(measured.size()), Eigen::Index(columns.size()));
        for (std::size_t row = 0; row < measured.size(); ++row) {
            const Regressors r = regressors(*measured[row], knee);
            for (std::size_t col = 0; col < columns.size(); ++col)
                a(Eigen::Index(row), Eigen::Index(col)) =
                    r[std::size_t(columns[col])] / measured[row]->seconds;
        }
        const Eigen::VectorXd ones = Eigen::VectorXd::Ones(a.rows());
        const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
        if (qr.rank() < a.cols())
            return c;
        const Eigen::VectorXd x = qr.solve(ones);
        Eigen::Index worst = 0;
        if (x.minCoeff(&worst) < 0) {
            use[std::size_t(columns[std::size_t(worst)])] = false;
            continue;
        }
        for (std::size_t col = 0; col < columns.size(); ++col)
            c.coefficients[std::size_t(columns[col])] = x(Eigen::Index(col));
        c.squares = (a * x - ones).squaredNorm();
        c.valid = c.coefficients[Before] > 0 && (knee == 0 || c.coefficients[Past] > 0);
        return c;
    }
}

}  // namespace

double fittedSeconds(const LinkFigures& link, const CollectiveTiming& timing) {
    HardwarePreset hardware;
    hardware.link = link;
    return collectiveTime(ringCost(timing.kind, timing.devices, timing.bytes), hardware).seconds();
}

Residual residuals(const LinkFigures& link, std::span<const CollectiveTiming> timings) {
    Residual r;
    double squares = 0;
    int measured = 0;
    for (const CollectiveTiming& t : timings) {
        if (!(t.seconds > 0))
            continue;
        const double residual = std::abs(fittedSeconds(link, t) / t.seconds - 1);
        squares += residual * residual;
        ++measured;
        if (residual > r.worst) {
            r.worst = residual;
            r.bytes = t.bytes;
        }
    }
    r.rms = measured > 0 ? std::sqrt(squares / measured) : 0;
    return r;
}

CollectiveFit fitCollectives(std::span<const CollectiveTiming> timings) {
    CollectiveFit fit;
    if (timings.size() < 2)
        return fit;
    const bool gathers = std::any_of(timings.begin(), timings.end(), [](const auto& t) {
        return t.kind == CollectiveKind::AllGather;
    });
    const bool sums = std::any_of(timings.begin(), timings.end(), [](const auto& t) {
        return t.kind != CollectiveKind::AllGather;
    });
    const bool useGamma = gathers && sums;
    const Candidate straight = solve(timings, 0, {true, true, false, useGamma});
    // Knees at the chunks the timings have, each with enough timings past it.
    std::vector<double> chunks;
    for (const CollectiveTiming& t : timings) {
        const CollectiveCost cost = ringCost(t.kind, t.devices, t.bytes);
        if (cost.ringSteps > 0 && t.seconds > 0)
            chunks.push_back(double(cost.bytesSentPerDevice) / double(cost.ringSteps));
    }
    std::sort(chunks.begin(), chunks.end());
    chunks.erase(std::unique(chunks.begin(), chunks.end()), chunks.end());
    Candidate kneed;
    double bestKnee = 0;
    for (const double knee : chunks) {
        const auto past = std::count_if(timings.begin(), timings.end(), [&](const auto& t) {
            return t.seconds > 0 && regressors(t, knee)[Past] > 0;
        });
        if (past < kMinPastKnee)
            continue;
        const Candidate c = solve(timings, knee, {true, true, true, useGamma});
        if (c.valid && (!kneed.valid || c.squares < kneed.squares)) {
            kneed = c;
            bestKnee = knee;
        }
    }
    // Relative errors below 1e-6 each are rounding: no knee is needed to explain them.
    const double negligible = 1e-12 * double(timings.size());
    const bool useKnee =
        kneed.valid && (!straight.valid ||
                        (kneed.squares < 0.9 * straight.squares && straight.squares > negligible));
    const Candidate& best = useKnee ? kneed : straight;
    if (!best.valid)
        return fit;
    fit.link.alphaSeconds = best.coefficients[Steps];
    fit.link.busBytesPerSecond = 1 / best.coefficients[Before];
    if (useKnee) {
        fit.link.kneeBytes = bestKnee;
        fit.link.largeBusBytesPerSecond = 1 / best.coefficients[Past];
    }
    // Sums a million times faster than the sending are rounding, not a term.
    if (best.coefficients[Summed] > 1e-6 * best.coefficients[Before])
        fit.link.reduceBytesPerSecond = 1 / best.coefficients[Summed];
    fit.valid = true;
    const Residual residual = residuals(fit.link, timings);
    fit.worstResidual = residual.worst;
    fit.worstBytes = residual.bytes;
    fit.rmsResidual = residual.rms;
    return fit;
}

LinkCalibration calibrateLinks(std::span<const CollectiveTiming> timings) {
    LinkCalibration calibration;
    calibration.all = fitCollectives(timings);
    calibration.shared = calibration.all;
    const auto ofKind = [&](CollectiveKind kind) {
        std::vector<CollectiveTiming> own;
        std::copy_if(timings.begin(), timings.end(), std::back_inserter(own),
                     [kind](const CollectiveTiming& t) { return t.kind == kind; });
        return own;
    };
    for (const CollectiveKind kind : kLinkKinds)
        if (const std::vector<CollectiveTiming> own = ofKind(kind); !own.empty())
            calibration.kinds.push_back({kind, {}, fitCollectives(own), false});
    while (calibration.shared.valid) {
        KindFit* missed = nullptr;  // the qualifying kind the shared figures miss most
        for (KindFit& k : calibration.kinds) {
            if (k.kept)
                continue;
            k.shared = residuals(calibration.shared.link, ofKind(k.kind));
            const bool keeps = k.own.valid && k.shared.rms > kOwnLinkResidual &&
                               k.own.rmsResidual < kOwnLinkGain * k.shared.rms;
            if (keeps && (!missed || k.shared.rms > missed->shared.rms))
                missed = &k;
        }
        if (!missed)
            break;
        missed->kept = true;
        std::vector<CollectiveTiming> rest;
        for (const KindFit& k : calibration.kinds)
            if (!k.kept)
                for (const CollectiveTiming& t : ofKind(k.kind))
                    rest.push_back(t);
        calibration.shared = fitCollectives(rest);  // not valid when no kind is left
    }
    // Every kind kept, or the kinds left too few timings to fit: the figures of them all.
    if (!calibration.shared.valid) {
        calibration.shared = calibration.all;
        for (KindFit& k : calibration.kinds)
            if (!k.kept && calibration.shared.valid)
                k.shared = residuals(calibration.shared.link, ofKind(k.kind));
    }
    return calibration;
}

HardwarePreset withLinks(HardwarePreset hardware, const LinkCalibration& calibration) {
    hardware.link = calibration.shared.link;
    hardware.ownLinks.clear();
    for (const KindFit& k : calibration.kinds)
        if (k.kept)
            hardware.ownLinks[k.kind] = k.own.link;
    return hardware;
}

}  // namespace tp
