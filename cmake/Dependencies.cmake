# Third-party dependencies, all from Debian packages (see scripts/bootstrap.sh).
find_package(Poco 1.11 REQUIRED COMPONENTS Foundation Net Util)
find_package(RapidJSON REQUIRED)
find_package(cxxopts 3 REQUIRED)
# cxxopts without <regex>: its std::regex patterns are namespace-scope objects, compiled into
# every translation unit that includes the header (about 5 s each at -O2 -g, most of the CLI's
# build time); its own matcher reads the same option syntax.
set_property(TARGET cxxopts::cxxopts APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS CXXOPTS_NO_REGEX)
find_package(Threads REQUIRED)
find_package(tomlplusplus 3 REQUIRED)  # models.toml profiles
find_package(OpenSSL 3 REQUIRED COMPONENTS Crypto)  # Ed25519 cert signatures (libssl-dev)

if(NOT TARGET RapidJSON::RapidJSON)
  add_library(bi_rapidjson INTERFACE)
  target_include_directories(bi_rapidjson SYSTEM INTERFACE ${RapidJSON_INCLUDE_DIRS} ${RAPIDJSON_INCLUDE_DIRS})
  add_library(RapidJSON::RapidJSON ALIAS bi_rapidjson)
endif()
# RapidJSON 1.1.0's internal::Stack adds to its null pointer on the first push of every parse
# and write (stack.h Reserve; fixed upstream after 1.1.0, which is what Debian ships). That UB is
# in no input's control and would end every sanitized run at the first JSON text, so code that
# includes RapidJSON is built without the pointer-overflow check; every other check stays.
if(BI_SANITIZE OR BI_FUZZ)
  get_target_property(bi_rapidjson_target RapidJSON::RapidJSON ALIASED_TARGET)
  if(NOT bi_rapidjson_target)
    set(bi_rapidjson_target RapidJSON::RapidJSON)
  endif()
  set_property(TARGET ${bi_rapidjson_target} APPEND PROPERTY INTERFACE_COMPILE_OPTIONS
               -fno-sanitize=pointer-overflow)
endif()

if(BI_BUILD_TESTS)
  find_package(Catch2 2.13 REQUIRED)
  include(Catch)
endif()
