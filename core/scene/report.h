#pragma once

// tpviz-cli's output: a computed scene as readable text or as one JSON document.

#include "scene/report_format.h"
#include "scene/scene.h"

#include <iosfwd>
#include <string>

namespace tp {

struct SceneBackward;

/// Readable text: the config, each group with its range, equation and partial, the concatenated (or
/// summed) output, the reference and the verification (the verdict in words, the rounding bound's
/// formula, bit-identical elements, max ULP difference, max abs/rel error and allclose). Arrays
/// with more than 1000 values show their first and last 3 rows and columns, as numpy prints them.
/// With summary: no arrays. With backward: the backward pass after the verification (see
/// writeBackwardText). With costs: a table of what each device holds, the collective (and its run
/// on the devices) and the time estimate, after the verification.
std::string textReport(const Scene& scene, bool summary = false, const SceneCosts* costs = nullptr,
                       const SceneBackward* backward = nullptr);

/// One JSON document with the keys config (sizes, mode, prng, x64, bias_init, source, mistake and
/// mistake_without_effect, null or a sentence), kernel, bias, x, groups (index, columns or rows as
/// [start, stop], partial; running_sum where the pass adds), output, reference and verification
/// (verdict "passed", "failed" or "inconclusive"; passed, true only when the verdict is; rule
/// "rounding-bound" or "allclose", shape_mismatch null or a sentence, elements, bit_identical,
/// nan_elements, max_ulp, max_abs_error, max_rel_error, worst [row, column], allclose, rtol, atol,
/// in_dim, over_bound, over_worst_case, max_error_over_bound, worst_over_bound,
/// max_error_over_worst_case, resolution, value_scale; figures that are NaN or infinite print as
/// null). Arrays are nested lists, row-major; float32 values in the shortest form that reads back
/// to the same bits. With summary: config, groups without arrays, and verification. With backward,
/// a "backward" member after verification (see writeBackwardJson). With costs, a last key:
///   "costs": {"mesh": {"data": D, "model": P}, "devices": D*P, "output_layout": "sharded",
///             "per_device": {"kernel_bytes", "bias_bytes", "x_bytes", "partial_bytes",
///                            "output_bytes", "flops"},
///             "collective": {"name": "none|all-gather|all-reduce|reduce-scatter", "axis": "model",
///                            "bytes_sent_per_device", "ring_steps"},
///             "estimate": {"hardware", "compute_s", "communication_s", "bound"}}
/// Non-finite floats in the arrays print as null too. The document is written to `out` as it is
/// made, member by member (a big scene's arrays are never held as text); `more`, an object, adds
/// its members at the end, after costs (tpviz-mpi's "mpi" and "ranks"). Strings are escaped as
/// JSON requires.
void writeJsonReport(std::ostream& out, const Scene& scene, bool summary = false,
                     const SceneCosts* costs = nullptr, const Json& more = {},
                     const SceneBackward* backward = nullptr);

/// writeJsonReport's document as one string, with the scene's own backward pass when it has one
/// (Scene::backward), for the app's export, small scenes and tests; for the MLP block,
/// writeMlpJsonReport's (mlp_report.h).
std::string jsonReport(const Scene& scene, bool summary = false, const SceneCosts* costs = nullptr);

}  // namespace tp
