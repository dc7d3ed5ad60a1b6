# Writes OUTPUT, a C file defining one string constant per input file:
#   cmake -DOUTPUT=out.c -DINPUTS=name1=file1,name2=file2 -P embed.cmake
# The kernel sources are built into islandpso so NVRTC can compile them at
# run time without the source tree.
set(body "/* Generated from the kernel sources by kernels/embed.cmake. */\n")
string(REPLACE "," ";" INPUTS "${INPUTS}")
foreach(pair IN LISTS INPUTS)
  string(REPLACE "=" ";" parts "${pair}")
  list(GET parts 0 name)
  list(GET parts 1 file)
  file(READ "${file}" text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n\"\n\"" text "${text}")
  string(APPEND body "const char ${name}[] =\n\"${text}\";\n")
endforeach()
file(WRITE "${OUTPUT}.tmp" "${body}")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
