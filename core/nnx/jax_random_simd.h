#pragma once

// The pieces the vectorised paths of jax_random.cpp share with its scalar reference. Internal to
// core/nnx: jax_random_avx2.cpp and jax_random_avx512.cpp are compiled for their instruction set
// only, so this header declares functions (defined in the baseline jax_random.cpp) and data, and
// defines no inline code that such a file could emit with its wider instructions.

#include "nnx/jax_random.h"

#include <cstdint>

namespace tp::simd {

inline constexpr float kSqrt2 = 1.41421354f;  // f32(sqrt 2) = 0x3FB504F3

// Giles' coefficients as StableHLO's erfInv32 writes them (float literals).
inline constexpr float kErfInvLt5[9] = {2.81022636e-08f,  3.43273939e-07f, -3.5233877e-06f,
                                        -4.39150654e-06f, 0.00021858087f,  -0.00125372503f,
                                        -0.00417768164f,  0.246640727f,    1.50140941f};
inline constexpr float kErfInvGe5[9] = {-0.000200214257f, 0.000100950558f, 0.00134934322f,
                                        -0.00367342844f,  0.00573950773f,  -0.0076224613f,
                                        0.00943887047f,   1.00167406f,     2.83297682f};

// Cephes log1p rational of XLA:CPU; XLA writes them as doubles and rounds each to f32.
inline constexpr float kLog1pNum[7] = {
    float(4.5270000862445199635215E-5), float(4.9854102823193375972212E-1),
    float(6.5787325942061044846969E0),  float(2.9911919328553073277375E1),
    float(6.0949667980987787057556E1),  float(5.7112963590585538103336E1),
    float(2.0039553499201281259648E1)};
inline constexpr float kLog1pDen[7] = {1.0f,
                                       float(1.5062909083469192043167E1),
                                       float(8.3047565967967209469434E1),
                                       float(2.2176239823732856465394E2),
                                       float(3.0909872225312059774938E2),
                                       float(2.1642788614495947685003E2),
                                       float(6.0118660497603843919306E1)};
inline constexpr float kLog1pThreshold = float(0.41421356237309504880);

// The largest f32 below 2 and its negative: the clamp of truncated_normal(-2, 2).
inline constexpr float kTruncClampHi = 1.99999988f;  // 0x3FFFFFFF
inline constexpr float kTruncClampLo = -1.99999988f;
// jax.random.normal's lower uniform bound nextafter(-1, 0) = -0.99999994 (0xBF7FFFFF).
inline constexpr float kNormalLower = -0.99999994f;

/// The float pipeline of jax.random.normal and truncated_normal after the bits (spec §5, §7, §8):
/// u = max(lower, fma(unitFloat(bits), span, lower)), t = sqrt2 * erfInv(u), clamped to
/// [kTruncClampLo, kTruncClampHi] when `clamp`, value = t * scale.
struct GaussianDraw {
    float lower;  // uniform minval
    float span;   // maxval - minval, in f32
    bool clamp;   // truncated_normal(-2, 2): clamp to [-L, L]
    float scale;  // the initializer's stddev; 1 for plain draws
};

/// Element i of jax.random.bits(key, (n,), uint32), one at a time (the scalar reference).
std::uint32_t bitsAt(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t i);

/// The value `draw` makes from one 32-bit word (the scalar reference).
float gaussianFromBits(std::uint32_t bits, const GaussianDraw& draw);

/// out[k] = gaussianFromBits(bitsAt(key, layout, n, start + k), draw) for k in [0, count).
void drawGaussianScalar(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start,
                        std::uint64_t count, float* out, const GaussianDraw& draw);

// The vectorised paths: the same values as drawGaussianScalar and gaussianFromBits, bit for bit.
// Each may only be called on a CPU that has its instruction set.
namespace avx2 {
void drawGaussian(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start,
                  std::uint64_t count, float* out, const GaussianDraw& draw);
void gaussianOfBits(const std::uint32_t* bits, std::uint64_t count, float* out,
                    const GaussianDraw& draw);
}  // namespace avx2

namespace avx512 {
void drawGaussian(Key key, PrngLayout layout, std::uint64_t n, std::uint64_t start,
                  std::uint64_t count, float* out, const GaussianDraw& draw);
void gaussianOfBits(const std::uint32_t* bits, std::uint64_t count, float* out,
                    const GaussianDraw& draw);
}  // namespace avx512

}  // namespace tp::simd
