#include "app_settings.h"

#include <QSettings>

namespace tp {

void saveSceneSettings(QSettings& settings, const LayerConfig& config, SceneSource source) {
    settings.beginGroup(QStringLiteral("scene"));
    settings.setValue(QStringLiteral("source"),
                      source == SceneSource::Brief ? QStringLiteral("brief") : QStringLiteral("nnx"));
    settings.setValue(QStringLiteral("batch"), qint64(config.batch));
    settings.setValue(QStringLiteral("inDim"), qint64(config.inDim));
    settings.setValue(QStringLiteral("features"), qint64(config.features));
    settings.setValue(QStringLiteral("tpSize"), qint64(config.tpSize));
    // The seed as text: an int64 survives every settings backend that way.
    settings.setValue(QStringLiteral("seed"), QString::number(config.seed));
    settings.setValue(QStringLiteral("mode"), QString::fromUtf8(toString(config.mode)));
    settings.setValue(QStringLiteral("prng"), QString::fromUtf8(toString(config.prng)));
    settings.setValue(QStringLiteral("x64"), config.x64);
    settings.setValue(QStringLiteral("bias"), QString::fromStdString(toString(config.bias)));
    settings.endGroup();
}

std::pair<LayerConfig, SceneSource> loadSceneSettings(const QSettings& settings) {
    const LayerConfig defaults;
    LayerConfig config;
    auto key = [](const char* name) { return QStringLiteral("scene/") + QLatin1String(name); };
    auto integer = [&](const char* name, std::int64_t fallback) {
        bool ok = false;
        const qint64 value = settings.value(key(name)).toLongLong(&ok);
        return ok ? std::int64_t(value) : fallback;
    };
    config.batch = integer("batch", defaults.batch);
    config.inDim = integer("inDim", defaults.inDim);
    config.features = integer("features", defaults.features);
    config.tpSize = integer("tpSize", defaults.tpSize);
    config.seed = parseInt64(settings.value(key("seed")).toString().toStdString())
                      .value_or(defaults.seed);
    config.mode = parseParallelMode(settings.value(key("mode")).toString().toStdString())
                      .value_or(defaults.mode);
    config.prng = parsePrngLayout(settings.value(key("prng")).toString().toStdString())
                      .value_or(defaults.prng);
    config.x64 = settings.value(key("x64"), defaults.x64).toBool();
    config.bias = parseBiasInit(settings.value(key("bias")).toString().toStdString())
                      .value_or(defaults.bias);
    const SceneSource source = settings.value(key("source")).toString() == QLatin1String("brief")
                                   ? SceneSource::Brief
                                   : SceneSource::Nnx;
    if (!config.validate().empty())
        return {defaults, SceneSource::Nnx};
    return {config, source};
}

}  // namespace tp
