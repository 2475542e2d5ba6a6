#include "app_settings.h"

#include <QApplication>
#include <QPalette>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace tp {

void saveSceneSettings(QSettings& settings, const LayerConfig& config, SceneSource source) {
    settings.beginGroup(QStringLiteral("scene"));
    settings.setValue(QStringLiteral("source"), source == SceneSource::Brief
                                                    ? QStringLiteral("brief")
                                                    : QStringLiteral("nnx"));
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
    config.seed =
        parseInt64(settings.value(key("seed")).toString().toStdString()).value_or(defaults.seed);
    config.mode = parseParallelMode(settings.value(key("mode")).toString().toStdString())
                      .value_or(defaults.mode);
    config.prng = parsePrngLayout(settings.value(key("prng")).toString().toStdString())
                      .value_or(defaults.prng);
    config.x64 = settings.value(key("x64"), defaults.x64).toBool();
    config.bias =
        parseBiasInit(settings.value(key("bias")).toString().toStdString()).value_or(defaults.bias);
    const SceneSource source = settings.value(key("source")).toString() == QLatin1String("brief")
                                   ? SceneSource::Brief
                                   : SceneSource::Nnx;
    if (!config.validate().empty())
        return {defaults, SceneSource::Nnx};
    return {config, source};
}

QString themeName(Theme theme) {
    switch (theme) {
        case Theme::Light:
            return QStringLiteral("light");
        case Theme::Dark:
            return QStringLiteral("dark");
        case Theme::System:
            break;
    }
    return QStringLiteral("system");
}

Theme themeFromName(const QString& name) {
    if (name == QLatin1String("light"))
        return Theme::Light;
    if (name == QLatin1String("dark"))
        return Theme::Dark;
    return Theme::System;
}

namespace {

QPalette darkPalette() {
    QPalette p;
    const QColor window(0x2b, 0x2b, 0x2b);
    const QColor base(0x1e, 0x1e, 0x1e);
    const QColor text(0xe6, 0xe6, 0xe6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3a, 0x3a));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x7a, 0xc6));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x7a, 0xb8, 0xff));
    p.setColor(QPalette::PlaceholderText, QColor(0xa8, 0xa8, 0xa8));
    p.setColor(QPalette::Mid, QColor(0x60, 0x60, 0x60));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x80, 0x80, 0x80));
    return p;
}

}  // namespace

void applyTheme(Theme theme) {
    // What the app started with, kept the first time a theme is applied.
    static const QPalette startPalette = QApplication::palette();
    static const QString startStyle = QApplication::style()->name();
    switch (theme) {
        case Theme::System:
            QApplication::setStyle(QStyleFactory::create(startStyle));
            QApplication::setPalette(startPalette);
            return;
        case Theme::Light:
            QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
            QApplication::setPalette(QApplication::style()->standardPalette());
            return;
        case Theme::Dark:
            QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
            QApplication::setPalette(darkPalette());
            return;
    }
}

}  // namespace tp
