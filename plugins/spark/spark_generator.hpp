// The "spark" work-set generator: one row per (family, fill of the corner), family-major.
#pragma once

#include <bi/plugin.hpp>

namespace spark {

// The system message of every row.
inline constexpr const char* kSystemMessage =
    "You are a careful software engineering assistant. Answer in exactly the format the question "
    "asks for.";

class SparkGenerator final : public bi::sdk::WorksetGenerator {
public:
    void generate(const bi::sdk::GenerateRequest& request, const bi::sdk::HostServices& host,
                  bi::sdk::RowSink& rows) override;
};

}  // namespace spark
