# Runs a libFuzzer binary for SECONDS on a fresh copy of the seed files, then reports the
# executions it made. Fails if the fuzzer found a crash, leak or timeout.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/artifacts)
file(GLOB seeds ${SEEDS}/*.co)
foreach(s ${seeds})
  file(COPY ${s} DESTINATION ${WORK}/corpus)
endforeach()
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -seed=1 -timeout=10 -rss_limit_mb=4096 -max_len=65536
          -print_final_stats=1 -artifact_prefix=${WORK}/artifacts/ ${WORK}/corpus
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX MATCH "Done [0-9]+ runs in [0-9]+ second" done "${err}")
string(REGEX MATCH "stat::number_of_executed_units: *[0-9]+" units "${err}")
message(STATUS "fuzz: ${done}; ${units}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzzer failed (exit ${rc}); artifacts in ${WORK}/artifacts\n${err}")
endif()
