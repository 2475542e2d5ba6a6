#pragma once

// The MLP block's activation: jax.nn.gelu with its default approximate=True (Flax's nnx.gelu is
// jax.nn.gelu), in float32 as JAX's formula spells it (jax/_src/nn/functions.py):
//   cdf  = 0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))
//   gelu = x * cdf
// with x**3 = x * x * x (lax.integer_pow) and sqrt(2 / pi) rounded to float32 (np.sqrt(2 /
// np.pi).astype(float32)). tanh is the C library's tanhf, correct to a few units in the last
// place; XLA's float32 tanh is a rational approximation of its own, so the last bits of a GeLU
// may differ from JAX's. Nothing here promises JAX's bits: the block's check compares two float32
// evaluations of this same function, and bounds how far apart their roundings can put them.

namespace tp {

/// sqrt(2 / pi) in float32, and the cubic term's coefficient.
inline constexpr float kGeluScale = 0.797884583f;
inline constexpr float kGeluCubic = 0.044715f;

/// gelu(x), tanh form.
float gelu(float x);

/// d gelu / dx, as jax.grad differentiates the formula above:
///   cdf + x * 0.5 * (1 - t * t) * sqrt(2 / pi) * (1 + 3 * 0.044715 * x * x),
///   t = tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)).
float geluDerivative(float x);

/// The largest |gelu'(x)| over all x: 1.12899 (at x = 1.4185), rounded up. Two inputs h and h'
/// give GeLUs at most this times |h - h'| apart, before rounding.
inline constexpr double kGeluMaxSlope = 1.13;

/// The largest |gelu''(x)| over all x: 0.797885 (at x = 0), rounded up.
inline constexpr double kGeluMaxCurvature = 0.8;

/// How far one float32 evaluation of gelu(x) can be from the exact value of the formula (its
/// float32 constants included): 6 u |x| + 2^-120, u = 2^-24. The formula's inner argument carries
/// at most five roundings and is free of cancellation (x and x^3 have the same sign), tanh adds
/// its own error and damps the argument's by sech^2 (|a sech^2(a)| <= 0.449), then 1 + t, and the
/// product with x: about 4.2 u |x| in all, and the absolute term covers underflow. tst_gelu holds
/// it against double precision over every float32 of |x| <= 64 in steps of 2^-10.
double geluRoundingBound(float x);

/// The same for geluDerivative(x): u * (8 + 8 |x| (1 + 0.135 x^2) + 4 |gelu'(x)|) + 2^-120, the
/// middle term the derivative's 1 - t^2, whose rounding is absolute where t is near +-1 (about
/// 10.6 u), carried by the factor x * 0.5 * sqrt(2 / pi) * (1 + 0.134 x^2). Held by tst_gelu the
/// same way.
double geluDerivativeRoundingBound(float x);

}  // namespace tp
