#pragma once

#include <QDoubleSpinBox>
#include <QLocale>

// A decimal number in as few digits as it takes, the way it was typed:
// 0.2, not 0.2000, and -0.000001, not -0.000000 or -1e-06.
//
// The same in every locale: '.' is the decimal point, as on dp-train's
// command line, in records, exports and the history, so that 0.05 typed
// under de_DE.UTF-8 is 0.05 (the locale's own form read '.' as a group
// separator: 5). A ',' is read as a decimal point too, for whoever types
// their locale's decimal comma, and shown as '.': these fields never need a
// group separator, and reading it as one would turn 0,05 into 5 as well.
class DecimalSpinBox : public QDoubleSpinBox {
public:
    explicit DecimalSpinBox(QWidget* parent = nullptr) : QDoubleSpinBox(parent)
    {
        QLocale c = QLocale::c();
        c.setNumberOptions(QLocale::OmitGroupSeparator | QLocale::RejectGroupSeparator);
        setLocale(c);
    }

    QString textFromValue(double value) const override
    {
        return QString::number(value, 'f', QLocale::FloatingPointShortest);
    }

    QValidator::State validate(QString& input, int& pos) const override
    {
        input.replace(QLatin1Char(','), QLatin1Char('.'));
        return QDoubleSpinBox::validate(input, pos);
    }

    double valueFromText(const QString& text) const override
    {
        return QDoubleSpinBox::valueFromText(QString(text).replace(QLatin1Char(','), QLatin1Char('.')));
    }
};
