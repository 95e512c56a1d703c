#include "signing.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "core/sha256.hpp"
#include "io/files.hpp"

namespace bi::trust {

namespace {

// A PEM key is a few hundred bytes; anything much larger is not a key file.
constexpr std::uint64_t kMaxKeyFileBytes = std::uint64_t{64} * 1024;

using Pkey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;

std::string raw_public_key(EVP_PKEY* key) {
    unsigned char raw[32];
    std::size_t size = sizeof raw;
    if (EVP_PKEY_get_raw_public_key(key, raw, &size) != 1 || size != sizeof raw) return {};
    return std::string(reinterpret_cast<const char*>(raw), size);
}

std::string key_id_of(EVP_PKEY* key) {
    return "ed25519:" + core::sha256_hex(raw_public_key(key)).substr(0, 16);
}

bool is_ed25519(EVP_PKEY* key) {
    return key && EVP_PKEY_get_base_id(key) == EVP_PKEY_ED25519;
}

Bio memory_bio(const std::string& text) {
    return Bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())), &BIO_free);
}

std::string bio_text(BIO* bio) {
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    return std::string(data, static_cast<std::size_t>(size));
}

// Creates `path` with `mode`, failing when it exists, and writes `text` to it.
void write_new_file(const std::string& path, const std::string& text, mode_t mode) {
    bool created = false;
    try {
        created = io::create_file_atomically(path, text, mode);  // never a partial key
    } catch (const Error& e) {
        usage_error("--out: " + without_bi_prefix(e.what()));
    }
    if (!created)
        usage_error("--out: " + path + ": appeared while keygen ran; it never overwrites a key");
}

Pkey public_key_from_pem(const std::string& text) {
    auto bio = memory_bio(text);
    Pkey key(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free);
    if (key) return key;
    bio = memory_bio(text);  // a private key file stands for its public half
    return Pkey(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free);
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(bytes.data()),
                                  static_cast<int>(bytes.size()));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    if (text.size() % 4 != 0) return std::nullopt;
    for (char c : text)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '='))
            return std::nullopt;
    std::string out(3 * (text.size() / 4) + 1, '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(text.data()),
                                  static_cast<int>(text.size()));
    if (n < 0) return std::nullopt;
    std::size_t size = static_cast<std::size_t>(n);
    for (std::size_t i = text.size(); i > 0 && text[i - 1] == '='; --i) --size;  // the padding
    out.resize(size);
    return out;
}

std::string generate_key_pair(const std::string& private_path) {
    const std::string public_path = private_path + ".pub";
    // Both files are checked first, so a refusal names the pair and writes neither.
    std::error_code ec;
    const bool has_private = std::filesystem::exists(private_path, ec);
    const bool has_public = std::filesystem::exists(public_path, ec);
    if (has_private || has_public)
        usage_error("--out " + private_path + ": " +
                    (has_private && has_public
                         ? private_path + " and " + public_path + " exist"
                         : (has_private ? private_path : public_path) + " exists") +
                    "; keygen writes the pair " + private_path + " and " + public_path +
                    " and never overwrites a key (choose another --out)");
    Pkey key(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"), &EVP_PKEY_free);
    if (!key) throw Error(ErrorCategory::Internal, "OpenSSL could not make an Ed25519 key");
    Bio private_pem(BIO_new(BIO_s_mem()), &BIO_free);
    Bio public_pem(BIO_new(BIO_s_mem()), &BIO_free);
    if (PEM_write_bio_PrivateKey(private_pem.get(), key.get(), nullptr, nullptr, 0, nullptr,
                                 nullptr) != 1 ||
        PEM_write_bio_PUBKEY(public_pem.get(), key.get()) != 1)
        throw Error(ErrorCategory::Internal, "OpenSSL could not encode the key");
    write_new_file(private_path, bio_text(private_pem.get()), 0600);
    try {
        write_new_file(public_path, bio_text(public_pem.get()), 0644);
    } catch (const Error&) {
        std::filesystem::remove(private_path, ec);  // half a pair is no key to hand out
        throw;
    }
    return key_id_of(key.get());
}

SigningKey::SigningKey(void* pkey)
    : pkey_(pkey), key_id_(key_id_of(static_cast<EVP_PKEY*>(pkey))) {}

SigningKey::~SigningKey() {
    EVP_PKEY_free(static_cast<EVP_PKEY*>(pkey_));
}

std::shared_ptr<const SigningKey> SigningKey::load(const std::string& path,
                                                   const std::string& what) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        usage_error(what + " " + path + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) usage_error(what + " " + path + ": not a regular file");
    if ((st.st_mode & 077) != 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        usage_error(what + " " + path + ": the private key is readable by group or others (mode " +
                    mode + "); chmod 600 it");
    }
    const std::string text = io::read_file(path, kMaxKeyFileBytes);
    auto bio = memory_bio(text);
    EVP_PKEY* key = PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr);
    if (!is_ed25519(key)) {
        EVP_PKEY_free(key);
        usage_error(what + " " + path +
                    ": not an Ed25519 private key in PEM form (see bi-run keygen)");
    }
    return std::shared_ptr<const SigningKey>(new SigningKey(key));
}

