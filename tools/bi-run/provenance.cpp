#include "provenance.hpp"

#include <cstdlib>
#include <vector>

#include "bi/version.hpp"
#include "core/error.hpp"
#include "core/utf8.hpp"
#include "io/file_hash_cache.hpp"

namespace bi::cli {

driver::Invocation invocation(const CommandLine& line) {
    driver::Invocation who;
    who.version = BI_VERSION_STRING;
    if (std::string(BI_GIT_COMMIT).size() > 0) who.commit = std::string(BI_GIT_COMMIT);
    who.argv = line.argv;
    return who;
}

std::shared_ptr<const trust::SigningKey> signing_key_option(const std::string& flag_value) {
    return driver::signing_key(flag_value);
}

}  // namespace bi::cli
