#include "scene_session.h"

#include "compute/scene_computer.h"
#include "panels/parameter_panel.h"
#include "steps/step_controller.h"
#include "steps/tab_timelines.h"

#include <QMainWindow>

namespace tp {

SceneSession::SceneSession(QMainWindow* window, ParameterPanel* inputs, SceneComputer* computer,
                           TabTimelines* timelines)
    : QObject(window),
      m_window(window),
      m_inputs(inputs),
      m_computer(computer),
      m_timelines(timelines) {
    setObjectName(QStringLiteral("sceneSession"));
    connect(computer, &SceneComputer::failed, this, &SceneSession::sceneRefused);
    connect(computer, &SceneComputer::arraysRefused, this, [this](const QStringList& problems) {
        emit sceneRefused(problems.join(QStringLiteral("; ")));
    });
}

SceneRequest SceneSession::request() const {
    if (!m_scene)
        return inputs();
    SceneRequest request{m_scene->config, m_scene->source, runOf(*m_scene)};
    if (m_scene->source == SceneSource::Files)
        request.files = m_inputs->arrayFiles();
    return request;
}

SceneRequest SceneSession::inputs() const {
    SceneRequest request{m_inputs->config(), m_inputs->source(), m_inputs->run()};
    if (request.source == SceneSource::Files)
        request.files = m_inputs->arrayFiles();
    return request;
}

void SceneSession::show(const SceneRequest& request, std::shared_ptr<LoadedArrays> loaded) {
    const QSignalBlocker block(m_inputs);
    if (request.source == SceneSource::Files)
        m_inputs->setArrayFiles(request.files);
    m_inputs->setConfig(request.config, request.source);
    m_inputs->setRun(request.run);
    if (m_inputs->problems().empty() && m_inputs->arrayProblems().isEmpty())
        m_computer->computeNow(m_inputs->config(), m_inputs->source(), m_inputs->run(),
                               m_inputs->arrayFiles(), std::move(loaded));
}

StepController* SceneSession::steps() const {
    return m_timelines->shownSteps();
}

QString SceneSession::pictureName() const {
    if (!m_scene)
        return QStringLiteral("tpviz.png");
    const LayerConfig& c = m_scene->config;
    if (c.block == Block::Mlp)
        return QStringLiteral("tpviz-mlp-%1x%2x%3-tp%4-step%5.png")
            .arg(c.inDim)
            .arg(c.hidden)
            .arg(c.features)
            .arg(c.tpSize)
            .arg(steps()->step());
    return QStringLiteral("tpviz-%1x%2-%3-tp%4-step%5.png")
        .arg(c.inDim)
        .arg(c.features)
        .arg(QString::fromUtf8(toString(c.mode)))
        .arg(c.tpSize)
        .arg(steps()->step());
}

}  // namespace tp
