#include "nnx/threefry.h"

namespace tp {

namespace {

constexpr std::uint32_t rotl(std::uint32_t x, int r) {
    return (x << r) | (x >> (32 - r));
}

constexpr int kRotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};

}  // namespace

Threefry2x32Block threefry2x32(Key key, std::uint32_t x0, std::uint32_t x1) {
    const std::uint32_t ks[3] = {key.k0, key.k1, key.k0 ^ key.k1 ^ 0x1BD11BDAu};
    x0 += ks[0];
    x1 += ks[1];
    for (int j = 0; j < 5; ++j) {
        for (const int r : kRotations[j % 2]) {
            x0 += x1;
            x1 = rotl(x1, r);
            x1 ^= x0;
        }
        x0 += ks[(j + 1) % 3];
        x1 += ks[(j + 2) % 3] + std::uint32_t(j + 1);
    }
    return {x0, x1};
}

}  // namespace tp
