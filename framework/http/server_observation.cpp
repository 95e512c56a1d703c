#include "server_observation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/error.hpp"
#include "core/json.hpp"
#include "io/json_text.hpp"

namespace bi::http {

namespace {

std::string_view trim(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    const auto last = s.find_last_not_of(" \t\r");
    return s.substr(first, last - first + 1);
}

std::optional<double> number(std::string_view text) {
    const std::string copy(text);  // strtod needs a terminated string
    char* end = nullptr;
    const double value = std::strtod(copy.c_str(), &end);
    if (end == copy.c_str() || *end != '\0') return std::nullopt;
    return value;
}

std::optional<double> lookup(const MetricsSample& sample, std::string_view name) {
    auto it = sample.values.find(name);
    if (it == sample.values.end()) return std::nullopt;
    return it->second;
}

bool is_busy(const core::Json* field) {
    if (!field) return false;
    if (field->is_bool()) return field->as_bool();
    if (field->is_int()) return field->as_int() != 0;
    if (field->is_double()) return std::isfinite(field->as_double()) && field->as_double() != 0.0;
    return false;
}

// "a.b.c" inside `object`; nullptr when any step is missing.
const core::Json* field_at(const core::Json& object, std::string_view dotted) {
    const core::Json* at = &object;
    while (at && !dotted.empty()) {
        const auto dot = dotted.find('.');
        at = at->find(dotted.substr(0, dot));
        dotted = dot == std::string_view::npos ? std::string_view{} : dotted.substr(dot + 1);
    }
    return at;
}

MetricsSample parse_json_iterations(std::string_view text, const core::KindEvidence& spec) {
    MetricsSample sample;
    core::Json root;
    try {
        root = io::parse_json(text, "metrics response");
    } catch (const Error&) {
        return sample;
    }
    if (!root.is_array()) return sample;
    for (const core::Json& step : root.as_array()) {
        const core::Json* value = field_at(step, spec.running_gauge);
        if (!value || !value->is_number() || !std::isfinite(value->as_double())) continue;
        sample.running = std::max(sample.running.value_or(value->as_double()), value->as_double());
    }
    return sample;
}

}  // namespace

SlotsSample parse_slots(std::string_view body, std::string_view busy_field,
                        std::string_view task_field) {
    const core::Json root = io::parse_json(body, "slots response");
    if (!root.is_array()) throw Error(ErrorCategory::Http, "slots response is not an array");
    SlotsSample sample;
    for (const core::Json& slot : root.as_array()) {
        if (!slot.is_object())
            throw Error(ErrorCategory::Http, "slots response holds a non-object entry");
        const std::int64_t place = sample.n_slots++;
        const core::Json* busy = slot.find(busy_field);
        if (busy) ++sample.with_busy_field;
        if (!is_busy(busy)) continue;
        ++sample.busy;
        const core::Json* task = task_field.empty() ? nullptr : slot.find(task_field);
        if (!task || !task->is_int() || task->as_int() < 0) continue;
        const core::Json* id = slot.find("id");
        sample.busy_tasks.push_back({id && id->is_int() ? id->as_int() : place, task->as_int()});
    }
    // Two busy entries claiming one slot say nothing about either.
    std::sort(sample.busy_tasks.begin(), sample.busy_tasks.end(),
              [](const core::BusySlot& a, const core::BusySlot& b) { return a.slot < b.slot; });
    for (std::size_t i = 1; i < sample.busy_tasks.size(); ++i)
        if (sample.busy_tasks[i].slot == sample.busy_tasks[i - 1].slot) {
            sample.busy_tasks.clear();
            break;
        }
    return sample;
}

MetricsSample parse_metrics(std::string_view text, const core::KindEvidence& spec) {
    if (spec.metrics_format == core::MetricsFormat::JsonIterations)
        return parse_json_iterations(text, spec);
    MetricsSample sample;
    while (!text.empty()) {
        const auto newline = text.find('\n');
        std::string_view line = trim(text.substr(0, newline));
        text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
        if (line.empty() || line.front() == '#') continue;
        // name[{labels}] value [timestamp]
        const auto name_end = line.find_first_of("{ \t");
        if (name_end == std::string_view::npos) continue;
        const std::string_view name = line.substr(0, name_end);
        std::string_view rest = line.substr(name_end);
        if (rest.front() == '{') {
            const auto close = rest.find('}');
            if (close == std::string_view::npos) continue;
            rest = rest.substr(close + 1);
        }
        rest = trim(rest);
        const std::string_view value_text = rest.substr(0, rest.find_first_of(" \t"));
        if (auto value = number(value_text))
            sample.values.insert_or_assign(std::string(name), *value);
    }
    const auto named = [&](const std::string& name) -> std::optional<double> {
        if (name.empty()) return std::nullopt;
        return lookup(sample, name);
    };
    sample.running = named(spec.running_gauge);
    sample.step_mean = named(spec.step_mean);
    sample.step_sum = named(spec.step_sum);
    sample.step_count = named(spec.step_count);
    return sample;
}

void OverlapAccumulator::add_slots(const SlotsSample& sample) {
    peak_busy_slots_ = std::max(peak_busy_slots_, sample.busy);
    busy_sum_ += sample.busy;
    ++n_slots_answers_;
    n_slot_entries_ += sample.n_slots;
    n_with_busy_field_ += std::max(sample.with_busy_field, sample.busy);  // a busy one has it
}

void OverlapAccumulator::add_slots(const SlotsSample& sample, std::int64_t start_ns,
                                   std::int64_t end_ns) {
    add_slots(sample);
    busy_samples_.push_back({start_ns, end_ns, sample.busy, sample.busy_tasks});
}

void OverlapAccumulator::mark_unavailable(bool slots, bool metrics) {
    slots_unavailable_ = slots_unavailable_ || slots;
    metrics_unavailable_ = metrics_unavailable_ || metrics;
}

void OverlapAccumulator::add_metrics(const MetricsSample& sample) {
    ++n_metrics_answers_;
    if (sample.running && std::isfinite(*sample.running)) {
        peak_requests_processing_seen_ = true;
        peak_requests_processing_ = std::max(
            peak_requests_processing_, static_cast<std::int64_t>(std::llround(*sample.running)));
    }
    last_answer_had_steps_ = false;
    std::optional<double> steps_sum;
    if (!spec_.step_mean.empty() && sample.step_mean && sample.step_count)
        steps_sum = *sample.step_mean * *sample.step_count;
    else if (!spec_.step_sum.empty() && sample.step_sum)
        steps_sum = sample.step_sum;
    if (steps_sum && sample.step_count && std::isfinite(*steps_sum) &&
        std::isfinite(*sample.step_count)) {
        DecodeSum sum{*steps_sum, *sample.step_count};
        if (!first_) first_ = sum;
        last_ = sum;
        last_answer_had_steps_ = true;
    }
}

void OverlapAccumulator::add_metrics(const MetricsSample& sample, std::int64_t start_ns,
                                     std::int64_t end_ns) {
    add_metrics(sample);
    if (last_answer_had_steps_)
        decode_samples_.push_back({start_ns, end_ns, last_->busy_slot_decodes, last_->decodes});
    if (!spec_.has_slots() && sample.running && std::isfinite(*sample.running))
        busy_samples_.push_back(
            {start_ns, end_ns, static_cast<std::int64_t>(std::llround(*sample.running)), {}});
}

core::ServerOverlapEvidence OverlapAccumulator::evidence() const {
    core::ServerOverlapEvidence out;
    out.peak_busy_slots = peak_busy_slots_;
    out.peak_requests_processing = peak_requests_processing_;
    out.n_samples = n_samples_;
    out.slots_available = !slots_unavailable_ && n_slots_answers_ > 0;
    out.slot_busy_field_absent = n_slot_entries_ > 0 && n_with_busy_field_ == 0;
    out.metrics_available =
        !metrics_unavailable_ && n_metrics_answers_ > 0 && peak_requests_processing_seen_;
    if (n_slots_answers_ > 0)
        out.mean_busy_slots =
            static_cast<double>(busy_sum_) / static_cast<double>(n_slots_answers_);
    out.busy_samples = busy_samples_;
    out.decode_samples = decode_samples_;
    if (first_ && last_) {
        const double decodes = last_->decodes - first_->decodes;
        if (decodes > 0)
            out.mean_busy_slots_per_decode =
                (last_->busy_slot_decodes - first_->busy_slot_decodes) / decodes;
    }
    return out;
}

}  // namespace bi::http
