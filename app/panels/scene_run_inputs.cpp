// How the scene runs, as the parameter panel edits it: the forward pass alone or the backward
// too (scene_backward.h), a mistake made on purpose (mistakes.h) and the rule of the check
// (verification.h). Part of ParameterPanel, in a file of its own.

#include "parameter_panel.h"

#include "layer/float_format.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

#include <cmath>
#include <optional>
#include <tuple>

namespace tp {
namespace {

QString nameOf(Mistake mistake) {
    const std::string_view name = toString(mistake);
    return QString::fromUtf8(name.data(), qsizetype(name.size()));
}

QLineEdit* toleranceEdit(const QString& name, const QString& tip) {
    auto* edit = new QLineEdit;
    edit->setObjectName(name);
    edit->setToolTip(tip);
    return edit;
}

}  // namespace

void ParameterPanel::buildRunBox(QVBoxLayout* layout) {
    auto* box = new QGroupBox(tr("Pass, mistakes and the check"));
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_pass = new QComboBox;
    m_pass->setObjectName(QStringLiteral("passBox"));
    m_pass->addItem(tr("Forward"));
    m_pass->setItemData(0, tr("y = x @ kernel + bias (or the MLP block), group by group"),
                        Qt::ToolTipRole);
    m_pass->addItem(tr("Forward + backward"));
    m_pass->setItemData(1,
                        tr("Then the backward pass for a cotangent dy: each group's dkernel and "
                           "dbias blocks and its part of dx, as jax.vjp gives them"),
                        Qt::ToolTipRole);
    m_pass->setToolTip(tr("The forward pass alone, or the layer's gradients after it"));
    form->addRow(tr("Pass"), m_pass);
    addProblemRow(form, ConfigField::Backward);

    m_mistake = new QComboBox;
    m_mistake->setObjectName(QStringLiteral("mistakeBox"));
    fillMistakes(Block::Linear);
    m_mistake->setToolTip(
        tr("Make a common mistake, for real: the picture draws the wrong "
           "computation and the check shows how far it is from x @ kernel + bias"));
    form->addRow(tr("Mistake"), m_mistake);
    addProblemRow(form, ConfigField::Mistake);

    m_rule = new QComboBox;
    m_rule->setObjectName(QStringLiteral("ruleBox"));
    m_rule->addItem(tr("rounding bound"), QString::fromUtf8(toString(CheckRule::RoundingBound)));
    m_rule->setItemData(0,
                        tr("Passes when every element is within what float32 rounding can "
                           "explain: |y - ref| <= 2 γ(K+1) (|x| @ |kernel| + |bias|), K = in_dim"),
                        Qt::ToolTipRole);
    m_rule->addItem(tr("allclose"), QString::fromUtf8(toString(CheckRule::Allclose)));
    m_rule->setItemData(1, tr("numpy allclose: |y - ref| <= atol + rtol |ref| for every element"),
                        Qt::ToolTipRole);
    m_rule->setToolTip(tr("What decides the check's verdict"));
    form->addRow(tr("Check"), m_rule);

    auto* tolerances = new QWidget;
    auto* row = new QHBoxLayout(tolerances);
    row->setContentsMargins(0, 0, 0, 0);
    const QString used = tr("; shown beside every verdict, and the verdict with the allclose rule");
    m_rtol = toleranceEdit(QStringLiteral("rtolEdit"), tr("allclose rtol, a number >= 0") + used);
    m_atol = toleranceEdit(QStringLiteral("atolEdit"), tr("allclose atol, a number >= 0") + used);
    row->addWidget(new QLabel(tr("rtol")));
    row->addWidget(m_rtol, 1);
    row->addWidget(new QLabel(tr("atol")));
    row->addWidget(m_atol, 1);
    form->addRow(tr("allclose"), tolerances);
    addProblemRow(form, ConfigField::Tolerance);
    layout->addWidget(box);

    showRunInputs(SceneRun{});
    connect(m_pass, &QComboBox::currentIndexChanged, this, [this] { readInputs(); });
    connect(m_mistake, &QComboBox::currentIndexChanged, this, [this] { readInputs(); });
    connect(m_rule, &QComboBox::currentIndexChanged, this, [this] { readInputs(); });
    connect(m_rtol, &QLineEdit::textChanged, this, [this] { readInputs(); });
    connect(m_atol, &QLineEdit::textChanged, this, [this] { readInputs(); });
}

void ParameterPanel::fillMistakes(Block block) {
    const QSignalBlocker blocker(m_mistake);
    const QVariant chosen = m_mistake->currentData();
    m_mistake->clear();
    m_mistake->addItem(tr("none"), nameOf(Mistake::None));
    m_mistake->setItemData(0, tr("No mistake: the correct split"), Qt::ToolTipRole);
    for (const Mistake mistake : blockMistakes(block))
        addMistakeItem(mistake);
    m_mistake->setCurrentIndex(std::max(0, m_mistake->findData(chosen)));
}

void ParameterPanel::addMistakeItem(Mistake mistake) {
    m_mistake->addItem(nameOf(mistake), nameOf(mistake));
    m_mistake->setItemData(m_mistake->count() - 1,
                           QString::fromStdString(mistakeDescription(mistake)), Qt::ToolTipRole);
}

void ParameterPanel::showRunInputs(const SceneRun& run) {
    m_pass->setCurrentIndex(run.backward ? 1 : 0);
    // A mistake of the other block (from a scene file) is listed too, so that its refusal shows
    // under the combo rather than the choice turning into none.
    if (m_mistake->findData(nameOf(run.mistake)) < 0)
        addMistakeItem(run.mistake);
    m_mistake->setCurrentIndex(std::max(0, m_mistake->findData(nameOf(run.mistake))));
    m_rule->setCurrentIndex(run.check.rule == CheckRule::Allclose ? 1 : 0);
    m_rtol->setText(QString::fromStdString(formatDouble(run.check.tolerance.rtol)));
    m_atol->setText(QString::fromStdString(formatDouble(run.check.tolerance.atol)));
}

SceneRun ParameterPanel::readRunInputs(std::vector<ConfigProblem>& problems) const {
    SceneRun run;
    run.backward = m_pass->currentIndex() == 1;
    run.mistake =
        parseMistake(m_mistake->currentData().toString().toStdString()).value_or(Mistake::None);
    run.check.rule = m_rule->currentIndex() == 1 ? CheckRule::Allclose : CheckRule::RoundingBound;
    for (const auto& [edit, name, value] :
         {std::tuple{m_rtol, QStringLiteral("rtol"), &run.check.tolerance.rtol},
          std::tuple{m_atol, QStringLiteral("atol"), &run.check.tolerance.atol}}) {
        std::string why;
        if (const auto parsed = parseTolerance(edit->text().toStdString(), &why))
            *value = *parsed;
        else
            problems.push_back({ConfigField::Tolerance,
                                tr("%1 \"%2\" %3 (allclose passes where |y - reference| <= atol "
                                   "+ rtol * |reference|)")
                                    .arg(name, edit->text().trimmed(), QString::fromStdString(why))
                                    .toStdString()});
    }
    return run;
}

}  // namespace tp
