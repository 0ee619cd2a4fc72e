#pragma once
// The process's C locale set for a test's length: what a Qt program gets
// from LC_ALL=de_DE.UTF-8 (QCoreApplication calls setlocale(LC_ALL, "")),
// where printf writes 0.05 as "0,05" and strtod reads "0.05" as 0.
// scripts/setup generates de_DE.UTF-8 and tr_TR.UTF-8; scripts/locale runs
// the CLI, records and settings tests under each.

#include <clocale>
#include <string>

class ProcessLocale {
public:
    explicit ProcessLocale(const char* name)
        : name_(name), previous_(std::setlocale(LC_ALL, nullptr))
    {
        set_ = std::setlocale(LC_ALL, name) != nullptr;
    }
    ~ProcessLocale() { std::setlocale(LC_ALL, previous_.c_str()); }
    ProcessLocale(const ProcessLocale&) = delete;
    ProcessLocale& operator=(const ProcessLocale&) = delete;

    // Empty when the locale is set and writes numbers with a decimal comma
    // (a test's premise), else why not and what to do.
    std::string problem() const
    {
        if (!set_)
            return "the locale " + name_ + " is missing: bash scripts/setup generates it";
        if (std::string(std::localeconv()->decimal_point) != ",")
            return "the locale " + name_ + " has no decimal comma";
        return {};
    }

private:
    std::string name_;
    std::string previous_;
    bool set_ = false;
};

// Sets the process locale `name` for the rest of the enclosing test
// function, failing the test where this machine lacks it.
#define SET_PROCESS_LOCALE(name)                                                                   \
    const ProcessLocale processLocale_(name);                                                      \
    QVERIFY2(processLocale_.problem().empty(), processLocale_.problem().c_str())
