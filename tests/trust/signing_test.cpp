// Ed25519 keys and cert signatures: round trip, any content byte changed, wrong key, key files
// readable by others refused, and nothing of the private key in any message.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <functional>

#include "core/cert.hpp"
#include "core/error.hpp"
#include "io/cert_io.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "scratch_dir.hpp"
#include "trial_builders.hpp"
#include "trust/cert_signature.hpp"
#include "trust/signing.hpp"

using namespace bi;

namespace {

core::Cert green_cert() {
    return core::build_cert(testing::fixed_cert_context(),
                            core::decide_verdict(testing::clean_cell(6, 2)));
}

trust::TrustedKeys trusting(const std::string& public_path) {
    trust::TrustedKeys keys;
    keys.add(public_path);
    return keys;
}

std::string usage_message(const std::function<void()>& call) {
    try {
        call();
    } catch (const Error& e) {
        CHECK(e.category() == ErrorCategory::Usage);
        return e.what();
    }
    FAIL("no error");
    return "";
}

}  // namespace

TEST_CASE("base64 round trip, and text that is not base64", "[signing]") {
    for (std::string bytes : {std::string(""), std::string("a"), std::string("ab"),
                              std::string("abc"), std::string("\0\xff\x10 x", 5)}) {
        const auto text = trust::base64_encode(bytes);
        CHECK(text.size() % 4 == 0);
        REQUIRE(trust::base64_decode(text));
        CHECK(*trust::base64_decode(text) == bytes);
    }
    CHECK(trust::base64_encode("abc") == "YWJj");
    CHECK_FALSE(trust::base64_decode("YWJ"));
    CHECK_FALSE(trust::base64_decode("YW*j"));
}

TEST_CASE("keygen writes a 0600 private key and a public key, and never overwrites", "[signing]") {
    testing::ScratchDir dir;
    const auto key = dir.file("k");
    const auto id = trust::generate_key_pair(key);
    CHECK(id.rfind("ed25519:", 0) == 0);
    CHECK(id.size() == 8 + 16);
    struct stat st {};
    REQUIRE(::stat(key.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    CHECK(testing::read_text(key + ".pub").find("BEGIN PUBLIC KEY") != std::string::npos);
    CHECK(trust::SigningKey::load(key, "--sign-key")->key_id() == id);
    const auto message = usage_message([&] { trust::generate_key_pair(key); });
    CHECK(message.find("never overwrites") != std::string::npos);
}

TEST_CASE("a signed cert verifies with its key and reports the key id", "[signing]") {
    testing::ScratchDir dir;
    trust::generate_key_pair(dir.file("k"));
    const auto key = trust::SigningKey::load(dir.file("k"), "--sign-key");
    const auto text = io::render_cert(green_cert(), key.get());
    const auto document = io::parse_json(text, "cert");
    REQUIRE(document.find("signature"));
    CHECK(document.find("signature")->string_or("key_id", "") == key->key_id());
    CHECK(document.find("signature")->string_or("alg", "") == "ed25519");
    CHECK(trust::check_cert_signature(document, trusting(dir.file("k.pub"))) ==
          trust::SignatureState::Verified);
    // The digest is the same as an unsigned render's: a signature adds, it does not change.
    const auto unsigned_doc = io::parse_json(io::render_cert(green_cert()), "cert");
    CHECK(*document.find("digest") == *unsigned_doc.find("digest"));
    CHECK(trust::check_cert_signature(unsigned_doc, trusting(dir.file("k.pub"))) ==
          trust::SignatureState::Unsigned);
    // A directory of keys is trusted as a whole.
    trust::TrustedKeys directory;
    directory.add(dir.path());
    CHECK(trust::check_cert_signature(document, directory) == trust::SignatureState::Verified);
}

TEST_CASE("changing any byte of a signed cert's content fails its signature", "[signing]") {
    testing::ScratchDir dir;
    trust::generate_key_pair(dir.file("k"));
    const auto key = trust::SigningKey::load(dir.file("k"), "--sign-key");
    const auto trusted = trusting(dir.file("k.pub"));
    const std::string text = io::render_cert(green_cert(), key.get());
    const auto original = io::cert_signed_text(io::parse_json(text, "cert"));
    std::size_t checked = 0;
    for (std::size_t i = 0; i < text.size(); i += 3) {
        std::string edited = text;
        edited[i] = edited[i] == '1' ? '2' : '1';
        core::Json document;
        try {
            document = io::parse_json(edited, "edited");
        } catch (const Error&) {
            continue;  // no longer JSON: refused before any signature is read
        }
        if (!document.is_object() || io::cert_signed_text(document) == original) continue;
        INFO("byte " << i);
        CHECK(trust::check_cert_signature(document, trusted) != trust::SignatureState::Verified);
        ++checked;
    }
    CHECK(checked > 100);
}

TEST_CASE("a signature by another key is untrusted, and a forged one does not verify",
          "[signing]") {
    testing::ScratchDir dir;
    trust::generate_key_pair(dir.file("mine"));
    trust::generate_key_pair(dir.file("theirs"));
    const auto theirs = trust::SigningKey::load(dir.file("theirs"), "--sign-key");
    auto document = io::parse_json(io::render_cert(green_cert(), theirs.get()), "cert");
    const auto mine = trusting(dir.file("mine.pub"));
    CHECK(trust::check_cert_signature(document, mine) == trust::SignatureState::UntrustedKey);
    // Claiming the trusted key's id does not make their signature verify.
    document["signature"].set("key_id", trust::SigningKey::load(dir.file("mine"), "k")->key_id());
    CHECK(trust::check_cert_signature(document, mine) == trust::SignatureState::BadSignature);
    document["signature"].set("value", "not base64!");
    CHECK(trust::check_cert_signature(document, mine) == trust::SignatureState::Malformed);
}

TEST_CASE("a private key readable by group or others is refused, naming the file", "[signing]") {
    testing::ScratchDir dir;
    const auto key = dir.file("k");
    trust::generate_key_pair(key);
    const std::string pem = testing::read_text(key);
    for (mode_t mode : {0640, 0604, 0644}) {
        REQUIRE(::chmod(key.c_str(), mode) == 0);
        const auto message = usage_message([&] { trust::SigningKey::load(key, "--sign-key"); });
        CHECK(message.find("--sign-key " + key) != std::string::npos);
        CHECK(message.find("readable by group or others") != std::string::npos);
        CHECK(message.find("PRIVATE KEY") == std::string::npos);
        CHECK(message.find(pem.substr(30, 20)) == std::string::npos);
    }
    REQUIRE(::chmod(key.c_str(), 0600) == 0);
    const auto not_a_key = dir.write("junk", "hello");
    ::chmod(not_a_key.c_str(), 0600);
    CHECK(usage_message([&] {
              trust::SigningKey::load(not_a_key, "$BI_SIGN_KEY");
          }).find("not an Ed25519 private key") != std::string::npos);
    CHECK(usage_message([&] {
              trust::TrustedKeys keys;
              keys.add(not_a_key);
          }).find("holds no Ed25519 public key") != std::string::npos);
}
