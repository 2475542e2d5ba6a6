// Fuzzes the .tpviz scene file parser (core/io/scene_file.h) with any text.
//
// Contracts checked: parseSceneFile never crashes and returns a scene or at least one message; a
// scene it accepts survives a round trip: the text
// sceneFileText writes for it parses back to the same scene.

#include "io/scene_file.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const tp::SceneFileRead read = tp::parseSceneFile(text, "/fuzz", "fuzz.tpviz");
    if (!read.scene) {
        if (read.errors.empty())
            __builtin_trap();
        return 0;
    }
    const tp::SceneFileRead again =
        tp::parseSceneFile(tp::sceneFileText(*read.scene, "/fuzz"), "/fuzz", "fuzz.tpviz");
    if (!again.scene || !(*again.scene == *read.scene))
        __builtin_trap();
    return 0;
}
