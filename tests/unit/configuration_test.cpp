#include <catch2/catch.hpp>

#include <algorithm>

#include "core/configuration.hpp"

using namespace bi;

namespace {

core::Cert live_cert() {
    core::Cert cert;
    cert.source = core::Source::Live;
    cert.cell = {"tiny", 4096, 4, "f16", 1};
    cert.model_file = core::ModelFileRecord{};
    cert.model_file->path = "/m/tiny.gguf";
    cert.model_file->size = 1000;
    cert.model_file->sha256_head = "abc";
    cert.server = core::ServerRecord{};
    cert.server->n.binary_sha256 = "b1";
    cert.promotion_scope.server_flags = std::vector<std::string>{"--flash-attn", "on"};
    core::RunRecord run;
    run.scorer = "exact";
    run.workset = "ws.json";
    run.endpoint = "chat";
    run.n_predict = 64;
    cert.run = run;
    return cert;
}

bool unknown(const core::Cert& cert, const std::string& key) {
    const auto keys = core::unknown_configuration_keys(cert);
    return std::find(keys.begin(), keys.end(), key) != keys.end();
}

}  // namespace

TEST_CASE("configuration id ignores what varies between runs of one deployment", "[config]") {
    const auto base = live_cert();
    auto other = base;
    other.ts_utc = "2027-01-01T00:00:00Z";
    other.verdict.status = core::Status::Failed;
    other.server->n.port = 9999;
    other.server->n.pid = 4242;
    CHECK(core::configuration_id(other) == core::configuration_id(base));
    CHECK(core::configuration_id(base).rfind("cfg-", 0) == 0);
    CHECK(core::configuration_id(base).size() == 20);
}

TEST_CASE("configuration id changes with every part of the deployment", "[config]") {
    const auto base = live_cert();
    const auto id = core::configuration_id(base);
    auto changed = [&](auto edit) {
        auto cert = base;
        edit(cert);
        return core::configuration_id(cert) != id;
    };
    CHECK(changed([](core::Cert& c) { c.server->n.binary_sha256 = "b2"; }));
    CHECK(changed([](core::Cert& c) { c.model_file->sha256_head = "abd"; }));
    CHECK(changed([](core::Cert& c) { c.model_file->sha256 = "full"; }));
    CHECK(changed([](core::Cert& c) { c.cell.ctx = 8192; }));
    CHECK(changed([](core::Cert& c) { c.cell.dispatch_n = 8; }));
    CHECK(changed([](core::Cert& c) { c.cell.kv_label = "q8_0"; }));
    CHECK(changed([](core::Cert& c) { c.promotion_scope.server_flags->push_back("-b"); }));
    CHECK(changed([](core::Cert& c) { c.run->scorer = "spark"; }));
    CHECK(changed([](core::Cert& c) { c.run->workset = "other.json"; }));
    CHECK(changed([](core::Cert& c) { c.run->n_predict = 128; }));
    CHECK(changed([](core::Cert& c) { c.source = core::Source::Mock; }));
    // Flags are an ordered list: joining must not let two lists collide.
    CHECK(changed([](core::Cert& c) {
        c.promotion_scope.server_flags = std::vector<std::string>{"--flash-attn on"};
    }));
}

TEST_CASE("a configuration missing its binary or model hash is not provably equal", "[config]") {
    auto cert = live_cert();
    CHECK(core::unknown_configuration_keys(cert).empty());
    cert.server->n.binary_sha256.reset();
    CHECK(unknown(cert, "binary_sha256"));
    cert.model_file.reset();
    CHECK(unknown(cert, "model_sha256"));
    cert.run->workset.reset();
    CHECK(unknown(cert, "workset"));
    cert.run->generator = "spark";
    CHECK_FALSE(unknown(cert, "workset"));
}

TEST_CASE("a prefill chunk is part of the configuration, and a cell without one keeps its id",
          "[config]") {
    const auto base = live_cert();
    const auto fields = core::configuration_fields(base);
    CHECK(std::none_of(fields.begin(), fields.end(),
                       [](const auto& field) { return field.key == "prefill_chunk"; }));
    // The id of a cell without a chunk, pinned: chunks that can be set change no older id.
    CHECK(core::configuration_id(base) == "cfg-5dd5c074752b78be");
    auto chunked = base;
    chunked.run->prefill_chunk = 256;
    auto other = base;
    other.run->prefill_chunk = 512;
    CHECK(core::configuration_id(chunked) != core::configuration_id(base));
    CHECK(core::configuration_id(chunked) != core::configuration_id(other));
    CHECK(core::configuration_fields(chunked).back().key == "prefill_chunk");
    CHECK(core::configuration_fields(chunked).back().value == "256");
    CHECK_FALSE(unknown(base, "prefill_chunk"));
    CHECK_FALSE(unknown(chunked, "prefill_chunk"));
}
