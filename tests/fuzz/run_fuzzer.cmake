# Runs one fuzzer for a bounded time (cmake -P, from the fuzz_<name> ctest test) and prints what it
# did: executions, seconds, corpus size. On a crash, prints the fuzzer's report and how to replay
# the input that caused it.
#   FUZZER      the fuzzer executable
#   SECONDS     how long to fuzz
#   WORK        this fuzzer's writable directory in the build tree
#   SEEDS       the committed seed corpus (only read)
#   DICTIONARY  a libFuzzer dictionary, or empty

foreach(variable FUZZER SECONDS WORK SEEDS)
  if(NOT DEFINED ${variable} OR "${${variable}}" STREQUAL "")
    message(FATAL_ERROR "run_fuzzer.cmake: ${variable} is not set")
  endif()
endforeach()

get_filename_component(name ${FUZZER} NAME)
set(corpus ${WORK}/corpus)
set(artifacts ${WORK}/artifacts)
set(log ${WORK}/last-run.log)
file(MAKE_DIRECTORY ${corpus} ${artifacts})

# New inputs go to the first corpus directory (the build tree's); the seeds are read only.
set(command ${FUZZER} -max_total_time=${SECONDS} -print_final_stats=1 -timeout=10
            -artifact_prefix=${artifacts}/)
if(DICTIONARY)
  list(APPEND command -dict=${DICTIONARY})
endif()
list(APPEND command ${corpus} ${SEEDS})

list(JOIN command " " shown)
message("${name}: ${shown}")
execute_process(COMMAND ${command} OUTPUT_FILE ${log} ERROR_FILE ${log} RESULT_VARIABLE result)
file(READ ${log} output)

if(NOT result EQUAL 0)
  file(GLOB found ${artifacts}/*)
  message("${output}")
  message(FATAL_ERROR "${name} failed (exit ${result}); inputs it kept: ${found}\n"
                      "Replay one with: ${FUZZER} <input>")
endif()

file(GLOB seeds ${SEEDS}/*)
file(GLOB kept ${corpus}/*)
list(LENGTH seeds seedCount)
list(LENGTH kept keptCount)
string(REGEX MATCH "Done [0-9]+ runs in [0-9]+ second\\(s\\)" done "${output}")
string(REGEX MATCHALL "stat::[a-z_]+: *[0-9]+" stats "${output}")
message("${name}: ${done}; ${seedCount} seed inputs, ${keptCount} inputs in ${corpus}")
foreach(line ${stats})
  message("${name}: ${line}")
endforeach()
