#include "python_dialog.h"

#include "scene/python_snippet.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace tp {

PythonDialog::PythonDialog(const LayerConfig& config, SceneSource source, const SceneRun& run,
                           QWidget* parent)
    : QDialog(parent) {
    setWindowTitle(tr("Python snippet"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(
        config.block == Block::Mlp
            ? tr("The same block in JAX and Flax NNX: an nnx.Module with both Linears from one "
                 "nnx.Rngs, the reference forward, and the block in shard_map with one psum, "
                 "checked against the unsharded block.")
            : tr("The same scene in JAX and Flax NNX: one nnx.Linear, the groups as slices of "
                 "it, and the check against x @ kernel + bias."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    if (source == SceneSource::Brief) {
        auto* note =
            new QLabel(tr("The worked example's arrays are fixed numbers, not drawn from a seed; "
                          "this script builds an nnx.Linear of the same sizes instead."));
        note->setWordWrap(true);
        layout->addWidget(note);
    }
    m_text = new QPlainTextEdit;
    m_text->setObjectName(QStringLiteral("pythonText"));
    m_text->setReadOnly(true);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setPlainText(QString::fromStdString(
        pythonSnippet(config, run.mistake, run.check,
                      run.backward ? SnippetPasses::ForwardAndBackward : SnippetPasses::Forward)));
    layout->addWidget(m_text, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    QPushButton* copy = buttons->addButton(tr("&Copy"), QDialogButtonBox::ActionRole);
    copy->setObjectName(QStringLiteral("copyButton"));
    connect(copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(m_text->toPlainText()); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(760, 640);
}

QString PythonDialog::script() const {
    return m_text->toPlainText();
}

}  // namespace tp
