#pragma once

#include <QObject>

#include "op_test_support.h"

namespace dp::op_test {

// The checks (a) to (c) of op_test_support.h, which every op family runs on
// each of its op cases.
enum class OpCheck { reference_ops_in_double, reference_backend, onednn_backend, onednn_vs_reference };

template <typename OpCase>
void run_op_check(const std::vector<OpCase>& cases, OpCheck check, BackendOps& reference,
                  BackendOps& onednn) {
    visit_current_op_case(cases, [&](const auto& op) {
        switch (check) {
        case OpCheck::reference_ops_in_double: {
            ReferenceOps<double> ops;
            verify_gradients(op, ops);
            return;
        }
        case OpCheck::reference_backend: verify_gradients(op, reference); return;
        case OpCheck::onednn_backend: verify_gradients(op, onednn); return;
        case OpCheck::onednn_vs_reference: verify_matches_reference(op, onednn, reference); return;
        }
    });
}

// An op family's test class: the data-driven checks, one row per op case,
// written once here (Qt Test runs a base class's private slots too). A
// family answers add_rows() and run() with its own cases, and adds its
// hand-computed checks as slots of its own.
class OpFamilyTest : public QObject, protected CpuBackends {
    Q_OBJECT

protected:
    virtual void add_rows() = 0;          // add_op_case_rows(the family's cases)
    virtual void run(OpCheck check) = 0;  // run_op_check(the family's cases, check, ...)

private slots:
    void reference_ops_match_finite_differences_in_double_data() { add_rows(); }
    void reference_ops_match_finite_differences_in_double() { run(OpCheck::reference_ops_in_double); }
    void reference_backend_matches_finite_differences_data() { add_rows(); }
    void reference_backend_matches_finite_differences() { run(OpCheck::reference_backend); }
    void onednn_backend_matches_finite_differences_data() { add_rows(); }
    void onednn_backend_matches_finite_differences() { run(OpCheck::onednn_backend); }
    void onednn_backend_matches_reference_backend_data() { add_rows(); }
    void onednn_backend_matches_reference_backend() { run(OpCheck::onednn_vs_reference); }
};

}  // namespace dp::op_test
