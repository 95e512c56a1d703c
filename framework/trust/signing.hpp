// Ed25519 keys and signatures (OpenSSL libcrypto) for certs and attestations. A private key is
// read only from a file that its owner alone can read, and its bytes are never printed or logged.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/cert_io.hpp"

namespace bi::trust {

// base64 (RFC 4648, with padding) of bytes, and back; nullopt for text that is not base64.
std::string base64_encode(std::string_view bytes);
std::optional<std::string> base64_decode(std::string_view text);

// Writes a new key pair: `private_path` (PKCS#8 PEM, mode 0600, created, never overwritten) and
// `private_path + ".pub"` (SubjectPublicKeyInfo PEM, 0644). Returns the key id. Throws
// bi::Error(Usage) naming the file when either exists or cannot be written.
std::string generate_key_pair(const std::string& private_path);

// An Ed25519 private key; its id is "ed25519:" + the first 16 hex digits of sha256 over the 32
// raw public key bytes. It signs certs (io::CertSigner) and attestations.
class SigningKey : public io::CertSigner {
public:
    // Throws bi::Error(Usage) naming `what` (the flag or variable) and the file when the file is
    // missing, readable by group or others, or not an Ed25519 private key.
    static std::shared_ptr<const SigningKey> load(const std::string& path, const std::string& what);
    ~SigningKey() override;
    SigningKey(const SigningKey&) = delete;
    SigningKey& operator=(const SigningKey&) = delete;

    const std::string& key_id() const { return key_id_; }
    std::string sign(std::string_view message) const;  // the raw 64-byte signature
    // {"alg": "ed25519", "key_id": ..., "value": base64 of sign(signed_text)}
    core::Json signature_for(std::string_view signed_text) const override;

private:
    explicit SigningKey(void* pkey);
    void* pkey_;  // EVP_PKEY
    std::string key_id_;
};

// Public keys a reader trusts: PEM files (a private key file counts for its public half).
class TrustedKeys {
public:
    TrustedKeys();
    ~TrustedKeys();
    TrustedKeys(TrustedKeys&&) noexcept;
    TrustedKeys& operator=(TrustedKeys&&) noexcept;

    // A file, or a directory whose *.pub and *.pem files are each a key. Throws
    // bi::Error(Usage) naming the path when it holds no Ed25519 public key.
    void add(const std::string& path);
    bool empty() const;

    enum class Check { Verified, UntrustedKey, BadSignature };
    // The signature must come from the trusted key with `key_id` and verify over `message`.
    Check verify(std::string_view message, const std::string& key_id,
                 std::string_view signature) const;

private:
    struct Key;
    std::vector<Key> keys_;
};

}  // namespace bi::trust
