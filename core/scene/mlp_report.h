#pragma once

// The MLP block in tpviz-cli's reports (--block mlp).

#include "scene/report_format.h"
#include "scene/scene.h"

#include <iosfwd>
#include <string>

namespace tp {

/// Readable text: the block, its split, each device's slice with what it computes, the
/// collectives, each array's check (h, a = gelu(h), the output; with the backward pass each
/// gradient's), and with costs each device's bytes and FLOPs. Arrays (without summary) as numpy
/// prints them.
std::string mlpTextReport(const Scene& scene, bool summary, bool costs);

/// One JSON document:
///   "config": sizes (batch, in_dim, hidden, features, tp_size), seed, prng, x64, bias_init,
///             block "mlp", mistake, mistake_without_effect;
///   "block": {"kind": "mlp", "hidden", "activation", "linear1": {"kernel", "bias"},
///             "linear2": {"kernel", "bias"}, "x",
///             "groups": [{"index", "hidden": [start, stop], "partial" (linear2's partial sum,
///                         where it has one)}],
///             "h" (linear1's output), "a" (after GeLU), "output",
///             "reference": {"h", "a", "output"},
///             "verification": {"verdict", "passed", "h", "a", "output" (each the verification
///                              object of the one-Linear report)},
///             "collectives": [{"name", "phase": "forward"|"backward", "axis", "of",
///                              "bytes_sent_per_device", "ring_steps"}]},
///   "backward" (with --backward): {"dy", "dx", "dkernel1", "dbias1", "dkernel2", "dbias2",
///             "groups": [{"index", "dx_partial"}], "reference": {the same five},
///             "verification": {"passed", "dx", "dkernel1", "dbias1", "dkernel2", "dbias2"}},
///   "costs" (with --costs): {"devices", "per_device": {bytes of each array, "flops"},
///             "backward_per_device": {...}, "unsharded_bytes"}.
/// With summary: no arrays. `more`, an object, adds its members at the end (tpviz-mpi's "mpi" and
/// "ranks").
void writeMlpJsonReport(std::ostream& out, const Scene& scene, bool summary, bool costs,
                        const Json& more = {});

}  // namespace tp
