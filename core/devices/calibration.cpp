#include "devices/calibration.h"

#include <cmath>
#include <limits>

namespace tp {
namespace {

struct Regressors {
    double steps = 0;
    double sent = 0;
};

Regressors regressors(const CollectiveTiming& t) {
    const CollectiveCost cost = ringCost(t.kind, t.devices, t.bytes);
    return {double(cost.ringSteps), double(cost.bytesSentPerDevice)};
}

// Weighted least squares of t = a * steps + b * sent with weights 1/t^2; `useA`, `useB` leave a
// term out. Returns {a, b}.
std::pair<double, double> solve(std::span<const CollectiveTiming> timings, bool useA, bool useB) {
    double saa = 0, sab = 0, sbb = 0, sat = 0, sbt = 0;
    for (const CollectiveTiming& t : timings) {
        if (!(t.seconds > 0))
            continue;
        const Regressors r = regressors(t);
        const double w = 1 / (t.seconds * t.seconds);
        saa += w * r.steps * r.steps;
        sab += w * r.steps * r.sent;
        sbb += w * r.sent * r.sent;
        sat += w * r.steps * t.seconds;
        sbt += w * r.sent * t.seconds;
    }
    if (useA && useB) {
        const double det = saa * sbb - sab * sab;
        if (std::abs(det) <= std::numeric_limits<double>::min())
            return {std::nan(""), std::nan("")};
        return {(sat * sbb - sbt * sab) / det, (saa * sbt - sab * sat) / det};
    }
    if (useA)
        return {saa > 0 ? sat / saa : std::nan(""), 0};
    return {0, sbb > 0 ? sbt / sbb : std::nan("")};
}

}  // namespace

double fittedSeconds(const CollectiveFit& fit, const CollectiveTiming& timing) {
    const Regressors r = regressors(timing);
    return r.steps * fit.alphaSeconds + r.sent / fit.busBytesPerSecond;
}

CollectiveFit fitCollectives(std::span<const CollectiveTiming> timings) {
    CollectiveFit fit;
    if (timings.size() < 2)
        return fit;
    auto [a, b] = solve(timings, true, true);
    if (!(a >= 0)) {  // noise made the latency negative: the bandwidth alone explains the timings
        a = 0;
        b = solve(timings, false, true).second;
    }
    if (!(b > 0))
        return fit;
    fit.alphaSeconds = a;
    fit.busBytesPerSecond = 1 / b;
    fit.valid = true;
    for (const CollectiveTiming& t : timings) {
        if (!(t.seconds > 0))
            continue;
        const double residual = std::abs(fittedSeconds(fit, t) / t.seconds - 1);
        if (residual > fit.worstResidual) {
            fit.worstResidual = residual;
            fit.worstBytes = t.bytes;
        }
    }
    return fit;
}

}  // namespace tp
