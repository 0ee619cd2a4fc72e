#include "x_axis_choice.h"

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QKeySequence>
#include <QSettings>

#include <algorithm>
#include <array>

namespace {

const QString kXAxisKey = QStringLiteral("view/x_axis");
const QString kSecondsAxisKey = QStringLiteral("view/seconds_axis");  // before steps: a switch

// The modes in menu and combo order, with their words in settings.
constexpr std::array kModes{XAxisMode::epochs, XAxisMode::steps, XAxisMode::seconds};

QString settingWord(XAxisMode mode)
{
    switch (mode) {
    case XAxisMode::epochs: return QStringLiteral("epochs");
    case XAxisMode::steps: return QStringLiteral("steps");
    case XAxisMode::seconds: return QStringLiteral("seconds");
    }
    return QStringLiteral("epochs");
}

int indexOf(XAxisMode mode)
{
    return int(std::find(kModes.begin(), kModes.end(), mode) - kModes.begin());
}

}  // namespace

XAxisChoice::XAxisChoice(QObject* parent) : QObject(parent), group_(new QActionGroup(this))
{
    group_->setExclusive(true);
    const std::array<QString, 3> texts{tr("X axis in &epochs"), tr("X axis in optimizer s&teps"),
                                       tr("X axis in training &seconds")};
    const std::array<QString, 3> names{QStringLiteral("epochAxisAction"), QStringLiteral("stepAxisAction"),
                                       QStringLiteral("secondsAxisAction")};
    for (std::size_t i = 0; i < kModes.size(); ++i) {
        QAction* action = group_->addAction(texts[i]);
        action->setObjectName(names[i]);
        action->setCheckable(true);
        action->setChecked(kModes[i] == mode_);
        connect(action, &QAction::triggered, this, [this, mode = kModes[i]] { setMode(mode); });
    }
    group_->actions().back()->setShortcut(QKeySequence(tr("Ctrl+T")));
}

QList<QAction*> XAxisChoice::actions() const
{
    return group_->actions();
}

QComboBox* XAxisChoice::makeCombo()
{
    auto* combo = new QComboBox;
    combo->setObjectName(QStringLiteral("xAxisCombo"));
    combo->addItems({tr("x: epoch"), tr("x: step"), tr("x: seconds")});
    combo->setToolTip(tr("What the charts' x axis counts: epochs, optimizer steps (global batches) "
                         "or training seconds"));
    combo->setCurrentIndex(indexOf(mode_));
    connect(combo, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0 && index < int(kModes.size()))
            setMode(kModes[std::size_t(index)]);
    });
    connect(this, &XAxisChoice::modeChanged, combo,
            [combo](XAxisMode mode) { combo->setCurrentIndex(indexOf(mode)); });
    return combo;
}

void XAxisChoice::setMode(XAxisMode mode)
{
    if (mode == mode_)
        return;
    mode_ = mode;
    group_->actions()[indexOf(mode)]->setChecked(true);
    emit modeChanged(mode);
}

XAxisMode XAxisChoice::remembered(const QSettings& settings)
{
    const QString word = settings.value(kXAxisKey).toString();
    for (const XAxisMode mode : kModes)
        if (word == settingWord(mode))
            return mode;
    return settings.value(kSecondsAxisKey, false).toBool() ? XAxisMode::seconds : XAxisMode::epochs;
}

void XAxisChoice::remember(QSettings& settings, XAxisMode mode)
{
    settings.setValue(kXAxisKey, settingWord(mode));
}
