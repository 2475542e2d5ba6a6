#include "block/gelu.h"

#include <cmath>

namespace tp {
namespace {

constexpr double kUnitRoundoff = 0x1p-24;
constexpr double kUnderflow = 0x1p-120;

float inner(float x) {
    const float cube = x * x * x;
    return kGeluScale * (x + kGeluCubic * cube);
}

}  // namespace

float gelu(float x) {
    const float cdf = 0.5f * (1.0f + std::tanh(inner(x)));
    return x * cdf;
}

float geluDerivative(float x) {
    const float t = std::tanh(inner(x));
    const float cdf = 0.5f * (1.0f + t);
    const float slope = kGeluScale * (1.0f + 3.0f * kGeluCubic * (x * x));
    return cdf + x * 0.5f * (1.0f - t * t) * slope;
}

double geluRoundingBound(float x) {
    return 6.0 * kUnitRoundoff * std::abs(double(x)) + kUnderflow;
}

double geluDerivativeRoundingBound(float x) {
    const double ax = std::abs(double(x));
    const double slope = std::abs(double(geluDerivative(x)));
    return kUnitRoundoff * (8.0 + 8.0 * ax * (1.0 + 0.135 * ax * ax) + 4.0 * slope) + kUnderflow;
}

}  // namespace tp
