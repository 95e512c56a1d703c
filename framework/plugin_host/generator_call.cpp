#include "generator_call.hpp"

#include <cmath>
#include <cstddef>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "descriptor_check.hpp"
#include "host_services.hpp"
#include "io/json_text.hpp"
#include "plugin_errors.hpp"

namespace bi::plugin_host {

namespace {

constexpr std::uint32_t kRowMinSize =
    offsetof(bi_workset_row, expected_answer_json) + sizeof(bi_workset_row::expected_answer_json);

// Collects rows; the first invalid row is refused and remembered, so its reason is reported
// rather than whatever the generator makes of the refusal.
struct RowCollector {
    core::Json rows = core::Json::array();
    std::string refusal;
    std::string error;

    static RowCollector& of(void* host_data) { return *static_cast<RowCollector*>(host_data); }

    static std::int32_t add_row(void* host_data, const bi_workset_row* row) noexcept {
        RowCollector& self = of(host_data);
        try {
            if (!self.refusal.empty()) return BI_STATUS_INVALID_ARGUMENT;
            self.rows.push_back(self.convert(row));
            return BI_STATUS_OK;
        } catch (const std::exception& e) {
            self.refusal = e.what();
        } catch (...) {
            self.refusal = "row " + std::to_string(self.rows.size()) + ": cannot be stored";
        }
        return BI_STATUS_INVALID_ARGUMENT;
    }

    static void set_error(void* host_data, const char* message) noexcept {
        try {
            of(host_data).error = message ? message : "";
        } catch (...) {
        }
    }

    core::Json convert(const bi_workset_row* row) const {
        const std::string where = "row " + std::to_string(rows.size());
        if (!row) throw std::runtime_error(where + " is NULL");
        if (row->struct_size < kRowMinSize || row->struct_size > kMaxStructSize)
            throw std::runtime_error(
                where + ": bad struct_size " + std::to_string(row->struct_size) + " (expected " +
                std::to_string(kRowMinSize) + ".." + std::to_string(kMaxStructSize) + ")");
        if (!row->prompt || !*row->prompt) throw std::runtime_error(where + ": empty prompt");
        if (!row->family || !*row->family) throw std::runtime_error(where + ": empty family");
        if (!std::isfinite(row->fill) || row->fill < 0.0 || row->fill > 1.0)
            throw std::runtime_error(where + ": fill " + std::to_string(row->fill) +
                                     " is outside 0..1");
        core::Json expected;
        if (row->expected_answer_json) {
            try {
                expected = io::parse_json(row->expected_answer_json, "expected_answer_json");
            } catch (const Error& e) {
                throw std::runtime_error(where + ": " + e.what());
            }
        }
        core::Json out = core::Json::object();
        out.set("prompt", std::string(row->prompt));
        out.set("family", std::string(row->family));
        out.set("fill", row->fill);
        out.set("expected_answer", std::move(expected));
        if (row->system && *row->system) out.set("system", std::string(row->system));
        return out;
    }
};

}  // namespace

core::Json call_generator(const LoadedPlugin& plugin, const GeneratorTable& generator,
                          const GenerationRequest& request, const TokenCounter& count_tokens,
                          const PluginLogger& logger) {
    std::vector<bi_param> params;
    params.reserve(request.parameters.size());
    for (const auto& [key, value] : request.parameters)
        params.push_back({key.c_str(), value.c_str()});
    bi_generate_request c_request{};
    c_request.struct_size = sizeof c_request;
    c_request.model_id = request.model_id.c_str();
    c_request.ctx = request.ctx;
    c_request.seed = request.seed;
    c_request.params = params.data();
    c_request.param_count = static_cast<std::uint32_t>(params.size());

    const HostServicesBridge host(plugin.name, count_tokens, logger);
    RowCollector collector;
    bi_workset_sink sink{};
    sink.struct_size = sizeof sink;
    sink.host_data = &collector;
    sink.add_row = &RowCollector::add_row;
    sink.set_error = &RowCollector::set_error;

    const std::int32_t status =
        generator.table.generate(generator.original, &c_request, host.services(), &sink);
    const std::string who = "generator '" + generator.id + "'";
    if (!collector.refusal.empty()) throw plugin_error(plugin.path, who + ": " + collector.refusal);
    if (status != BI_STATUS_OK)
        throw plugin_error(plugin.path,
                           who + ": generate " + describe_call_failure(status, collector.error));
    if (collector.rows.size() == 0) throw plugin_error(plugin.path, who + " produced no rows");
    return std::move(collector.rows);
}

}  // namespace bi::plugin_host
