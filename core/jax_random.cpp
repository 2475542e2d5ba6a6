#include "jax_random.h"

#include <bit>
#include <cassert>
#include <cmath>
#include <limits>

namespace tp {

namespace {

constexpr float kSqrt2 = 1.41421354f;  // f32(sqrt 2) = 0x3FB504F3

// Giles' coefficients as StableHLO's erfInv32 writes them (float literals).
constexpr float kErfInvLt5[9] = {2.81022636e-08f,  3.43273939e-07f, -3.5233877e-06f,
                                 -4.39150654e-06f, 0.00021858087f,  -0.00125372503f,
                                 -0.00417768164f,  0.246640727f,    1.50140941f};
constexpr float kErfInvGe5[9] = {-0.000200214257f, 0.000100950558f, 0.00134934322f,
                                 -0.00367342844f,  0.00573950773f,  -0.0076224613f,
                                 0.00943887047f,   1.00167406f,     2.83297682f};

// Cephes log1p rational of XLA:CPU; XLA writes them as doubles and rounds each to f32.
constexpr float kLog1pNum[7] = {
    float(4.5270000862445199635215E-5), float(4.9854102823193375972212E-1),
    float(6.5787325942061044846969E0),  float(2.9911919328553073277375E1),
    float(6.0949667980987787057556E1),  float(5.7112963590585538103336E1),
    float(2.0039553499201281259648E1)};
constexpr float kLog1pDen[7] = {1.0f,
                                float(1.5062909083469192043167E1),
                                float(8.3047565967967209469434E1),
                                float(2.2176239823732856465394E2),
                                float(3.0909872225312059774938E2),
                                float(2.1642788614495947685003E2),
                                float(6.0118660497603843919306E1)};
constexpr float kLog1pThreshold = float(0.41421356237309504880);

// The largest f32 below 2 and its negative: the clamp of truncated_normal(-2, 2).
constexpr float kTruncClampHi = 1.99999988f;  // 0x3FFFFFFF
constexpr float kTruncClampLo = -1.99999988f;
// jax.random.normal's lower uniform bound nextafter(-1, 0) = -0.99999994 (0xBF7FFFFF).
constexpr float kNormalLower = -0.99999994f;

// A correctly rounded float32 log (the model of XLA's f32 log, spec §7).
float logCorrectlyRounded(float x) {
    return float(std::log(double(x)));
}

// Element i of the legacy stream: (counter pair, which output word).
struct LegacyCounter {
    std::uint32_t x0;
    std::uint32_t x1;
    bool second;
};

LegacyCounter legacyCounter(std::uint64_t n, std::uint64_t i) {
    const std::uint64_t h = (n + 1) / 2;
    if (i < h) {
        const std::uint64_t partner = i + h;
        return {std::uint32_t(i), partner == n ? 0u : std::uint32_t(partner), false};
    }
    return {std::uint32_t(i - h), std::uint32_t(i), true};
}

std::uint32_t bitsAt(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t i) {
    if (layout == PrngLayout::Partitionable) {
        const Threefry2x32Block b = threefry2x32(key, std::uint32_t(i >> 32), std::uint32_t(i));
        return b.y0 ^ b.y1;
    }
    const LegacyCounter c = legacyCounter(n, i);
    const Threefry2x32Block b = threefry2x32(key, c.x0, c.x1);
    return c.second ? b.y1 : b.y0;
}

float truncatedNormalFromBits(std::uint32_t bits, float scale) {
    const float u =
        std::max(kTruncatedLower, std::fma(unitFloat(bits), kTruncatedSpan, kTruncatedLower));
    const float t = std::min(std::max(kSqrt2 * erfInv(u), kTruncClampLo), kTruncClampHi);
    return t * scale;
}

float normalFromBits(std::uint32_t bits, float span, float scale) {
    const float u = std::max(kNormalLower, std::fma(unitFloat(bits), span, kNormalLower));
    return (kSqrt2 * erfInv(u)) * scale;
}

}  // namespace

const char* simdPathName() {
    return "scalar";
}

Key seedToKey(std::int64_t seed, bool x64) {
    const auto bits = std::uint64_t(seed);
    if (!x64)
        return {0u, std::uint32_t(bits)};
    return {std::uint32_t(bits >> 32), std::uint32_t(bits)};
}

Key foldIn(Key key, std::uint32_t data) {
    const Threefry2x32Block b = threefry2x32(key, 0u, data);
    return {b.y0, b.y1};
}

std::vector<Key> split(Key key, std::uint32_t num, PrngLayout layout) {
    std::vector<Key> keys(num);
    if (layout == PrngLayout::Partitionable) {
        for (std::uint32_t j = 0; j < num; ++j)
            keys[j] = foldIn(key, j);
        return keys;
    }
    std::vector<std::uint32_t> words(2 * std::size_t(num));
    randomBits32(key, layout, words.size(), 0, words.size(), words.data());
    for (std::uint32_t j = 0; j < num; ++j)
        keys[j] = {words[2 * j], words[2 * j + 1]};
    return keys;
}

void randomBits32(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start,
                  std::uint64_t count, std::uint32_t* out) {
    assert(start + count <= n);
    assert(layout == PrngLayout::Partitionable || n < 0xFFFFFFFFull);
    for (std::uint64_t k = 0; k < count; ++k)
        out[k] = bitsAt(key, layout, n, start + k);
}

float unitFloat(std::uint32_t bits) {
    return std::bit_cast<float>((bits >> 9) | 0x3F800000u) - 1.0f;
}

float log1pXla(float y) {
    if (!(std::fabs(y) < kLog1pThreshold))
        return logCorrectlyRounded(y + 1.0f);
    float num = kLog1pNum[0];
    float den = kLog1pDen[0];
    for (int k = 1; k < 7; ++k) {
        num = std::fma(num, y, kLog1pNum[k]);
        den = std::fma(den, y, kLog1pDen[k]);
    }
    const float y2 = y * y;
    const float cubicTerm = (y * y2) * (num / den);
    return y + std::fma(-0.5f, y2, cubicTerm);
}

float erfInv(float x) {
    const float w = -log1pXla(x * -x);
    const bool central = w < 5.0f;
    const float* c = central ? kErfInvLt5 : kErfInvGe5;
    const float v = central ? w - 2.5f : std::sqrt(w) - 3.0f;
    float p = c[0];
    for (int k = 1; k < 9; ++k)
        p = std::fma(p, v, c[k]);
    if (std::fabs(x) == 1.0f)
        return x * std::numeric_limits<float>::infinity();
    return p * x;
}

void uniform(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start, std::uint64_t count,
             float minval, float maxval, float* out) {
    const float span = maxval - minval;
    for (std::uint64_t k = 0; k < count; ++k) {
        const float f = unitFloat(bitsAt(key, layout, n, start + k));
        out[k] = std::max(minval, std::fma(f, span, minval));
    }
}

void normal(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start, std::uint64_t count,
            float* out, float scale, SimdPath /*path*/) {
    const float span = 1.0f - kNormalLower;
    for (std::uint64_t k = 0; k < count; ++k)
        out[k] = normalFromBits(bitsAt(key, layout, n, start + k), span, scale);
}

void truncatedNormal(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start,
                     std::uint64_t count, float* out, float scale, SimdPath /*path*/) {
    for (std::uint64_t k = 0; k < count; ++k)
        out[k] = truncatedNormalFromBits(bitsAt(key, layout, n, start + k), scale);
}

}  // namespace tp
