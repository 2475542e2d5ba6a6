#include "app_settings.h"

#include "io/scene_file.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QPalette>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace tp {

void saveSceneSettings(QSettings& settings, const LayerConfig& config, SceneSource source) {
    SceneFile scene;
    scene.config = config;
    scene.source = source;
    settings.setValue(QStringLiteral("scene/file"),
                      QString::fromStdString(sceneFileText(scene, std::string())));
}

std::pair<LayerConfig, SceneSource> loadSceneSettings(const QSettings& settings) {
    const std::string text = settings.value(QStringLiteral("scene/file")).toString().toStdString();
    const SceneFileRead read = parseSceneFile(text, std::string(), "the saved settings");
    // Settings keep seeded layers and the example only: array files are opened again by the user.
    if (!read.scene || read.scene->source == SceneSource::Files ||
        !read.scene->config.validate().empty())
        return {LayerConfig{}, SceneSource::Nnx};
    return {read.scene->config, read.scene->source};
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

void addThemeMenu(QMenu* menu, bool useSettings) {
    auto* themes = new QActionGroup(menu);
    const QString current =
        useSettings ? QSettings().value(QStringLiteral("view/theme")).toString() : QString();
    for (const auto& [kind, label] : {std::pair{Theme::System, QObject::tr("&System")},
                                      std::pair{Theme::Light, QObject::tr("&Light")},
                                      std::pair{Theme::Dark, QObject::tr("&Dark")}}) {
        QAction* action = menu->addAction(label);
        action->setObjectName(QStringLiteral("theme-") + themeName(kind));
        action->setCheckable(true);
        action->setChecked(themeFromName(current) == kind);
        themes->addAction(action);
        QObject::connect(action, &QAction::triggered, action, [useSettings, kind = kind] {
            applyTheme(kind);
            if (useSettings)
                QSettings().setValue(QStringLiteral("view/theme"), themeName(kind));
        });
    }
    if (themeFromName(current) != Theme::System)
        applyTheme(themeFromName(current));
}

}  // namespace tp
