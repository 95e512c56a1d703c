#include "sweep_plan.hpp"

#include <algorithm>
#include <charconv>
#include <tuple>

#include "error.hpp"

namespace bi::core {

namespace {

std::optional<long long> whole_number(const std::string& text) {
    long long value = 0;
    const char* end = text.data() + text.size();
    const auto [stop, err] = std::from_chars(text.data(), end, value);
    if (text.empty() || err != std::errc() || stop != end) return std::nullopt;
    return value;
}

[[noreturn]] void bad_variable(const std::string& name, const std::string& value,
                               const std::string& why) {
    throw Error(ErrorCategory::Usage, name + "=" + value + ": " + why);
}

long long required_number(const EnvLookup& env, const std::string& name) {
    const auto text = env(name);
    if (!text) throw Error(ErrorCategory::Usage, name + " is not set; the shard count needs it");
    const auto value = whole_number(*text);
    if (!value) bad_variable(name, *text, "expected a whole number");
    return *value;
}

ShardChoice checked(long long index, long long count, std::string source,
                    const std::string& index_name) {
    if (count < 1 || count > 1000000)
        throw Error(ErrorCategory::Usage,
                    source + ": a shard count of " + std::to_string(count) + " is not usable");
    if (index < 0 || index >= count)
        throw Error(ErrorCategory::Usage, index_name + " gives shard " + std::to_string(index) +
                                              ", outside 0.." + std::to_string(count - 1));
    return {{static_cast<int>(index), static_cast<int>(count)}, std::move(source)};
}

std::string shown(const std::string& name, const std::string& value) {
    return name + "=" + value;
}

}  // namespace

void sort_plan(SweepPlan& plan) {
    for (auto& group : plan.groups) {
        std::sort(group.parallels.begin(), group.parallels.end());
        group.parallels.erase(std::unique(group.parallels.begin(), group.parallels.end()),
                              group.parallels.end());
    }
    std::stable_sort(plan.groups.begin(), plan.groups.end(),
                     [](const PlanGroup& a, const PlanGroup& b) {
                         return std::tie(a.model, a.ctx) < std::tie(b.model, b.ctx);
                     });
}

std::vector<std::size_t> shard_groups(std::size_t n_groups, const Shard& shard) {
    std::vector<std::size_t> mine;
    if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count) return mine;
    for (std::size_t i = static_cast<std::size_t>(shard.index); i < n_groups;
         i += static_cast<std::size_t>(shard.count))
        mine.push_back(i);
    return mine;
}

std::optional<Shard> parse_shard(const std::string& text) {
    const auto slash = text.find('/');
    if (slash == std::string::npos) return std::nullopt;
    const auto index = whole_number(text.substr(0, slash));
    const auto count = whole_number(text.substr(slash + 1));
    if (!index || !count || *count < 1 || *count > 1000000 || *index < 0 || *index >= *count)
        return std::nullopt;
    return Shard{static_cast<int>(*index), static_cast<int>(*count)};
}

std::optional<ShardChoice> shard_from_environment(const EnvLookup& env,
                                                  std::optional<int> shard_count) {
    const auto count_or = [&](long long from_env) {
        return shard_count ? static_cast<long long>(*shard_count) : from_env;
    };
    if (const auto id = env("SLURM_ARRAY_TASK_ID")) {
        const auto value = whole_number(*id);
        if (!value) bad_variable("SLURM_ARRAY_TASK_ID", *id, "expected a whole number");
        long long base = 0;
        if (env("SLURM_ARRAY_TASK_MIN")) base = required_number(env, "SLURM_ARRAY_TASK_MIN");
        const long long count =
            shard_count ? *shard_count : required_number(env, "SLURM_ARRAY_TASK_COUNT");
        std::string source = "Slurm job array (" + shown("SLURM_ARRAY_TASK_ID", *id) +
                             ", SLURM_ARRAY_TASK_MIN=" + std::to_string(base) + ", count " +
                             std::to_string(count) + ")";
        return checked(*value - base, count, std::move(source), "SLURM_ARRAY_TASK_ID");
    }
    if (const auto index = env("JOB_COMPLETION_INDEX")) {
        const auto value = whole_number(*index);
        if (!value) bad_variable("JOB_COMPLETION_INDEX", *index, "expected a whole number");
        if (!shard_count)
            throw Error(ErrorCategory::Usage,
                        "JOB_COMPLETION_INDEX is set (Kubernetes Indexed Job): give --shard-count "
                        "M, the Job's completions");
        return checked(*value, *shard_count,
                       "Kubernetes Indexed Job (" + shown("JOB_COMPLETION_INDEX", *index) +
                           ", --shard-count " + std::to_string(*shard_count) + ")",
                       "JOB_COMPLETION_INDEX");
    }
    if (const auto index = env("CI_NODE_INDEX")) {
        const auto value = whole_number(*index);
        if (!value) bad_variable("CI_NODE_INDEX", *index, "expected a whole number (1-based)");
        const long long count = count_or(required_number(env, "CI_NODE_TOTAL"));
        return checked(*value - 1, count,
                       "GitLab parallel job (" + shown("CI_NODE_INDEX", *index) + " of " +
                           std::to_string(count) + ", 1-based)",
                       "CI_NODE_INDEX");
    }
    if (const auto index = env("BI_SHARD_INDEX")) {
        const auto value = whole_number(*index);
        if (!value) bad_variable("BI_SHARD_INDEX", *index, "expected a whole number (0-based)");
        const long long count = count_or(required_number(env, "BI_SHARD_COUNT"));
        return checked(*value, count,
                       "explicit environment (" + shown("BI_SHARD_INDEX", *index) + ", count " +
                           std::to_string(count) + ")",
                       "BI_SHARD_INDEX");
    }
    return std::nullopt;
}

}  // namespace bi::core
