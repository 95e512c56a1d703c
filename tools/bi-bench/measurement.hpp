// One benchmark number with the setup it was measured under and, where the project has one, its
// target. Missing a target is reported, never an error.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bi::bench {

struct Target {
    bool at_least = true;  // true: value >= threshold meets it; false: value < threshold does
    double threshold = 0.0;
    bool met_by(double value) const { return at_least ? value >= threshold : value < threshold; }
};

struct Detail {
    std::string key;  // snake_case, used as a JSON key
    double value = 0.0;
    std::string unit;
};

struct Measurement {
    std::string key;    // stable machine name, e.g. "dispatch_in_process_n16"
    std::string title;  // what a reader sees in the table
    double value = 0.0;
    std::string unit;
    std::string setup;  // how it was measured, one line
    std::optional<Target> target;
    std::vector<Detail> details;
    double load_1m = 0.0;  // load average when the measurement started

    void add(std::string detail_key, double detail_value, std::string detail_unit = {}) {
        details.push_back({std::move(detail_key), detail_value, std::move(detail_unit)});
    }
};

// How much a measurement may do; --quick shrinks every count.
struct BenchLimits {
    int trials = 10000;                   // dispatcher runs and the RSS run
    std::vector<int> workers{4, 16, 64};  // dispatcher concurrency levels
    int clients = 64;                     // concurrent clients for mock throughput
    int requests = 20000;                 // requests per mock-throughput run
    int n_predict = 8;
    int verdict_ids = 10000;
    int verdict_passes = 4;
    int rss_concurrency = 16;
    double time_limit_s = 30.0;  // each run stops early (and says so) past this
};

}  // namespace bi::bench