core::Json SigningKey::signature_for(std::string_view signed_text) const {
    return core::Json::Object{
        {"alg", "ed25519"}, {"key_id", key_id_}, {"value", base64_encode(sign(signed_text))}};
}

std::string SigningKey::sign(std::string_view message) const {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    unsigned char signature[64];
    std::size_t size = sizeof signature;
    if (!ctx ||
        EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, static_cast<EVP_PKEY*>(pkey_)) !=
            1 ||
        EVP_DigestSign(ctx.get(), signature, &size,
                       reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1)
        throw Error(ErrorCategory::Internal, "signing with key " + key_id_ + " failed");
    return std::string(reinterpret_cast<const char*>(signature), size);
}

struct TrustedKeys::Key {
    std::string id;
    std::string path;
    std::shared_ptr<EVP_PKEY> pkey;
};

TrustedKeys::TrustedKeys() = default;
TrustedKeys::~TrustedKeys() = default;
TrustedKeys::TrustedKeys(TrustedKeys&&) noexcept = default;
TrustedKeys& TrustedKeys::operator=(TrustedKeys&&) noexcept = default;

bool TrustedKeys::empty() const {
    return keys_.empty();
}

void TrustedKeys::add(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    std::vector<std::string> files;
    if (fs::is_directory(path, ec)) {
        for (const auto& entry : fs::directory_iterator(path, ec))
            if (entry.is_regular_file() &&
                (entry.path().extension() == ".pub" || entry.path().extension() == ".pem"))
                files.push_back(entry.path().string());
    } else {
        files.push_back(path);
    }
    std::size_t added = 0;
    for (const auto& file : files) {
        std::string text;
        try {
            text = io::read_file(file, kMaxKeyFileBytes);
        } catch (const Error& e) {
            usage_error(std::string("--trusted-key ") + e.what());
        }
        Pkey key = public_key_from_pem(text);
        if (!is_ed25519(key.get())) continue;
        keys_.push_back(
            {key_id_of(key.get()), file, std::shared_ptr<EVP_PKEY>(key.release(), &EVP_PKEY_free)});
        ++added;
    }
    if (added == 0)
        usage_error("--trusted-key " + path + ": holds no Ed25519 public key in PEM form");
}

TrustedKeys::Check TrustedKeys::verify(std::string_view message, const std::string& key_id,
                                       std::string_view signature) const {
    for (const auto& key : keys_) {
        if (key.id != key_id) continue;
        std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                                    &EVP_MD_CTX_free);
        const bool ok =
            ctx &&
            EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.pkey.get()) == 1 &&
            EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                             signature.size(),
                             reinterpret_cast<const unsigned char*>(message.data()),
                             message.size()) == 1;
        return ok ? Check::Verified : Check::BadSignature;
    }
    return Check::UntrustedKey;
}

}  // namespace bi::trust
