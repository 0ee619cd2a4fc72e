#include "sweep_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cstring>
#include <utility>

#include "core/error.h"
#include "engine_message.h"
#include "io/json.h"

namespace {

// "KEY=V1,V2" from a field as typed: "1, 2" is a list too.
std::string axisSpec(const char* key, const QLineEdit& field)
{
    QString values = field.text();
    values.remove(QLatin1Char(' '));
    return std::string(key) + "=" + values.toStdString();
}

// The engine words a grid's problems for dp-train ("--sweep devices: 'x' is
// not a whole number", "--sweep devices=4: only 2 devices here (see
// --list-devices)"); the dialog names its own fields instead of the flag.
QString inDialogWords(const std::string& message)
{
    QString text = engineMessage(message);
    const std::pair<const char*, QString> axes[] = {
        {"--sweep devices", SweepDialog::tr("Device counts")},
        {"--sweep batch-size", SweepDialog::tr("Batch sizes")},
        {"--sweep lr", SweepDialog::tr("Learning rates")},
    };
    for (const auto& [flag, field] : axes)
        if (text.startsWith(QLatin1String(flag))) {
            QString rest = text.mid(int(std::strlen(flag)));
            // "=4: only 2 devices here": the field shows what it holds.
            if (rest.startsWith(QLatin1Char('=')) && rest.contains(QStringLiteral(": ")))
                rest = rest.mid(rest.indexOf(QStringLiteral(": ")));
            text = field + rest;
            break;
        }
    text.replace(QStringLiteral(" (see --list-devices)"), QString());
    return text;
}

// "1 point", "3 points": the count and its noun.
QString counted(qsizetype count, const QString& one, const QString& many)
{
    return QStringLiteral("%1 %2").arg(count).arg(count == 1 ? one : many);
}

}  // namespace

QString defaultDeviceCounts(int available)
{
    QStringList counts;
    for (int count = 1; count < available; count *= 2)
        counts << QString::number(count);
    if (available > 0)
        counts << QString::number(available);
    return counts.join(QLatin1Char(','));
}

SweepDialog::SweepDialog(const dp::TrainConfig& base, std::vector<dp::DeviceInfo> devices, QWidget* parent)
    : QDialog(parent), base_(base), devices_(std::move(devices)),
      deviceCounts_(new QLineEdit(defaultDeviceCounts(int(devices_.size())))),
      batchSizes_(new QLineEdit(QStringLiteral("%1,%2").arg(base.batch_size).arg(4 * base.batch_size))),
      // The panel's lr as typed there: its shortest form, so the plan's lr is the panel's.
      lrs_(new QLineEdit(QString::fromStdString(dp::json_number(base.lr)))), repeats_(new QSpinBox),
      status_(new QLabel), buttons_(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel))
{
    setObjectName(QStringLiteral("sweepDialog"));
    setWindowTitle(tr("Sweep"));
    deviceCounts_->setObjectName(QStringLiteral("sweepDeviceCounts"));
    batchSizes_->setObjectName(QStringLiteral("sweepBatchSizes"));
    lrs_->setObjectName(QStringLiteral("sweepLearningRates"));
    repeats_->setObjectName(QStringLiteral("sweepRepeats"));
    repeats_->setRange(1, 10);
    repeats_->setToolTip(tr("Each point runs this often; the table shows the median and the range."));
    deviceCounts_->setToolTip(tr("Comma list; a point of N devices runs on the first N of the %1 checked in the panel.")
                                  .arg(devices_.size()));
    batchSizes_->setToolTip(tr("Comma list of global batch sizes, split across each point's devices."));
    lrs_->setToolTip(tr("Comma list of learning rates."));

    auto* about = new QLabel(tr("Every combination is one point, run on the panel's other settings (%1 on %2, "
                                "%3 epochs). Speedups are over each batch size and learning rate's fewest devices.")
                                 .arg(QString::fromStdString(base.model), QString::fromStdString(base.dataset))
                                 .arg(base.epochs));
    about->setWordWrap(true);

    status_->setObjectName(QStringLiteral("sweepStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Room for an engine error of three lines, so the dialog keeps its size as one comes and goes.
    status_->setMinimumHeight(3 * status_->fontMetrics().lineSpacing());
    status_->setAlignment(Qt::AlignLeft | Qt::AlignTop);

    buttons_->button(QDialogButtonBox::Ok)->setText(tr("Queue runs"));
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* form = new QFormLayout;
    form->addRow(tr("Device counts"), deviceCounts_);
    form->addRow(tr("Batch sizes"), batchSizes_);
    form->addRow(tr("Learning rates"), lrs_);
    form->addRow(tr("Repeats"), repeats_);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(about);
    layout->addLayout(form);
    layout->addWidget(status_);
    layout->addWidget(buttons_);
    // Wide enough that an engine error of about 200 characters fits the status's three lines.
    setMinimumWidth(64 * fontMetrics().averageCharWidth());

    for (QLineEdit* field : {deviceCounts_, batchSizes_, lrs_})
        connect(field, &QLineEdit::textChanged, this, &SweepDialog::checkGrid);
    connect(repeats_, &QSpinBox::valueChanged, this, &SweepDialog::checkGrid);
    checkGrid();
}

QString SweepDialog::status() const
{
    return status_->text();
}

void SweepDialog::checkGrid()
{
    try {
        dp::SweepGrid grid;
        dp::add_sweep_axis(grid, axisSpec("devices", *deviceCounts_));
        dp::add_sweep_axis(grid, axisSpec("batch-size", *batchSizes_));
        dp::add_sweep_axis(grid, axisSpec("lr", *lrs_));
        plan_ = dp::sweep_plan(base_, devices_, grid, repeats_->value());
        valid_ = true;
        QString status = tr("%1 × %2 = %3")
                             .arg(counted(qsizetype(plan_.points.size()), tr("point"), tr("points")),
                                  counted(plan_.repeats, tr("repeat"), tr("repeats")),
                                  counted(qsizetype(plan_.runs().size()), tr("run"), tr("runs")));
        // A speedup's range comes from the repeats, or from each run's
        // steady epochs (after the first): one of those has none, and the
        // table would say "too few epochs to tell" in every row.
        if (plan_.repeats < 2 && base_.epochs < 3)
            status += QLatin1Char('\n') + tr("Speedups will have no range: train 3 or more epochs, or repeat 2 or more times.");
        status_->setText(status);
    } catch (const dp::Error& error) {
        valid_ = false;
        plan_ = {};
        status_->setText(inDialogWords(error.what()));
    }
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(valid_);
}
