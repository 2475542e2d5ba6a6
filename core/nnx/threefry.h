#pragma once

// Threefry-2x32 with 20 rounds, the block cipher behind JAX's default PRNG (`threefry2x32`).

#include <cstdint>

namespace tp {

/// A JAX PRNG key: the two u32 words of `jax.random.key_data(key)`, in order.
struct Key {
    std::uint32_t k0 = 0;
    std::uint32_t k1 = 0;

    bool operator==(const Key&) const = default;
};

/// The two output words of one Threefry-2x32 block.
struct Threefry2x32Block {
    std::uint32_t y0 = 0;
    std::uint32_t y1 = 0;

    bool operator==(const Threefry2x32Block&) const = default;
};

/// Threefry-2x32, 20 rounds, of the counter (x0, x1) under `key` (Random123's threefry2x32_20,
/// JAX's `threefry_2x32` hash of one counter pair; jax/_src/random/threefry2x32.py). Key schedule
/// ks = (k0, k1, k0 ^ k1 ^ 0x1BD11BDA), rotations (13, 15, 26, 6) / (17, 29, 16, 24).
Threefry2x32Block threefry2x32(Key key, std::uint32_t x0, std::uint32_t x1);

}  // namespace tp
