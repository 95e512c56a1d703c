#include "kind_evidence_fields.hpp"

namespace bi::io {

const std::vector<EvidenceField>& evidence_fields() {
    using E = core::KindEvidence;
    static const std::vector<EvidenceField> rows{
        {"slots_path", &E::slots_path, true},
        {"slot_busy", &E::slot_busy},
        {"slot_task", &E::slot_task, false, true, true},
        {"slots_hint", &E::slots_hint},
        {"metrics_path", &E::metrics_path, true},
        {"metrics_format", nullptr},
        {"running_gauge", &E::running_gauge},
        {"gauge_hint", &E::gauge_hint},
        {"step_mean", &E::step_mean},
        {"step_sum", &E::step_sum},
        {"step_count", &E::step_count},
        {"capacity_field", &E::capacity_field},
        {"props_path", &E::props_path, true, false},
        {"served_model", &E::served_model, false, true, true},
    };
    return rows;
}

}  // namespace bi::io
