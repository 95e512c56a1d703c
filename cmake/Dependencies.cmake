# Third-party dependencies, all from Debian packages (see scripts/bootstrap.sh).
find_package(Poco 1.11 REQUIRED COMPONENTS Foundation Net Util)
find_package(RapidJSON REQUIRED)
find_package(cxxopts 3 REQUIRED)
find_package(Threads REQUIRED)
find_package(tomlplusplus 3 REQUIRED)  # models.toml profiles

if(NOT TARGET RapidJSON::RapidJSON)
  add_library(bi_rapidjson INTERFACE)
  target_include_directories(bi_rapidjson SYSTEM INTERFACE ${RapidJSON_INCLUDE_DIRS} ${RAPIDJSON_INCLUDE_DIRS})
  add_library(RapidJSON::RapidJSON ALIAS bi_rapidjson)
endif()

if(BI_BUILD_TESTS)
  find_package(Catch2 2.13 REQUIRED)
  include(Catch)
endif()
