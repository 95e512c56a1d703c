#include "expectations.hpp"

#include "core/error.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"

namespace bi::trust {

core::Expectation parse_expectation(const std::string& text, const std::string& where) {
    const auto eq = text.find('=');
    const std::string key = eq == std::string::npos ? text : text.substr(0, eq);
    if (eq == std::string::npos || key.empty())
        throw Error(ErrorCategory::Usage, where + " " + text + ": expected KEY=VALUE");
    if (!core::known_expectation_key(key)) {
        std::string keys;
        for (auto k : core::expectation_keys()) keys += (keys.empty() ? "" : ", ") + std::string(k);
        throw Error(ErrorCategory::Usage,
                    where + " " + text + ": unknown key '" + key + "' (one of " + keys + ")");
    }
    return {key, text.substr(eq + 1)};
}

std::vector<core::Expectation> read_deployment_file(const std::string& path) {
    const std::string where = "--expect-deployment " + path;
    core::Json document;
    try {
        document = io::parse_json(io::read_file(path), path);
    } catch (const Error& e) {
        throw Error(ErrorCategory::Usage, "--expect-deployment: " + std::string(e.what()));
    }
    if (!document.is_object()) throw Error(ErrorCategory::Usage, where + ": not a JSON object");
    std::vector<core::Expectation> out;
    const auto add = [&](const std::string& key, const core::Json& value) {
        if (value.is_string())
            out.push_back(parse_expectation(key + "=" + value.as_string(), where));
        else if (value.is_int())
            out.push_back(parse_expectation(key + "=" + std::to_string(value.as_int()), where));
        else
            throw Error(ErrorCategory::Usage,
                        where + ": " + key + " must be a string, an integer or a list of them");
    };
    for (const auto& [key, value] : document.as_object()) {
        if (value.is_array())
            for (const auto& item : value.as_array()) add(key, item);
        else
            add(key, value);
    }
    return out;
}

}  // namespace bi::trust
