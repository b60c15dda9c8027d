# The settings parser's libFuzzer target (settings_fuzz.cc): `cuscope run`'s flag
# parser (lib/cli/run_flags.h, in cuscope_cli_flags), the variables
# and cuscope_start's text. Included by tests/fuzz/CMakeLists.txt; built by
# scripts/fuzz.sh like the other targets (TARGETS=settings).
add_executable(settings_fuzz ${CMAKE_CURRENT_LIST_DIR}/settings_fuzz.cc)
target_include_directories(settings_fuzz PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(settings_fuzz PRIVATE cuscope_cli_flags cuscope_config)
target_link_options(settings_fuzz PRIVATE -fsanitize=fuzzer)
