#include "library_loader.hpp"

#include <Poco/Exception.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "plugin_errors.hpp"

namespace bi::plugin_host {

namespace {

namespace fs = std::filesystem;

// dlopen's own message for a text file is obscure; the ELF magic gives a plain one first.
bool has_elf_magic(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw plugin_error(path, std::string("cannot read: ") + std::strerror(errno));
    std::array<char, 4> magic{};
    in.read(magic.data(), magic.size());
    return in.gcount() == 4 && magic[0] == '\x7f' && magic[1] == 'E' && magic[2] == 'L' &&
           magic[3] == 'F';
}

}  // namespace

std::string canonical_plugin_path(const std::string& path) {
    std::error_code ec;
    const fs::path canonical = fs::canonical(path, ec);
    return ec ? path : canonical.string();
}

OpenedLibrary open_plugin_library(const std::string& path) {
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (!fs::exists(status)) throw plugin_error(path, "no such file");
    if (!fs::is_regular_file(status) || !has_elf_magic(path))
        throw plugin_error(path, "not a shared object");

    OpenedLibrary opened;
    // An absolute path keeps dlopen from searching LD_LIBRARY_PATH for a bare "libfoo.so".
    opened.canonical_path = canonical_plugin_path(path);
    opened.library = std::make_unique<Poco::SharedLibrary>();
    try {
        // Local symbols: one plugin's internals never satisfy another's.
        opened.library->load(opened.canonical_path, Poco::SharedLibrary::SHLIB_LOCAL);
    } catch (const Poco::Exception& e) {
        throw plugin_error(path, "cannot load: " + e.message());
    }
    if (!opened.library->hasSymbol(BI_PLUGIN_ENTRY_SYMBOL))
        throw plugin_error(path, "missing entry symbol " BI_PLUGIN_ENTRY_SYMBOL);
    const auto entry =
        reinterpret_cast<bi_plugin_entry_fn>(opened.library->getSymbol(BI_PLUGIN_ENTRY_SYMBOL));
    opened.descriptor = entry();
    if (!opened.descriptor)
        throw plugin_error(path, BI_PLUGIN_ENTRY_SYMBOL " returned no descriptor");
    return opened;
}

}  // namespace bi::plugin_host
