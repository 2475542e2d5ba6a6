#pragma once

// Scene options spelled back as the command-line arguments that give them.

#include "scene/scene_options.h"

#include <string>
#include <vector>

namespace tp {

/// How an option's value is spelled: as the next argument ("--tp", "4") or inline ("--tp=4").
enum class ValueSpelling { Separate, Inline };

/// The arguments that parseSceneOptions(arguments, extras) reads back to `options`: each option
/// row's spelling (OptionRow::spell) in help order, the scene file first: every option that
/// differs from its default or that the scene needs explicitly (the sizes, seed, PRNG layout, bias
/// init, tp_size and mode always; --example brief instead of the sizes for the brief's scene), the
/// file options with their paths; then the given `extras`. Numbers are spelled
/// exactly (shortest round-trip forms), so parsing the result gives the same options bit for bit.
/// Options that stop before validation (--help, --hardware list) are spelled too.
std::vector<std::string> sceneArguments(const SceneOptions& options,
                                        const std::vector<ExtraOption>& extras = {},
                                        ValueSpelling spelling = ValueSpelling::Separate);

}  // namespace tp
