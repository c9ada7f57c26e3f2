# examples/train_compiled (docs/training.md): the steps its CMakeLists.txt gives, in a scratch folder WORK: weft
# compile trainer.model into generated/, build the folder with CMake, train 5 epochs of
# Fashion-MNIST with the generated code and save the trained state. The test accuracy must reach
# 0.87, the saved weights must load in Weft and classify as the compiled code did, and a missing
# dataset folder must be an error that names the package to install.
# Arguments: -DWEFT=... -DDIR=examples/train_compiled -DWORK=a scratch folder [-DGENERATE_ONLY=ON]
include(${CMAKE_CURRENT_LIST_DIR}/compiled_cases.cmake)  # run()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/trained)
file(COPY ${DIR}/trainer.model ${DIR}/main.cpp ${DIR}/CMakeLists.txt DESTINATION ${WORK})
run(${WEFT} compile ${WORK}/trainer.model -o ${WORK}/generated)
if(GENERATE_ONLY)  # a sanitized build of weft (tests/CMakeLists.txt)
  return()
endif()
run(${CMAKE_COMMAND} -S ${WORK} -B ${WORK}/build -G Ninja -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK}/build -j2)

run(${WORK}/build/fashion_mnist_train --save ${WORK}/trained)
message("${last_output}")
if(NOT last_output MATCHES "epoch 5/5: 938 steps" OR NOT last_output MATCHES "test accuracy [0-9.]+ \\(([0-9]+) of 10000\\)")
  message(FATAL_ERROR "the compiled training did not report 5 epochs and a test accuracy")
endif()
set(correct ${CMAKE_MATCH_1})
if(correct LESS 8700)  # 0.875 with this shuffling (Weft's fit, shuffling its own way: 0.881)
  message(FATAL_ERROR "test accuracy ${correct} of 10000 < 0.87")
endif()

# The trained weights, back in Weft: the same model with them loaded classifies the test images as
# the compiled code did (up to a few images whose two best logits differ in the last bits: the
# compiled code adds the bias before the product accumulates, the interpreter after).
file(WRITE ${WORK}/check.model "
(x_train, y_train), (x_test, y_test) = fashion_mnist()
model = Sequential([Dense(512, activation=\"relu\", input_shape=[784]), Dense(512, activation=\"relu\"), Dense(10)])
for i, name in enumerate([\"dense\", \"dense_1\", \"dense_2\"]) {
  model.layers[i].kernel.assign(load_npy(f\"trained/{name}_kernel.npy\"))
  model.layers[i].bias.assign(load_npy(f\"trained/{name}_bias.npy\"))
}
predicted = argmax(model(reshape(x_test, [-1, 784])), axis=-1)
print(sum(cast(predicted == y_test, i32)))
")
execute_process(COMMAND ${WEFT} run check.model WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
string(STRIP "${out}" out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^[0-9]+$")
  message(FATAL_ERROR "the saved weights in Weft failed (${rc}): ${out}\n${err}")
endif()
math(EXPR apart "${out} - ${correct}")
if(apart GREATER 5 OR apart LESS -5)
  message(FATAL_ERROR "the saved weights in Weft classify ${out} test images right, the compiled code ${correct}")
endif()

execute_process(COMMAND ${WORK}/build/fashion_mnist_train --data ${WORK}/nowhere RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "apt-get install dataset-fashion-mnist")
  message(FATAL_ERROR "a missing dataset was not reported (${rc}): ${err}")
endif()
