#include "devices/calibration.h"

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <vector>

namespace tp {
namespace {

// The model's six terms, each a coefficient times a regressor: alpha * steps, (1/beta) * bytes
// before the knee, (1/beta_large) * bytes past it, (1/gamma) * bytes summed, alpha_rendezvous *
// steps past the eager limit, (1/beta_eager) * bytes sent eagerly.
constexpr int kTerms = 6;
enum Term { Steps, Before, Past, Summed, Handshakes, Eager };
using Regressors = std::array<double, kTerms>;

// The fit's shape: a knee and an eager limit, each 0 when the model has none.
struct Shape {
    double knee = 0;
    double eager = 0;

    // The figures the shape adds to alpha, beta and gamma: the knee and beta_large; the limit,
    // beta_eager and the handshake.
    int figures() const { return (knee > 0 ? 2 : 0) + (eager > 0 ? 3 : 0); }
};

Regressors regressors(const CollectiveTiming& t, Shape shape) {
    const CollectiveCost cost = ringCost(t.kind, t.devices, t.bytes);
    const double steps = double(cost.ringSteps);
    const double chunk = steps > 0 ? double(cost.bytesSentPerDevice) / steps : 0;
    const double summed = double(reducingSteps(t.kind, cost.ringSteps)) * chunk;
    if (shape.eager > 0 && chunk <= shape.eager)
        return {steps, 0, 0, summed, 0, steps * chunk};
    const double before = shape.knee > 0 ? std::min(chunk, shape.knee) : chunk;
    return {steps, steps * before, steps * (chunk - before), summed, shape.eager > 0 ? steps : 0,
            0};
}

struct Candidate {
    std::array<double, kTerms> coefficients{};
    double squares = 0;  // sum of squared relative errors
    bool valid = false;
};

// Weighted least squares over the terms in `use`; a term fitted negative is dropped and the rest
// fitted again.
Candidate solve(std::span<const CollectiveTiming> timings, Shape shape,
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
            const Regressors r = regressors(*measured[row], shape);
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
        // An eager limit is a step up: past it a handshake of at least one more message's
        // latency (a rendezvous asks and waits for the answer before it sends), below it no
        // faster a byte than above.
        c.valid = c.coefficients[Before] > 0 && (shape.knee == 0 || c.coefficients[Past] > 0) &&
                  (shape.eager == 0 || (c.coefficients[Handshakes] >= c.coefficients[Steps] &&
                                        c.coefficients[Eager] >= c.coefficients[Before]));
        return c;
    }
}

// Whether `more`, a fit with `figures` more figures than `fewer`, is worth them on `timings`
// timings: by the Bayesian information criterion, n ln(squares / n) drops by more than ln(n) a
// figure, i.e. the squares by more than a factor n^(-figures / n) (0.83 for a knee's two figures
// on 72 timings, 0.67 for an eager limit's three on 24); and `fewer`'s squares are more than
// rounding (relative errors below 1e-6 each).
bool better(const Candidate& more, const Candidate& fewer, std::size_t timings, int figures) {
    const double n = double(timings);
    const double negligible = 1e-12 * n;
    return more.valid &&
           (!fewer.valid || (more.squares < std::pow(n, -figures / n) * fewer.squares &&
                             fewer.squares > negligible));
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
    // Knees and eager limits at the chunks the timings have.
    std::vector<double> chunks;
    for (const CollectiveTiming& t : timings) {
        const CollectiveCost cost = ringCost(t.kind, t.devices, t.bytes);
        if (cost.ringSteps > 0 && t.seconds > 0)
            chunks.push_back(double(cost.bytesSentPerDevice) / double(cost.ringSteps));
    }
    std::sort(chunks.begin(), chunks.end());
    chunks.erase(std::unique(chunks.begin(), chunks.end()), chunks.end());
    const auto timingsWhere = [&](auto&& predicate) {
        return std::count_if(timings.begin(), timings.end(), [&](const CollectiveTiming& t) {
            return t.seconds > 0 && predicate(t);
        });
    };
    // The best fit with eager limit `eager` (0: none): no knee, or the knee above the limit that
    // fits best when it is worth its figures (`better`).
    const auto bestWith = [&](double eager) -> std::pair<Candidate, Shape> {
        const bool handshake = eager > 0;
        const Candidate straight =
            solve(timings, {0, eager}, {true, true, false, useGamma, handshake, handshake});
        Candidate kneed;
        double bestKnee = 0;
        for (const double knee : chunks) {
            if (knee <= eager || timingsWhere([&](const auto& t) {
                                     return regressors(t, {knee, eager})[Past] > 0;
                                 }) < kMinPastKnee)
                continue;
            const Candidate c =
                solve(timings, {knee, eager}, {true, true, true, useGamma, handshake, handshake});
            if (c.valid && (!kneed.valid || c.squares < kneed.squares)) {
                kneed = c;
                bestKnee = knee;
            }
        }
        if (better(kneed, straight, timings.size(), 2))
            return {kneed, {bestKnee, eager}};
        return {straight, {0, eager}};
    };
    auto [best, shape] = bestWith(0);
    // Eager limits with enough timings each side, kept by the same rule.
    for (const double eager : chunks) {
        if (timingsWhere([&](const auto& t) {
                return regressors(t, {0, eager})[Eager] > 0;
            }) < kMinPastKnee ||
            timingsWhere([&](const auto& t) {
                return regressors(t, {0, eager})[Before] > 0;
            }) < kMinPastKnee)
            continue;
        const auto [c, withEager] = bestWith(eager);
        if (better(c, best, timings.size(), withEager.figures() - shape.figures())) {
            best = c;
            shape = withEager;
        }
    }
    if (!best.valid)
        return fit;
    fit.link.alphaSeconds = best.coefficients[Steps];
    fit.link.busBytesPerSecond = 1 / best.coefficients[Before];
    if (shape.knee > 0) {
        fit.link.kneeBytes = shape.knee;
        fit.link.largeBusBytesPerSecond = 1 / best.coefficients[Past];
    }
    if (shape.eager > 0) {
        fit.link.eagerBytes = shape.eager;
        fit.link.eagerBusBytesPerSecond = 1 / best.coefficients[Eager];
        fit.link.rendezvousSeconds = best.coefficients[Handshakes];
    }
    // Sums a million times faster than the sending are rounding, not a term.
    if (best.coefficients[Summed] > 1e-6 * best.coefficients[Before])
        fit.link.reduceBytesPerSecond = 1 / best.coefficients[Summed];
    fit.valid = true;
    fit.residual = residuals(fit.link, timings);
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
                               k.own.residual.rms < kOwnLinkGain * k.shared.rms;
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
