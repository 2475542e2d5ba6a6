#pragma once

// What LayerConfig::validate() says about one input field, as the tests compare it.

#include "layer/layer_config.h"

#include <QString>
#include <QStringList>

namespace tp::test {

/// The messages of every problem validate() ties to `field`, one per line, in its order; empty
/// when the field has none.
inline QString messagesFor(const LayerConfig& config, ConfigField field) {
    QStringList found;
    for (const ConfigProblem& p : config.validate())
        if (p.field == field)
            found << QString::fromStdString(p.message);
    return found.join('\n');
}

}  // namespace tp::test
